// SPDX-License-Identifier: GPL-3.0-or-later
#include "kit/dataexport.h"

#include "plots/heatmapplot.h"

#include <QCoreApplication>
#include <QFileInfo>
#include <QSaveFile>

namespace attnui {

namespace {

QString tr(const char *text)
{
    return QCoreApplication::translate("DataExport", text);
}

// RFC 4180: quoted when it holds a comma, a quote or a line break; quotes doubled.
QString csvField(const QString &s)
{
    if (!s.contains(QLatin1Char(',')) && !s.contains(QLatin1Char('"')) && !s.contains(QLatin1Char('\n'))) return s;
    return QLatin1Char('"') + QString(s).replace(QLatin1Char('"'), QStringLiteral("\"\"")) + QLatin1Char('"');
}

bool writeBytes(const QByteArray &bytes, const QString &path, QString *error)
{
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size() || !file.commit()) {
        if (error) *error = tr("cannot write %1: %2").arg(path, file.errorString());
        return false;
    }
    return true;
}

} // namespace

bool writeMatrixCsv(const HeatmapData &d, const QString &path, QString *error)
{
    const bool haveMask = d.masked.size() == d.values.size();
    QByteArray out;
    QStringList header{tr("query \\ key")};
    for (int j = 0; j < d.cols; ++j) header << csvField(QStringLiteral("%1 %2").arg(j).arg(d.colLabels.value(j)));
    out += header.join(QLatin1Char(',')).toUtf8() + '\n';
    for (int i = 0; i < d.rows; ++i) {
        QStringList row{csvField(QStringLiteral("%1 %2").arg(i).arg(d.rowLabels.value(i)))};
        for (int j = 0; j < d.cols; ++j) {
            const std::size_t ij = std::size_t(i) * std::size_t(d.cols) + std::size_t(j);
            row << (haveMask && d.masked[ij] ? QString() : QString::number(double(d.values[ij]), 'g', 9));
        }
        out += row.join(QLatin1Char(',')).toUtf8() + '\n';
    }
    return writeBytes(out, path, error);
}

bool writeTextFile(const std::string &text, const QString &path, QString *error)
{
    return writeBytes(QByteArray::fromStdString(text), path, error);
}

bool hasSuffix(const QString &path, const char *suffix)
{
    return QFileInfo(path).suffix().compare(QLatin1String(suffix), Qt::CaseInsensitive) == 0;
}

} // namespace attnui
