// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The tokenizer pipeline, the same stages in the same order as Hugging Face `tokenizers`:
//
//   text ─▶ added tokens (not normalized) ─▶ normalizer ─▶ added tokens (normalized) ─▶ pre-tokenizer ─▶ model
//        ─▶ truncation ─▶ post-processor (framing, type ids, offset trimming)
//   decode: ids ─▶ tokens ─▶ decoder ─▶ text
//
// Pieces travel as NormalizedText (normalized.h): characters with the byte range of the original text each one
// aligns to, so token offsets point into the caller's text however normalization changed it. A Sequence component
// is stored flattened: its members in order, which is what applying a Sequence means.

#include "normalized.h"
#include "regex.h"

#include <attnscope/tokenizer.h>

#include <array>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <variant>
#include <vector>

namespace attn::tokenizer {

// std::string keys looked up with string_views, without a temporary string.
struct StringHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};
using Vocab = std::unordered_map<std::string, std::int32_t, StringHash, std::equal_to<>>;

// A token out of the model or the added-token split: id, its string, byte range in the original text.
struct Piece {
    std::int32_t id;
    std::string token;
    std::uint32_t begin, end;
};

// A byte trie over distinct keys with an int32 value each; a node's edges are contiguous and sorted by byte.
struct ByteTrie {
    struct Node {
        std::uint32_t firstEdge = 0, edgeCount = 0;
        std::int32_t value = -1;
    };
    std::vector<Node> nodes{Node{}};
    std::vector<std::pair<std::uint8_t, std::uint32_t>> edges;

    // keys: sorted by byte string, distinct.
    void build(const std::vector<std::pair<std::string, std::int32_t>> &keys);
    // The child of `node` by `byte`, or -1.
    std::int64_t child(std::uint32_t node, std::uint8_t byte) const;
};

// ---- normalizer -------------------------------------------------------------------------------------------
class Precompiled; // precompiled.h

struct NormalizerStep {
    enum class Kind {
        Bert, Lowercase, Nfd, Nfkd, Nfc, Nfkc, StripAccents, Strip, Prepend, Replace, Precompiled, Nmt, ByteLevel
    } kind;
    NormalizerStep(Kind k) : kind(k) {}
    bool cleanText = true, chineseChars = true, stripAccents = false, lowercase = false; // BertNormalizer
    bool left = false, right = false;                                                    // Strip
    std::u32string content;                                                              // Prepend, Replace
    std::optional<Regex> regex;                                                          // Replace
    std::shared_ptr<const Precompiled> precompiled;
};
void normalize(const std::vector<NormalizerStep> &steps, NormalizedText &text);

// ---- pre-tokenizer ----------------------------------------------------------------------------------------
enum class PrependScheme { Always, First, Never };

struct PreTokenizerStep {
    enum class Kind {
        Bert, ByteLevel, Metaspace, Split, Digits, Punctuation, Whitespace, WhitespaceSplit, CharDelimiterSplit
    } kind;
    PreTokenizerStep(Kind k) : kind(k) {}
    bool addPrefixSpace = false, useRegex = true;   // ByteLevel
    char32_t replacement = 0x2581;                  // Metaspace ▁; CharDelimiterSplit's delimiter
    PrependScheme prependScheme = PrependScheme::Always;
    bool split = true;                              // Metaspace
    std::optional<Regex> regex;                     // Split
    SplitBehavior behavior = SplitBehavior::Isolated; // Split, Punctuation
    bool invert = false;                            // Split
    bool individualDigits = false;                  // Digits
};
// Applies each step to every current piece, in order; empty pieces are dropped after each step.
void preTokenize(const std::vector<PreTokenizerStep> &steps, std::vector<NormalizedText> &pieces);
char32_t byteToUnicode(std::uint8_t byte);
// Every UTF-8 byte as its byte-level stand-in character (GPT-2's bytes_to_unicode); the bytes after a character's
// first are insertions, so all of them keep that character's range.
void byteLevelMap(NormalizedText &text);
std::optional<std::uint8_t> unicodeToByte(char32_t cp);
// GPT-2's pattern, the ByteLevel pre-tokenizer's split.
const Regex &gpt2Regex();

