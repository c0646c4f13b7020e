// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <charconv>
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>

#include "cityforge/core/atomic_file.hpp"
#include "cityforge/core/format.hpp"
#include "cityforge/core/polygon.hpp"
#include "cityforge/core/polyline.hpp"
#include "cityforge/core/result.hpp"

/// Hand-written JSON with %.9g numbers (STYLE.md), for writers whose key order and number
/// format are part of the file (layout.geojson, lanes.json, the island's JSON files).
namespace cityforge {

/// Appends JSON text to a string. Numbers are %.9g; the first non-finite number is remembered
/// with its place and turns the whole export into an error. Given a sink, the text goes to it a
/// megabyte at a time (spill()) instead of being held whole.
class JsonText {
 public:
  JsonText() = default;
  explicit JsonText(const ByteSink* sink) : m_sink(sink) {}

  std::string& str() { return m_out; }
  const std::optional<Error>& error() const { return m_error; }
  /// Bytes written so far, spilled or held.
  std::size_t bytes() const { return m_spilled + m_out.size(); }

  /// Hands the held text to the sink once there is a megabyte of it (all of it when `all`);
  /// nothing without a sink or after an error.
  void spill(bool all = false) {
    if (m_sink == nullptr || m_error) return;
    if (Status s = spill_text(m_out, *m_sink, m_spilled, all); !s) m_error = s.error();
  }

  void raw(std::string_view s) { m_out.append(s); }

  void string(std::string_view s) {
    m_out.push_back('"');
    for (const char c : s) {
      const auto u = static_cast<unsigned char>(c);
      if (c == '"' || c == '\\') {
        m_out.push_back('\\');
        m_out.push_back(c);
      } else if (u < 0x20) {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\u%04x", u);
        m_out.append(buf);
      } else {
        m_out.push_back(c);
      }
    }
    m_out.push_back('"');
  }

  void number(double v, std::string_view where) {
    if (!std::isfinite(v)) {
      if (!m_error) {
        m_error = Error::invalid_input(std::string(where),
                                       "expected a finite number, got " + std::to_string(v));
      }
      m_out.append("null");
      return;
    }
    append_g9(m_out, v);
  }

  void integer(long long v) { m_out.append(std::to_string(v)); }

  /// `"key":` preceded by a comma unless it is the first member.
  void key(std::string_view k, bool first = false) {
    if (!first) {
      m_out.push_back(',');
    }
    string(k);
    m_out.push_back(':');
  }

  void point(Vec2 p, const std::string& where) {
    m_out.push_back('[');
    number(p.x, where);
    m_out.push_back(',');
    number(p.y, where);
    m_out.push_back(']');
  }

  void line(const Polyline& line, const std::string& where) {
    m_out.push_back('[');
    for (std::size_t i = 0; i < line.size(); ++i) {
      if (i > 0) {
        m_out.push_back(',');
      }
      point(line[i], where + "[" + std::to_string(i) + "]");
    }
    m_out.push_back(']');
  }

  /// A closed linear ring: the first point repeated at the end (RFC 7946 3.1.6).
  void ring(const Ring& r, const std::string& where) {
    Polyline closed = r;
    if (!r.empty()) {
      closed.push_back(r.front());
    }
    line(closed, where);
  }

 private:
  std::string m_out;
  std::optional<Error> m_error;
  const ByteSink* m_sink = nullptr;
  std::size_t m_spilled = 0;
};

}  // namespace cityforge
