// SPDX-License-Identifier: GPL-3.0-or-later
#include "workspace.h"

#include "runner/enginerunner.h"

namespace attnui {

Workspace::Workspace(Subject *subject, QWidget *parent)
    : QWidget(parent), m_subject(subject), m_runner(new EngineRunner(this))
{
}

Workspace::~Workspace()
{
    m_runner->cancel();
}

bool Workspace::restoreSessionState(const QJsonObject &state, QString *error)
{
    if (state.isEmpty()) return true;
    if (error) *error = tr("the %1 workspace keeps no session state").arg(title());
    return false;
}

bool Workspace::showView(const QString &spec, QString *error)
{
    if (error) *error = tr("the %1 workspace has no view '%2'").arg(title(), spec);
    return false;
}

QString Workspace::couldNotRunText(const QString &message, bool resultShown) const
{
    return resultShown ? tr("Could not run: %1. The last result is still shown.").arg(message)
                       : tr("Could not run: %1.").arg(message);
}

} // namespace attnui
