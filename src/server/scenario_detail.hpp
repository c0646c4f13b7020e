// SPDX-License-Identifier: Apache-2.0
// The value checks shared by the scenario and vehicle file readers (scenario_parse.cpp,
// vehicle_file.cpp): the first problem is kept as an Error "<source>: <JSON pointer>" with
// "expected ..., got ..." (as core's JsonReader words them), later checks are no-ops.
#pragma once

#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <optional>
#include <regex>
#include <string>
#include <utility>
#include <vector>

#include "cityforge/core/format.hpp"
#include "cityforge/core/json_reader.hpp"
#include "cityforge/core/result.hpp"
#include "cityforge/core/vec.hpp"

namespace cityforge::server::detail {

class Checker {
 public:
  using json = nlohmann::ordered_json;

  explicit Checker(std::string source) : m_source(std::move(source)) {}

  bool failed() const { return m_error.has_value(); }
  const Error& error() const { return *m_error; }
  void fail(const std::string& pointer, const std::string& message) {
    if (!m_error) {
      m_error = Error::invalid_input(m_source + ": " + (pointer.empty() ? "/" : pointer), message);
    }
  }

  /// An object whose keys are all in `allowed` and hold every one of `required`.
  bool keys(const json& j, const std::string& p, const std::vector<const char*>& allowed,
            const std::vector<const char*>& required) {
    if (failed()) return false;
    if (!j.is_object()) {
      fail(p, "expected an object, got " + describe(j));
      return false;
    }
    for (const auto& item : j.items()) {
      bool known = false;
      for (const char* k : allowed)
        known = known || item.key() == k;
      if (!known) {
        std::string list;
        for (const char* k : allowed)
          list += std::string(list.empty() ? "" : ", ") + k;
        fail(p + "/" + item.key(), "unknown key '" + item.key() + "'; expected one of: " + list);
        return false;
      }
    }
    for (const char* k : required) {
      if (!j.contains(k)) {
        fail(p, std::string("missing required key '") + k + "'");
        return false;
      }
    }
    return true;
  }
  /// keys() with every allowed key required.
  bool all_keys(const json& j, const std::string& p, const std::vector<const char*>& keys_) {
    return keys(j, p, keys_, keys_);
  }

  double number(const json& j, const std::string& p, const char* what, double lo, double hi,
                bool lo_open, bool hi_open) {
    if (failed()) return 0;
    const bool num = j.is_number();
    const double v = num ? j.get<double>() : 0.0;
    if (!num || !std::isfinite(v) || v < lo || v > hi || (lo_open && v <= lo) ||
        (hi_open && v >= hi)) {
      fail(p, std::string("expected ") + what + ", got " + (num ? format_g9(v) : describe(j)));
      return 0;
    }
    return v;
  }
  double positive(const json& j, const std::string& p) {
    return number(j, p, "a number > 0", 0, 1e300, true, false);
  }
  double non_negative(const json& j, const std::string& p) {
    return number(j, p, "a number >= 0", 0, 1e300, false, false);
  }
  double finite(const json& j, const std::string& p) {
    return number(j, p, "a finite number", -1e300, 1e300, false, false);
  }
  /// A number in [lo, hi].
  double in_range(const json& j, const std::string& p, double lo, double hi) {
    const std::string what = "a number in [" + format_g9(lo) + ", " + format_g9(hi) + "]";
    return number(j, p, what.c_str(), lo, hi, false, false);
  }
  /// An integer in [0, hi].
  std::uint64_t count(const json& j, const std::string& p, std::uint64_t hi) {
    if (failed()) return 0;
    const bool ok = j.is_number_unsigned() || (j.is_number_integer() && j.get<std::int64_t>() >= 0);
    if (!ok || j.get<std::uint64_t>() > hi) {
      fail(p, "expected an integer in [0, " + std::to_string(hi) + "], got " +
                  (j.is_number() ? j.dump() : describe(j)));
      return 0;
    }
    return j.get<std::uint64_t>();
  }
  bool boolean(const json& j, const std::string& p) {
    if (failed()) return false;
    if (!j.is_boolean()) {
      fail(p, "expected true or false, got " + describe(j));
      return false;
    }
    return j.get<bool>();
  }
  std::string string(const json& j, const std::string& p) {
    if (failed()) return {};
    if (!j.is_string()) {
      fail(p, "expected a string, got " + describe(j));
      return {};
    }
    return j.get<std::string>();
  }
  /// A string matching `pattern` (an ECMAScript regular expression, whole string).
  std::string name(const json& j, const std::string& p, const char* pattern) {
    const std::string s = string(j, p);
    if (!failed() && !std::regex_match(s, std::regex(pattern))) {
      fail(p, std::string("expected a name matching ") + pattern + ", got \"" + s + "\"");
    }
    return s;
  }
  void literal(const json& j, const std::string& p, const char* expected) {
    if (failed()) return;
    if (!j.is_string() || j.get<std::string>() != expected) {
      fail(p, std::string("expected \"") + expected + "\", got " + describe(j));
    }
  }
  void version(const json& j, const std::string& p, int expected) {
    if (failed()) return;
    if (!j.is_number_integer() || j.get<std::int64_t>() != expected) {
      fail(p, "expected version " + std::to_string(expected) + ", got " + describe(j));
    }
  }
  /// One of `names`; returns its index.
  std::size_t one_of(const json& j, const std::string& p, const std::vector<const char*>& names) {
    if (failed()) return 0;
    std::string list;
    for (std::size_t i = 0; i < names.size(); ++i) {
      if (j.is_string() && j.get<std::string>() == names[i]) return i;
      list += std::string(i == 0                  ? ""
                          : i + 1 == names.size() ? " or "
                                                  : ", ") +
              "\"" + names[i] + "\"";
    }
    fail(p, "expected " + list + ", got " + describe(j));
    return 0;
  }
  /// An [x, y] pair of finite numbers (metres in the city frame).
  Vec2 point(const json& j, const std::string& p) {
    if (failed()) return {};
    if (!j.is_array() || j.size() != 2 || !j[0].is_number() || !j[1].is_number() ||
        !std::isfinite(j[0].get<double>()) || !std::isfinite(j[1].get<double>())) {
      fail(p, "expected an [x, y] pair of finite numbers (metres), got " + describe(j));
      return {};
    }
    return Vec2{j[0].get<double>(), j[1].get<double>()};
  }

  static std::string describe(const json& j) {
    std::string s = j.dump();
    if (s.size() > 60) s = s.substr(0, 57) + "...";
    return std::string(j.type_name()) + " " + s;
  }

 private:
  std::string m_source;
  std::optional<Error> m_error;
};

}  // namespace cityforge::server::detail
