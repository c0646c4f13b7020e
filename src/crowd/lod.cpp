// SPDX-License-Identifier: Apache-2.0
// Levels of detail by distance to the viewer and a camera cone, with hysteresis and per-level
// budgets. Based on: seeds/002 (autonomous < 12 m, puppet 12-40 m, low-res beyond, only inside a
// camera cone) and seeds/000 minutes 50-56 (budgets per level).
//
// The budgets are applied level by level with one nth_element over packed 64-bit keys
// (incumbency bit, float distance bits, agent index): O(n) per level, no sort of all agents, and
// the kept set is unique because every key is distinct (it ends with the index).
#include "cityforge/crowd/lod.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <numbers>

#include "cityforge/core/assert.hpp"

namespace cityforge::crowd {

const char* to_string(Lod lod) {
  switch (lod) {
    case Lod::high:
      return "high";
    case Lod::medium:
      return "medium";
    case Lod::low:
      return "low";
    case Lod::off:
      return "off";
  }
  return "?";
}

/// The source's pedestrian settings: high < 12 m, medium < 40 m, low < 150 m; budgets 10 / 20 /
/// 500.
LodConfig pedestrian_lod() { return LodConfig{}; }

/// Vehicle settings. Budgets from the source (10 / 150 / 5,000). Distances are ours, scaled to
/// cars: a car is ~4.5 m long and moves ~14 m/s in town, so the full-behaviour ring is 30 m
/// (two to three car lengths of avoidance around the viewer), medium 120 m (a city block: cars
/// that can still reach the viewer's junction within a signal phase), low 600 m (the distance
/// at which a car is a few pixels on screen). Hysteresis 10 m (more than the ~3.5 m a car
/// travels between two assigns every 0.25 s) and the near ring 8 m (a car alongside the camera,
/// about to enter the view when it turns).
LodConfig vehicle_lod() {
  LodConfig c;
  c.high_m = 30.0f;
  c.medium_m = 120.0f;
  c.low_m = 600.0f;
  c.near_m = 8.0f;
  c.hysteresis_m = 10.0f;
  c.budget_high = 10;
  c.budget_medium = 150;
  c.budget_low = 5000;
  return c;
}

LodAssigner::LodAssigner(const LodConfig& config) : m_config(config) {}

namespace {

constexpr std::uint64_t kIndexMask = 0xffffffffULL;

/// cos of the cone half-angle (plus a margin), for `cos(bearing) >= limit` tests; -2 when the
/// cone covers every bearing.
double cone_cos(double half_deg) {
  if (half_deg >= 180.0) return -2.0;
  return std::cos(std::max(half_deg, 0.0) * std::numbers::pi / 180.0);
}

/// Distance bits of a non-negative float: their unsigned order is the order of the floats.
std::uint32_t distance_bits(float d) { return std::bit_cast<std::uint32_t>(d > 0.0f ? d : 0.0f); }

}  // namespace

// Incumbency: an agent at a level or a better one when assign() starts is admitted to that
// level with the hysteresis margins (it had that fidelity already) and is ranked first in that
// level's budget. A better level than the current one needs the plain thresholds. The near_m
// exception to the cone has no margin: an agent there is beside or behind the camera, where a
// change of level is not seen.
void LodAssigner::assign(std::span<const Vec3> positions, const Viewer& viewer,
                         std::span<Lod> levels) {
  CF_ASSERT(positions.size() == levels.size(), "LodAssigner::assign: one level per position");
  CF_ASSERT(positions.size() <= kIndexMask, "LodAssigner::assign: agent index fits 32 bits");
  const std::size_t n = positions.size();
  std::fill(std::begin(m_counts), std::end(m_counts), 0U);
  if (!m_config.enabled) {
    std::fill(levels.begin(), levels.end(), Lod::high);
    m_counts[static_cast<std::size_t>(Lod::high)] = static_cast<std::uint32_t>(n);
    return;
  }

  // 1. Wanted level per agent; keep (distance bits, current level) for the budgets.
  const LodConfig& c = m_config;
  const double limit_m[3] = {c.high_m, c.medium_m, c.low_m};
  const double cone_new = cone_cos(c.cone_half_angle_deg);
  const double cone_kept = cone_cos(double{c.cone_half_angle_deg} + c.hysteresis_deg);
  const double fx = std::cos(viewer.yaw_rad);
  const double fy = std::sin(viewer.yaw_rad);
  m_keys.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    const double dx = positions[i].x - viewer.position.x;
    const double dy = positions[i].y - viewer.position.y;
    const double dz = positions[i].z - viewer.position.z;
    const double flat = std::sqrt(dx * dx + dy * dy);
    const double d = std::sqrt(flat * flat + dz * dz);
    const auto cur = static_cast<unsigned>(levels[i]);
    // Bearing test without acos: cos(bearing) = dot(forward, dir); straight above counts in.
    const double cos_bearing = flat > 0.0 ? (fx * dx + fy * dy) / flat : 1.0;
    unsigned wanted = 3;
    for (unsigned l = 0; l < 3; ++l) {
      const bool kept = cur <= l;
      if (d >= limit_m[l] + (kept ? c.hysteresis_m : 0.0f)) continue;
      if (l < 2 && d >= c.near_m && cos_bearing < (kept ? cone_kept : cone_new)) continue;
      wanted = l;
      break;
    }
    levels[i] = static_cast<Lod>(wanted);
    m_keys[i] = (std::uint64_t{distance_bits(static_cast<float>(d))} << 32U) | cur;
  }

  // 2. Budgets, best level first: those beyond a budget fall to the next level and compete
  // there with the agents that wanted it. Key: newcomer bit, distance bits, index.
  const std::uint32_t budget[3] = {c.budget_high, c.budget_medium, c.budget_low};
  for (unsigned l = 0; l < 3; ++l) {
    m_keys.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
      if (static_cast<unsigned>(levels[i]) != l) continue;
      const std::uint64_t info = m_keys[i];
      const std::uint64_t newcomer = (info & 3U) > l ? 1U : 0U;
      const std::uint64_t dbits = (info >> 32U) & 0x7fffffffULL;
      m_keys.push_back((newcomer << 63U) | (dbits << 32U) | i);
    }
    const auto first = m_keys.begin() + static_cast<std::ptrdiff_t>(n);
    if (m_keys.size() - n <= budget[l]) continue;
    const auto keep_end = first + budget[l];
    std::nth_element(first, keep_end, m_keys.end());
    for (auto it = keep_end; it != m_keys.end(); ++it) {
      levels[*it & kIndexMask] = static_cast<Lod>(l + 1);
    }
  }
  m_keys.resize(n);

  // 3. Counts.
  for (const Lod lod : levels)
    ++m_counts[static_cast<std::size_t>(lod)];
}

}  // namespace cityforge::crowd
