// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace cityforge {

/// What kind of failure an Error reports.
enum class ErrorCode {
  invalid_input,  ///< The user's input is wrong (bad JSON, bad geometry, out-of-range value).
  io,             ///< A file could not be read or written.
  internal,       ///< A stage failed on valid input: a bug, reported rather than crashing.
};

/// A failure as a value: where it happened (file, JSON pointer, object id), and a message that
/// says what was expected and what was found.
struct Error {
  ErrorCode code = ErrorCode::internal;
  std::string where;
  std::string message;

  static Error invalid_input(std::string where_, std::string message_) {
    return Error{ErrorCode::invalid_input, std::move(where_), std::move(message_)};
  }
  static Error io(std::string where_, std::string message_) {
    return Error{ErrorCode::io, std::move(where_), std::move(message_)};
  }
  static Error internal(std::string where_, std::string message_) {
    return Error{ErrorCode::internal, std::move(where_), std::move(message_)};
  }
  /// "where: message", the form the command line prints.
  std::string to_string() const { return where.empty() ? message : where + ": " + message; }
};

/// Either a value or an Error (C++20 has no std::expected).
template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : m_v(std::move(value)) {}      // NOLINT(google-explicit-constructor)
  Result(Error error) : m_v(std::move(error)) {}  // NOLINT(google-explicit-constructor)

  bool ok() const { return m_v.index() == 0; }
  explicit operator bool() const { return ok(); }
  T& value() & { return std::get<0>(m_v); }
  const T& value() const& { return std::get<0>(m_v); }
  T&& value() && { return std::get<0>(std::move(m_v)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  const Error& error() const { return std::get<1>(m_v); }

 private:
  std::variant<T, Error> m_v;
};

/// Result of an operation with no value.
struct Ok {};
using Status = Result<Ok>;

}  // namespace cityforge
