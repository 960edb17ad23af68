// SPDX-License-Identifier: GPL-3.0-or-later
// Safe output files (fileio.h). The rules, and why: a temporary under a predictable name ("<out>.tmp") could be a
// symlink planted by someone else, or a file of the user's own; O_EXCL on a fresh random name is neither. A FIFO or
// a device given as the output must be written, not replaced by a regular file. rename() is atomic within a
// folder, so the temporary lives beside the file it replaces (for a symlink: beside the link's target).
#include <attnscope/fileio.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <random>
#include <set>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace attn {

namespace {

Status ioError(const std::string &path, const std::string &what, int err)
{
    return {ErrorCode::IoError, path + ": " + what + " (" + std::strerror(err ? err : EIO) + ")"};
}

std::string folderOf(const std::string &path)
{
    const std::size_t slash = path.rfind('/');
    if (slash == std::string::npos) return ".";
    return slash == 0 ? "/" : path.substr(0, slash);
}

std::string nameOf(const std::string &path)
{
    const std::size_t slash = path.rfind('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

// What `path` finally names after following symlinks (up to 40, as the kernel does).
struct Target {
    std::string path;
    bool exists = false;
    struct stat st {};
};

Result<Target> resolve(const std::string &path)
{
    Target t;
    t.path = path;
    for (int hops = 0;; ++hops) {
        if (::lstat(t.path.c_str(), &t.st) != 0) {
            if (errno == ENOENT || errno == ENOTDIR) return t;   // a new file (its folder is checked on creation)
            return ioError(path, "cannot inspect " + (t.path == path ? std::string("it") : t.path), errno);
        }
        if (!S_ISLNK(t.st.st_mode)) {
            t.exists = true;
            return t;
        }
        if (hops == 40) return ioError(path, "cannot follow its symbolic links", ELOOP);
        std::string link(static_cast<std::size_t>(t.st.st_size > 0 ? t.st.st_size : 4096) + 1, '\0');
        const ssize_t n = ::readlink(t.path.c_str(), link.data(), link.size());
        if (n < 0) return ioError(path, "cannot read the symbolic link " + t.path, errno);
        if (n == 0 || static_cast<std::size_t>(n) >= link.size())
            return ioError(path, "the symbolic link " + t.path + " changed while it was read", EAGAIN);
        link.resize(static_cast<std::size_t>(n));
        t.path = link.front() == '/' ? link : folderOf(t.path) + "/" + link;
    }
}

enum class Kind { Replace, WriteThrough };

// How the resolved target is written; refuses what must not be written at all.
Result<Kind> kindOf(const std::string &path, const Target &t)
{
    if (path == "-") return Kind::WriteThrough;
    if (nameOf(t.path).empty() || (t.exists && S_ISDIR(t.st.st_mode))) return ioError(path, "names a folder, not a file", EISDIR);
    if (!t.exists) return Kind::Replace;
    if (S_ISFIFO(t.st.st_mode) || S_ISCHR(t.st.st_mode)) return Kind::WriteThrough;
    if (S_ISBLK(t.st.st_mode)) return ioError(path, "is a block device; AttnScope does not write to disks", EPERM);
    if (!S_ISREG(t.st.st_mode)) return ioError(path, "is neither a file, a FIFO nor a character device", EINVAL);
    if (::access(t.path.c_str(), W_OK) != 0) return ioError(path, "cannot be written", errno);
    return Kind::Replace;
}

std::string randomTag()
{
    static std::atomic<std::uint64_t> counter{0};
    thread_local std::mt19937_64 rng(std::random_device{}() ^ (static_cast<std::uint64_t>(::getpid()) << 32) ^
                                     counter.fetch_add(1));
    static constexpr char kChars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    std::string tag(6, 'x');
    for (char &c : tag) c = kChars[rng() % (sizeof kChars - 1)];
    return tag;
}

// A new, unique name beside `target` (".NAME.XXXXXX.SUFFIX") in `name`; `make` creates it and fails with EEXIST
// when the name is taken. Returns 0 or the errno of the failure.
template <typename Make>
int uniqueSibling(const std::string &target, const char *suffix, Make &&make, std::string &name)
{
    const std::string prefix = folderOf(target) + "/." + nameOf(target).substr(0, 200) + ".";
    for (int attempt = 0; attempt < 100; ++attempt) {
        name = prefix + randomTag() + suffix;
        if (make(name)) return 0;
        if (errno != EEXIST) return errno;
    }
    return EEXIST;
}

int writeAll(int fd, std::string_view bytes)
{
    while (!bytes.empty()) {
        const ssize_t n = ::write(fd, bytes.data(), bytes.size());
        if (n < 0) {
            if (errno == EINTR) continue;
            return errno;
        }
        bytes.remove_prefix(static_cast<std::size_t>(n));
    }
    return 0;
}

// `err` is 0 when the failing write happened earlier (stdio keeps only the error flag, not its errno).
Status stdoutError(int err)
{
    if (!err) return {ErrorCode::IoError, "standard output: an earlier write failed; the output is incomplete"};
    return ioError("standard output", "write error", err);
}

// A FIFO, a character device or "-": no temporary, no O_CREAT, no O_TRUNC.
Status writeThrough(const std::string &path, const std::string &target, std::string_view bytes)
{
    if (path == "-") return writeStdout(bytes);
    const int fd = ::open(target.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) return ioError(path, "cannot open it for writing", errno);
    const int err = writeAll(fd, bytes);
    const bool closed = ::close(fd) == 0;
    if (err || !closed) return ioError(path, "writing failed", err ? err : errno);
    return Status::ok();
}

void syncFolder(const std::string &folder)
{
    const int fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return;
    (void)::fsync(fd);   // durability of the rename; the data is already safe either way
    ::close(fd);
}

} // namespace

FileTransaction::~FileTransaction()
{
    discard();
}

void FileTransaction::discard()
{
    if (m_finished) return;
    for (const Entry &e : m_entries)
        if (!e.temporary.empty()) ::unlink(e.temporary.c_str());
    m_finished = true;
}

Status FileTransaction::add(const std::string &path, std::string_view bytes)
{
    if (!m_status) return m_status;
    if (m_finished) return m_status = Status(ErrorCode::Internal, path + ": the transaction is already committed");
    const auto fail = [&](Status s) {
        m_status = std::move(s);
        discard();
        return m_status;
    };
    if (path.empty()) return fail(Status::invalid("an empty output path"));
    auto target = resolve(path);
    if (!target) return fail(target.status());
    auto kind = kindOf(path, *target);
    if (!kind) return fail(kind.status());

    Entry e;
    e.path = path;
    e.target = target->path;
    e.existed = target->exists;
    if (*kind == Kind::WriteThrough) {
        e.writeThrough = true;
        e.bytes.assign(bytes.data(), bytes.size());
        m_entries.push_back(std::move(e));
        return Status::ok();
    }
    int fd = -1;
    std::string temporary;
    if (const int err = uniqueSibling(e.target, ".tmp", [&](const std::string &name) {
            fd = ::open(name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
            return fd >= 0;
        }, temporary))
        return fail(ioError(path, "cannot create a temporary file in " + folderOf(e.target), err));
    e.temporary = temporary;
    m_entries.push_back(e);   // from here on discard() removes the temporary
    int err = 0;
    if (target->exists && ::fchmod(fd, target->st.st_mode & 07777) != 0) err = errno;
    if (!err) err = writeAll(fd, bytes);
    if (!err && ::fsync(fd) != 0) err = errno;
    if (::close(fd) != 0 && !err) err = errno;
    if (err) return fail(ioError(path, "writing failed", err));
    return Status::ok();
}

Status FileTransaction::commit()
{
    if (!m_status) return m_status;
    if (m_finished) return m_status = Status(ErrorCode::Internal, "the transaction is already committed");
    // Hard links keep the files about to be replaced, so a failed rename can put them back.
    for (Entry &e : m_entries) {
        if (e.writeThrough || !e.existed) continue;
        std::string backup;
        if (uniqueSibling(e.target, ".bak", [&](const std::string &name) {
                return ::link(e.target.c_str(), name.c_str()) == 0;
            }, backup) == 0)
            e.backup = backup;   // else (a filesystem without hard links): no way back for this one
    }
    std::set<std::string> folders;
    for (std::size_t i = 0; i < m_entries.size(); ++i) {
        Entry &e = m_entries[i];
        if (e.writeThrough) continue;
        if (::rename(e.temporary.c_str(), e.target.c_str()) == 0) {
            e.temporary.clear();
            folders.insert(folderOf(e.target));
            continue;
        }
        const int err = errno;
        std::string lost;
        for (std::size_t j = 0; j < i; ++j) {
            Entry &done = m_entries[j];
            if (done.writeThrough) continue;
            if (!done.backup.empty() && ::rename(done.backup.c_str(), done.target.c_str()) == 0) done.backup.clear();
            else if (!done.existed) ::unlink(done.target.c_str());
            else lost += (lost.empty() ? "" : ", ") + done.path;
        }
        for (Entry &rest : m_entries) {
            if (!rest.backup.empty()) ::unlink(rest.backup.c_str());
            rest.backup.clear();
        }
        m_status = ioError(e.path, "cannot replace it", err);
        if (!lost.empty())
            m_status = Status(ErrorCode::IoError, m_status.message() + "; already replaced and not restored: " + lost);
        discard();
        return m_status;
    }
    for (Entry &e : m_entries)
        if (!e.backup.empty()) ::unlink(e.backup.c_str());
    for (const std::string &folder : folders) syncFolder(folder);
    m_finished = true;
    for (const Entry &e : m_entries)
        if (e.writeThrough)
            if (Status s = writeThrough(e.path, e.target, e.bytes); !s) return m_status = s;
    return Status::ok();
}

Status writeFileAtomically(const std::string &path, std::string_view bytes)
{
    // Write-through targets directly: a transaction would copy the bytes first.
    if (path == "-") return writeStdout(bytes);
    if (auto target = resolve(path); target && target->exists && (S_ISFIFO(target->st.st_mode) || S_ISCHR(target->st.st_mode)))
        return writeThrough(path, target->path, bytes);
    FileTransaction files;
    if (Status s = files.add(path, bytes); !s) return s;
    return files.commit();
}

Status writeStdout(std::string_view bytes)
{
    std::cout.flush();   // what went to std::cout before comes first
    errno = 0;
    const bool written = std::fwrite(bytes.data(), 1, bytes.size(), stdout) == bytes.size();
    int err = errno;
    const bool flushed = std::fflush(stdout) == 0;
    if (!err) err = errno;
    if (!written || !flushed || std::ferror(stdout)) return stdoutError(err);
    return Status::ok();
}

Status finishStdout()
{
    std::cout.flush();
    const bool coutOk = !std::cout.bad();
    errno = 0;
    const bool flushed = std::fflush(stdout) == 0;
    const int err = errno;
    if (!coutOk || !flushed || std::ferror(stdout)) return stdoutError(err);
    return Status::ok();
}

} // namespace attn
