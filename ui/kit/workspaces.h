// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The list of workspaces, in tab order. The main window and headless tools (attnscope-cli figure) create them
// from here; a new workspace adds one line to createWorkspaces() in workspaces.cpp.

#include <QList>

namespace attnui {

class Subject;
class Workspace;

// Creates every workspace over `subject`, Explore first. The caller takes ownership (parent them).
QList<Workspace *> createWorkspaces(Subject *subject);

} // namespace attnui
