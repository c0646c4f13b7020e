// SPDX-License-Identifier: Apache-2.0
// Checks of the lots config and the style rules; messages name the config key.
#include <cmath>
#include <string>

#include "cityforge/core/format.hpp"
#include "cityforge/lots/lots.hpp"

namespace cityforge::lots {
namespace {

std::string num(double v) { return format_g9(v); }

Status check(bool ok, const std::string& key, const std::string& expected, double found) {
  if (ok) return Ok{};
  return Error::invalid_input("lots." + key, "expected " + expected + ", got " + num(found));
}

}  // namespace

Status validate(const Config& c, const std::vector<StyleRule>& styles) {
  struct Rule {
    bool ok;
    const char* key;
    std::string expected;
    double found;
  };
  const Rule rules[] = {
      {c.min_lot_area_m2 > 0, "min_lot_area_m2", "> 0", c.min_lot_area_m2},
      {c.max_lot_depth_m > 0, "max_lot_depth_m", "> 0", c.max_lot_depth_m},
      {c.base_lot_area_m2 > 0, "base_lot_area_m2", "> 0", c.base_lot_area_m2},
      {c.area_per_height_m >= 0, "area_per_height_m", ">= 0", c.area_per_height_m},
      {c.area_jitter >= 0 && c.area_jitter <= 0.9, "area_jitter", "a share in [0, 0.9]",
       c.area_jitter},
      {std::isfinite(c.narrow_height_m), "narrow_height_m", "a finite height", c.narrow_height_m},
      {c.narrow_share >= 0 && c.narrow_share <= 1, "narrow_share", "a share in [0, 1]",
       c.narrow_share},
      {c.narrow_min_width_m > 0, "narrow_min_width_m", "> 0", c.narrow_min_width_m},
      {c.narrow_max_width_m >= c.narrow_min_width_m, "narrow_max_width_m",
       ">= lots.narrow_min_width_m", c.narrow_max_width_m},
      {c.max_aspect > 1, "max_aspect", "> 1", c.max_aspect},
      {c.min_compactness > 0 && c.min_compactness < 1, "min_compactness", "in (0, 1)",
       c.min_compactness},
      {c.frontage_tolerance_m >= 0, "frontage_tolerance_m", ">= 0", c.frontage_tolerance_m},
      {c.building_gap_m >= 0, "building_gap_m", ">= 0", c.building_gap_m},
      {c.lot_gap_m >= 0, "lot_gap_m", ">= 0", c.lot_gap_m},
      {c.height_jitter >= 0 && c.height_jitter <= 0.9, "height_jitter", "a share in [0, 0.9]",
       c.height_jitter},
  };
  for (const Rule& r : rules) {
    // NaN fails every comparison above, so it is reported like any other bad value.
    if (Status s = check(r.ok, r.key, r.expected, r.found); !s.ok()) return s;
  }
  double mix = 0.0;
  for (std::size_t i = 0; i < c.footprint_mix.size(); ++i) {
    if (!(c.footprint_mix[i] >= 0)) {
      return Error::invalid_input("lots.footprint_mix[" + std::to_string(i) + "]",
                                  "expected a share >= 0 for " +
                                      std::string(to_string(static_cast<FootprintShape>(i))) +
                                      ", got " + num(c.footprint_mix[i]));
    }
    mix += c.footprint_mix[i];
  }
  if (!(mix > 0)) return Error::invalid_input("lots.footprint_mix", "expected a share > 0");
  if (styles.empty()) {
    return Error::invalid_input("styles", "expected at least one building style, got none");
  }
  for (std::size_t i = 0; i < styles.size(); ++i) {
    const StyleRule& s = styles[i];
    const std::string where = s.source.empty() ? "styles[" + std::to_string(i) + "]" : s.source;
    if (!(s.min_wall_m > 0)) {
      return Error::invalid_input(
          where, "style '" + s.name + "': min_wall_m expected > 0, got " + num(s.min_wall_m));
    }
    if (!(s.weight > 0)) {
      return Error::invalid_input(
          where, "style '" + s.name + "': weight expected > 0, got " + num(s.weight));
    }
    if (!(s.floor_m > 0) || !(s.ground_floor_m > 0)) {
      return Error::invalid_input(where, "style '" + s.name +
                                             "': floor_m and ground_floor_m expected > 0, got " +
                                             num(s.floor_m) + " and " + num(s.ground_floor_m));
    }
    if (!(s.max_height_m >= s.min_height_m)) {
      return Error::invalid_input(where, "style '" + s.name + "': max_height_m " +
                                             num(s.max_height_m) + " below min_height_m " +
                                             num(s.min_height_m));
    }
  }
  return Ok{};
}

}  // namespace cityforge::lots
