// SPDX-License-Identifier: GPL-3.0-or-later
#include "shell/buildinfo.h"

#include <attnscope/attention.h>

#include <QCoreApplication>
#include <QtGlobal>

namespace attnui {

QString attnscopeVersion()
{
    return QStringLiteral(ATTNSCOPE_VERSION);
}

QString eigenVersion()
{
    return QStringLiteral(ATTNSCOPE_EIGEN_VERSION);
}

QString backendsSummary()
{
    QString cuda;
    if (attn::cudaAvailable())
        cuda = QCoreApplication::translate("BuildInfo", "CUDA: available");
    else
        cuda = QCoreApplication::translate("BuildInfo", "CUDA: unavailable (%1)")
                   .arg(QString::fromStdString(attn::cudaUnavailableReason()));
    return QStringLiteral("reference, tiled, unfused; ") + cuda;
}

QString buildInfoHtml()
{
    auto row = [](const QString &k, const QString &v) {
        return QStringLiteral("<tr><td style='padding-right:12px'><b>%1</b></td><td>%2</td></tr>").arg(k, v.toHtmlEscaped());
    };
    const auto tr = [](const char *s) { return QCoreApplication::translate("BuildInfo", s); };
    QString html = QStringLiteral("<h3>AttnScope %1</h3>").arg(attnscopeVersion());
    html += tr("<p>A native lab for self-attention: per-head weights, masks, equivariance and faithfulness.</p>");
    html += QStringLiteral("<table>");
    html += row(tr("Qt"), QStringLiteral("%1 (built with %2)").arg(QString::fromLatin1(qVersion()), QStringLiteral(QT_VERSION_STR)));
    html += row(tr("Eigen"), eigenVersion());
    html += row(tr("SIMD"), QString::fromStdString(attn::cpuSimdLevel()));
    html += row(tr("Threads"), QString::number(attn::hardwareThreads()));
    html += row(tr("Backends"), backendsSummary());
    html += QStringLiteral("</table>");
    html += tr("<p>Licence: GPL-3.0-or-later. Plots by QCustomPlot (GPL).</p>");
    return html;
}

} // namespace attnui
