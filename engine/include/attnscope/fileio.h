// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Writing output files safely (the CLI's --out, the .npy beside a run export, ...) and checking standard output.
// POSIX; Qt-free. Every message names the path and the system's reason.
//
// writeFileAtomically(path, bytes): a reader of `path` sees the old content or the new, never a part of it.
//   a regular file or a new name   the bytes go to a new temporary in the same folder, created with O_EXCL under a
//                                  fresh random name (".NAME.XXXXXX.tmp": never an existing file, never through a
//                                  planted symlink), then fsync, then rename over `path`. A replaced file keeps its
//                                  permission bits; a new file gets 0666 less the umask, like any shell redirect.
//                                  A file the caller may not write (access(W_OK)) is refused, as `>` would.
//   a symbolic link                the link's final target is replaced that way, in the target's folder; the link
//                                  stays a link (a dangling link gets its target created)
//   a FIFO, a character device     written through: opened O_WRONLY without O_CREAT or O_TRUNC, no temporary, so
//                                  /dev/null, /dev/stdout and pipes stay what they are
//   "-"                            standard output, written through (stdio, so it stays in order with printf)
//   a folder, a block device, a socket: refused.
// On any failure the temporary is removed and `path` (or the link's target) is as it was.
//
// FileTransaction: files that only make sense together (a `run --npy` export: the JSON and the .npy it names).
// add() writes each one's temporary at once (write-through targets are only remembered); commit() renames them
// all in the order added, then writes the write-through ones. If a rename fails, the files already replaced get
// their previous content back (kept as hard links until the end) and new ones are removed, so either every file
// is new or none is (except write-through targets, which cannot be taken back and so come last).
//
// Standard output: fwrite, printf and std::cout keep write errors (a full disk, /dev/full, a closed pipe) to
// themselves. writeStdout() writes and flushes and reports them; finishStdout() flushes both stdio and std::cout
// and reports an error that any earlier write met. A program should call finishStdout() before it exits 0.

#include <attnscope/status.h>

#include <string>
#include <string_view>
#include <vector>

namespace attn {

Status writeFileAtomically(const std::string &path, std::string_view bytes);

class FileTransaction {
public:
    FileTransaction() = default;
    ~FileTransaction();   // removes the temporaries of a transaction that was not committed
    FileTransaction(const FileTransaction &) = delete;
    FileTransaction &operator=(const FileTransaction &) = delete;

    // Prepares one file. After the first error every later add() and commit() return that error.
    Status add(const std::string &path, std::string_view bytes);
    // Makes every prepared file visible (see above). A transaction commits at most once.
    Status commit();

private:
    struct Entry {
        std::string path;        // as given, for messages
        std::string target;      // the file that is replaced: `path`, or a symlink's final target
        std::string temporary;   // empty for write-through targets
        std::string backup;      // a hard link to the replaced file during commit(); empty when there was none
        bool existed = false;
        bool writeThrough = false;
        std::string bytes;       // write-through targets only
    };
    void discard();

    std::vector<Entry> m_entries;
    Status m_status;
    bool m_finished = false;
};

// Writes `bytes` to standard output and flushes it.
Status writeStdout(std::string_view bytes);
// Flushes std::cout and stdout; an IoError when any write to them failed since the program started.
Status finishStdout();

} // namespace attn
