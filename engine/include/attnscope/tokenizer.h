// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Tokenizers for the real models: BERT WordPiece and GPT-2 byte-level BPE, read from a Hugging Face model folder
// (tokenizer.json, or the legacy vocab.txt / vocab.json + merges.txt with tokenizer_config.json). Token ids equal
// Hugging Face `tokenizers` on the committed parity fixtures (tests/fixtures/tokenizers, tst_tokenizer).
//
// Text:    UTF-8 in, UTF-8 out. Invalid UTF-8 input is an error (InvalidArgument), never silently replaced.
// Offsets: BYTE offsets into the UTF-8 text given to encode(), half-open [begin, end). A token's text for a label
//          is text.substr(begin, end - begin). Tokens added by the post-processor ([CLS], [SEP], <s>, ...) have
//          [0, 0). A byte-level token that holds only part of a multi-byte character covers the whole character,
//          so neighbouring tokens may share bytes (as in Hugging Face).
// Threads: a Tokenizer is immutable after loading except for an internal, locked BPE cache; encode() and
//          decode() may be called from several threads at once. Copies are cheap and share the loaded data.
//          There is no empty Tokenizer: hold one in a std::optional until it is loaded.
// Unicode: each character class follows the Unicode data of the Hugging Face code it imitates (BERT's classes
//          Unicode 8.0, NFD and StripAccents 9.0, GPT-2's \p{L}/\p{N} current); see tools/make_unicode_tables.py.
//
// Supported tokenizer.json parts (anything else is a FormatError naming the field):
//   model.type       WordPiece, BPE (byte-level only: with a ByteLevel pre-tokenizer; merges as "a b" strings
//                    or ["a", "b"] pairs; dropout is ignored; byte_fallback and subword affixes are refused)
//   normalizer       null, BertNormalizer, Lowercase, NFD, StripAccents, Sequence of these
//   pre_tokenizer    null, BertPreTokenizer, ByteLevel, Sequence of these
//   post_processor   null, BertProcessing, RobertaProcessing, TemplateProcessing (single), ByteLevel, Sequence
//   decoder          null, WordPiece, ByteLevel
//   added_tokens     matched before the model and never split; content/lstrip/rstrip/normalized/special

#include <attnscope/status.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace attn {

enum class TokenizerKind { WordPiece, ByteLevelBpe };

// Which files of a folder to read.
enum class TokenizerFormat {
    Auto,          // tokenizer.json when present, else the legacy files
    TokenizerJson, // tokenizer.json only
    Legacy,        // vocab.txt (WordPiece), or vocab.json + merges.txt (byte-level BPE)
};

// One encoded text; all vectors have the same length (one entry per token).
struct Encoding {
    std::vector<std::int32_t> ids;
    std::vector<std::string> tokens;     // vocabulary strings: "##ing", "Ġworld", "[CLS]"
    std::vector<std::size_t> begins;     // byte offset of the token's text in the input (see above)
    std::vector<std::size_t> ends;       // one past its last byte
    std::vector<std::uint8_t> special;   // 1: a special token — post-processor framing, or a special added token
                                         // such as [MASK] or [UNK] wherever it came from (Hugging Face's
                                         // special_tokens_mask marks the framing only)

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

    // Encodes one sequence. addSpecialTokens applies the post-processor's framing ([CLS] … [SEP] for BERT;
    // GPT-2 adds nothing).
    Result<Encoding> encode(std::string_view text, bool addSpecialTokens = true) const;

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
    std::shared_ptr<const Impl> m_impl;
};

} // namespace attn
