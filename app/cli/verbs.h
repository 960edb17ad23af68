// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Verbs implemented in their own files (verb_*.cpp); main.cpp's table lists them. Each takes the arguments with
// args[0] = "attnscope-cli VERB" and returns the exit code.

#include <QStringList>

namespace attncli {

} // namespace attncli
