// SPDX-License-Identifier: GPL-3.0-or-later
#include "kit/fontscale.h"

#include <QApplication>
#include <QWidget>

namespace attnui {

namespace {

constexpr char kScale[] = "attnRelativeFontScale";
constexpr char kBold[] = "attnRelativeFontBold";

void apply(QWidget *w)
{
    w->setFont(relativeFont(w->property(kScale).toDouble(), w->property(kBold).toBool()));
    if (!w->styleSheet().isEmpty()) {
        const QString sheet = w->styleSheet();
        w->setStyleSheet(QString());
        w->setStyleSheet(sheet);
    }
    w->updateGeometry();
}

} // namespace

QFont relativeFont(double scale, bool bold)
{
    QFont f = QApplication::font();
    if (f.pointSizeF() > 0) f.setPointSizeF(f.pointSizeF() * scale);
    else f.setPixelSize(qRound(f.pixelSize() * scale));
    f.setBold(bold);
    return f;
}

void setRelativeFont(QWidget *w, double scale, bool bold)
{
    if (!w) return;
    w->setProperty(kScale, scale);
    w->setProperty(kBold, bold);
    apply(w);
}

void setApplicationFont(const QFont &font)
{
    QApplication::setFont(font);
    for (QWidget *w : QApplication::allWidgets()) {
        if (w->property(kScale).isValid()) {
            apply(w);
        } else if (!w->styleSheet().isEmpty()) {
            // A style-sheeted widget computed its font when the sheet was set: set it again to follow.
            const QString sheet = w->styleSheet();
            w->setStyleSheet(QString());
            w->setStyleSheet(sheet);
        }
    }
}

} // namespace attnui
