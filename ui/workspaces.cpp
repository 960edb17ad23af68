// SPDX-License-Identifier: GPL-3.0-or-later
#include "workspaces.h"

#include "views/compareview.h"
#include "views/equivarianceview.h"
#include "views/exploreview.h"
#include "views/faithfulnessview.h"
#include "views/masksview.h"
#include "views/pipelineview.h"

namespace attnui {

QList<Workspace *> createWorkspaces(Subject *subject)
{
    QList<Workspace *> list;
    list << new ExploreView(subject);
    list << new PipelineView(subject);
    list << new MasksView(subject);
    list << new EquivarianceView(subject);
    list << new FaithfulnessView(subject);
    list << new CompareView(subject);
    // One line per workspace, in tab order.
    return list;
}

} // namespace attnui
