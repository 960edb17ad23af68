// SPDX-License-Identifier: GPL-3.0-or-later
// Tokenizer × text. Two input forms:
//   a tokenizer.json, a NUL byte, then the text   (both fuzzed; a JSON document never holds a raw NUL)
//   otherwise: byte 0 picks one of the committed fixture tokenizers (tests/fixtures/tokenizers), the rest is text
// and the text is encoded with and without special tokens and decoded (fuzz_tokenizer.h checks the encoding).
#include "fuzz_support.h"
#include "fuzz_tokenizer.h"

#include <attnscope/tokenizer.h>

#include <optional>

namespace {

const std::vector<attn::Tokenizer> &fixtureTokenizers()
{
    static const std::vector<attn::Tokenizer> tokenizers = [] {
        std::vector<attn::Tokenizer> list;
        const std::string dir = attnfuzz::testDataDir() + "/fixtures/tokenizers/";
        for (const char *name : {"bert-uncased", "bert-cased", "gpt2-bpe"})
            for (attn::TokenizerFormat format : {attn::TokenizerFormat::TokenizerJson, attn::TokenizerFormat::Legacy}) {
                auto t = attn::Tokenizer::fromFolder(dir + name, format);
                attnfuzz::fuzzCheck(static_cast<bool>(t), "a fixture tokenizer does not load");
                list.push_back(std::move(t).value());
            }
        return list;
    }();
    return tokenizers;
}

} // namespace

// Loading the six fixture tokenizers takes a while under ASan; done here, it does not count against the first
// input's -timeout.
extern "C" int LLVMFuzzerInitialize(int *, char ***)
{
    (void)fixtureTokenizers();
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const std::string_view input(reinterpret_cast<const char *>(data), size);
    if (input.empty()) return 0;
    const std::size_t nul = input.find('\0');
    if (input.front() == '{' && nul != std::string_view::npos) {
        attnfuzz::ScratchFolder &folder = attnfuzz::scratch();
        folder.fill({{"tokenizer.json", std::string(input.substr(0, nul))}});
        auto tokenizer = attn::Tokenizer::fromTokenizerJson(folder.filePath("tokenizer.json"));
        if (tokenizer) attnfuzz::encodeAndCheck(*tokenizer, input.substr(nul + 1));
        return 0;
    }
    const auto &tokenizers = fixtureTokenizers();
    attnfuzz::encodeAndCheck(tokenizers[static_cast<unsigned char>(input.front()) % tokenizers.size()], input.substr(1));
    return 0;
}
