// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <charconv>
#include <string>

namespace cityforge {

/// Appends v exactly as printf("%.9g") prints it (STYLE.md: exporters print floats with %.9g),
/// through std::to_chars, several times faster: outputs such as lanes.json hold millions of
/// numbers. The caller rejects non-finite values first where they must not be written.
inline void append_g9(std::string& out, double v) {
  char buf[32];
  const auto res = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::general, 9);
  out.append(buf, res.ptr);
}

/// v as printf("%.9g") prints it; for messages and hand-written text formats.
inline std::string format_g9(double v) {
  std::string s;
  append_g9(s, v);
  return s;
}

/// Appends what printf(format, ...) prints: for console lines built by library code (summaries
/// the command line prints).
void append_printf(std::string& out, const char* format, ...) __attribute__((format(printf, 2, 3)));

}  // namespace cityforge
