// SPDX-License-Identifier: GPL-3.0-or-later
// safetensors bytes → SafetensorsFile::fromBytes (every header rule), then every tensor read as fp32. A file that
// opens must be self-consistent: tensors in offset order tiling the data region, each findable by name.
#include "fuzz_support.h"

#include <attnscope/safetensors.h>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    using attnfuzz::fuzzCheck;
    auto file = attn::SafetensorsFile::fromBytes(std::vector<unsigned char>(data, data + size), "fuzz.safetensors");
    if (!file) {
        fuzzCheck(!file.status().message().empty(), "an error without a message");
        return 0;
    }
    fuzzCheck(file->fileSize() == size, "fileSize() is not the input size");
    std::uint64_t expectedBegin = 0;
    for (const attn::SafetensorsTensor &t : file->tensors()) {
        fuzzCheck(t.begin == expectedBegin && t.begin <= t.end, "tensors do not tile the data region");
        expectedBegin = t.end;
        fuzzCheck(file->find(t.name) == &t, "find() does not return the listed tensor");
        auto values = file->readFloat32(t);
        if (values) fuzzCheck(values->size() == static_cast<std::size_t>(t.numel()), "readFloat32 size != numel");
        else fuzzCheck(!attn::isFloatReadable(t.dtype), "a float tensor that opened could not be read");
    }
    fuzzCheck(8 + file->headerLength() + expectedBegin == size, "the data region does not end at the end of the file");
    return 0;
}
