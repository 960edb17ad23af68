// SPDX-License-Identifier: GPL-3.0-or-later
// config.json text → every config parser: parseModelConfig (the text models), parseT5Config and parseBartConfig
// (the encoder–decoders), parseVitConfig. A config that parses must describe shapes a loader can use; a refusal
// names the file.
#include "fuzz_support.h"

#include <attnscope/model.h>
#include <attnscope/seq2seq.h>
#include <attnscope/vit.h>

#include <string>

namespace {

template <class R>
bool refusedWell(const R &r)
{
    if (r) return false;
    attnfuzz::fuzzCheck(r.status().message().rfind("config.json", 0) == 0, "an error that does not name the file");
    return true;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    using attnfuzz::fuzzCheck;
    const std::string text(reinterpret_cast<const char *>(data), size);
    if (auto config = attn::parseModelConfig(text, "config.json"); !refusedWell(config)) {
        const attn::ModelConfig &c = *config;
        fuzzCheck(c.dModel > 0 && c.heads > 0 && c.layers >= 0 && c.vocabSize > 0, "non-positive sizes accepted");
        fuzzCheck(c.dHead * c.heads == c.dModel, "dHead * heads != dModel");
        if (c.head == attn::ModelHead::Classification)
            fuzzCheck(c.numLabels > 0 && c.labels.size() == static_cast<std::size_t>(c.numLabels),
                      "a classifier whose labels do not match num_labels");
    }
    if (auto t5 = attn::parseT5Config(text, "config.json"); !refusedWell(t5)) {
        fuzzCheck(t5->dModel > 0 && t5->dKv > 0 && t5->heads > 0 && t5->layers > 0 && t5->decoderLayers > 0,
                  "T5: non-positive sizes accepted");
        fuzzCheck(t5->buckets >= 4 && t5->maxDistance > t5->buckets / 2, "T5: buckets the bucket function cannot use");
        fuzzCheck(t5->decoderStartTokenId >= 0 && t5->decoderStartTokenId < t5->vocabSize, "T5: start id outside the vocabulary");
    }
    if (auto b = attn::parseBartConfig(text, "config.json"); !refusedWell(b)) {
        fuzzCheck(b->dModel > 0 && b->encoderHeads > 0 && b->decoderHeads > 0 && b->dModel % b->encoderHeads == 0 &&
                      b->dModel % b->decoderHeads == 0, "BART: heads that do not divide d_model");
        fuzzCheck(b->decoderStartTokenId >= 0 && b->decoderStartTokenId < b->decoderVocabSize &&
                      b->eosTokenId >= 0 && b->eosTokenId < b->decoderVocabSize, "BART: ids outside the target vocabulary");
        fuzzCheck(!b->shareEmbeddings || b->vocabSize == b->decoderVocabSize, "BART: shared embeddings over two vocabularies");
        fuzzCheck(b->maxPositions > 0, "BART: no positions");
    }
    if (auto v = attn::parseVitConfig(text, "config.json"); !refusedWell(v))
        fuzzCheck(v->hiddenSize > 0 && v->heads > 0 && v->patchRows() > 0 && v->patchCols() > 0, "ViT: an empty patch grid");
    return 0;
}
