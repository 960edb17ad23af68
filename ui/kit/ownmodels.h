// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// For the workspaces that open models of their own kind (Encoder–Decoder, Vision: not text models, so not the
// Subject's): the bundled samples of that kind in a model box, the first of them, a spec's folder, and the bold
// headings of their control columns.

#include <attnscope/textmodel.h>

#include <QString>

#include <functional>

class QComboBox;
class QLabel;
class QVBoxLayout;
class QWidget;

namespace attnui {

using SampleKind = std::function<bool(const attn::SampleModelInfo &)>;

// "sample:NAME" of the first bundled sample of the kind; empty when there is none.
QString firstSampleSpec(const SampleKind &kind);
// The folder a spec names (sample:NAME resolved); empty when it does not resolve.
QString specFolder(const QString &spec);
// The kind's samples ("Sample: NAME", data the spec, the folder as tooltip), then `current` when it is another
// folder (shown as `currentName`), with `current` selected. Emits nothing.
void fillSampleModels(QComboBox *box, const SampleKind &kind, const QString &current, const QString &currentName);
// A bold heading appended to a control column.
QLabel *addHeading(QVBoxLayout *layout, const QString &text);
// The "Model" heading and row: a box of models and an Open… button that asks for a folder (`dialogTitle`);
// `chosen` receives the spec picked in the box or the folder opened. Returns the box.
QComboBox *addModelRow(QVBoxLayout *layout, QWidget *owner, const QString &openToolTip, const QString &dialogTitle,
                       const std::function<void(const QString &)> &chosen);

} // namespace attnui
