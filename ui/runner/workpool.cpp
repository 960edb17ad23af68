// SPDX-License-Identifier: GPL-3.0-or-later
#include "runner/workpool.h"

#include <QCoreApplication>
#include <QThread>
#include <QThreadPool>

#include <algorithm>

#ifdef __linux__
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <cerrno>
#endif

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

void enterBackgroundPriority()
{
    thread_local bool lowered = false;
    if (lowered) return;
    lowered = true;
#ifdef __linux__
    // On Linux, PRIO_PROCESS with a thread id names that thread alone. Raising one's own nice needs no privilege.
    const auto tid = static_cast<id_t>(::syscall(SYS_gettid));
    errno = 0;
    const int now = ::getpriority(PRIO_PROCESS, tid);
    if (errno == 0) (void)::setpriority(PRIO_PROCESS, tid, std::min(19, now + kBackgroundNice));
#else
    QThread::currentThread()->setPriority(QThread::LowPriority);
#endif
}

} // namespace attnui
