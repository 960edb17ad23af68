// SPDX-License-Identifier: GPL-3.0-or-later
// A whole model folder (an archive input, fuzz_support.h: config.json, model.safetensors or an index with shards,
// tokenizer files) through the CLI's public open path: openModel → the `info` document → one forward pass on a few
// token ids with every head captured → the `run` document and the .npy side file.
#include "fuzz_support.h"

#include <attnscope/export.h>

#include <algorithm>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    using attnfuzz::fuzzCheck;
    attnfuzz::ScratchFolder &folder = attnfuzz::scratch();
    folder.fill(attnfuzz::splitArchive(std::string_view(reinterpret_cast<const char *>(data), size)));
    auto opened = attn::openModel(folder.path(), false);
    if (!opened) {
        fuzzCheck(!opened.status().message().empty(), "an error without a message");
        return 0;
    }
    (void)attn::modelInfoJson(*opened);
    const attn::ModelConfig &c = opened->model.config();
    fuzzCheck(c.vocabSize > 0 && c.layers >= 0 && c.heads > 0, "a model without a vocabulary or heads opened");
    attn::RunRequest request;
    const std::int64_t n = c.maxPositions > 0 ? std::min<std::int64_t>(c.maxPositions, 3) : 3;
    for (std::int64_t i = 0; i < n; ++i) request.ids.push_back(i % c.vocabSize);
    request.threads = 1;
    request.backend = attn::Backend::Reference;
    auto run = attn::runModel(*opened, request);
    if (!run) return 0;
    fuzzCheck(run->result.heads.size() == static_cast<std::size_t>(c.layers * c.heads), "not every head captured");
    (void)attn::runExportJson(*opened, request, *run);
    (void)attn::attentionNpy(c, run->result);
    return 0;
}
