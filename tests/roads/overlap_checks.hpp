// SPDX-License-Identifier: Apache-2.0
// Independent check of the no-overlap invariant: every pair of road surfaces whose boxes
// overlap is intersected with GEOS.
#pragma once

#include <string>
#include <vector>

#include "cityforge/core/polygon.hpp"
#include "cityforge/roads/roads.hpp"

namespace cityforge::roads::test {

struct Overlap {
  std::string a;
  std::string b;
  double area_m2 = 0.0;
};

/// All pairs of section / junction surfaces overlapping by more than max_m2.
inline std::vector<Overlap> overlaps(const Output& out, double max_m2 = 0.01) {
  struct Item {
    std::string name;
    const Polygon* poly;
    Aabb2 box;
  };
  std::vector<Item> items;
  for (std::size_t i = 0; i < out.sections.size(); ++i) {
    const Polygon& p = out.sections[i].surface;
    if (p.outer.size() >= 3)
      items.push_back({"section " + std::to_string(i), &p, ring_bounds(p.outer)});
  }
  for (std::size_t i = 0; i < out.intersections.size(); ++i) {
    const Polygon& p = out.intersections[i].surface;
    if (p.outer.size() >= 3) {
      items.push_back({"junction " + std::to_string(i), &p, ring_bounds(p.outer)});
    }
  }
  std::sort(items.begin(), items.end(),
            [](const Item& x, const Item& y) { return x.box.min.x < y.box.min.x; });
  std::vector<Overlap> found;
  for (std::size_t i = 0; i < items.size(); ++i) {
    for (std::size_t j = i + 1; j < items.size() && items[j].box.min.x <= items[i].box.max.x; ++j) {
      if (!items[i].box.overlaps(items[j].box)) continue;
      double area = 0.0;
      for (const Polygon& p : polygon_intersection(*items[i].poly, *items[j].poly)) {
        area += polygon_area(p);
      }
      if (area > max_m2) found.push_back({items[i].name, items[j].name, area});
    }
  }
  return found;
}

inline std::string describe(const std::vector<Overlap>& v) {
  std::string s;
  for (const Overlap& o : v)
    s += o.a + " x " + o.b + ": " + std::to_string(o.area_m2) + " m2\n";
  return s;
}

}  // namespace cityforge::roads::test
