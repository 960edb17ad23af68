// SPDX-License-Identifier: GPL-3.0-or-later
// Safe output files (attnscope/fileio.h): what writeFileAtomically and FileTransaction do to every kind of target
// a user or an attacker can put at --out (a new name, a file, the user's own X.tmp, a planted symlink, a FIFO, a
// device, a folder, a read-only folder, a full disk), that a failure leaves the previous files as they were, and
// that write errors on standard output are reported. Cases that need a failing disk or other privileges run in a
// forked child (RLIMIT_FSIZE makes writes fail with EFBIG; as root, the child drops to uid 65534 so permissions
// apply); the child's exit code carries the result back.

#include <attnscope/fileio.h>

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>

#include <atomic>
#include <csignal>
#include <cstring>
#include <cstdio>
#include <functional>
#include <iostream>
#include <thread>

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace attn;

namespace {

constexpr int kChildSkip = 77;   // the child could not set up its case (e.g. no privileges to drop)

QByteArray readAll(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray("<unreadable>");
}

void writeRaw(const QString &path, const QByteArray &bytes)
{
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    QCOMPARE(f.write(bytes), bytes.size());
}

// Every name in `dir`, hidden ones included (temporaries are hidden).
QStringList entries(const QString &dir)
{
    return QDir(dir).entryList(QDir::AllEntries | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot, QDir::Name);
}

mode_t modeOf(const QString &path)
{
    struct stat st {};
    return ::lstat(QFile::encodeName(path).constData(), &st) == 0 ? st.st_mode : 0;
}

mode_t currentUmask()
{
    const mode_t m = ::umask(022);
    ::umask(m);
    return m;
}

// Runs `body` in a forked child and returns its exit code (-1 when it died from a signal).
int inChild(const std::function<int()> &body)
{
    std::fflush(stdout);
    std::fflush(stderr);
    const pid_t pid = ::fork();
    if (pid == 0) ::_exit(body());
    int status = 0;
    ::waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// In a child: as root, become uid/gid 65534 so file permissions apply. False when that is impossible.
bool dropRoot()
{
    if (::geteuid() != 0) return true;
    return ::setgid(65534) == 0 && ::setuid(65534) == 0 && ::geteuid() == 65534;
}

// In a child: files larger than `bytes` cannot be written (EFBIG instead of SIGXFSZ).
void limitFileSize(rlim_t bytes)
{
    std::signal(SIGXFSZ, SIG_IGN);
    const rlimit limit{bytes, bytes};
    ::setrlimit(RLIMIT_FSIZE, &limit);
}

} // namespace

class TestFiles : public QObject {
    Q_OBJECT

private slots:
    void newFileGetsUmaskMode_data()
    {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addRow("empty") << QByteArray();
        QTest::addRow("7 bytes") << QByteArray("payload");
        QTest::addRow("1 MiB") << QByteArray(1 << 20, 'x');
    }
    void newFileGetsUmaskMode()
    {
        QFETCH(QByteArray, bytes);
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString path = dir.filePath("out.json");
        const Status s = writeFileAtomically(path.toStdString(), bytes.toStdString());
        QVERIFY2(s, s.message().c_str());
        QCOMPARE(readAll(path), bytes);
        QCOMPARE(modeOf(path) & 07777, 0666 & ~currentUmask());
        QCOMPARE(entries(dir.path()), QStringList{"out.json"});
    }

    void replacedFileKeepsItsMode()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath("out.json");
        writeRaw(path, "old");
        QVERIFY(::chmod(QFile::encodeName(path).constData(), 0640) == 0);
        QVERIFY(writeFileAtomically(path.toStdString(), "new"));
        QCOMPARE(readAll(path), QByteArray("new"));
        QCOMPARE(modeOf(path) & 07777, mode_t(0640));
        QCOMPARE(entries(dir.path()), QStringList{"out.json"});
    }

