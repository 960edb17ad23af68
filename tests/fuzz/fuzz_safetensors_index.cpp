// SPDX-License-Identifier: GPL-3.0-or-later
// model.safetensors.index.json text, beside a fixed config.json and two valid shards (those of the committed seed
// corpus/model/gpt2-sharded), → Model::open of that folder. The index decides which shard files are opened, so
// names that leave the folder, repeat, or point at nothing are the interesting inputs.
#include "fuzz_support.h"

#include <attnscope/model.h>

#include <fstream>
#include <iterator>

namespace {

std::vector<attnfuzz::NamedFile> shardedFolderWithoutIndex()
{
    const std::string seed = attnfuzz::testDataDir() + "/fuzz/corpus/model/gpt2-sharded";
    std::ifstream in(seed, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::vector<attnfuzz::NamedFile> files;
    for (attnfuzz::NamedFile &f : attnfuzz::splitArchive(bytes))
        if (f.name != "model.safetensors.index.json") files.push_back(std::move(f));
    attnfuzz::fuzzCheck(files.size() >= 3, "corpus/model/gpt2-sharded is missing or holds no shards");
    return files;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    static const std::vector<attnfuzz::NamedFile> fixed = shardedFolderWithoutIndex();
    std::vector<attnfuzz::NamedFile> files = fixed;
    files.push_back({"model.safetensors.index.json", std::string(reinterpret_cast<const char *>(data), size)});
    attnfuzz::ScratchFolder &folder = attnfuzz::scratch();
    folder.fill(files);
    auto model = attn::Model::open(folder.path());
    if (!model) attnfuzz::fuzzCheck(!model.status().message().empty(), "an error without a message");
    return 0;
}
