// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What File ▸ Export Figure…, Copy Figure Image, Export Data… and a plot's right-click menu do with a workspace,
// in one place: the dialogs (remembering the last folder), the figure with its caption, the clipboard. Each
// returns what to say in the status bar ("Saved …", "Figure copied …"), or an empty string when the user
// cancelled; failures are shown in a message box over `parent`.

#include <attnscope/provenance.h>

#include <QString>

#include <optional>

class QMenu;
class QWidget;

namespace attnui {

class Workspace;

struct FigureOptions;

// What every export of the workspace's current figure starts from: its caption and figure layout.
FigureOptions workspaceFigureOptions(const Workspace *workspace);
// Where a workspace's figures come from: the Subject's model and backend (as asked for; "auto" when the engine
// chooses), every hardware thread.
std::optional<attn::Provenance> workspaceProvenance(const Workspace *workspace);

// The workspace's figure (figureWidget() with figureCaption() under it, laid out as figureLayout() says) to
// `path`; the format follows the suffix.
bool exportWorkspaceFigure(Workspace *workspace, const QString &path, QString *error = nullptr);

QString exportFigureDialog(Workspace *workspace, QWidget *parent);
QString copyFigureImage(Workspace *workspace);
QString exportDataDialog(Workspace *workspace, QWidget *parent);

// Export Figure…, Copy Image, Export Data… for `workspace` (a plot's right-click menu); the status line of the one
// chosen goes out as workspace->statusMessage().
void addFigureActions(QMenu *menu, Workspace *workspace);

} // namespace attnui
