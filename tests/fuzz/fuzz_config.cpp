// SPDX-License-Identifier: GPL-3.0-or-later
// config.json text → parseModelConfig. A config that parses must describe shapes a loader can use.
#include "fuzz_support.h"

#include <attnscope/model.h>

#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    using attnfuzz::fuzzCheck;
    auto config = attn::parseModelConfig(std::string(reinterpret_cast<const char *>(data), size), "config.json");
    if (!config) {
        fuzzCheck(config.status().message().rfind("config.json", 0) == 0, "an error that does not name the file");
        return 0;
    }
    const attn::ModelConfig &c = *config;
    fuzzCheck(c.dModel > 0 && c.heads > 0 && c.layers >= 0 && c.vocabSize > 0, "non-positive sizes accepted");
    fuzzCheck(c.dHead * c.heads == c.dModel, "dHead * heads != dModel");
    if (c.head == attn::ModelHead::Classification)
        fuzzCheck(c.numLabels > 0 && c.labels.size() == static_cast<std::size_t>(c.numLabels),
                  "a classifier whose labels do not match num_labels");
    return 0;
}
