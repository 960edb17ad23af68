// SPDX-License-Identifier: GPL-3.0-or-later
// Masks' Export Data: the masks document of the result on screen (attn::maskEffectsExportJson), or the CSV of
// the heatmap on screen.
#include "workspaces/masks/masksview.h"

#include "kit/dataexport.h"

#include <attnscope/maskeffects.h>

namespace attnui {

QStringList MasksView::dataFormats() const
{
    QStringList formats;
    if (m_snapshot) formats << tr("JSON, every mask's weights and the two proofs (*.json)");
    return formats + Workspace::dataFormats();
}

bool MasksView::exportData(const QString &path, QString *error) const
{
    if (!hasSuffix(path, "json") || !m_snapshot)
        return Workspace::exportData(path, error);
    const MasksSnapshot &s = *m_snapshot;
    attn::MaskEffectsReport report;
    report.tokens = s.tokenized;
    report.head = {s.request.layer, s.request.head};
    report.comparison = s.comparison;
    report.leakCausal = s.leakCausal;
    report.leakBidirectional = s.leakBidirectional;
    report.padding = s.padding;
    report.leakNote = s.leakNote.toStdString();
    report.paddingNote = s.paddingNote.toStdString();
    report.backend = s.request.backend;
    return writeTextFile(attn::maskEffectsExportJson(*s.request.model, report), path, error);
}

} // namespace attnui
