// SPDX-License-Identifier: Apache-2.0
// The layout tests' small city: a 1.2 x 1.1 km boundary, two arteries, a downtown (unit and city
// tests).
#pragma once

#include "cityforge/layout/layout.hpp"

namespace cityforge::layout::test {

inline Inputs small_city() {
  Inputs in;
  in.boundary.outer = {{0, 0}, {1200, 0}, {1250, 700}, {1100, 1100}, {0, 1000}};
  in.arteries.push_back({"east-west", {{10, 480}, {600, 560}, {1230, 520}}});
  in.arteries.push_back({"north-south", {{620, 10}, {560, 500}, {640, 1040}}});
  Zone res;
  res.kind = ZoneKind::residential;
  res.area.outer = in.boundary.outer;
  res.min_height_m = 8;
  res.max_height_m = 15;
  Zone down;
  down.kind = ZoneKind::downtown;
  down.area.outer = {{400, 350}, {800, 350}, {800, 750}, {400, 750}};
  down.min_height_m = 40;
  down.max_height_m = 150;
  down.density = 0.9;
  in.zones = {res, down};
  return in;
}

}  // namespace cityforge::layout::test
