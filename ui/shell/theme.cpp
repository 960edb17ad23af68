// SPDX-License-Identifier: GPL-3.0-or-later
#include "shell/theme.h"

#include <QApplication>
#include <QPalette>
#include <QStyle>
#include <QStyleFactory>

namespace attnui {

QString themeName(Theme theme)
{
    return theme == Theme::Dark ? QStringLiteral("dark") : QStringLiteral("light");
}

Theme themeFromName(const QString &name)
{
    return name == QLatin1String("dark") ? Theme::Dark : Theme::Light;
}

void applyTheme(Theme theme)
{
    if (QStyle *fusion = QStyleFactory::create(QStringLiteral("Fusion"))) QApplication::setStyle(fusion);
    QPalette p = QApplication::style()->standardPalette();
    if (theme == Theme::Dark) {
        const QColor window(0x2b, 0x2d, 0x31), base(0x1f, 0x21, 0x24), text(0xe8, 0xe8, 0xea);
        const QColor highlight(0x3d, 0x7e, 0xd8);
        p.setColor(QPalette::Window, window);
        p.setColor(QPalette::WindowText, text);
        p.setColor(QPalette::Base, base);
        p.setColor(QPalette::AlternateBase, window);
        p.setColor(QPalette::ToolTipBase, QColor(0x3a, 0x3d, 0x42));
        p.setColor(QPalette::ToolTipText, text);
        p.setColor(QPalette::PlaceholderText, QColor(0x9a, 0x9c, 0xa1));
        p.setColor(QPalette::Text, text);
        p.setColor(QPalette::Button, QColor(0x35, 0x37, 0x3c));
        p.setColor(QPalette::ButtonText, text);
        p.setColor(QPalette::BrightText, Qt::white);
        p.setColor(QPalette::Highlight, highlight);
        p.setColor(QPalette::HighlightedText, Qt::white);
        p.setColor(QPalette::Link, QColor(0x7a, 0xb0, 0xff));
        p.setColor(QPalette::Mid, QColor(0x45, 0x48, 0x4e));
        p.setColor(QPalette::Dark, QColor(0x18, 0x19, 0x1b));
        p.setColor(QPalette::Light, QColor(0x4a, 0x4d, 0x53));
        for (auto role : {QPalette::WindowText, QPalette::Text, QPalette::ButtonText})
            p.setColor(QPalette::Disabled, role, QColor(0x7a, 0x7c, 0x80));
    }
    QApplication::setPalette(p);
}

} // namespace attnui
