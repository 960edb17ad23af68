// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Writers behind Export Data: the matrix on screen as CSV (a header of key labels, one row per query with its
// label first; masked cells empty), and JSON text, both through QSaveFile (no half-written files).

#include <QString>

#include <string>

namespace attnui {

struct HeatmapData;

bool writeMatrixCsv(const HeatmapData &data, const QString &path, QString *error);
// Whether `path` ends in ".suffix", any case: which of a workspace's formats Export Data was asked for.
bool hasSuffix(const QString &path, const char *suffix);
bool writeTextFile(const std::string &text, const QString &path, QString *error);

} // namespace attnui
