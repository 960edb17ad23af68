// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The Help menu's pages: a guide to the workspace on screen (Workspace::guide) and the keyboard shortcuts, the
// latter read from the window's actions, so the list cannot go stale when a shortcut is added or changed.

#include <QString>

#include <functional>

class QMainWindow;
class QMenu;
class QWidget;

namespace attnui {

class Workspace;

// The name an action has on the shortcuts page when its menu text alone would not say it ("1 Explore").
inline constexpr char kHelpTextProperty[] = "attnscopeHelpText";

// HTML: one row per action of `window` with a shortcut (its text without the & and every shortcut it has), then
// the keys that are not actions (Pipeline's stage keys, the text box's).
QString shortcutsHtml(const QWidget *window);

// Adds Guide to This Workspace (F1) and Keyboard Shortcuts to `help`; `current` gives the workspace on screen.
void addHelpPages(QMenu *help, QMainWindow *window, std::function<Workspace *()> current);

} // namespace attnui