// ---- models -----------------------------------------------------------------------------------------------
struct WordPieceModel {
    Vocab vocab;
    std::string unkToken = "[UNK]";
    std::int32_t unkId = -1;
    std::string prefix = "##";
    std::size_t maxInputCharsPerWord = 100;

    void tokenize(const NormalizedText &word, std::vector<Piece> &out) const;
};

class BpeModel {
public:
    Vocab vocab;
    std::vector<std::string> idToToken; // the model's ids
    std::optional<std::int32_t> unkId;
    std::string prefix, suffix;         // continuing_subword_prefix, end_of_word_suffix
    bool fuseUnk = false, byteFallback = false, ignoreMerges = false;

    // Adds the merge (a, b) with the next rank; a + b (b without the prefix) must be in the vocabulary.
    Status addMerge(const std::string &a, const std::string &b, const std::string &where);
    void tokenize(const NormalizedText &word, std::vector<Piece> &out) const;

private:
    struct Merge {
        std::int32_t rank, newId;
    };
    static std::uint64_t pairKey(std::int32_t a, std::int32_t b)
    {
        return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(a)) << 32) | static_cast<std::uint32_t>(b);
    }
    // symbols of a word: (id, first char, end char)
    using Symbols = std::vector<std::array<std::int32_t, 3>>;
    Symbols merge(const NormalizedText &word) const;

    std::unordered_map<std::uint64_t, Merge> m_merges;
    std::int32_t m_mergeCount = 0;
    std::array<std::int32_t, 256> m_byteIds{}; // <0xXX> ids, -1 where absent
    // Words seen before; bounded (Hugging Face keeps 10 000 too) and shared between threads.
    mutable std::mutex m_cacheMutex;
    mutable std::unordered_map<std::string, Symbols> m_cache;

    friend Status finalizeBpe(BpeModel &);
};
Status finalizeBpe(BpeModel &bpe); // after the vocabulary is read: byte-fallback ids

struct UnigramModel {
    std::vector<std::string> pieces;
    std::vector<double> scores;
    std::optional<std::int32_t> unkId;
    bool byteFallback = false;
    Vocab vocab;        // piece -> id (the last id of a repeated piece, as Hugging Face's map keeps)
    double minScore = 0;
    std::array<std::int32_t, 256> byteIds{};

    ByteTrie trie; // every piece -> its id

    Status build(const std::string &where);
    Status tokenize(const NormalizedText &word, std::vector<Piece> &out) const;
};

// ---- added tokens -------------------------------------------------------------------------------------------
struct AddedToken {
    std::int32_t id = -1;
    std::string content;
    std::string matchContent; // content as matched: normalized when `normalized`
    bool singleWord = false, lstrip = false, rstrip = false, normalized = false, special = false;
};

// Leftmost-longest matching of many strings at once (a byte trie walked from each start: O(text × longest match),
// not O(text × tokens)).
class AddedTokenMatcher {
public:
    void build(const std::vector<const AddedToken *> &tokens);
    bool empty() const { return m_tokens.empty(); }
    // Splits a piece by the tokens: each match is a finished Piece (its string is the matched text, lstrip/rstrip
    // whitespace included, as in Hugging Face), the text between matches a slice that goes on through the pipeline.
    struct Segment {
        bool isToken;
        Piece piece;
        NormalizedText text;
    };
    std::vector<Segment> split(const NormalizedText &text) const;

private:
    std::vector<const AddedToken *> m_tokens;
    ByteTrie m_trie; // match content -> index into m_tokens
};

// ---- post-processor -----------------------------------------------------------------------------------------
// One sequence's tokens during post-processing; offsets in code points of that sequence's text.
struct SeqEncoding {
    std::vector<std::int32_t> ids;
    std::vector<std::string> tokens;
    std::vector<std::size_t> begins, ends;
    std::vector<std::uint8_t> framing; // Hugging Face's special_tokens_mask
    std::vector<std::int32_t> typeIds;
    std::vector<std::int8_t> sequence; // 0, 1, or -1 for post-processor tokens
    std::size_t size() const { return ids.size(); }
    void truncate(std::size_t n);
    void append(const SeqEncoding &o);
};

