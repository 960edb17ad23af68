// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Tokenizers for the real models, read from a Hugging Face model folder: tokenizer.json as the pipeline Hugging Face
// `tokenizers` runs (added tokens → normalizer → pre-tokenizer → model → post-processor; decoder for the way back),
// or the legacy vocab.txt / vocab.json + merges.txt with tokenizer_config.json. Ids, offsets, type ids and special
// flags equal `tokenizers.Tokenizer.from_file(...).encode(...)` on the committed parity fixtures
// (tests/fixtures/tokenizers, tst_tokenizer*); docs/tokenizers.md lists the components, what is exact and what is
// refused.
//
// Text:    UTF-8 in, UTF-8 out. Invalid UTF-8 input is an error (InvalidArgument naming the byte offset), never
//          silently replaced.
// Offsets: per token, both BYTE offsets into the UTF-8 text of its sequence (begins/ends; text.substr(begin,
//          end - begin) is the token's text for a label) and CODE-POINT offsets (charBegins/charEnds, what Hugging
//          Face's Python API and transformers' return_offsets_mapping report). Half-open [begin, end). Tokens added
//          by the post-processor ([CLS], [SEP], <s>, ...) have [0, 0). A token that holds only part of a character
//          (byte-level BPE, byte fallback) covers the whole character, so neighbouring tokens may share bytes.
//          ByteLevel offset trimming runs on code points as in the Python API; the byte offsets are its result.
// Threads: a Tokenizer is immutable after loading except for an internal, locked BPE cache; encode() and
//          decode() may be called from several threads at once. Copies are cheap and share the loaded data.
//          There is no empty Tokenizer: hold one in a std::optional until it is loaded.
// Input:   fromTokenizerJsonText() and encode() take arbitrary bytes without aborting (the fuzzing entry points); a
//          broken file is a FormatError naming the file and the JSON field.

#include <attnscope/status.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace attn {

enum class TokenizerKind { WordPiece, ByteLevelBpe, Bpe, Unigram, SentencePiece };
// "wordpiece", "byte_level_bpe", "bpe", "unigram", "sentencepiece" (Marian's spm files): the name exports use.
const char *tokenizerKindName(TokenizerKind kind);

// Which files of a folder to read.
enum class TokenizerFormat {
    Auto,          // tokenizer.json when present, else the legacy files
    TokenizerJson, // tokenizer.json only
    Legacy,        // vocab.txt (WordPiece), or vocab.json + merges.txt (byte-level BPE)
    // Marian (MarianTokenizer; no tokenizer.json): source.spm or target.spm through libsentencepiece, pieces mapped
    // by vocab.json (target_vocab.json when tokenizer_config.json says separate_vocabs), </s> appended. Auto picks
    // the source side for a folder with source.spm and no tokenizer.json.
    SentencePieceSource,
    SentencePieceTarget,
};

struct EncodeOptions {
    bool addSpecialTokens = true; // the post-processor's framing ([CLS] … [SEP]; <s> …; GPT-2 adds nothing)
    // Truncation to at most this many tokens in all, the post-processor's included (Hugging Face longest_first
    // from the right: the longer sequence of a pair loses tokens first). Unset: no truncation. A length smaller
    // than what the post-processor adds is an InvalidArgument.
    std::optional<std::size_t> maxLength;
};

// One encoded text or pair; all vectors have one entry per token.
struct Encoding {
    std::vector<std::int32_t> ids;
    std::vector<std::string> tokens;     // Hugging Face's token strings: "##ing", "Ġworld", "[CLS]"; a Unigram
                                         // [UNK] is the text it covers
    std::vector<std::size_t> begins;     // byte offset of the token's text in its sequence's text (see above)
    std::vector<std::size_t> ends;       // one past its last byte
    std::vector<std::size_t> charBegins; // the same in code points
    std::vector<std::size_t> charEnds;
    std::vector<std::uint8_t> special;   // 1: a special token — post-processor framing, or a special added token
                                         // such as [MASK] or [UNK] wherever it came from (Hugging Face's
                                         // special_tokens_mask marks the framing only: `framing`)
    std::vector<std::uint8_t> framing;   // 1: added by the post-processor
    std::vector<std::int32_t> typeIds;   // token_type_ids from the post-processor (BERT pairs: 0 then 1)
    std::vector<std::int8_t> sequence;   // 0: the text, 1: the pair, -1: added by the post-processor
    bool truncated = false;              // tokens were removed by EncodeOptions::maxLength

    std::size_t size() const { return ids.size(); }
};

// -1 where the tokenizer has no such token.
struct SpecialTokenIds {
    std::int32_t cls = -1, sep = -1, pad = -1, mask = -1, unk = -1, bos = -1, eos = -1;
};

class Tokenizer {
public:
    // Reads a model folder. Legacy files take their options (do_lower_case, strip_accents,
    // tokenize_chinese_chars, add_prefix_space, special tokens) from tokenizer_config.json and
    // special_tokens_map.json when present.
    static Result<Tokenizer> fromFolder(const std::string &folder, TokenizerFormat format = TokenizerFormat::Auto);
    // Reads one tokenizer.json file; tokenizer_config.json / special_tokens_map.json beside it name special tokens.
    static Result<Tokenizer> fromTokenizerJson(const std::string &path);
    // tokenizer.json's text from memory (no config files); `name` stands for the file in messages. Takes any bytes
    // (the fuzzing entry point).
    static Result<Tokenizer> fromTokenizerJsonText(std::string_view json, const std::string &name = "tokenizer.json");

    // Encodes one sequence. addSpecialTokens applies the post-processor's framing ([CLS] … [SEP] for BERT;
    // GPT-2 adds nothing).
    Result<Encoding> encode(std::string_view text, bool addSpecialTokens = true) const;
    Result<Encoding> encode(std::string_view text, const EncodeOptions &options) const;
    // A sentence pair (NLI, QA): the post-processor's pair template, type ids from it; offsets of the pair's tokens
    // point into `pair`.
    Result<Encoding> encodePair(std::string_view text, std::string_view pair, const EncodeOptions &options = {}) const;
    // How many tokens the post-processor adds to one sequence or a pair.
    std::size_t addedTokenCount(bool pair) const;

    // Token ids back to text (Hugging Face's decode): ids of special tokens are dropped when skipSpecialTokens,
    // unknown ids are dropped; byte-level output with broken UTF-8 gets U+FFFD.
    std::string decode(const std::vector<std::int32_t> &ids, bool skipSpecialTokens = true) const;

    TokenizerKind kind() const;
    // One more than the largest id of the vocabulary and the added tokens: the embedding rows the ids address.
    std::size_t vocabSize() const;
    const SpecialTokenIds &specialTokenIds() const;
    std::optional<std::int32_t> tokenToId(std::string_view token) const;
    std::string idToToken(std::int32_t id) const;   // empty for an unknown id
    bool isSpecialId(std::int32_t id) const;
    // What was loaded, for the UI and error messages: "tokenizer.json" or "vocab.txt" etc., with the folder.
    const std::string &source() const;

    struct Impl;

private:
    explicit Tokenizer(std::shared_ptr<const Impl> impl) : m_impl(std::move(impl)) {}
    static Result<Tokenizer> loadFromFolder(const std::string &folder, TokenizerFormat format);
    static Result<Tokenizer> loadFromTokenizerJson(const std::string &path);
    Result<Encoding> encodePairImpl(std::string_view first, const std::string_view *second,
                                    const EncodeOptions &options) const;
    std::shared_ptr<const Impl> m_impl;
};

} // namespace attn
