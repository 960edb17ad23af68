// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The Faithfulness workspace's table: per importance method, ERASER comprehensiveness / sufficiency AOPC, the
// deletion / insertion AUCs, tokens to flip, faithfulness correlation, agreement with the chosen perturbation
// importance and, with a ground-truth rationale, token F1 and precision@k — each number beside its random
// baseline, each header with its unit.

#include "workspaces/faithfulness/faithfulnessrun.h"

#include <QString>

class QTableWidget;

namespace attnui {

// "head" → "attention, layer 3 · head 1" (head: 0-based, the settings' head; Importance::note is the engine's
// 0-based spelling for JSON, so it is not shown), "loo_deletion" → "LOO (deletion)", ...
QString importanceDisplayName(const std::string &name, const std::optional<attn::HeadRef> &head = {});
QString formatMetric(double value, int digits = 3);   // "0.412"; NaN: "NaN"

// reference: the perturbation importance the agreement column compares against ("loo_deletion", ...).
void fillFaithfulnessTable(QTableWidget *table, const FaithfulnessSnapshot &s, const std::string &reference);

} // namespace attnui
