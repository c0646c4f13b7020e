// SPDX-License-Identifier: Apache-2.0
#pragma once

// A laid-out city of ~1.2 x 1.1 km with two crossing arteries (seed 4): the roads tests' shared
// whole-city input (label city).
#include "cityforge/core/polygon.hpp"
#include "cityforge/layout/layout.hpp"
#include "cityforge/terrain/heightfield.hpp"

namespace cityforge::roads::test {

struct SmallCity {
  terrain::Heightfield ground;
  layout::Output city;
};

/// Its layout inputs: the boundary, two crossing arteries, one residential zone over it all
/// (the freeway tests lay it out on their own terrain and seed).
inline layout::Inputs small_city_inputs() {
  layout::Inputs in;
  in.boundary.outer = {{0, 0}, {1200, 0}, {1250, 700}, {1100, 1100}, {0, 1000}};
  in.arteries.push_back({"east-west", {{10, 480}, {600, 560}, {1230, 520}}});
  in.arteries.push_back({"north-south", {{620, 10}, {560, 500}, {640, 1040}}});
  layout::Zone res;
  res.area.outer = in.boundary.outer;
  in.zones = {res};
  return in;
}

inline SmallCity small_layout_city() {
  const layout::Inputs in = small_city_inputs();
  SmallCity out{*terrain::run(ring_bounds(in.boundary.outer), terrain::Config{}, 4), {}};
  out.city = *layout::run(in, out.ground, layout::Config{}, 4);
  return out;
}

}  // namespace cityforge::roads::test