    // The old writer always used "<out>.tmp": the user's own file of that name was destroyed, and a symlink planted
    // there had its target overwritten. Temporaries now get fresh random names, created with O_EXCL | O_NOFOLLOW.
    void existingTmpNamesAreLeftAlone_data()
    {
        QTest::addColumn<bool>("planted");   // out.json.tmp: a symlink to "victim", or the user's own file
        QTest::addRow("the user's own out.json.tmp") << false;
        QTest::addRow("a symlink planted at out.json.tmp") << true;
    }
    void existingTmpNamesAreLeftAlone()
    {
        QFETCH(bool, planted);
        QTemporaryDir dir;
        const QString out = dir.filePath("out.json"), tmp = dir.filePath("out.json.tmp");
        writeRaw(dir.filePath("victim"), "must not change");
        if (planted) QVERIFY(QFile::link(dir.filePath("victim"), tmp));
        else writeRaw(tmp, "the user's own file");
        for (int i = 0; i < 3; ++i) QVERIFY(writeFileAtomically(out.toStdString(), "export " + std::to_string(i)));
        QCOMPARE(readAll(out), QByteArray("export 2"));
        QCOMPARE(readAll(dir.filePath("victim")), QByteArray("must not change"));
        if (planted) QVERIFY(S_ISLNK(modeOf(tmp)));
        else QCOMPARE(readAll(tmp), QByteArray("the user's own file"));
        QCOMPARE(entries(dir.path()), (QStringList{"out.json", "out.json.tmp", "victim"}));
    }

    void symlinkTargetIsReplaced_data()
    {
        QTest::addColumn<QString>("link");     // relative to the temporary folder
        QTest::addColumn<QString>("points");   // what the link holds
        QTest::addColumn<QString>("target");   // the file that must receive the bytes
        QTest::addRow("absolute") << "out.json" << "@/real/target.json" << "real/target.json";
        QTest::addRow("relative") << "out.json" << "real/target.json" << "real/target.json";
        QTest::addRow("relative from a subfolder") << "links/out.json" << "../real/target.json" << "real/target.json";
        QTest::addRow("dangling: creates the target") << "out.json" << "real/new.json" << "real/new.json";
    }
    void symlinkTargetIsReplaced()
    {
        QFETCH(QString, link);
        QFETCH(QString, points);
        QFETCH(QString, target);
        QTemporaryDir dir;
        QVERIFY(QDir(dir.path()).mkpath("real") && QDir(dir.path()).mkpath("links"));
        writeRaw(dir.filePath("real/target.json"), "old");
        if (points.startsWith('@')) points = dir.path() + points.mid(1);
        QVERIFY(::symlink(QFile::encodeName(points).constData(), QFile::encodeName(dir.filePath(link)).constData()) == 0);
        const Status s = writeFileAtomically(dir.filePath(link).toStdString(), "new");
        QVERIFY2(s, s.message().c_str());
        QVERIFY(S_ISLNK(modeOf(dir.filePath(link))));
        QCOMPARE(readAll(dir.filePath(target)), QByteArray("new"));
        const QString targetFolder = QFileInfo(dir.filePath(target)).path();
        for (const QString &name : entries(targetFolder)) QVERIFY2(!name.startsWith('.'), qPrintable(name));
    }

    void symlinkChainAndLoop()
    {
        QTemporaryDir dir;
        writeRaw(dir.filePath("c"), "old");
        QVERIFY(QFile::link(dir.filePath("c"), dir.filePath("b")));
        QVERIFY(QFile::link(dir.filePath("b"), dir.filePath("a")));
        QVERIFY(writeFileAtomically(dir.filePath("a").toStdString(), "new"));
        QCOMPARE(readAll(dir.filePath("c")), QByteArray("new"));
        QVERIFY(S_ISLNK(modeOf(dir.filePath("a"))) && S_ISLNK(modeOf(dir.filePath("b"))));

        QVERIFY(QFile::link(dir.filePath("loop2"), dir.filePath("loop1")));
        QVERIFY(QFile::link(dir.filePath("loop1"), dir.filePath("loop2")));
        const Status s = writeFileAtomically(dir.filePath("loop1").toStdString(), "x");
        QVERIFY(!s);
        QCOMPARE(s.code(), ErrorCode::IoError);
        QVERIFY2(s.message().find("loop1") != std::string::npos, s.message().c_str());
        QVERIFY(S_ISLNK(modeOf(dir.filePath("loop1"))) && S_ISLNK(modeOf(dir.filePath("loop2"))));
    }

