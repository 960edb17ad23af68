// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Fonts relative to the application's: a title 1.35 times the body text, a table 0.9 times. A widget given its
// font this way keeps the ratio when the application font changes through setApplicationFont (presentation
// mode's large type): a font set on a widget otherwise stays at the size it was first given, and a formula or a
// table would shrink relative to everything around it. Style-sheeted widgets are re-polished so that their
// sheet's rules apply to the new size.

#include <QFont>

class QWidget;

namespace attnui {

// Sets w's font to the application font × scale (bold or not), now and at every setApplicationFont.
void setRelativeFont(QWidget *w, double scale, bool bold = false);

// QApplication::setFont, then every widget with a relative font (and every style-sheeted widget) follows it.
void setApplicationFont(const QFont &font);

// The application font × scale, bold or not.
QFont relativeFont(double scale, bool bold = false);

} // namespace attnui
