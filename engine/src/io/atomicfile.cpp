// SPDX-License-Identifier: GPL-3.0-or-later
// No half-written files: write beside the target, then rename over it (rename is atomic within a filesystem).
#include <attnscope/export.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

namespace attn {

Status writeFileAtomically(const std::string &path, std::string_view bytes)
{
    namespace fs = std::filesystem;
    const std::string tmp = path + ".tmp";
    std::FILE *f = std::fopen(tmp.c_str(), "wb");
    if (!f) return Status(ErrorCode::IoError, path + ": cannot write (" + std::strerror(errno) + ")");
    const bool written = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
    const int writeErrno = errno;
    const bool flushed = std::fflush(f) == 0;
    const bool closed = std::fclose(f) == 0;
    if (!written || !flushed || !closed) {
        std::error_code ec;
        fs::remove(tmp, ec);
        return Status(ErrorCode::IoError, path + ": writing failed (" + std::strerror(writeErrno ? writeErrno : errno) + ")");
    }
    std::error_code ec;
    fs::rename(tmp, path, ec);
    if (ec) {
        std::error_code ignored;
        fs::remove(tmp, ignored);
        return Status(ErrorCode::IoError, path + ": cannot replace it (" + ec.message() + ")");
    }
    return Status::ok();
}

} // namespace attn
