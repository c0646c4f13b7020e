// SPDX-License-Identifier: Apache-2.0
#pragma once

// A strict JSON document walker shared by the readers of user files (the city JSON, building
// definition files, biomes, WFC models): every key known, every value of the right type,
// numbers finite and in range, and the first problem kept as an Error naming
// "<source>: <JSON pointer>" and what was expected and found. Header-only: the modules that read
// JSON link nlohmann_json themselves. The one public header built on a third-party type
// (nlohmann::json, the project's JSON document): a reader walks the parsed document.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>

#include "cityforge/core/format.hpp"
#include "cityforge/core/result.hpp"

namespace cityforge {

/// "object {"a":1}": the type and (up to 60 characters of) the text of a value, for messages.
inline std::string describe_json(const nlohmann::json& j) {
  std::string s = j.dump();
  if (s.size() > 60) s = s.substr(0, 57) + "...";
  return std::string(j.type_name()) + " " + s;
}

/// Walks a document; the first problem found is kept and later reads are no-ops, so a reader
/// reads on and checks failed() once.
class JsonReader {
 public:
  using json = nlohmann::json;

  explicit JsonReader(std::string source) : m_source(std::move(source)) {}

  bool failed() const { return m_error.has_value(); }
  const Error& error() const { return *m_error; }
  const std::string& source() const { return m_source; }
  /// "<source>: <pointer>" ("/" for the document).
  std::string where(const std::string& path) const {
    return m_source + ": " + (path.empty() ? "/" : path);
  }

  void fail(const std::string& path, const std::string& message) {
    if (!m_error) m_error = Error::invalid_input(where(path), message);
  }
  void fail(Error e) {
    if (!m_error) m_error = std::move(e);
  }

  /// Rejects keys not in `allowed` (naming the allowed ones) and missing `required` keys.
  bool object(const json& j, const std::string& path, std::initializer_list<const char*> allowed,
              std::initializer_list<const char*> required = {}) {
    if (failed()) return false;
    if (!j.is_object()) {
      fail(path, "expected an object, got " + describe_json(j));
      return false;
    }
    for (const auto& item : j.items()) {
      const bool known = std::any_of(allowed.begin(), allowed.end(),
                                     [&](const char* k) { return item.key() == k; });
      if (!known) {
        std::string list;
        for (const char* k : allowed)
          list += std::string(list.empty() ? "" : ", ") + k;
        fail(path + "/" + item.key(), "unknown key '" + item.key() + "'; expected one of: " + list);
        return false;
      }
    }
    for (const char* k : required) {
      if (!j.contains(k)) {
        fail(path, std::string("missing required key '") + k + "'");
        return false;
      }
    }
    return true;
  }

  /// Reads obj[key] if present into `out`, in [lo, hi] (`lo_open`: (lo, hi]).
  void number(const json& obj, const char* key, const std::string& path, double& out, double lo,
              double hi, bool lo_open = false) {
    if (failed() || !obj.contains(key)) return;
    number_at(obj[key], path + "/" + key, out, lo, hi, lo_open);
  }
  void number_at(const json& j, const std::string& p, double& out, double lo, double hi,
                 bool lo_open = false) {
    if (failed()) return;
    if (!j.is_number()) {
      fail(p, "expected a number, got " + describe_json(j));
      return;
    }
    const double v = j.get<double>();
    if (!std::isfinite(v) || v < lo || v > hi || (lo_open && v <= lo)) {
      fail(p, std::string("expected a number in ") + (lo_open ? "(" : "[") + format_g9(lo) + ", " +
                  format_g9(hi) + "], got " + format_g9(v));
      return;
    }
    out = v;
  }

  /// Reads obj[key] if present: an integer in [lo, hi].
  void integer(const json& obj, const char* key, const std::string& path, int& out, int lo,
               int hi) {
    if (failed() || !obj.contains(key)) return;
    const json& j = obj[key];
    if (!j.is_number_integer()) {
      fail(path + "/" + key, "expected an integer, got " + describe_json(j));
      return;
    }
    const auto v = j.get<std::int64_t>();
    if (v < lo || v > hi) {
      fail(path + "/" + key, "expected an integer in [" + std::to_string(lo) + ", " +
                                 std::to_string(hi) + "], got " + std::to_string(v));
      return;
    }
    out = static_cast<int>(v);
  }
  /// Reads obj[key] if present: a count in [0, hi].
  void count(const json& obj, const char* key, const std::string& path, std::uint32_t& out,
             std::uint32_t hi) {
    int v = 0;
    const bool had = !failed() && obj.contains(key);
    integer(obj, key, path, v, 0, static_cast<int>(std::min<std::uint32_t>(hi, 0x7fffffffU)));
    if (had && !failed()) out = static_cast<std::uint32_t>(v);
  }

  /// Reads obj[key] if present: a string.
  void string(const json& obj, const char* key, const std::string& path, std::string& out) {
    if (failed() || !obj.contains(key)) return;
    string_at(obj[key], path + "/" + key, out);
  }
  bool string_at(const json& j, const std::string& p, std::string& out) {
    if (failed()) return false;
    if (!j.is_string()) {
      fail(p, "expected a string, got " + describe_json(j));
      return false;
    }
    out = j.get<std::string>();
    return true;
  }

  /// Checks that `j` is an array (and, with `non_empty`, not empty).
  bool array_at(const json& j, const std::string& p, bool non_empty) {
    if (failed()) return false;
    if (!j.is_array()) {
      fail(p, "expected an array, got " + describe_json(j));
      return false;
    }
    if (non_empty && j.empty()) {
      fail(p, "expected a non-empty array, got []");
      return false;
    }
    return true;
  }

 private:
  std::string m_source;
  std::optional<Error> m_error;
};

}  // namespace cityforge

// The names of the time this header was private to core; the readers that still spell them so
// (pipeline/city_config.cpp, buildings/style_parse.cpp, dressing/biome_parse.cpp) move over
// with their next rewrite, then these go.
namespace cityforge::detail {
using cityforge::describe_json;
using cityforge::JsonReader;
}  // namespace cityforge::detail
