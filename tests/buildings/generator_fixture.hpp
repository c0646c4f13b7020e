// SPDX-License-Identifier: Apache-2.0
// Small styles, DNAs and lots for the building generator tests (unit and city), and checks of their
// output.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "buildings/detail/gen_internal.hpp"
#include "cityforge/buildings/buildings.hpp"

namespace cityforge::buildings::test {

enum Mod : std::uint32_t { kW, kN, kD, kC, kP, kS, kG, kF, kK, kModCount };

inline ModuleDef mod(const char* key, double w, std::uint32_t tags, double h = 0.0) {
  ModuleDef m;
  m.key = key;
  m.id = std::string("test.") + key;
  m.width_m = w;
  m.height_m = h;
  m.tags = tags;
  return m;
}

inline Grammar grammar(const std::string& text, const Style& s) {
  std::vector<std::string> keys;
  for (const ModuleDef& m : s.modules) {
    keys.push_back(m.key);
  }
  Result<Grammar> g = parse_grammar(text, "test", keys);
  EXPECT_TRUE(g.ok()) << text << ": " << (g.ok() ? "" : g.error().to_string());
  return g.ok() ? g.value() : Grammar{};
}

// Wall W, window N, door D, corner C, cap P, split S, sign G, fire escape F, concave K.
inline Style test_style(const std::string& ground = "|W|(N)|*W|", bool forced_door = true) {
  Style s;
  s.name = "test";
  s.modules = {mod("W", 1.0, kTagWall),
               mod("N", 1.5, kTagWindow),
               mod("D", 1.2, kTagEntrance),
               mod("C", 0.4, kTagCorner),
               mod("P", 0.3, kTagCornerCap),
               mod("S", 0.2, kTagCorner),
               mod("G", 1.0, kTagSignage | kTagProp, 1.0),
               mod("F", 2.0, kTagFireEscape),
               mod("K", 0.3, kTagCorner)};
  s.ground.height_m = 4.0;
  s.typical.height_m = 3.0;
  s.top.height_m = 3.0;
  s.ground.grammars = {grammar(ground, s)};
  s.typical.grammars = {grammar("|W|(N)|*W|", s), grammar("|*W|", s)};
  s.top.grammars = {grammar("|(NW)|*W|", s), grammar("|*W|", s)};
  s.corner_convex = kC;
  s.corner_concave = kK;
  s.corner_split = kS;
  s.entrance = forced_door ? static_cast<std::int32_t>(kD) : -1;
  s.fire_escape = kF;
  s.brands = {Brand{"acme", kG}, Brand{"bolt", kG}};
  return s;
}

inline StyleLibrary library_of(const Style& s) {
  StyleLibrary lib;
  lib.styles.push_back(s);
  lib.first_module.push_back(0);
  return lib;
}

inline lots::BuildingDNA dna(lots::FootprintShape shape, double sx, double sy, Vec2 centre,
                             double base, double shaft = 0.0, double crown = 0.0,
                             lots::Massing massing = lots::Massing::plain, std::uint32_t steps = 0,
                             double setback = 0.0, double angle = 0.0) {
  lots::BuildingDNA d;
  d.shape = shape;
  d.size_x_m = sx;
  d.size_y_m = sy;
  d.centre = centre;
  d.angle_rad = angle;
  d.base_m = base;
  d.shaft_m = shaft;
  d.crown_m = crown;
  d.massing = massing;
  d.setback_steps = steps;
  d.setback_m = setback;
  return d;
}

inline Polygon box(double x0, double y0, double x1, double y1) {
  Polygon p;
  p.outer = {{x0, y0}, {x1, y0}, {x1, y1}, {x0, y1}};
  return p;
}

// A parcel exactly around the DNA's box (angle 0) with frontage on its south edge.
inline lots::Parcel parcel_for(const lots::BuildingDNA& d, bool frontage = true) {
  lots::Parcel p;
  p.area = box(d.centre.x - d.size_x_m / 2, d.centre.y - d.size_y_m / 2,
               d.centre.x + d.size_x_m / 2, d.centre.y + d.size_y_m / 2);
  p.frontage = {static_cast<std::uint8_t>(frontage ? 1 : 0), 0, 0, 0};
  p.dna = d;
  return p;
}

inline lots::Lot lot_of(std::uint32_t id, std::vector<lots::Parcel> parcels) {
  lots::Lot lot;
  lot.id = id;
  lot.parcels = std::move(parcels);
  return lot;
}

inline Output generate(const lots::Lot& lot, const StyleLibrary& lib,
                       const std::vector<TagVolume>& tags = {}) {
  Config cfg;
  cfg.keep_facade_spans = true;
  Result<Output> r = generate_lot(lot, lib, tags, cfg, 7);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().to_string());
  return r.ok() ? std::move(r).value() : Output{};
}

// Every facade covered from 0 to its length within 1 cm, sorted, without overlap.
inline void expect_covered(const Output& out, const std::string& what) {
  for (const FacadeSpan& s : out.spans) {
    ASSERT_FALSE(s.spans.empty()) << what << " edge " << s.edge << " floor " << s.floor;
    EXPECT_NEAR(s.spans.front()[0], 0.0, 0.01) << what;
    EXPECT_NEAR(s.spans.back()[1], s.length_m, 0.01) << what;
    for (std::size_t i = 0; i < s.spans.size(); ++i) {
      EXPECT_LE(s.spans[i][0], s.spans[i][1] + 1e-9) << what;
      if (i > 0) {
        EXPECT_NEAR(s.spans[i][0], s.spans[i - 1][1], 0.01) << what;
        EXPECT_GE(s.spans[i][0], s.spans[i - 1][1] - 1e-6) << what << " overlap";
      }
    }
  }
}

inline double mesh_area(const Mesh& m) {
  double a = 0.0;
  for (std::size_t i = 0; i < m.indices.size(); i += 3) {
    const auto& p = m.positions[m.indices[i]];
    const auto& q = m.positions[m.indices[i + 1]];
    const auto& r = m.positions[m.indices[i + 2]];
    a += 0.5 * ((q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0]));
  }
  return a;
}

inline std::vector<lots::BuildingDNA> many_dnas() {
  std::vector<lots::BuildingDNA> out;
  const lots::Massing massings[] = {lots::Massing::plain, lots::Massing::staggered,
                                    lots::Massing::cubified};
  int i = 0;
  for (std::size_t s = 0; s < lots::kFootprintShapeCount; ++s) {
    for (double size : {14.0, 23.0, 37.0}) {
      for (lots::Massing m : massings) {
        const double sy = size * (0.8 + 0.1 * (i % 4));
        lots::BuildingDNA d = dna(static_cast<lots::FootprintShape>(s), size, sy, {100.0 * i, 7.0},
                                  4.0 + 3.0 * (i % 3), m == lots::Massing::plain ? 9.0 : 30.0, 6.0,
                                  m, 1 + static_cast<std::uint32_t>(i % 3), 2.0, 0.3 * (i % 5));
        d.shape_param = 0.3 + 0.1 * (i % 4);
        out.push_back(d);
        ++i;
      }
    }
  }
  return out;
}

}  // namespace cityforge::buildings::test
