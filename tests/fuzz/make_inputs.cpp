// SPDX-License-Identifier: GPL-3.0-or-later
// Writes the hostile inputs of issue 14 that are too large to commit into OUT/<target>/ (the fuzz build's
// generated/ folder; ctest runs this first). Each is replayed like a committed regression input: it must finish
// within the target's -timeout and stay under its memory limit.
//
//   safetensors/tensors_50000        a valid file with 50 000 one-element tensors (validating it once took 44 s)
//   model/tensors_50000              the same 50 000 tensors beside the gpt2-tiny-like seed's config.json
//   encode/added_tokens_50000        a tokenizer.json with 50 000 added tokens, NUL, a 20 000-character text
//                                    (added-token matching once took 12 s: characters × added tokens)
//   session/text_180mb               a session whose text is 180 MB (the GUI segfaulted in Qt's text layout)
//   session/text_10mb                the same with 10 MB (the GUI used 2.3 GB)
//   dataset/line_2mib                a JSONL line of 2 MiB (over kMaxDatasetLineBytes)
//   */nesting_100000                JSON nested 100 000 deep (a recursive parser or destructor overflows its stack)
#include "fuzz_support.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>

namespace {

namespace fs = std::filesystem;

std::string readFile(const fs::path &path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        std::fprintf(stderr, "make_inputs: cannot read %s\n", path.c_str());
        std::exit(1);
    }
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

void writeFile(const fs::path &path, const std::string &bytes)
{
    fs::create_directories(path.parent_path());
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!out) {
        std::fprintf(stderr, "make_inputs: cannot write %s\n", path.c_str());
        std::exit(1);
    }
    std::printf("wrote %s (%zu bytes)\n", path.c_str(), bytes.size());
}

// A valid safetensors file: `count` F32 tensors of shape [1], in name order, tiling the data region.
std::string manyTensors(int count)
{
    std::string header = "{";
    for (int i = 0; i < count; ++i) {
        if (i) header += ',';
        header += "\"t" + std::to_string(i) + "\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[" +
                  std::to_string(4 * i) + "," + std::to_string(4 * i + 4) + "]}";
    }
    header += '}';
    while (header.size() % 8) header += ' ';
    std::string file(8, '\0');
    std::uint64_t n = header.size();
    for (int b = 0; b < 8; ++b) file[static_cast<std::size_t>(b)] = static_cast<char>((n >> (8 * b)) & 0xff);
    file += header;
    file.append(static_cast<std::size_t>(4 * count), '\0');
    return file;
}

std::string manyAddedTokens(const fs::path &tests, int count, int textChars)
{
    nlohmann::json tokenizer = nlohmann::json::parse(readFile(tests / "fixtures/tokenizers/bert-uncased/tokenizer.json"));
    std::int64_t nextId = 0;
    for (const auto &t : tokenizer["added_tokens"]) nextId = std::max(nextId, t["id"].get<std::int64_t>() + 1);
    for (const auto &[token, id] : tokenizer["model"]["vocab"].items()) nextId = std::max(nextId, id.get<std::int64_t>() + 1);
    for (int i = 0; i < count; ++i)
        tokenizer["added_tokens"].push_back({{"id", nextId + i}, {"content", "<extra_token_" + std::to_string(i) + ">"},
                                             {"single_word", false}, {"lstrip", false}, {"rstrip", false},
                                             {"normalized", false}, {"special", false}});
    std::string text;
    while (static_cast<int>(text.size()) < textChars) text += "the plot was excellent ";
    text.resize(static_cast<std::size_t>(textChars));
    return tokenizer.dump() + std::string(1, '\0') + text;
}

std::string sessionWithText(std::size_t bytes)
{
    std::string text;
    text.reserve(bytes);
    while (text.size() < bytes) text += "the lousy actor found the dog. ";
    text.resize(bytes);
    return "{\"format\":\"attnscope-session\",\"version\":1,\"model\":\"sample:rationale-bert\",\"text\":\"" + text +
           "\",\"settings\":{\"backend\":\"auto\",\"color_map\":\"viridis\",\"theme\":\"light\"},\"workspaces\":{}}\n";
}

} // namespace

int main(int argc, char **argv)
{
    if (argc != 2) {
        std::fprintf(stderr, "usage: fuzz_make_inputs OUT\n");
        return 2;
    }
    const fs::path out(argv[1]);
    const fs::path tests(ATTNSCOPE_TEST_DATA_DIR);

    const std::string tensors = manyTensors(50000);
    writeFile(out / "safetensors/tensors_50000", tensors);
    std::vector<attnfuzz::NamedFile> folder = attnfuzz::splitArchive(readFile(tests / "fuzz/corpus/model/gpt2-tiny"));
    for (attnfuzz::NamedFile &f : folder)
        if (f.name == "model.safetensors") f.content = tensors;
    writeFile(out / "model/tensors_50000", attnfuzz::joinArchive(folder));

    writeFile(out / "encode/added_tokens_50000", manyAddedTokens(tests, 50000, 20000));
    writeFile(out / "session/text_10mb", sessionWithText(std::size_t(10) << 20));
    writeFile(out / "session/text_180mb", sessionWithText(std::size_t(180) << 20));

    writeFile(out / "dataset/line_2mib", std::string(1, '\0') + "{\"text\": \"" + std::string(std::size_t(2) << 20, 'a') + "\"}\n");

    const std::size_t depth = 100000;
    const std::string arrays = std::string(depth, '[') + std::string(depth, ']');
    for (const char *target : {"config", "tokenizer_json", "session"}) writeFile(out / target / "nesting_100000", arrays);
    writeFile(out / "safetensors_index/nesting_100000", "{\"weight_map\":" + arrays + "}");
    writeFile(out / "lesson/nesting_100000", "{\"state\":" + arrays + "}");
    const std::string header = "{\"a\":" + arrays + "}";
    std::string st(8, '\0');
    for (int b = 0; b < 8; ++b) st[static_cast<std::size_t>(b)] = static_cast<char>((header.size() >> (8 * b)) & 0xff);
    writeFile(out / "safetensors/nesting_100000", st + header);
    return 0;
}
