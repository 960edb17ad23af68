// SPDX-License-Identifier: GPL-3.0-or-later
#include "runner/workpool.h"

#include <QCoreApplication>
#include <QThread>
#include <QThreadPool>

#include <algorithm>

namespace attnui {

namespace {

QThreadPool &pool()
{
    static QThreadPool instance;
    return instance;
}

} // namespace

QThreadPool *workPool()
{
    static const bool ready = [] {
        pool().setMaxThreadCount(std::max(2, QThread::idealThreadCount()));
        pool().setObjectName(QStringLiteral("attnscope-work"));
        // As Qt does for its global pool: the application's destructor waits for what is still running, so no
        // job outlives the libraries it uses.
        qAddPostRoutine([] { pool().waitForDone(); });
        return true;
    }();
    (void)ready;
    return &pool();
}

} // namespace attnui
