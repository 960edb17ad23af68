// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Errors are values. Every function that can fail on user input returns a Status or a Result<T>;
// the message names what is wrong (the tensor, the file, the JSON field) and the numbers involved.

#include <cassert>
#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace attn {

enum class ErrorCode {
    Ok = 0,
    InvalidArgument,   // wrong shapes, head dim 0, mask size mismatch, unknown option
    OutOfMemory,       // a request over the memory budget (weights for too many heads, ...)
    Cancelled,         // the caller's cancel callback returned true
    Unavailable,       // a backend that is not built or has no device
    IoError,           // files: missing, unreadable, unwritable
    FormatError,       // files: malformed content
    Internal,
};

class Status {
public:
    Status() = default;
    Status(ErrorCode code, std::string message) : m_code(code), m_message(std::move(message)) {}

    static Status ok() { return {}; }
    static Status invalid(std::string message) { return {ErrorCode::InvalidArgument, std::move(message)}; }
    static Status cancelled() { return {ErrorCode::Cancelled, "cancelled"}; }

    bool isOk() const { return m_code == ErrorCode::Ok; }
    explicit operator bool() const { return isOk(); }
    ErrorCode code() const { return m_code; }
    const std::string &message() const { return m_message; }

private:
    ErrorCode m_code = ErrorCode::Ok;
    std::string m_message;
};

// A value or the Status that explains why there is none.
template <typename T>
class Result {
public:
    Result(T value) : m_value(std::move(value)) {}
    Result(Status status) : m_status(std::move(status)) { assert(!m_status.isOk()); }

    bool isOk() const { return m_status.isOk(); }
    explicit operator bool() const { return isOk(); }
    const Status &status() const { return m_status; }

    T &value() & { assert(isOk()); return *m_value; }
    const T &value() const & { assert(isOk()); return *m_value; }
    T &&value() && { assert(isOk()); return std::move(*m_value); }
    T *operator->() { return &value(); }
    const T *operator->() const { return &value(); }
    T &operator*() & { return value(); }
    const T &operator*() const & { return value(); }

private:
    Status m_status;
    std::optional<T> m_value;
};

} // namespace attn
