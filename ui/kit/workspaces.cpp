// SPDX-License-Identifier: GPL-3.0-or-later
#include "kit/workspaces.h"

#include "workspaces/approx/approxview.h"
#include "workspaces/compare/compareview.h"
#include "workspaces/equivariance/equivarianceview.h"
#include "workspaces/explore/exploreview.h"
#include "workspaces/faithfulness/faithfulnessview.h"
#include "workspaces/masks/masksview.h"
#include "workspaces/pipeline/pipelineview.h"
#include "workspaces/seq2seq/seq2seqview.h"
#include "workspaces/vision/visionview.h"

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
    list << new ApproxView(subject);
    list << new Seq2SeqView(subject);
    list << new VisionView(subject);
    // One line per workspace, in tab order.
    return list;
}

} // namespace attnui
