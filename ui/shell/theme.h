// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Light and dark palettes on the Fusion style, so both look the same on every desktop.

#include <QString>

namespace attnui {

enum class Theme { Light, Dark };

QString themeName(Theme theme);                       // "light", "dark"
Theme themeFromName(const QString &name);
void applyTheme(Theme theme);                         // sets the application's style and palette

} // namespace attnui