    void fifoIsWrittenThrough()
    {
        QTemporaryDir dir;
        const QString fifo = dir.filePath("pipe");
        QVERIFY(::mkfifo(QFile::encodeName(fifo).constData(), 0600) == 0);
        QByteArray received;
        std::thread reader([&] {
            QFile f(fifo);
            if (f.open(QIODevice::ReadOnly)) received = f.readAll();
        });
        const std::string payload(100000, 'p');   // more than a pipe buffer: the writer must wait for the reader
        const Status s = writeFileAtomically(fifo.toStdString(), payload);
        reader.join();
        QVERIFY2(s, s.message().c_str());
        QCOMPARE(received.size(), qsizetype(payload.size()));
        QVERIFY(S_ISFIFO(modeOf(fifo)));
        QCOMPARE(entries(dir.path()), QStringList{"pipe"});
    }

    void characterDevicesStayDevices()
    {
        QVERIFY(writeFileAtomically("/dev/null", "discarded"));
        QVERIFY(S_ISCHR(modeOf("/dev/null")));
        const Status full = writeFileAtomically("/dev/full", "x");
        QVERIFY(!full);
        QCOMPARE(full.code(), ErrorCode::IoError);
        QVERIFY2(full.message().find("/dev/full") != std::string::npos &&
                     full.message().find(std::strerror(ENOSPC)) != std::string::npos,
                 full.message().c_str());
        QVERIFY(S_ISCHR(modeOf("/dev/full")));
    }

