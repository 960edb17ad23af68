// SPDX-License-Identifier: GPL-3.0-or-later
#include "workspaces.h"

#include "views/exploreview.h"

namespace attnui {

QList<Workspace *> createWorkspaces(Subject *subject)
{
    QList<Workspace *> list;
    list << new ExploreView(subject);
    // One line per workspace, in tab order.
    return list;
}

} // namespace attnui
