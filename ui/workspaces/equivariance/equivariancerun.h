// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The Equivariance workspace's job: attn::runEquivariance for the numbers (max errors over the heads in scope),
// plus the two forward passes of the head on screen with the same settings, so the panels can show A(PX) beside
// P·A(X)·Pᵀ and Y(PX) beside P·Y(X). Runs on a worker thread through EngineRunner.

#include "runner/enginerunner.h"
#include "kit/subject.h"

#include <attnscope/equivariance.h>

#include <QString>
#include <QStringList>

#include <cstdint>
#include <vector>

namespace attnui {

struct EquivarianceRequest {
    TextModelPtr model;
    QString text;
    attn::TokenizeOptions tokenize;   // Subject::tokenizeOptions()
    attn::EquivarianceSettings settings;
    attn::HeadRef focus;   // the head drawn in the panels (inside the scope)
};

struct EquivarianceSnapshot : Snapshot {
    EquivarianceRequest request;       // what ran (Export Data writes the engine's document from it)
    attn::EquivarianceResult result;   // the engine's numbers
    attn::HeadRef focus;
    int length = 0;                    // L
    int dModel = 0;                    // D
    QStringList labels;                // tokens of X, display form [L]
    QStringList permutedLabels;        // tokens of PX [L]: permutedLabels[i] = labels[π i]
    std::vector<std::uint8_t> special; // of X [L]
    // The focus head, [L, L] row-major; masked cells (-inf scores) flagged 1.
    std::vector<float> weightsPX;            // A(PX)
    std::vector<float> weightsXPermuted;     // P·A(X)·Pᵀ: [i, j] = A(X)[π i, π j]
    std::vector<std::uint8_t> maskedPX, maskedXPermuted;
    // Final hidden states, [L, D].
    std::vector<float> outputsPX;            // Y(PX)
    std::vector<float> outputsXPermuted;     // P·Y(X): row i = Y(X)[π i]
    double focusErrWeights = 0.0;            // max |A(PX) − P·A(X)·Pᵀ| of the focus head
    double focusErrOutputs = 0.0;            // max |Y(PX) − P·Y(X)|
    // The figure's colour ranges, found here so that the UI thread never walks the matrices.
    double weightsTop = 0.0;                 // max of both weight maps
    double outputsTop = 0.0;                 // max |value| of both output maps
};

// The reason equivariance holds or breaks for these settings on this model, in one sentence for the panel.
QString equivarianceReason(const attn::ModelConfig &config, const attn::EquivarianceSettings &settings);
// Whether a positional choice can run on this model (sinusoidal and RoPE only re-specify random: models).
bool positionalChoiceSupported(const attn::TextModel &model, attn::PositionalChoice choice);

attn::Result<std::shared_ptr<Snapshot>> runEquivarianceJob(const EquivarianceRequest &request, const JobContext &ctx);

} // namespace attnui
