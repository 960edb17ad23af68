// SPDX-License-Identifier: GPL-3.0-or-later
// The legacy tokenizer files (an archive input, fuzz_support.h): vocab.txt (WordPiece) or vocab.json + merges.txt
// (byte-level BPE), with tokenizer_config.json and special_tokens_map.json → Tokenizer::fromFolder(Legacy).
#include "fuzz_support.h"
#include "fuzz_tokenizer.h"

#include <attnscope/tokenizer.h>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    attnfuzz::ScratchFolder &folder = attnfuzz::scratch();
    folder.fill(attnfuzz::splitArchive(std::string_view(reinterpret_cast<const char *>(data), size)));
    auto tokenizer = attn::Tokenizer::fromFolder(folder.path(), attn::TokenizerFormat::Legacy);
    if (!tokenizer) {
        attnfuzz::fuzzCheck(!tokenizer.status().message().empty(), "an error without a message");
        return 0;
    }
    attnfuzz::exerciseTokenizer(*tokenizer);
    return 0;
}
