// SPDX-License-Identifier: GPL-3.0-or-later
// tokenizer.json text → Tokenizer::fromTokenizerJson; a tokenizer that loads encodes and decodes a few texts.
#include "fuzz_support.h"
#include "fuzz_tokenizer.h"

#include <attnscope/tokenizer.h>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    attnfuzz::ScratchFolder &folder = attnfuzz::scratch();
    folder.fill({{"tokenizer.json", std::string(reinterpret_cast<const char *>(data), size)}});
    auto tokenizer = attn::Tokenizer::fromTokenizerJson(folder.filePath("tokenizer.json"));
    if (!tokenizer) {
        attnfuzz::fuzzCheck(!tokenizer.status().message().empty(), "an error without a message");
        return 0;
    }
    attnfuzz::exerciseTokenizer(*tokenizer);
    return 0;
}
