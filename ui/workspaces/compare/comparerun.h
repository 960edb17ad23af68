// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The Compare workspace's job, on a worker thread through EngineRunner: two attention matrices A and B from the
// Subject's model — two texts (same head), two heads (same text) or two settings (same head and text: mask and
// positional information) — and their difference A − B where it is defined.
//
// Two texts of different lengths: the matrices are aligned by position and only the common top-left block
// (n = min(L_A, L_B) queries × keys) is compared; CompareSnapshot::note says so.

#include "runner/enginerunner.h"
#include "kit/subject.h"

#include <attnscope/model.h>

#include <QStringList>

#include <optional>
#include <vector>

namespace attnui {

enum class CompareMode { Texts, Heads, Settings };
QString compareModeName(CompareMode mode);            // "texts", "heads", "settings"
std::optional<CompareMode> compareModeFromName(const QString &name);

// One side's settings (Settings mode): the mask structure and whether positional information is kept.
struct CompareSettings {
    enum class Mask { Model, Bidirectional, Causal, Window };
    Mask mask = Mask::Model;
    int window = 2;
    bool positions = true;
    bool operator==(const CompareSettings &) const = default;
};
QString compareMaskName(CompareSettings::Mask mask);  // "model", "bidirectional", "causal", "window"
std::optional<CompareSettings::Mask> compareMaskFromName(const QString &name);
// "model", "causal", "window:3", each optionally followed by "/nopos"; and back.
QString settingsSpec(const CompareSettings &s);
std::optional<CompareSettings> parseSettingsSpec(const QString &spec);
QString describeSettings(const CompareSettings &s);   // "causal mask, no positions"

// A head of {kDefaultHead, kDefaultHead}: the model's last head (the view's default until a result picks one).
constexpr std::int64_t kDefaultHead = 1 << 20;

struct CompareRequest {
    TextModelPtr model;
    CompareMode mode = CompareMode::Heads;
    QString textA;                     // the Subject's text
    QString textB;                     // Texts mode
    attn::TokenizeOptions tokenize;    // Subject::tokenizeOptions(), for both texts
    attn::HeadRef headA{0, 0};
    attn::HeadRef headB{0, 0};         // Heads mode
    CompareSettings settingsA, settingsB;   // Settings mode
    attn::Backend backend = attn::Backend::Auto;
};

struct CompareSide {
    QStringList tokens;
    std::vector<float> weights;        // [L, L]
    std::vector<std::uint8_t> masked;  // [L, L]
    int length() const { return int(tokens.size()); }
};

struct CompareSnapshot : Snapshot {
    CompareRequest request;            // as run (heads clamped to the model)
    QString modelName;
    CompareSide a, b;
    int common = 0;                    // n: the compared block is [0, n) × [0, n)
    std::vector<float> diff;           // [n, n] A − B
    double maxAbsDiff = 0.0;
    QString note;                      // what was compared, when not everything
    QString labelA, labelB;            // "layer 1 head 2", "“the cat …”", "causal mask"
};

attn::Result<std::shared_ptr<Snapshot>> runCompare(const CompareRequest &request, const JobContext &ctx);

} // namespace attnui
