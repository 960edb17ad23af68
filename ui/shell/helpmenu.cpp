// SPDX-License-Identifier: GPL-3.0-or-later
#include "shell/helpmenu.h"

#include "kit/workspace.h"

#include <QAction>
#include <QDialog>
#include <QDialogButtonBox>
#include <QMainWindow>
#include <QMenu>
#include <QScreen>
#include <QTextBrowser>
#include <QVBoxLayout>

#include <algorithm>

namespace attnui {

namespace {

QString plainText(QString text)
{
    // "&Open Model Folder…" → "Open Model Folder…" ("&&" is a literal ampersand).
    text.replace(QLatin1String("&&"), QStringLiteral("\x01"));
    text.remove(QLatin1Char('&'));
    text.replace(QStringLiteral("\x01"), QStringLiteral("&"));
    return text;
}

// A read-only page, closed with Esc or its button; it never grows past the screen.
void showPage(QWidget *parent, const QString &title, const QString &html, QSize want)
{
    auto *dialog = new QDialog(parent);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setWindowTitle(title);
    auto *layout = new QVBoxLayout(dialog);
    auto *text = new QTextBrowser(dialog);
    text->setOpenExternalLinks(false);
    text->setHtml(html);
    layout->addWidget(text);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, dialog);
    QObject::connect(buttons, &QDialogButtonBox::rejected, dialog, &QDialog::reject);
    layout->addWidget(buttons);
    // As large as its content wants where the screen allows.
    const QSize screen = parent ? parent->screen()->availableSize() : QSize(1280, 720);
    dialog->resize(std::min(want.width(), screen.width() - 80), std::min(want.height(), screen.height() - 60));
    dialog->show();
}

} // namespace

QString shortcutsHtml(const QWidget *window)
{
    struct Row {
        QString what, keys;
    };
    QList<Row> rows;
    for (const QAction *a : window->findChildren<QAction *>()) {
        if (a->shortcuts().isEmpty() || a->text().isEmpty()) continue;
        QStringList keys;
        for (const QKeySequence &k : a->shortcuts()) keys << k.toString(QKeySequence::NativeText).toHtmlEscaped();
        // An action may name itself better for this page than in its menu (kHelpTextProperty).
        const QString what = a->property(kHelpTextProperty).toString();
        const Row row{(what.isEmpty() ? plainText(a->text()) : what).toHtmlEscaped(), keys.join(QStringLiteral(" or "))};
        if (std::none_of(rows.begin(), rows.end(), [&](const Row &r) { return r.what == row.what && r.keys == row.keys; }))
            rows << row;
    }
    // Alphabetical, except that the workspaces keep their Ctrl+1 … Ctrl+9 order.
    const QString go = QObject::tr("Go to the ");
    std::sort(rows.begin(), rows.end(), [&go](const Row &a, const Row &b) {
        if (a.what.startsWith(go) && b.what.startsWith(go)) return a.keys < b.keys;
        return a.what < b.what;
    });
    // Keys handled by widgets, not window actions.
    rows << Row{QObject::tr("Pipeline: next / previous stage"), QObject::tr("→ / ← or PageDown / PageUp (not while a text or number box has the focus)")}
         << Row{QObject::tr("Pipeline: play / pause the walk through the stages"), QObject::tr("Space")}
         << Row{QObject::tr("Heatmap: zoom / pan"), QObject::tr("mouse wheel / drag; right-click for Export Figure, Copy Image, Export Data")};
    QString html = QStringLiteral("<table cellspacing='0' cellpadding='4'>");
    for (const Row &r : rows) html += QStringLiteral("<tr><td>%1</td><td><b>%2</b></td></tr>").arg(r.what, r.keys);
    return html + QStringLiteral("</table>");
}

void addHelpPages(QMenu *help, QMainWindow *window, std::function<Workspace *()> current)
{
    QAction *guide = help->addAction(QObject::tr("&Guide to This Workspace"), window, [window, current] {
        Workspace *w = current();
        if (!w) return;
        showPage(window, QObject::tr("Guide: %1").arg(plainText(w->title())), w->guide(), QSize(680, 380));
    });
    guide->setShortcut(QKeySequence::HelpContents);
    window->addAction(guide);   // F1 also in presentation mode, where the menu bar is hidden
    help->addAction(QObject::tr("&Keyboard Shortcuts"), window, [window] {
        showPage(window, QObject::tr("Keyboard Shortcuts"), shortcutsHtml(window), QSize(720, 760));
    });
    help->addSeparator();
}

} // namespace attnui
