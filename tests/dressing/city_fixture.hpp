// SPDX-License-Identifier: Apache-2.0
#pragma once

// A small whole city for the dressing tests, built stage by stage (the dressing tests cannot
// link the pipeline): terrain, layout, roads, freeway, lots and buildings with the built-in
// styles. Built once per process and shared by every test (read only).

#include <memory>
#include <string>
#include <vector>

#include "cityforge/buildings/buildings.hpp"
#include "cityforge/buildings/style.hpp"
#include "cityforge/dressing/dressing.hpp"
#include "cityforge/freeway/freeway.hpp"
#include "cityforge/layout/layout.hpp"
#include "cityforge/lots/lots.hpp"
#include "cityforge/roads/roads.hpp"
#include "cityforge/rooftops/rooftops.hpp"
#include "cityforge/terrain/heightfield.hpp"

namespace cityforge::dressing::testing {

/// Empty stage outputs for the inputs a test does not build (an empty output stands for none).
struct Nothing {
  layout::Output city;
  roads::Output roads;
  freeway::Output freeway;
  lots::Output lots;
  buildings::Output buildings;
  terrain::Heightfield ground;
  buildings::StyleLibrary styles;
  rooftops::RooftopOutput rooftops;
  Inputs inputs() const {
    return Inputs{.city = city,
                  .roads = roads,
                  .freeway = freeway,
                  .lots = lots,
                  .buildings = buildings,
                  .ground = ground,
                  .styles = styles,
                  .rooftops = rooftops};
  }
};
inline const Nothing& nothing() {
  static const Nothing s_nothing;
  return s_nothing;
}

struct City {
  terrain::Heightfield ground;
  layout::Output layout;
  roads::Output roads;
  freeway::Output freeway;
  buildings::StyleLibrary styles;
  lots::Output lots;
  buildings::Output buildings;
  std::string error;  ///< Non-empty when a stage failed.

  /// Without styles (rooftop zones get the default parapet) and rooftops.
  Inputs inputs() const { return inputs_with(layout, nothing().styles); }
  Inputs inputs_with(const layout::Output& city, const buildings::StyleLibrary& with) const {
    return Inputs{.city = city,
                  .roads = roads,
                  .freeway = freeway,
                  .lots = lots,
                  .buildings = buildings,
                  .ground = ground,
                  .styles = with,
                  .rooftops = nothing().rooftops};
  }
};

/// 600 x 500 m: two arteries crossing, downtown, residential and a park, and a freeway.
inline std::unique_ptr<City> build_city(Seed seed = 7) {
  auto city = std::make_unique<City>();
  layout::Inputs in;
  in.boundary.outer = {{0, 0}, {600, 0}, {600, 500}, {0, 500}};
  in.arteries.push_back({"east_west", {{5, 250}, {595, 260}}});
  in.arteries.push_back({"north_south", {{300, 5}, {290, 495}}});
  in.zones.push_back({"core", layout::ZoneKind::downtown,
                      Polygon{{{150, 150}, {450, 150}, {450, 350}, {150, 350}}, {}}, 30, 90, 0.8});
  in.zones.push_back({"homes", layout::ZoneKind::residential,
                      Polygon{{{0, 250}, {300, 250}, {300, 500}, {0, 500}}, {}}, 8, 18, 0.5});
  in.zones.push_back({"green", layout::ZoneKind::park,
                      Polygon{{{300, 0}, {600, 0}, {600, 250}, {300, 250}}, {}}, 0, 0, 0.1});
  auto fail = [&](const Error& e) {
    city->error = e.to_string();
    return std::move(city);
  };
  auto ground = terrain::run(ring_bounds(in.boundary.outer), terrain::Config{}, seed);
  if (!ground) return fail(ground.error());
  city->ground = std::move(*ground);
  auto lay = layout::run(in, city->ground, layout::Config{}, seed);
  if (!lay) return fail(lay.error());
  city->layout = std::move(*lay);
  auto rd = roads::run(city->layout, city->ground, roads::Config{}, seed);
  if (!rd) return fail(rd.error());
  city->roads = std::move(*rd);
  std::vector<freeway::FreewayCurve> curves;
  curves.push_back({"skyway", {{0, 80, 14}, {600, 100, 14}}, 3, 90});
  auto fw = freeway::run(curves, city->layout, city->roads, city->ground, freeway::Config{}, seed);
  if (!fw) return fail(fw.error());
  city->freeway = std::move(*fw);
  auto lib = buildings::builtin_library();
  if (!lib) return fail(lib.error());
  city->styles = std::move(*lib);
  auto lt = lots::run(city->layout, city->freeway.footprints,
                      buildings::lot_style_rules(city->styles), lots::Config{}, seed);
  if (!lt) return fail(lt.error());
  city->lots = std::move(*lt);
  auto bd = buildings::run(city->lots, city->styles, {}, city->ground, buildings::Config{}, seed);
  if (!bd) return fail(bd.error());
  city->buildings = std::move(*bd);
  return city;
}

/// The shared city (built on first use).
inline const City& shared_city() {
  static const std::unique_ptr<City> s_city = build_city();
  return *s_city;
}

}  // namespace cityforge::dressing::testing
