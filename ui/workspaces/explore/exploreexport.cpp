// SPDX-License-Identifier: GPL-3.0-or-later
// Explore's Export Data: the run document of the result on screen (as `attnscope-cli run --analyses` writes it),
// or the CSV of the heatmap on screen.
#include "workspaces/explore/exploreview.h"

#include "kit/dataexport.h"
#include "workspaces/explore/modelrun.h"

#include <QApplication>
#include <QEventLoop>
#include <QFutureWatcher>
#include <QtConcurrent/QtConcurrentRun>

namespace attnui {

QStringList ExploreView::dataFormats() const
{
    QStringList formats;
    if (std::dynamic_pointer_cast<const ModelSnapshot>(m_snapshot))
        formats << tr("JSON, as attnscope-cli run --analyses all writes it (*.json)");
    return formats + Workspace::dataFormats();
}

bool ExploreView::exportData(const QString &path, QString *error) const
{
    if (!hasSuffix(path, "json")) return Workspace::exportData(path, error);
    const auto snapshot = std::dynamic_pointer_cast<const ModelSnapshot>(m_snapshot);
    if (!snapshot) {
        if (error) *error = tr("%1: the Explore workspace shows no model's result to write as JSON yet").arg(path);
        return false;
    }
    // The forward pass runs again on the work pool (never on the UI thread); the window keeps painting meanwhile.
    const ModelRequest request = modelRequest();
    QFutureWatcher<attn::Result<std::string>> watcher;
    QEventLoop loop;
    QObject::connect(&watcher, &QFutureWatcherBase::finished, &loop, &QEventLoop::quit);
    watcher.setFuture(QtConcurrent::run([snapshot, request] { return runExportOf(*snapshot, request); }));
    if (!watcher.isFinished()) {
        QApplication::setOverrideCursor(Qt::WaitCursor);
        loop.exec(QEventLoop::ExcludeUserInputEvents);
        QApplication::restoreOverrideCursor();
    }
    const attn::Result<std::string> json = watcher.result();
    if (!json) {
        if (error) *error = QString::fromStdString(json.status().message());
        return false;
    }
    return writeTextFile(*json, path, error);
}

} // namespace attnui
