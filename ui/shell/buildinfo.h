// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What this build is: versions and the compute backends, for the About box and bug reports.

#include <QString>

namespace attnui {

QString attnscopeVersion();
QString eigenVersion();
QString backendsSummary();      // "reference, tiled, unfused; CUDA: <reason>"
QString buildInfoHtml();        // the About box body

} // namespace attnui