struct TemplateItem {
    bool isSequence = false;
    int sequence = 0;                  // 0: $A, 1: $B
    std::int32_t typeId = 0;
    std::vector<std::int32_t> ids;     // special token ids
    std::vector<std::string> tokens;
};

struct PostStep {
    enum class Kind { Template, Bert, Roberta, ByteLevel } kind;
    PostStep(Kind k) : kind(k) {}
    std::vector<TemplateItem> single, pair;   // Template
    TemplateItem cls, sep;                    // Bert, Roberta
    bool trimOffsets = false, addPrefixSpace = false; // ByteLevel, Roberta
};
struct PostProcessor {
    std::vector<PostStep> steps;
    bool present = false;
    std::size_t addedTokens(bool pair) const;
    // encodings: one or two (a pair); merged into one.
    SeqEncoding process(std::vector<SeqEncoding> encodings, bool addSpecialTokens) const;
};

// ---- decoder ------------------------------------------------------------------------------------------------
struct DecoderStep {
    enum class Kind { ByteLevel, Metaspace, ByteFallback, Fuse, Strip, Replace, WordPiece, Bpe, Ctc } kind;
    DecoderStep(Kind k) : kind(k) {}
    std::string prefix = "##";   // WordPiece; Bpe: suffix
    bool cleanup = true;         // WordPiece, Ctc
    char32_t replacement = 0x2581;
    PrependScheme prependScheme = PrependScheme::Always; // Metaspace
    char32_t content = U' ';
    std::size_t start = 0, stop = 0; // Strip
    std::optional<Regex> regex;      // Replace
    std::string replaceContent;      // Replace
    std::string padToken = "<pad>", wordDelimiter = "|"; // Ctc
};
std::string decodeTokens(const std::vector<DecoderStep> &steps, bool present, std::vector<std::string> tokens);
std::string wordPieceCleanup(std::string s);

} // namespace attn::tokenizer

namespace attn {

namespace tokenizer {
struct SentencePieceSide;   // sentencepiece.cpp: Marian's spm models behind vocab.json
}

struct Tokenizer::Impl {
    TokenizerKind kind = TokenizerKind::WordPiece;
    std::string source;
    std::vector<tokenizer::NormalizerStep> normalizer;
    std::vector<tokenizer::PreTokenizerStep> preTokenizer;
    std::variant<tokenizer::WordPieceModel, tokenizer::BpeModel, tokenizer::UnigramModel> model;
    std::vector<tokenizer::AddedToken> addedTokens;
    tokenizer::AddedTokenMatcher rawMatcher, normalizedMatcher;
    tokenizer::PostProcessor post;
    std::vector<tokenizer::DecoderStep> decoder;
    bool hasDecoder = false;
    bool keepAddedIds = false; // legacy files: the config's ids stand (tokenizer.json: Hugging Face reassigns them)
    SpecialTokenIds specialIds;
    // Marian (TokenizerKind::SentencePiece): encode and decode go to sentencepiece.cpp instead of the pipeline above.
    std::shared_ptr<const tokenizer::SentencePieceSide> sentencePiece;

    // id -> string over the model's vocabulary and the added tokens; vocabulary lookups include added tokens.
    std::vector<std::string> idToToken;
    std::vector<std::string> decodeToken; // the string the decoder gets: a normalized added token's normalized form
    tokenizer::Vocab tokenToId;
    std::vector<std::uint8_t> specialById;

    // Fills the id tables, the added tokens' match contents and the matchers; call once after loading.
    Status finalize();
    bool isSpecial(std::int32_t id) const
    {
        return id >= 0 && static_cast<std::size_t>(id) < specialById.size() && specialById[static_cast<std::size_t>(id)];
    }
    // The model's vocabulary as token -> id.
    std::vector<std::pair<std::string, std::int32_t>> modelEntries() const;
    std::optional<std::int32_t> modelTokenToId(std::string_view token) const;
    // One sequence through added tokens, normalizer, pre-tokenizer and model; byte offsets into `text`.
    Status encodeSequence(const tokenizer::Text &text, std::vector<tokenizer::Piece> &out) const;
};

} // namespace attn
