// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Verbs implemented in their own files (verb_*.cpp); main.cpp's table lists them. Each takes the arguments with
// args[0] = "attnscope-cli VERB" and returns the exit code.

#include <QCoreApplication>
#include <QStringList>

#include <memory>

namespace attncli {

int equivarianceVerb(const QStringList &args);   // verb_equivariance.cpp
int faithfulnessVerb(const QStringList &args);   // verb_faithfulness.cpp
int figureVerb(const QStringList &args);         // verb_figure.cpp
// `figure` draws with Qt Widgets: a QApplication (offscreen unless a platform is chosen) instead of a
// QCoreApplication when argv[1] is "figure".
std::unique_ptr<QCoreApplication> createApplication(int &argc, char **argv);

} // namespace attncli
