// SPDX-License-Identifier: Apache-2.0
// Overlap resolution: items are kept in priority order (signals, lighting, furniture,
// vegetation, biome), each dropped when its footprint disc meets a disc kept before it.
#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>
#include <string_view>
#include <utility>

#include "cityforge/core/spatial_hash.hpp"
#include "dressing/detail.hpp"

namespace cityforge::dressing::detail {
namespace {

// Lower ranks win. Props not listed rank by category after the listed ones of their category.
constexpr std::array<std::pair<std::string_view, int>, 19> kRanks{{
    {"signal_pole", 0},   {"signal_head", 1},   {"stop_sign", 2},  {"yield_sign", 3},
    {"street_light", 10}, {"parking_lamp", 11}, {"hydrant", 20},   {"bus_stop", 21},
    {"bench", 22},        {"bin", 23},          {"bike_rack", 24}, {"bollard", 25},
    {"picnic_table", 26}, {"street_tree", 30},  {"park_tree", 31}, {"planter", 32},
    {"bush", 33},         {"fountain", 40},     {"kiosk", 41},
}};

int category_base(Category c) {
  switch (c) {
    case Category::signals:
      return 0;
    case Category::lighting:
      return 10;
    case Category::furniture:
      return 20;
    case Category::vegetation:
      return 30;
    case Category::biome:
      return 40;
    case Category::sidewalk:
    case Category::ground:
    case Category::decal:
      return -1;
  }
  return 40;
}

bool is_surface(const PropDef& d) {
  return d.radius_m <= 0.0 || d.category == Category::sidewalk || d.category == Category::ground;
}

double disc_radius(const Item& item) {
  const PropDef& d = prop_catalog()[item.prop];
  if (is_surface(d)) return 0.0;
  return d.radius_m * std::max(std::abs(item.scale_x), std::abs(item.scale_y));
}

}  // namespace

int overlap_priority(std::uint32_t prop) {
  const auto& catalog = prop_catalog();
  if (prop >= catalog.size()) return 1000;
  const PropDef& d = catalog[prop];
  if (is_surface(d)) return -1;
  for (const auto& [id, rank] : kRanks)
    if (id == d.id) return rank;
  return category_base(d.category) + 9;
}

/// Heights further apart than this are different levels (ground, roofs, roof tiers).
constexpr double kOverlapOtherLevelM = 2.5;
/// Discs closer than touching by less than this still count as touching.
constexpr double kTouchM = 1e-3;

std::size_t resolve_overlaps(std::vector<Item>& items) {
  // 1. Order: priority, then input order (a total order: stable on the index).
  std::vector<std::size_t> order(items.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::vector<int> rank(items.size());
  std::vector<double> radius(items.size());
  double max_radius = 0.0;
  for (std::size_t i = 0; i < items.size(); ++i) {
    rank[i] = overlap_priority(items[i].prop);
    radius[i] = disc_radius(items[i]);
    max_radius = std::max(max_radius, radius[i]);
  }
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return rank[a] != rank[b] ? rank[a] < rank[b] : a < b;
  });
  // 2. Keep each disc unless it meets a kept one; surfaces always stay and block nothing.
  SpatialHash kept_hash(std::max(2.0, 2.0 * max_radius));
  std::vector<char> keep(items.size(), 1);
  std::vector<std::uint32_t> near;
  std::size_t dropped = 0;
  for (std::size_t i : order) {
    if (radius[i] <= 0.0) continue;
    const Vec2 p{items[i].position[0], items[i].position[1]};
    kept_hash.query_radius(p, radius[i] + max_radius, near);
    bool clear = true;
    for (std::uint32_t k : near) {
      // Props on a roof and on the ground (or on another roof tier) below never meet.
      if (std::abs(items[i].position[2] - items[k].position[2]) > kOverlapOtherLevelM) continue;
      const Vec2 q{items[k].position[0], items[k].position[1]};
      // Discs that just touch (biome parts laid out edge to edge) do not overlap; rotations
      // leave them a rounding error apart.
      if (distance(p, q) < radius[i] + radius[k] - kTouchM) {
        clear = false;
        break;
      }
    }
    if (clear) {
      kept_hash.insert(static_cast<std::uint32_t>(i), p);
    } else {
      keep[i] = 0;
      ++dropped;
    }
  }
  // 3. Compact, keeping the input order.
  std::size_t w = 0;
  for (std::size_t i = 0; i < items.size(); ++i)
    if (keep[i] != 0) items[w++] = items[i];
  items.resize(w);
  return dropped;
}

}  // namespace cityforge::dressing::detail
