// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The tokenizer pipeline, the same stages as Hugging Face `tokenizers`:
//
//   text ─▶ added tokens (not normalized) ─▶ normalizer ─▶ added tokens (normalized) ─▶ pre-tokenizer ─▶ model
//        ─▶ post-processor (framing, offset trimming)           decode: ids ─▶ tokens ─▶ decoder ─▶ text
//
// Every stage works on Text (unicode.h), whose characters carry the byte range of their source character, so the
// offsets of the final tokens point into the caller's UTF-8 text however normalisation changed it.

#include "unicode.h"

#include <attnscope/tokenizer.h>

#include <array>
#include <cstdint>
#include <functional>
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

// A token before post-processing: id, vocabulary string, byte range in the original text.
struct Piece {
    std::int32_t id;
    std::string token;
    std::uint32_t begin, end;
};

// ---- normalizer -------------------------------------------------------------------------------------------
struct NormalizerStep {
    enum class Kind { Bert, Lowercase, Nfd, StripAccents } kind;
    // BertNormalizer only:
    bool cleanText = true, chineseChars = true, stripAccents = false, lowercase = false;
};
Text normalize(const std::vector<NormalizerStep> &steps, Text text);

// ---- pre-tokenizer ----------------------------------------------------------------------------------------
struct PreTokenizerStep {
    enum class Kind { Bert, ByteLevel } kind;
    bool addPrefixSpace = false, useRegex = true; // ByteLevel only
};
// Splits text into the words the model sees. ByteLevel also maps each UTF-8 byte to its printable stand-in
// character (GPT-2's bytes_to_unicode), so its words are in the byte alphabet.
std::vector<Text> preTokenize(const std::vector<PreTokenizerStep> &steps, Text text);
// GPT-2's pre-tokenization pattern, by hand: [begin, end) character ranges of the pieces.
std::vector<std::pair<std::size_t, std::size_t>> gpt2Split(const Text &text);
char32_t byteToUnicode(std::uint8_t byte);
std::optional<std::uint8_t> unicodeToByte(char32_t cp);

// ---- models -----------------------------------------------------------------------------------------------
struct WordPieceModel {
    Vocab vocab;
    std::string unkToken = "[UNK]";
    std::int32_t unkId = -1;
    std::string prefix = "##";
    std::size_t maxInputCharsPerWord = 100;

    void tokenize(const Text &word, std::vector<Piece> &out) const;
};

class BpeModel {
public:
    Vocab vocab;
    std::vector<std::string> idToToken; // the model's ids
    std::optional<std::int32_t> unkId;
    bool fuseUnk = false;
    bool ignoreMerges = false;

    // Adds the merge (a, b) with the next rank; the merged token must be in the vocabulary.
    Status addMerge(const std::string &a, const std::string &b, const std::string &where);
    void tokenize(const Text &word, std::vector<Piece> &out) const;

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
    Symbols merge(const Text &word) const;

    std::unordered_map<std::uint64_t, Merge> m_merges;
    std::int32_t m_mergeCount = 0;
    // Words seen before; bounded (Hugging Face keeps 10 000 too) and shared between threads.
    mutable std::mutex m_cacheMutex;
    mutable std::unordered_map<std::string, Symbols> m_cache;
};

// ---- added tokens, post-processor, decoder ----------------------------------------------------------------
struct AddedToken {
    std::int32_t id = -1;
    std::string content;
    std::string matchContent; // content as matched: normalized when `normalized`
    bool singleWord = false, lstrip = false, rstrip = false, normalized = false, special = false;
};

// Splits a text by the added tokens of one kind (normalized or not), in order: each match is a finished Piece,
// the text between matches a character range that goes on through the pipeline.
struct Segment {
    bool isToken;
    Piece piece;        // isToken
    std::size_t from, to; // !isToken: character range of the text
};
std::vector<Segment> splitAddedTokens(const Text &text, const std::vector<const AddedToken *> &tokens);

struct TemplatePiece {
    bool isSequence = false;
    std::vector<std::int32_t> ids;  // special token ids
    std::vector<std::string> tokens;
};

struct PostProcessor {
    std::vector<TemplatePiece> single; // empty: no framing
    bool trimOffsets = false;          // ByteLevel / RobertaProcessing offset trimming
    bool trimAddPrefixSpace = false;
};

struct Decoder {
    enum class Kind { Join, WordPiece, ByteLevel } kind = Kind::Join;
    std::string prefix = "##";
    bool cleanup = true;
};

} // namespace attn::tokenizer

namespace attn {

struct Tokenizer::Impl {
    TokenizerKind kind = TokenizerKind::WordPiece;
    std::string source;
    std::vector<tokenizer::NormalizerStep> normalizer;
    std::vector<tokenizer::PreTokenizerStep> preTokenizer;
    std::variant<tokenizer::WordPieceModel, tokenizer::BpeModel> model;
    std::vector<tokenizer::AddedToken> addedTokens;
    tokenizer::PostProcessor post;
    tokenizer::Decoder decoder;
    SpecialTokenIds specialIds;

    // id -> string over the model's vocabulary and the added tokens; vocabulary lookups include added tokens.
    std::vector<std::string> idToToken;
    tokenizer::Vocab tokenToId;
    std::vector<std::uint8_t> specialById;

    // Fills idToToken/tokenToId/specialById and the added tokens' match contents; call once after loading.
    Status finalize();
    const tokenizer::Vocab &modelVocab() const;
    bool isSpecial(std::int32_t id) const
    {
        return id >= 0 && static_cast<std::size_t>(id) < specialById.size() && specialById[static_cast<std::size_t>(id)];
    }
};

} // namespace attn
