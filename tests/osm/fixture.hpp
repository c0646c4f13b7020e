// SPDX-License-Identifier: Apache-2.0
// Small helpers shared by the osm unit and city tests.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <utility>

#include "cityforge/buildings/buildings.hpp"
#include "cityforge/core/vec.hpp"
#include "cityforge/terrain/heightfield.hpp"

namespace cityforge::osm::testing {

/// Flat ground at z = 0 over `area` and 40 m around it.
inline terrain::Heightfield flat(const Aabb2& area) {
  terrain::Heightfield h;
  h.cell_m = 20.0;
  h.origin = area.min - Vec2{40.0, 40.0};
  h.nx = static_cast<std::uint32_t>(std::ceil(area.size().x / h.cell_m)) + 5;
  h.ny = static_cast<std::uint32_t>(std::ceil(area.size().y / h.cell_m)) + 5;
  h.heights.assign(std::size_t{h.nx} * h.ny, 0.0F);
  return h;
}

/// The built-in building styles (empty, after a test failure, when they do not parse).
inline buildings::StyleLibrary styles() {
  auto lib = buildings::builtin_library();
  EXPECT_TRUE(lib.ok());
  return lib.ok() ? std::move(*lib) : buildings::StyleLibrary{};
}

}  // namespace cityforge::osm::testing
