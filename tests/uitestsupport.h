// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Small helpers the UI tests share.

#include <QSpinBox>
#include <QString>
#include <QWidget>

namespace attnui::test {

// The spin box below `w` whose prefix is `prefix` ("layer ", "head "); nullptr when there is none.
inline QSpinBox *spinBoxWithPrefix(const QWidget *w, const QString &prefix)
{
    for (QSpinBox *spin : w->findChildren<QSpinBox *>())
        if (spin->prefix() == prefix) return spin;
    return nullptr;
}

} // namespace attnui::test
