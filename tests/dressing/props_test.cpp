// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "cityforge/dressing/dressing.hpp"
#include "dressing/detail/prop_geometry.hpp"

namespace cityforge::dressing {
namespace {

using V = std::array<double, 3>;

V sub(const V& a, const V& b) { return {a[0] - b[0], a[1] - b[1], a[2] - b[2]}; }
V crs(const V& a, const V& b) {
  return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}
double dt(const V& a, const V& b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
double len(const V& a) { return std::sqrt(dt(a, a)); }
V to_v(const std::array<float, 3>& f) { return {f[0], f[1], f[2]}; }

// Calls f(a, b, c, n_a) for every triangle of a part.
template <class F>
void for_each_tri(const Mesh& m, F&& f) {
  for (std::size_t t = 0; t + 2 < m.indices.size(); t += 3) {
    f(to_v(m.positions[m.indices[t]]), to_v(m.positions[m.indices[t + 1]]),
      to_v(m.positions[m.indices[t + 2]]), to_v(m.normals[m.indices[t]]));
  }
}

const Mesh& part(const PropMesh& pm, PropMaterial m) {
  return pm.parts[static_cast<std::size_t>(m)];
}

bool is_tile(const std::string& id) { return id.rfind("sidewalk_", 0) == 0 || id == "ground_tile"; }

const std::vector<std::string> kIds = {"sidewalk_tile",
                                       "sidewalk_corner_out",
                                       "sidewalk_corner_in",
                                       "ground_tile",
                                       "street_light",
                                       "parking_lamp",
                                       "street_tree",
                                       "park_tree",
                                       "bush",
                                       "planter",
                                       "bench",
                                       "bin",
                                       "hydrant",
                                       "bus_stop",
                                       "bollard",
                                       "bike_rack",
                                       "picnic_table",
                                       "signal_pole",
                                       "signal_head",
                                       "stop_sign",
                                       "yield_sign",
                                       "car",
                                       "parking_line",
                                       "hvac_unit",
                                       "water_tank",
                                       "roof_vent",
                                       "solar_panel",
                                       "jersey_barrier",
                                       "fountain",
                                       "kiosk",
                                       "umbrella_table",
                                       "barrier_wall",
                                       "barrier_fence",
                                       "barrier_hedge",
                                       "guard_rail",
                                       "kerb_stone",
                                       "decal_grime",
                                       "decal_tyre_marks",
                                       "decal_oil",
                                       "decal_crack"};

TEST(PropCatalog, HasTheSharedIdsInOrderAndFindsThem) {
  const auto& catalog = prop_catalog();
  ASSERT_EQ(catalog.size(), kIds.size());
  std::set<std::string> seen;
  for (std::size_t i = 0; i < catalog.size(); ++i) {
    EXPECT_EQ(catalog[i].id, kIds[i]);
    EXPECT_TRUE(seen.insert(catalog[i].id).second) << catalog[i].id;
    EXPECT_EQ(find_prop(catalog[i].id), static_cast<std::int32_t>(i));
    EXPECT_GE(catalog[i].radius_m, 0.0);
    EXPECT_GT(catalog[i].height_m, 0.0);
    EXPECT_GT(catalog[i].length_m, 0.0);
    EXPECT_GT(catalog[i].width_m, 0.0);
  }
  EXPECT_EQ(find_prop("no_such_prop"), -1);
  EXPECT_EQ(find_prop(""), -1);
}

TEST(PropCatalog, SurfacesAndHangingHeadsHaveNoFootprint) {
  for (const char* id :
       {"sidewalk_tile", "sidewalk_corner_out", "sidewalk_corner_in", "ground_tile", "parking_line",
        "signal_head", "decal_grime", "decal_tyre_marks", "decal_oil", "decal_crack"}) {
    EXPECT_EQ(prop_catalog()[find_prop(id)].radius_m, 0.0) << id;
  }
  for (const PropDef& def : prop_catalog()) {
    if (def.id != "parking_line" && def.id != "signal_head" && !is_tile(def.id) &&
        def.category != Category::decal) {
      EXPECT_GT(def.radius_m, 0.0) << def.id;
    }
  }
}

TEST(PropCatalog, EnumNamesAreDistinct) {
  std::set<std::string> names;
  for (std::size_t i = 0; i < kCategoryCount; ++i) {
    names.insert(to_string(static_cast<Category>(i)));
  }
  EXPECT_EQ(names.size(), kCategoryCount);
  names.clear();
  for (std::size_t i = 0; i < kPropMaterialCount; ++i) {
    names.insert(to_string(static_cast<PropMaterial>(i)));
  }
  EXPECT_EQ(names.size(), kPropMaterialCount);
  names.clear();
  for (std::size_t i = 0; i < kZoneKindCount; ++i) {
    names.insert(to_string(static_cast<ZoneKind>(i)));
  }
  EXPECT_EQ(names.size(), kZoneKindCount);
  names.clear();
  for (const Surface s : {Surface::road, Surface::sidewalk, Surface::plaza, Surface::park,
                          Surface::ground, Surface::water}) {
    names.insert(to_string(s));
  }
  EXPECT_EQ(names.size(), 6U);
  EXPECT_EQ(names.count("unknown"), 0U);
  EXPECT_STREQ(to_string(Category::signals), "signals");
  EXPECT_STREQ(to_string(PropMaterial::rubber), "rubber");
}

TEST(PropMesh, EveryPropIsAValidLowPolyMesh) {
  const auto& catalog = prop_catalog();
  for (std::uint32_t p = 0; p < catalog.size(); ++p) {
    const PropDef& def = catalog[p];
    SCOPED_TRACE(def.id);
    const PropMesh pm = build_prop_mesh(p);
    ASSERT_GT(pm.triangle_count(), 0U);
    // Budgets: trees under 300 triangles, everything under 400.
    EXPECT_LT(pm.triangle_count(), def.category == Category::vegetation ? 300U : 400U);
    for (std::size_t mi = 0; mi < pm.parts.size(); ++mi) {
      const Mesh& m = pm.parts[mi];
      SCOPED_TRACE(to_string(static_cast<PropMaterial>(mi)));
      ASSERT_EQ(m.normals.size(), m.positions.size());
      ASSERT_EQ(m.indices.size() % 3, 0U);
      for (const std::uint32_t i : m.indices) {
        ASSERT_LT(i, m.positions.size());
      }
      for (std::size_t v = 0; v < m.positions.size(); ++v) {
        for (int k = 0; k < 3; ++k) {
          ASSERT_TRUE(std::isfinite(m.positions[v][k]));
          ASSERT_TRUE(std::isfinite(m.normals[v][k]));
        }
        ASSERT_NEAR(len(to_v(m.normals[v])), 1.0, 1e-5);
      }
      for (std::size_t t = 0; t < m.indices.size(); t += 3) {
        const V a = to_v(m.positions[m.indices[t]]);
        const V b = to_v(m.positions[m.indices[t + 1]]);
        const V c = to_v(m.positions[m.indices[t + 2]]);
        const V area2 = crs(sub(b, a), sub(c, a));
        // Non-degenerate: at least 0.5 cm^2, and no sliver (area against longest edge).
        ASSERT_GT(len(area2), 1e-4) << "triangle " << t / 3;
        const double edge = std::max({len(sub(b, a)), len(sub(c, b)), len(sub(a, c))});
        ASSERT_GT(len(area2) / edge, 1e-3) << "sliver " << t / 3;
        // Counter-clockwise seen from the side the normals point to.
        for (int k = 0; k < 3; ++k) {
          ASSERT_GT(dt(area2, to_v(m.normals[m.indices[t + k]])), 0.0) << "triangle " << t / 3;
        }
      }
    }
  }
}

// Tolerance of the bounds checks: the mesh's box matches length_m x width_m x height_m within
// 5 % + 5 cm, its base (vertices lower than 0.25 m) lies inside the footprint disc within
// 2 % + 2 cm, and nothing goes below the ground.
TEST(PropMesh, MeshesMatchTheirCatalogueSizes) {
  const auto& catalog = prop_catalog();
  for (std::uint32_t p = 0; p < catalog.size(); ++p) {
    const PropDef& def = catalog[p];
    SCOPED_TRACE(def.id);
    const PropMesh pm = build_prop_mesh(p);
    V lo{1e9, 1e9, 1e9};
    V hi{-1e9, -1e9, -1e9};
    double base_r = 0.0;
    for (const Mesh& m : pm.parts) {
      for (const auto& q : m.positions) {
        for (int k = 0; k < 3; ++k) {
          lo[k] = std::min(lo[k], static_cast<double>(q[k]));
          hi[k] = std::max(hi[k], static_cast<double>(q[k]));
        }
        if (q[2] < 0.25) {
          base_r = std::max(base_r, std::hypot(double{q[0]}, double{q[1]}));
        }
      }
    }
    const auto near = [](double got, double want) {
      return std::abs(got - want) <= 0.05 * want + 0.05;
    };
    EXPECT_TRUE(near(hi[0] - lo[0], def.length_m)) << hi[0] - lo[0] << " vs " << def.length_m;
    EXPECT_TRUE(near(hi[1] - lo[1], def.width_m)) << hi[1] - lo[1] << " vs " << def.width_m;
    EXPECT_TRUE(near(hi[2], def.height_m)) << hi[2] << " vs " << def.height_m;
    EXPECT_GE(lo[2], -1e-6);
    if (def.radius_m > 0.0) {
      EXPECT_LE(base_r, def.radius_m * 1.02 + 0.02);
      // Centred on the origin: the box straddles it on both axes.
      EXPECT_LT(lo[0], 0.0);
      EXPECT_GT(hi[0], 0.0);
      EXPECT_LT(lo[1], 0.0);
      EXPECT_GT(hi[1], 0.0);
    }
  }
}

bool in_shape(const std::string& id, double x, double y) {
  const double e = 1e-6;
  if (id == "sidewalk_corner_out") {
    return x >= -e && x <= 1.0 + e && std::abs(y) <= 0.5 * x + e;
  }
  if (id == "sidewalk_corner_in") {
    return x >= -e && y >= -e && x + y <= 1.0 + e;
  }
  return x >= -e && x <= 1.0 + e && y >= -e && y <= 1.0 + e;
}

TEST(PropMesh, TilesFillTheirUnitShapesAsThinSlabs) {
  for (const auto& [id, area] :
       std::vector<std::pair<std::string, double>>{{"sidewalk_tile", 1.0},
                                                   {"sidewalk_corner_out", 0.5},
                                                   {"sidewalk_corner_in", 0.5},
                                                   {"ground_tile", 1.0}}) {
    SCOPED_TRACE(id);
    const PropMesh pm = build_prop_mesh(static_cast<std::uint32_t>(find_prop(id)));
    double top_area = 0.0;
    for (const Mesh& m : pm.parts) {
      for (const auto& q : m.positions) {
        EXPECT_TRUE(in_shape(id, q[0], q[1])) << q[0] << ", " << q[1];
        EXPECT_GE(q[2], -1e-6);
        EXPECT_LE(q[2], kTileThicknessM + 1e-6);
      }
      for_each_tri(m, [&](const V& a, const V& b, const V& c, const V& n) {
        EXPECT_GT(n[2], -0.5) << "tiles have no bottom face";
        if (n[2] > 0.99) {
          EXPECT_NEAR(a[2], kTileThicknessM, 1e-6);
          top_area += 0.5 * len(crs(sub(b, a), sub(c, a)));
        }
      });
    }
    EXPECT_NEAR(top_area, area, 1e-5);
  }
  // The parking stripe: 5 m x 0.12 m along x, centred, white (the sign material) only.
  const PropMesh line = build_prop_mesh(static_cast<std::uint32_t>(find_prop("parking_line")));
  EXPECT_EQ(line.triangle_count(), part(line, PropMaterial::sign).triangle_count());
  for (const auto& q : part(line, PropMaterial::sign).positions) {
    EXPECT_LE(std::abs(q[0]), 2.5 + 1e-6);
    EXPECT_LE(std::abs(q[1]), 0.06 + 1e-6);
  }
}

// Centroid and up / facing areas of one part of a prop.
struct PartInfo {
  V centroid{};
  double area = 0.0;
  double area_facing_px = 0.0;  ///< Area of triangles whose normal is (near) +x.
  double area_facing_nz = 0.0;  ///< ... -z.
  double max_x = -1e9;
  double mean_nx = 0.0;  ///< Area-weighted mean of the normals' x.
};

PartInfo info(const char* id, PropMaterial mat) {
  const PropMesh pm = build_prop_mesh(static_cast<std::uint32_t>(find_prop(id)));
  PartInfo out;
  for_each_tri(part(pm, mat), [&](const V& a, const V& b, const V& c, const V& n) {
    const double area = 0.5 * len(crs(sub(b, a), sub(c, a)));
    out.area += area;
    for (int k = 0; k < 3; ++k) {
      out.centroid[k] += area * (a[k] + b[k] + c[k]) / 3.0;
    }
    out.area_facing_px += n[0] > 0.9 ? area : 0.0;
    out.area_facing_nz += n[2] < -0.9 ? area : 0.0;
    out.max_x = std::max({out.max_x, a[0], b[0], c[0]});
    out.mean_nx += area * n[0];
  });
  if (out.area > 0.0) {
    for (double& c : out.centroid) {
      c /= out.area;
    }
    out.mean_nx /= out.area;
  }
  return out;
}

TEST(PropMesh, PropsFaceTheirDocumentedDirections) {
  // The street lamp hangs over +x, glowing downward, near kStreetLightReachM.
  const PartInfo lamp = info("street_light", PropMaterial::light);
  EXPECT_NEAR(lamp.centroid[0], kStreetLightReachM, 0.3);
  EXPECT_GT(lamp.centroid[2], 7.0);
  EXPECT_GT(lamp.area_facing_nz, 0.1);
  // Signal heads and signs face +x.
  EXPECT_GT(info("signal_head", PropMaterial::light).area_facing_px, 3 * 0.03);
  for (const char* sign : {"stop_sign", "yield_sign"}) {
    const PartInfo face = info(sign, PropMaterial::sign);
    EXPECT_NEAR(face.area_facing_px, face.area, 1e-6) << sign;
    EXPECT_GT(face.area, 0.2) << sign;
  }
  // The mast arm reaches kSignalArmReachM at kSignalArmHeightM.
  const PropMesh pole = build_prop_mesh(static_cast<std::uint32_t>(find_prop("signal_pole")));
  bool reaches = false;
  for (const auto& q : part(pole, PropMaterial::metal).positions) {
    reaches = reaches || (q[0] >= kSignalArmReachM && std::abs(q[2] - kSignalArmHeightM) < 0.2);
    EXPECT_GE(q[2], 0.0);
  }
  EXPECT_TRUE(reaches);
  // The bus stop's glass back is at -x, the car's headlights at +x, its four wheels rubber.
  EXPECT_LT(info("bus_stop", PropMaterial::glass).centroid[0], 0.0);
  EXPECT_GT(info("car", PropMaterial::light).centroid[0], 2.0);
  EXPECT_GT(info("car", PropMaterial::rubber).area, 4 * 0.3);
  EXPECT_GT(info("kiosk", PropMaterial::glass).centroid[0], 0.9);
  // Trees: bark and foliage, the canopy above the trunk; the street tree has its metal grate.
  for (const char* tree : {"street_tree", "park_tree"}) {
    EXPECT_GT(info(tree, PropMaterial::foliage).centroid[2],
              info(tree, PropMaterial::bark).centroid[2])
        << tree;
  }
  EXPECT_LT(info("street_tree", PropMaterial::metal).centroid[2], 0.05);
  EXPECT_GT(info("hydrant", PropMaterial::paint).area, 0.2);
  EXPECT_GT(info("solar_panel", PropMaterial::glass).area, 1.5);
  EXPECT_GT(info("solar_panel", PropMaterial::glass).mean_nx, 0.3);
  // The bench's back (wood above the seat) is at -x, so its wood leans that way.
  EXPECT_LT(info("bench", PropMaterial::wood).centroid[0], -0.02);
  EXPECT_GT(info("fountain", PropMaterial::glass).area, 5.0);
}

// Signed volume by the divergence theorem: positive when faces point outward. Faces lying in a
// plane through the origin (bottoms at z = 0) add nothing, so open-bottomed solids still count.
double signed_volume(const Mesh& m) {
  double v = 0.0;
  for_each_tri(m, [&](const V& a, const V& b, const V& c, const V&) { v += dt(a, crs(b, c)); });
  return v / 6.0;
}

TEST(PropGeometry, ClosedSolidsPointOutward) {
  namespace d = detail;
  const double pi = 3.14159265358979323846;
  Mesh box;
  d::add_box(box, {1.0, 2.0, 3.0}, {2.0, 4.0, 6.0});
  EXPECT_NEAR(signed_volume(box), 6.0, 1e-5);
  Mesh prism;
  d::add_frustum(prism, {1.0, 1.0, 0.5}, {1.0, 1.0, 2.5}, 1.0, 1.0, 8);
  EXPECT_NEAR(signed_volume(prism), 2.0 * 0.5 * 8 * std::sin(2.0 * pi / 8), 1e-4);
  Mesh tilted;  // Any axis: the same prism lying along +x and along a diagonal.
  d::add_frustum(tilted, {0.0, 0.0, 0.0}, {2.0, 0.0, 0.0}, 1.0, 1.0, 8);
  EXPECT_NEAR(signed_volume(tilted), 2.0 * 0.5 * 8 * std::sin(2.0 * pi / 8), 1e-4);
  Mesh diagonal;
  d::add_frustum(diagonal, {0.0, 0.0, 0.0}, {1.0, -1.0, 1.0}, 0.5, 0.2, 6);
  EXPECT_GT(signed_volume(diagonal), 0.0);
  Mesh cone;
  d::add_frustum(cone, {0.0, 0.0, 0.0}, {0.0, 0.0, 3.0}, 1.0, 0.0, 4);
  EXPECT_NEAR(signed_volume(cone), 2.0 * 3.0 / 3.0, 1e-5);
  Mesh beam;
  d::add_beam(beam, {0.0, 0.0, 1.0}, {3.0, 4.0, 1.0}, 0.5, 0.25);
  EXPECT_NEAR(signed_volume(beam), 5.0 * 1.0 * 0.5, 1e-5);
  Mesh blob;
  d::add_blob(blob, {1.0, 2.0, 3.0}, {1.0, 2.0, 0.5}, 0.3, true);
  EXPECT_EQ(blob.triangle_count(), 80U);
  // Between the inscribed and circumscribed ellipsoids of the subdivided icosahedron.
  const double ellipsoid = 4.0 / 3.0 * pi * 1.0 * 2.0 * 0.5;
  EXPECT_GT(signed_volume(blob), 0.8 * ellipsoid);
  EXPECT_LT(signed_volume(blob), ellipsoid);
  Mesh tube;
  d::add_tube(tube, 0.0, 0.0, 0.0, 1.0, 0.5, 1.0, 6);
  EXPECT_NEAR(signed_volume(tube), 0.75 * 0.5 * 6 * std::sin(2.0 * pi / 6), 1e-5);
  Mesh bar;
  const std::array<Vec2, 4> profile = {{{-0.5, 0.0}, {0.5, 0.0}, {0.25, 1.0}, {-0.25, 1.0}}};
  d::add_extrusion_x(bar, profile.data(), profile.size(), -1.0, 2.0);
  EXPECT_NEAR(signed_volume(bar), 0.75 * 3.0, 1e-5);
  // Thinner than kMinExtent: nothing.
  Mesh none;
  d::add_box(none, {0.0, 0.0, 0.0}, {1.0, 1.0, 1e-4});
  d::add_frustum(none, {0.0, 0.0, 0.0}, {0.0, 0.0, 1.0}, 0.0, 0.0, 8);
  EXPECT_TRUE(none.empty());
}

TEST(PropMesh, EveryPartEnclosesPositiveVolume) {
  // A part turned inside out would subtract its volume; every prop is built of outward solids
  // and open slabs whose signed volume is still positive.
  const auto& catalog = prop_catalog();
  for (std::uint32_t p = 0; p < catalog.size(); ++p) {
    if (catalog[p].category == Category::decal) continue;  // Quads: no volume.
    const PropMesh pm = build_prop_mesh(p);
    for (std::size_t mi = 0; mi < pm.parts.size(); ++mi) {
      if (!pm.parts[mi].empty()) {
        EXPECT_GT(signed_volume(pm.parts[mi]), 0.0)
            << catalog[p].id << " " << to_string(static_cast<PropMaterial>(mi));
      }
    }
  }
}

TEST(PropMesh, DecalsAreUnitQuadsWithTheirOwnTextureCoordinates) {
  const std::array<std::pair<const char*, PropMaterial>, 4> kDecals{{
      {"decal_grime", PropMaterial::grime},
      {"decal_tyre_marks", PropMaterial::tyre_marks},
      {"decal_oil", PropMaterial::oil},
      {"decal_crack", PropMaterial::crack},
  }};
  for (const auto& [id, material] : kDecals) {
    SCOPED_TRACE(id);
    EXPECT_TRUE(is_decal(material));
    const PropMesh pm = build_prop_mesh(static_cast<std::uint32_t>(find_prop(id)));
    ASSERT_EQ(pm.triangle_count(), 2U);
    const Mesh& m = part(pm, material);
    ASSERT_EQ(m.positions.size(), 4U);
    ASSERT_EQ(m.uvs.size(), 4U);
    const bool upright = std::string(id) == "decal_grime";
    for (std::size_t v = 0; v < 4; ++v) {
      const auto& p = m.positions[v];
      const auto& uv = m.uvs[v];
      if (upright) {
        // Facing +y, u left to right seen from the front (-x), v = 1 at the foot.
        EXPECT_EQ(m.normals[v][1], 1.0f);
        EXPECT_FLOAT_EQ(uv[0], 0.5f - p[0]);
        EXPECT_FLOAT_EQ(uv[1], 1.0f - p[2]);
      } else {
        EXPECT_EQ(m.normals[v][2], 1.0f);
        EXPECT_EQ(p[2], 0.0f);
        EXPECT_FLOAT_EQ(uv[0], p[0] + 0.5f);
        EXPECT_FLOAT_EQ(uv[1], 0.5f - p[1]);
      }
    }
  }
  for (std::size_t m = 0; m < kPropMaterialCount; ++m) {
    EXPECT_EQ(is_decal(static_cast<PropMaterial>(m)),
              m >= static_cast<std::size_t>(PropMaterial::grime));
  }
}

TEST(PropMesh, IsDeterministicAndEmptyOutOfRange) {
  const auto& catalog = prop_catalog();
  for (std::uint32_t p = 0; p < catalog.size(); ++p) {
    const PropMesh a = build_prop_mesh(p);
    const PropMesh b = build_prop_mesh(p);
    for (std::size_t mi = 0; mi < a.parts.size(); ++mi) {
      const Mesh& x = a.parts[mi];
      const Mesh& y = b.parts[mi];
      ASSERT_EQ(x.positions.size(), y.positions.size());
      ASSERT_EQ(x.indices, y.indices);
      if (!x.positions.empty()) {
        EXPECT_EQ(std::memcmp(x.positions.data(), y.positions.data(),
                              x.positions.size() * sizeof(x.positions[0])),
                  0);
        EXPECT_EQ(std::memcmp(x.normals.data(), y.normals.data(),
                              x.normals.size() * sizeof(x.normals[0])),
                  0);
      }
    }
  }
  EXPECT_EQ(build_prop_mesh(static_cast<std::uint32_t>(catalog.size())).triangle_count(), 0U);
}

}  // namespace
}  // namespace cityforge::dressing
