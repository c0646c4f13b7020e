// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <tuple>
#include <vector>

#include "cityforge/rooftops/rooftops.hpp"

namespace cityforge::rooftops {
namespace {

using Parts = std::array<Mesh, buildings::kMaterialCount>;

// Base tile names of the embedded rooftop.json, read without the model parser.
std::vector<std::string> rooftop_tile_names() {
  std::vector<std::string> names;
  for (const auto& [file, text] : wfc::builtin_model_sources()) {
    if (file == "wfc/rooftop.json") {
      const auto j = nlohmann::json::parse(text);
      for (const auto& t : j.at("tiles")) {
        names.push_back(t.at("name").get<std::string>());
      }
    }
  }
  return names;
}

std::size_t triangles(const Parts& parts) {
  std::size_t n = 0;
  for (const Mesh& m : parts) {
    n += m.triangle_count();
  }
  return n;
}

// Closed: after welding equal positions every directed edge has its reverse as often.
// Outward: the enclosed volume is positive. Normals: unit and along the winding.
void expect_closed_outward(const Mesh& m, const std::string& what) {
  if (m.empty()) {
    return;
  }
  ASSERT_EQ(m.positions.size(), m.normals.size()) << what;
  ASSERT_EQ(m.indices.size() % 3, 0U) << what;
  std::map<std::array<float, 3>, std::uint32_t> weld;
  std::vector<std::uint32_t> id(m.positions.size());
  for (std::size_t i = 0; i < m.positions.size(); ++i) {
    id[i] = weld.emplace(m.positions[i], static_cast<std::uint32_t>(weld.size())).first->second;
  }
  std::map<std::pair<std::uint32_t, std::uint32_t>, int> edges;
  double volume = 0.0;
  for (std::size_t t = 0; t < m.indices.size(); t += 3) {
    const std::uint32_t a = m.indices[t];
    const std::uint32_t b = m.indices[t + 1];
    const std::uint32_t c = m.indices[t + 2];
    for (auto [p, q] : {std::pair{a, b}, std::pair{b, c}, std::pair{c, a}}) {
      ++edges[{id[p], id[q]}];
      --edges[{id[q], id[p]}];
    }
    const Vec3 pa{m.positions[a][0], m.positions[a][1], m.positions[a][2]};
    const Vec3 pb{m.positions[b][0], m.positions[b][1], m.positions[b][2]};
    const Vec3 pc{m.positions[c][0], m.positions[c][1], m.positions[c][2]};
    volume += dot(pa, cross(pb, pc)) / 6.0;
    const Vec3 n = normalize(cross(pb - pa, pc - pa));
    for (const std::uint32_t v : {a, b, c}) {
      const Vec3 nv{m.normals[v][0], m.normals[v][1], m.normals[v][2]};
      EXPECT_NEAR(length(nv), 1.0, 1e-4) << what;
      EXPECT_GT(dot(nv, n), 0.99) << what << " triangle " << t / 3;
    }
  }
  int open = 0;
  for (const auto& [e, count] : edges) {
    open += count != 0 ? 1 : 0;
  }
  EXPECT_EQ(open, 0) << what << ": edges without a reverse";
  EXPECT_GT(volume, 0.0) << what << ": inside out";
}

TEST(RooftopKit, EveryTileHasAClosedOutwardMesh) {
  const std::vector<std::string> names = rooftop_tile_names();
  ASSERT_GE(names.size(), 28U);
  for (const std::string& name : names) {
    const Parts parts = rooftop_tile_mesh(name, 3.0, 3.0);
    if (name == "empty" || name == "air") {
      EXPECT_EQ(triangles(parts), 0U) << name;
      continue;
    }
    EXPECT_GT(triangles(parts), 0U) << name << " has no kit mesh";
    for (std::size_t p = 0; p < parts.size(); ++p) {
      expect_closed_outward(parts[p], name + " part " + std::to_string(p));
    }
  }
}

TEST(RooftopKit, WallPropsHaveMeshes) {
  for (const char* name : {"prop_wall_ac", "prop_wall_pipe", "prop_wall_sign", "prop_wall_light"}) {
    const Parts parts = rooftop_tile_mesh(name, 3.0, 3.0);
    EXPECT_GT(triangles(parts), 0U) << name;
    for (const Mesh& m : parts) {
      expect_closed_outward(m, name);
    }
  }
}

// Tiles stay in their cell (x, y within half a cell, z within the level; frames and sills may
// stand a few centimetres proud of a wall on the cell face), and scale with the cell.
TEST(RooftopKit, TilesFitTheirCellAndScale) {
  for (const std::string& name : rooftop_tile_names()) {
    for (const auto& [cell, level] : {std::pair{3.0, 3.0}, std::pair{4.5, 2.5}}) {
      const Parts parts = rooftop_tile_mesh(name, cell, level);
      for (const Mesh& m : parts) {
        for (const auto& p : m.positions) {
          EXPECT_LE(std::abs(p[0]), cell / 2 + 0.1) << name;
          EXPECT_LE(std::abs(p[1]), cell / 2 + 0.1) << name;
          EXPECT_GE(p[2], -1e-5) << name;
          EXPECT_LE(p[2], level + 1e-4) << name;
        }
      }
    }
  }
  // Rails and structure walls reach the cell faces, so neighbours join.
  const Parts wall = rooftop_tile_mesh("struct_wall", 6.0, 3.0);
  float max_x = -1e9F;
  for (const auto& p : wall[static_cast<std::size_t>(buildings::Material::wall)].positions) {
    max_x = std::max(max_x, p[0]);
  }
  EXPECT_NEAR(max_x, 3.0F, 1e-5);
}

TEST(RooftopKit, DeterministicAndUnknownNamesEmpty) {
  const Parts a = rooftop_tile_mesh("tank", 3.0, 3.0);
  const Parts b = rooftop_tile_mesh("tank", 3.0, 3.0);
  for (std::size_t p = 0; p < a.size(); ++p) {
    EXPECT_EQ(a[p].positions, b[p].positions);
    EXPECT_EQ(a[p].indices, b[p].indices);
  }
  EXPECT_EQ(triangles(rooftop_tile_mesh("no_such_tile", 3.0, 3.0)), 0U);
  EXPECT_EQ(triangles(rooftop_tile_mesh("deck", 0.0, 3.0)), 0U);
  EXPECT_EQ(triangles(rooftop_tile_mesh("deck", 3.0, std::nan(""))), 0U);
}

}  // namespace
}  // namespace cityforge::rooftops
