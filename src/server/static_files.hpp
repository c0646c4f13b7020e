// SPDX-License-Identifier: Apache-2.0
// What the static file server needs of HTTP without a network library: content types, URL
// paths decoded and checked against their root, single byte ranges (RFC 9110, section 14).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace cityforge::server::detail {

/// The Content-Type of a file by its extension (application/octet-stream when unknown).
std::string_view content_type(const std::filesystem::path& p);

/// Percent-decodes a URL path; nullopt on a malformed escape or a NUL byte.
std::optional<std::string> url_decode(std::string_view in);

/// The relative path a decoded URL path names: segments without "." and "..", no empty ones
/// (so "//etc/passwd" cannot become absolute). nullopt when a segment tries to climb.
std::optional<std::filesystem::path> safe_relative(std::string_view decoded);

/// Whether `p` (canonical) lies inside `root` (canonical).
bool inside(const std::filesystem::path& root, const std::filesystem::path& p);

struct ByteRange {
  std::uint64_t first = 0;
  std::uint64_t last = 0;  ///< Inclusive.
};

enum class RangeResult { none, ok, unsatisfiable };

/// Parses a single "bytes=a-b", "bytes=a-" or "bytes=-n". Anything else (several ranges,
/// other units, garbage) is ignored and the whole file is sent, as RFC 9110 allows.
RangeResult parse_range(std::string_view v, std::uint64_t size, ByteRange* out);

}  // namespace cityforge::server::detail
