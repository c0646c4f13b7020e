// SPDX-License-Identifier: Apache-2.0
// XML text for the exporters that write XML (SUMO plain XML, ASAM OpenDRIVE).
#pragma once

#include <cmath>
#include <optional>
#include <string>
#include <string_view>

#include "cityforge/core/atomic_file.hpp"
#include "cityforge/core/format.hpp"
#include "cityforge/core/result.hpp"

namespace cityforge::exporter::detail {

/// Appends XML text. Numbers are %.9g; the first non-finite number is remembered with its place
/// and turns the whole export into an error. Given a sink, the text goes to it a megabyte at a
/// time (spill()) instead of being held whole.
class XmlText {
 public:
  XmlText() = default;
  explicit XmlText(const ByteSink* sink) : m_sink(sink) {}

  std::string& str() { return m_out; }
  const std::optional<Error>& error() const { return m_error; }
  /// Bytes written so far, spilled or held.
  std::size_t bytes() const { return m_spilled + m_out.size(); }

  /// Hands the held text to the sink once there is a megabyte of it (all of it when `all`);
  /// nothing without a sink or after an error.
  void spill(bool all = false) {
    if (m_sink == nullptr || m_error) return;
    if (Status s = spill_text(m_out, *m_sink, m_spilled, all); !s) fail(s.error());
  }

  void raw(std::string_view s) { m_out.append(s); }

  /// ` name="value"` with the value escaped for an attribute.
  void attr(std::string_view name, std::string_view value) {
    m_out.push_back(' ');
    m_out.append(name);
    m_out.append("=\"");
    for (const char c : value) {
      switch (c) {
        case '&':
          m_out.append("&amp;");
          break;
        case '<':
          m_out.append("&lt;");
          break;
        case '>':
          m_out.append("&gt;");
          break;
        case '"':
          m_out.append("&quot;");
          break;
        case '\'':
          m_out.append("&apos;");
          break;
        default:
          m_out.push_back(c);
          break;
      }
    }
    m_out.push_back('"');
  }

  void attr(std::string_view name, double v, std::string_view where) {
    attr(name, number(v, where));
  }

  void attr_int(std::string_view name, long long v) { attr(name, std::to_string(v)); }

  /// A finite number as %.9g; a non-finite one records an error naming `where`.
  std::string number(double v, std::string_view where) {
    if (!std::isfinite(v)) {
      fail(Error::invalid_input(std::string(where),
                                "expected a finite number, got " + std::to_string(v)));
      return "0";
    }
    return format_g9(v);
  }

  void fail(Error e) {
    if (!m_error) {
      m_error = std::move(e);
    }
  }

 private:
  std::string m_out;
  std::optional<Error> m_error;
  const ByteSink* m_sink = nullptr;
  std::size_t m_spilled = 0;
};

constexpr std::string_view kXmlDeclaration = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";

}  // namespace cityforge::exporter::detail
