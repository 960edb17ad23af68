// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The Masks workspace's job, run on a worker thread through EngineRunner: tokenize the Subject's text, run the
// model once capturing Q, K, V, recompute one head under each mask (attn::compareMasks: same Q, K, V, different
// masks), and run the two proofs (attn::leakageTest under causal and bidirectional, attn::paddingTest).

#include "runner/enginerunner.h"
#include "kit/subject.h"

#include <attnscope/maskeffects.h>

#include <QStringList>

#include <optional>
#include <vector>

namespace attnui {

// The masks the workspace can show, in panel order. The model's own mask is always the baseline.
enum class MaskChoice { Bidirectional, Causal, Padding, Window, Custom };
inline constexpr MaskChoice kAllMaskChoices[] = {MaskChoice::Bidirectional, MaskChoice::Causal, MaskChoice::Padding,
                                                 MaskChoice::Window, MaskChoice::Custom};
QString maskChoiceName(MaskChoice choice);                  // "bidirectional", "causal", "padding", "window", "custom"
std::optional<MaskChoice> maskChoiceFromName(const QString &name);

struct MasksRequest {
    TextModelPtr model;
    QString text;
    attn::TokenizeOptions tokenize;        // Subject::tokenizeOptions()
    int layer = 0;
    int head = 0;
    bool autoHead = false;                 // pick the head where bidirectional and causal differ most
    std::vector<MaskChoice> choices;       // besides the baseline
    int window = 2;                        // W for the sliding window
    std::vector<int> padding;              // positions marked as padding keys
    bool paddingDefault = true;            // nothing chosen yet: two tokens (resolved into `padding`, see runMasks)
    int customLength = 0;                  // the custom mask's size; another length: it starts as causal
    std::vector<std::uint8_t> customAllowed;   // [customLength²] 1 = allowed
    int perturb = -1;                      // j for the leakage proof; −1: the middle token
    int replacement = -1;                  // the id put at j; −1: the next id
    int pads = 3;                          // padding tokens appended for the padding proof
    attn::Backend backend = attn::Backend::Auto;
};

struct MasksSnapshot : Snapshot {
    MasksRequest request;                  // as run (autoHead resolved into layer/head; perturb resolved)
    QString modelName;
    bool modelCausal = false;
    int layers = 0, heads = 0;
    QStringList tokens;                    // display labels
    std::vector<std::int64_t> tokenIds;
    attn::TokenizedText tokenized;         // the text as the model's tokenizer split it (Export Data)
    std::vector<std::uint8_t> customAllowed;   // the custom mask that ran [L²]
    attn::MaskComparison comparison;       // baseline first, then the choices in order
    std::optional<attn::TokenLeakage> leakCausal, leakBidirectional;
    QString leakNote;                      // why the proof is missing, when it is
    std::optional<attn::PaddingResult> padding;
    QString paddingNote;
    int length() const { return int(tokens.size()); }
};

// The variants a request asks for, for a text of L tokens (the baseline first, named "model's own: …"; the
// choice equal to it — causal for a causal model, bidirectional otherwise — is not repeated).
std::vector<attn::MaskVariant> maskVariants(const MasksRequest &r, const attn::ModelConfig &config, int L);

attn::Result<std::shared_ptr<Snapshot>> runMasks(const MasksRequest &request, const JobContext &ctx);

} // namespace attnui