    void refusedTargets_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("expected");   // in the message
        QTest::addRow("a folder") << "folder" << "folder";
        QTest::addRow("a path ending in /") << "folder/" << "folder";
        QTest::addRow("a missing folder") << "missing/out.json" << "missing/out.json";
        QTest::addRow("empty") << "" << "empty";
    }
    void refusedTargets()
    {
        QFETCH(QString, name);
        QFETCH(QString, expected);
        QTemporaryDir dir;
        QVERIFY(QDir(dir.path()).mkdir("folder"));
        writeRaw(dir.filePath("folder/inside"), "kept");
        const std::string path = name.isEmpty() ? std::string() : dir.filePath(name).toStdString();
        const Status s = writeFileAtomically(path, "x");
        QVERIFY(!s);
        QVERIFY2(s.message().find(expected.toStdString()) != std::string::npos, s.message().c_str());
        QCOMPARE(entries(dir.path()), QStringList{"folder"});
        QCOMPARE(entries(dir.filePath("folder")), QStringList{"inside"});
    }

    // A folder the user may not write: no temporary can be made, so nothing is written and the old file stays,
    // even though the file itself is writable (a direct overwrite would be possible, but not atomic).
    void readOnlyFolderKeepsTheOldFile()
    {
        QTemporaryDir dir;
        QVERIFY(::chmod(QFile::encodeName(dir.path()).constData(), 0755) == 0);
        const QString folder = dir.filePath("ro");
        QVERIFY(QDir(dir.path()).mkdir("ro"));
        writeRaw(folder + "/out.json", "old");
        QVERIFY(::chmod(QFile::encodeName(folder + "/out.json").constData(), 0666) == 0);
        QVERIFY(::chmod(QFile::encodeName(folder).constData(), 0555) == 0);
        const std::string path = (folder + "/out.json").toStdString();
        const int code = inChild([&] {
            if (!dropRoot()) return kChildSkip;
            const Status s = writeFileAtomically(path, "new");
            return !s && s.code() == ErrorCode::IoError && s.message().find(path) != std::string::npos &&
                           s.message().find(std::strerror(EACCES)) != std::string::npos
                       ? 0 : 1;
        });
        QVERIFY(::chmod(QFile::encodeName(folder).constData(), 0755) == 0);
        if (code == kChildSkip) QSKIP("running as root without the right to drop privileges");
        QCOMPARE(code, 0);
        QCOMPARE(readAll(folder + "/out.json"), QByteArray("old"));
        QCOMPARE(entries(folder), QStringList{"out.json"});
    }

    void readOnlyFileIsRefused()
    {
        QTemporaryDir dir;
        QVERIFY(::chmod(QFile::encodeName(dir.path()).constData(), 0777) == 0);
        const QString path = dir.filePath("out.json");
        writeRaw(path, "old");
        QVERIFY(::chmod(QFile::encodeName(path).constData(), 0444) == 0);
        const int code = inChild([&] {
            if (!dropRoot()) return kChildSkip;
            return writeFileAtomically(path.toStdString(), "new") ? 1 : 0;
        });
        if (code == kChildSkip) QSKIP("running as root without the right to drop privileges");
        QCOMPARE(code, 0);
        QCOMPARE(readAll(path), QByteArray("old"));
        QCOMPARE(entries(dir.path()), QStringList{"out.json"});
    }

    // A write that fails half-way (EFBIG here; a full disk in life) leaves the previous file and no temporary.
    void failedWriteKeepsTheOldFile()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath("out.json");
        writeRaw(path, "old");
        const int code = inChild([&] {
            limitFileSize(64);
            const Status s = writeFileAtomically(path.toStdString(), std::string(1000, 'n'));
            return !s && s.message().find(std::strerror(EFBIG)) != std::string::npos ? 0 : 1;
        });
        QCOMPARE(code, 0);
        QCOMPARE(readAll(path), QByteArray("old"));
        QCOMPARE(entries(dir.path()), QStringList{"out.json"});
    }

    // Issue 14: a `run --npy` re-export whose JSON could not be written deleted the previous .npy.
    void transactionFailingAddKeepsEveryOldFile()
    {
        QTemporaryDir dir;
        const QString json = dir.filePath("run.json"), npy = dir.filePath("run.attention.npy");
        writeRaw(json, "old json");
        writeRaw(npy, "old npy");
        const int code = inChild([&] {
            limitFileSize(64);
            FileTransaction files;
            if (!files.add(npy.toStdString(), "new npy")) return 2;
            if (files.add(json.toStdString(), std::string(1000, 'j'))) return 3;   // over the limit: fails
            return files.commit() ? 4 : 0;
        });
        QCOMPARE(code, 0);
        QCOMPARE(readAll(json), QByteArray("old json"));
        QCOMPARE(readAll(npy), QByteArray("old npy"));
        QCOMPARE(entries(dir.path()), (QStringList{"run.attention.npy", "run.json"}));
    }

    void transactionCommitsTogether()
    {
        QTemporaryDir dir;
        const QString json = dir.filePath("run.json"), npy = dir.filePath("run.attention.npy");
        writeRaw(npy, "old npy");
        FileTransaction files;
        QVERIFY(files.add(npy.toStdString(), "new npy"));
        QVERIFY(files.add(json.toStdString(), "new json"));
        // Nothing visible changes before commit().
        QCOMPARE(readAll(npy), QByteArray("old npy"));
        QVERIFY(!QFile::exists(json));
        QVERIFY(files.commit());
        QCOMPARE(readAll(npy), QByteArray("new npy"));
        QCOMPARE(readAll(json), QByteArray("new json"));
        QCOMPARE(entries(dir.path()), (QStringList{"run.attention.npy", "run.json"}));
        QVERIFY(!files.commit());   // once only
    }

    // A rename that fails after an earlier one succeeded: the earlier file gets its previous content back.
    void transactionRenameFailureRestores()
    {
        QTemporaryDir dir;
        const QString json = dir.filePath("run.json"), npy = dir.filePath("run.attention.npy");
        const QString fresh = dir.filePath("fresh.txt");
        writeRaw(npy, "old npy");
        writeRaw(json, "old json");
        {
            FileTransaction files;
            QVERIFY(files.add(npy.toStdString(), "new npy"));
            QVERIFY(files.add(fresh.toStdString(), "new file"));
            QVERIFY(files.add(json.toStdString(), "new json"));
            // Between add() and commit() the JSON's name becomes a non-empty folder: rename(2) cannot replace it.
            QVERIFY(QFile::remove(json));
            QVERIFY(QDir(dir.path()).mkpath("run.json/inside"));
            const Status s = files.commit();
            QVERIFY(!s);
            QVERIFY2(s.message().find("run.json") != std::string::npos, s.message().c_str());
        }
        QCOMPARE(readAll(npy), QByteArray("old npy"));
        QVERIFY(!QFile::exists(fresh));
        QCOMPARE(entries(dir.path()), (QStringList{"run.attention.npy", "run.json"}));
    }

    void uncommittedTransactionLeavesNothing()
    {
        QTemporaryDir dir;
        {
            FileTransaction files;
            QVERIFY(files.add(dir.filePath("a").toStdString(), "a"));
            QVERIFY(files.add(dir.filePath("b").toStdString(), "b"));
        }
        QCOMPARE(entries(dir.path()), QStringList());
    }

    // Readers never see a mix: concurrent writers of one file leave one whole version and no temporaries.
    void concurrentWritersLeaveOneWholeFile()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath("out.json").toStdString();
        std::vector<std::thread> writers;
        std::atomic<int> failures{0};
        for (char c : {'a', 'b', 'c', 'd'})
            writers.emplace_back([&, c] {
                for (int i = 0; i < 25; ++i)
                    if (!writeFileAtomically(path, std::string(50000, c))) ++failures;
            });
        for (std::thread &t : writers) t.join();
        QCOMPARE(failures.load(), 0);
        const QByteArray content = readAll(QString::fromStdString(path));
        QCOMPARE(content.size(), 50000);
        QCOMPARE(content.count(content.front()), 50000);
        QCOMPARE(entries(dir.path()), QStringList{"out.json"});
    }

    // Standard output on /dev/full: each way of writing reports the error (the CLI exits 1 with it). A write that
    // failed inside printf or std::cout (when stdout is line-buffered or unbuffered) leaves only stdio's error flag,
    // so finishStdout() can say that the output is incomplete but not always why.
    void stdoutErrorsAreReported_data()
    {
        QTest::addColumn<int>("way");
        QTest::addColumn<bool>("namesReason");   // the message must name ENOSPC
        QTest::addRow("writeStdout") << 0 << true;
        QTest::addRow("printf, then finishStdout") << 1 << false;
        QTest::addRow("std::cout, then finishStdout") << 2 << false;
        QTest::addRow("writeFileAtomically(\"-\")") << 3 << true;
        QTest::addRow("printf, then writeStdout") << 4 << false;
    }
    void stdoutErrorsAreReported()
    {
        QFETCH(int, way);
        QFETCH(bool, namesReason);
        const int code = inChild([way, namesReason] {
            const int full = ::open("/dev/full", O_WRONLY);
            if (full < 0 || ::dup2(full, STDOUT_FILENO) < 0) return kChildSkip;
            Status s;
            switch (way) {
            case 0: s = writeStdout("{\"info\": true}\n"); break;
            case 1: std::printf("%s\n", "bench output"); s = finishStdout(); break;
            case 2: std::cout << "equivariance output\n"; s = finishStdout(); break;
            case 3: s = writeFileAtomically("-", "run output"); break;
            default: std::printf("x\n"); std::fflush(stdout); s = writeStdout(""); break;
            }
            if (s || s.code() != ErrorCode::IoError || s.message().find("standard output") == std::string::npos) return 1;
            return !namesReason || s.message().find(std::strerror(ENOSPC)) != std::string::npos ? 0 : 2;
        });
        if (code == kChildSkip) QSKIP("/dev/full is not available");
        QCOMPARE(code, 0);
    }

    void stdoutWritesArrive()
    {
        int pipeFds[2];
        QVERIFY(::pipe(pipeFds) == 0);
        const int code = inChild([&] {
            ::close(pipeFds[0]);
            if (::dup2(pipeFds[1], STDOUT_FILENO) < 0) return kChildSkip;
            std::cout << "a";
            std::printf("b");
            const bool ok = writeStdout("c") && writeFileAtomically("-", "d") && finishStdout();
            return ok ? 0 : 1;
        });
        ::close(pipeFds[1]);
        QByteArray received;
        char buffer[64];
        for (ssize_t n; (n = ::read(pipeFds[0], buffer, sizeof buffer)) > 0;) received.append(buffer, n);
        ::close(pipeFds[0]);
        QCOMPARE(code, 0);
        QCOMPARE(received, QByteArray("abcd"));
    }
};

QTEST_GUILESS_MAIN(TestFiles)
#include "tst_files.moc"
