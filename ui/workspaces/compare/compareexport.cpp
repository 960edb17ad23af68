// SPDX-License-Identifier: GPL-3.0-or-later
// Compare's Export Data: the compare document of the result on screen (attn::comparisonExportJson), or the CSV
// of the difference map.
#include "workspaces/compare/compareview.h"

#include "kit/dataexport.h"

#include <attnscope/comparison.h>

namespace attnui {

namespace {

attn::ComparedMatrix comparedMatrix(const CompareSide &side, const QString &label)
{
    attn::ComparedMatrix m;
    m.label = label.toStdString();
    for (const QString &t : side.tokens) m.tokens.push_back(t.toStdString());
    m.weights = side.weights;
    m.masked = side.masked;
    return m;
}

} // namespace

QStringList CompareView::dataFormats() const
{
    QStringList formats;
    if (m_snapshot) formats << tr("JSON, both matrices and their difference (*.json)");
    return formats + Workspace::dataFormats();
}

bool CompareView::exportData(const QString &path, QString *error) const
{
    if (!hasSuffix(path, "json") || !m_snapshot)
        return Workspace::exportData(path, error);
    const CompareSnapshot &s = *m_snapshot;
    attn::AttentionComparison c;
    c.mode = compareModeName(s.request.mode).toStdString();
    c.a = comparedMatrix(s.a, s.labelA);
    c.b = comparedMatrix(s.b, s.labelB);
    c.common = s.common;
    c.diff = s.diff;
    c.maxAbsDiff = s.maxAbsDiff;
    c.note = s.note.toStdString();
    c.backend = s.request.backend;
    return writeTextFile(attn::comparisonExportJson(*s.request.model, c), path, error);
}

} // namespace attnui
