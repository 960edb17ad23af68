// SPDX-License-Identifier: GPL-3.0-or-later
#include "kit/figureactions.h"

#include "export/figureexport.h"
#include "kit/subject.h"
#include "kit/workspace.h"

#include <QClipboard>
#include <QDir>
#include <QFileDialog>
#include <QGuiApplication>
#include <QMenu>
#include <QMessageBox>
#include <QSettings>
#include <QStandardPaths>

namespace attnui {

namespace {

QString lastFolder(const char *key)
{
    return QSettings().value(QLatin1String(key), QStandardPaths::writableLocation(QStandardPaths::PicturesLocation)).toString();
}

QString saveName(QWidget *parent, const char *key, const QString &title, const QString &name, const QString &filters)
{
    QString selected;
    const QString path = QFileDialog::getSaveFileName(parent, title, lastFolder(key) + QLatin1Char('/') + name, filters, &selected);
    if (!path.isEmpty()) QSettings().setValue(QLatin1String(key), QFileInfo(path).absolutePath());
    return path;
}

} // namespace

FigureOptions workspaceFigureOptions(const Workspace *workspace)
{
    FigureOptions options;
    if (!workspace) return options;
    options.caption = workspace->figureCaption();
    options.layout = workspace->figureLayout();
    options.provenance = workspaceProvenance(workspace);
    return options;
}

std::optional<attn::Provenance> workspaceProvenance(const Workspace *workspace)
{
    if (!workspace || !workspace->subject()) return std::nullopt;
    const Subject *subject = workspace->subject();
    return attn::makeProvenance(subject->modelSpec().toStdString(), subject->backend(), 0);
}

bool exportWorkspaceFigure(Workspace *workspace, const QString &path, QString *error)
{
    QWidget *figure = workspace ? workspace->figureWidget() : nullptr;
    if (!figure) {
        if (error) *error = QObject::tr("there is no figure to export yet");
        return false;
    }
    return exportFigure(figure, path, workspaceFigureOptions(workspace), error);
}

QString exportFigureDialog(Workspace *workspace, QWidget *parent)
{
    if (!workspace) return {};
    const QString path = saveName(parent, "export/dir", QObject::tr("Export Figure"), workspace->objectName() + QStringLiteral(".png"),
                                  QObject::tr("PNG image (*.png);;SVG vector image (*.svg);;PDF document (*.pdf)"));
    if (path.isEmpty()) return {};
    QString error;
    if (!exportWorkspaceFigure(workspace, path, &error)) {
        QMessageBox::warning(parent, QObject::tr("Export Figure"), QObject::tr("The figure was not saved: %1").arg(error));
        return {};
    }
    return QObject::tr("Saved %1").arg(QDir::toNativeSeparators(path));
}

QString copyFigureImage(Workspace *workspace)
{
    QWidget *figure = workspace ? workspace->figureWidget() : nullptr;
    if (!figure) return QObject::tr("There is no figure to copy yet");
    const QImage image = renderFigureImage(figure, workspaceFigureOptions(workspace));
    if (image.isNull()) return QObject::tr("There is no figure to copy yet");
    QGuiApplication::clipboard()->setImage(image);
    return QObject::tr("Figure copied (%1 × %2 pixels)").arg(image.width()).arg(image.height());
}

QString exportDataDialog(Workspace *workspace, QWidget *parent)
{
    if (!workspace) return {};
    const QStringList formats = workspace->dataFormats();
    if (formats.isEmpty()) {
        QMessageBox::information(parent, QObject::tr("Export Data"),
                                 QObject::tr("The %1 workspace has no data to export yet.").arg(workspace->title()));
        return {};
    }
    // The first format's suffix names the default file: "… (*.json)" → .json.
    const QString first = formats.first();
    const QString suffix = first.mid(first.lastIndexOf(QLatin1String("*.")) + 1).chopped(1);
    const QString path = saveName(parent, "export/dataDir", QObject::tr("Export Data"), workspace->objectName() + suffix,
                                  formats.join(QStringLiteral(";;")));
    if (path.isEmpty()) return {};
    QString error;
    if (!workspace->exportData(path, &error)) {
        QMessageBox::warning(parent, QObject::tr("Export Data"), QObject::tr("The data was not saved: %1").arg(error));
        return {};
    }
    return QObject::tr("Saved %1").arg(QDir::toNativeSeparators(path));
}

void addFigureActions(QMenu *menu, Workspace *workspace)
{
    const auto say = [workspace](const QString &text) {
        if (!text.isEmpty()) emit workspace->statusMessage(text);
    };
    menu->addAction(QObject::tr("Export Figure…"), workspace, [=] { say(exportFigureDialog(workspace, workspace)); });
    menu->addAction(QObject::tr("Copy Image"), workspace, [=] { say(copyFigureImage(workspace)); });
    QAction *data = menu->addAction(QObject::tr("Export Data…"), workspace, [=] { say(exportDataDialog(workspace, workspace)); });
    data->setEnabled(!workspace->dataFormats().isEmpty());
}

} // namespace attnui
