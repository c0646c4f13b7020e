// SPDX-License-Identifier: Apache-2.0
// The island grid: a valid mesh with one outline, convex cells after relaxation, the mix of
// squares and triangles, the WFC graph against the mesh, and determinism.
#include "cityforge/islands/grid.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <map>
#include <numbers>
#include <string>
#include <utility>
#include <vector>

namespace cityforge::islands {
namespace {

GridConfig config_of(GridKind kind, bool subdivide = true) {
  GridConfig c;
  c.kind = kind;
  c.subdivide = subdivide;
  return c;
}

// Checks the mesh from its cells alone: every directed side at most once, every undirected
// side in one or two cells, and the sides used once chain into one closed loop.
void expect_valid_mesh(const PlanarGrid& g) {
  std::map<std::pair<std::uint32_t, std::uint32_t>, int> directed;
  for (const Cell& c : g.cells) {
    ASSERT_TRUE(c.count == 3 || c.count == 4);
    for (std::uint32_t k = 0; k < c.count; ++k) {
      const std::uint32_t a = c.vertices[k];
      const std::uint32_t b = c.vertices[(k + 1) % c.count];
      ASSERT_LT(a, g.vertices.size());
      ASSERT_NE(a, b);
      ASSERT_EQ(++directed[std::make_pair(a, b)], 1) << "side " << a << "-" << b << " used twice";
    }
  }
  std::map<std::uint32_t, std::uint32_t> next;
  for (const auto& [ab, n] : directed) {
    if (directed.count({ab.second, ab.first}) == 0) {
      ASSERT_TRUE(next.try_emplace(ab.first, ab.second).second) << "outline pinches";
    }
  }
  ASSERT_FALSE(next.empty());
  std::size_t steps = 0;
  std::uint32_t v = next.begin()->first;
  do {
    v = next.at(v);
    ++steps;
  } while (v != next.begin()->first && steps <= next.size());
  EXPECT_EQ(steps, next.size()) << "outline is not one closed loop";
  // The stored topology agrees: interior edges have two cells, the rest form `boundary`.
  std::size_t interior = 0;
  for (const Edge& e : g.edges) {
    if (e.cells[1] != kNoCell) ++interior;
    const Cell& c0 = g.cells[e.cells[0]];
    EXPECT_EQ(c0.edges[e.slots[0]], static_cast<std::uint32_t>(&e - g.edges.data()));
  }
  EXPECT_EQ(interior * 2 + next.size(), directed.size());
  EXPECT_EQ(g.boundary.size(), next.size());
}

std::pair<std::size_t, std::size_t> quads_and_triangles(const PlanarGrid& g) {
  std::size_t quads = 0;
  std::size_t tris = 0;
  for (const Cell& c : g.cells)
    (c.count == 4 ? quads : tris) += 1;
  return {quads, tris};
}

TEST(IslandsGrid, EveryKindIsAValidMeshWithConvexCellsOverSeeds) {
  for (const GridKind kind : {GridKind::mixed, GridKind::square, GridKind::triangle}) {
    for (const bool sub : {false, true}) {
      for (Seed seed = 1; seed <= 20; ++seed) {
        SCOPED_TRACE(::testing::Message() << "kind " << static_cast<int>(kind) << " subdivide "
                                          << sub << " seed " << seed);
        const Result<LayeredGrid> g = build_grid(config_of(kind, sub), seed);
        ASSERT_TRUE(g.ok()) << g.error().to_string();
        expect_valid_mesh(g->plane);
        EXPECT_TRUE(cells_convex(g->plane));
        if (sub) {
          EXPECT_EQ(quads_and_triangles(g->plane).second, 0U);
        }
      }
    }
  }
}

TEST(IslandsGrid, MixedGridMixesSquaresAndTriangles) {
  for (Seed seed = 1; seed <= 10; ++seed) {
    const Result<PlanarGrid> g = base_grid(config_of(GridKind::mixed), seed);
    ASSERT_TRUE(g.ok()) << g.error().to_string();
    const auto [quads, tris] = quads_and_triangles(*g);
    EXPECT_GE(quads, 20U);
    EXPECT_GE(tris, 20U);
    EXPECT_TRUE(cells_convex(*g));
  }
}

// The squares are grouped into fields with bands of triangles between them (seeds/003, 9:34:
// flat tiles only on squares, so the land needs triangles inside the island, not only at the
// rim, to step up). Every cell records its family, and its quads after subdivision keep it.
TEST(IslandsGrid, MixedGridHasTriangleBandsBetweenSquareFieldsAndCellsKeepTheirFamily) {
  for (Seed seed = 1; seed <= 10; ++seed) {
    GridConfig c = config_of(GridKind::mixed);
    c.radius = 6;
    const auto interior_triangles = [](const PlanarGrid& g) {
      std::vector<std::uint8_t> rim(g.vertices.size(), 0);
      for (const std::uint32_t v : g.boundary)
        rim[v] = 1;
      std::size_t n = 0;
      for (const Cell& cell : g.cells) {
        bool touches = false;
        for (std::uint32_t k = 0; k < cell.count; ++k)
          touches = touches || rim[cell.vertices[k]] != 0;
        if (cell.count == 3 && !touches) ++n;
      }
      return n;
    };
    const Result<PlanarGrid> fields = base_grid(c, seed);
    ASSERT_TRUE(fields.ok()) << fields.error().to_string();
    for (const Cell& cell : fields->cells)
      EXPECT_EQ(cell.base, cell.count);
    c.field_squares = 0;
    const Result<PlanarGrid> whole = base_grid(c, seed);
    ASSERT_TRUE(whole.ok());
    // Without fields the ring's triangles all lie between the squares and the hexagon; with
    // them whole rows of them lie inside the squares (a band is cut from squares, two each).
    const std::size_t banded = interior_triangles(*fields);
    EXPECT_GE(banded, interior_triangles(*whole) + 8) << "seed " << seed;
    EXPECT_EQ(quads_and_triangles(*fields).first + quads_and_triangles(*fields).second,
              quads_and_triangles(*whole).first + quads_and_triangles(*whole).second +
                  (quads_and_triangles(*whole).first - quads_and_triangles(*fields).first))
        << "each cut square becomes exactly two triangles";
    expect_valid_mesh(*fields);
    EXPECT_TRUE(cells_convex(*fields));
    EXPECT_TRUE(mixed_families(*fields));
    const PlanarGrid quads = subdivide(*fields);
    ASSERT_EQ(quads.cells.size(),
              4 * quads_and_triangles(*fields).first + 3 * quads_and_triangles(*fields).second);
    std::size_t q = 0;
    for (const Cell& cell : fields->cells) {
      for (std::uint32_t k = 0; k < cell.count; ++k, ++q) {
        EXPECT_EQ(quads.cells[q].count, 4);
        EXPECT_EQ(quads.cells[q].base, cell.count);
        EXPECT_EQ(square_family(quads.cells[q]), cell.count == 4);
      }
    }
    EXPECT_TRUE(mixed_families(quads));
  }
  const Result<PlanarGrid> sq = base_grid(config_of(GridKind::square), 3);
  ASSERT_TRUE(sq.ok());
  EXPECT_FALSE(mixed_families(*sq)) << "a square grid holds one family: the rule is off";
}

TEST(IslandsGrid, SquareAndTriangleOnlyOptions) {
  const Result<PlanarGrid> sq = base_grid(config_of(GridKind::square), 3);
  ASSERT_TRUE(sq.ok());
  EXPECT_GT(quads_and_triangles(*sq).first, 20U);
  EXPECT_EQ(quads_and_triangles(*sq).second, 0U);
  const Result<PlanarGrid> tri = base_grid(config_of(GridKind::triangle), 3);
  ASSERT_TRUE(tri.ok());
  EXPECT_EQ(quads_and_triangles(*tri).first, 0U);
  EXPECT_EQ(quads_and_triangles(*tri).second, 6U * 5U * 5U);
}

TEST(IslandsGrid, RelaxationMakesQuadsSquarer) {
  GridConfig c = config_of(GridKind::mixed);
  c.relax_iterations = 0;
  const Result<LayeredGrid> raw = build_grid(c, 5);
  c.relax_iterations = 64;
  const Result<LayeredGrid> relaxed = build_grid(c, 5);
  ASSERT_TRUE(raw.ok() && relaxed.ok());
  // Mean distance of the quads' corner angles from 90 degrees (all cells are quads here).
  const auto skew = [](const PlanarGrid& g) {
    double sum = 0.0;
    std::size_t n = 0;
    for (const Cell& cell : g.cells) {
      for (std::uint32_t k = 0; k < cell.count; ++k) {
        const Vec2 a = g.vertices[cell.vertices[k]];
        const Vec2 b = g.vertices[cell.vertices[(k + 1) % cell.count]];
        const Vec2 d = g.vertices[cell.vertices[(k + 3) % cell.count]];
        const double angle = std::atan2(cross(b - a, d - a), dot(b - a, d - a));
        sum += std::abs(angle - std::numbers::pi / 2.0);
        ++n;
      }
    }
    return sum / static_cast<double>(n);
  };
  // A modest gain (0.217 -> 0.198 rad for this seed): irregular vertices limit it.
  EXPECT_LT(skew(relaxed->plane), skew(raw->plane));
  EXPECT_TRUE(cells_convex(relaxed->plane));
}

TEST(IslandsGrid, WfcGridPassesValidationAndMatchesTheMesh) {
  for (const GridKind kind : {GridKind::mixed, GridKind::square, GridKind::triangle}) {
    for (const bool sub : {false, true}) {
      const Result<LayeredGrid> g = build_grid(config_of(kind, sub), 7);
      ASSERT_TRUE(g.ok());
      const wfc::Grid w = to_wfc_grid(*g);
      ASSERT_TRUE(wfc::validate_grid(w).ok()) << wfc::validate_grid(w).error().to_string();
      const PlanarGrid& p = g->plane;
      const auto n = static_cast<std::uint32_t>(p.cells.size());
      ASSERT_EQ(w.cell_count, n * g->layers);
      for (std::uint32_t layer = 0; layer < g->layers; ++layer) {
        for (std::uint32_t c = 0; c < n; ++c) {
          const Cell& cell = p.cells[c];
          const wfc::CellId id = g->cell_id(c, layer);
          ASSERT_EQ(w.offsets[id + 1] - w.offsets[id], cell.count + 2U);
          for (std::uint32_t k = 0; k < cell.count; ++k) {
            const wfc::Side s = w.sides[w.offsets[id] + k];
            const Edge& e = p.edges[cell.edges[k]];
            const std::uint32_t other = e.cells[0] == c ? e.cells[1] : e.cells[0];
            if (other == kNoCell) {
              EXPECT_EQ(s.cell, wfc::kBoundary);
              continue;
            }
            ASSERT_EQ(s.cell, g->cell_id(other, layer));
            // The label names the neighbour's slot holding the same two vertices.
            const std::uint32_t j = s.label % 4U;
            EXPECT_EQ(s.label / 4U, k);
            const Cell& oc = p.cells[other];
            EXPECT_EQ(oc.vertices[j], cell.vertices[(k + 1) % cell.count]);
            EXPECT_EQ(oc.vertices[(j + 1) % oc.count], cell.vertices[k]);
          }
          const wfc::Side up = w.sides[w.offsets[id] + cell.count];
          const wfc::Side down = w.sides[w.offsets[id] + cell.count + 1];
          EXPECT_EQ(up.label, kUpLabel);
          EXPECT_EQ(down.label, kDownLabel);
          EXPECT_EQ(up.cell, layer + 1 < g->layers ? g->cell_id(c, layer + 1) : wfc::kBoundary);
          EXPECT_EQ(down.cell, layer > 0 ? g->cell_id(c, layer - 1) : wfc::kBoundary);
        }
      }
    }
  }
}

bool same_grid(const PlanarGrid& a, const PlanarGrid& b) {
  if (a.vertices.size() != b.vertices.size() || a.cells.size() != b.cells.size()) return false;
  if (std::memcmp(a.vertices.data(), b.vertices.data(), a.vertices.size() * sizeof(Vec2)) != 0)
    return false;
  for (std::size_t i = 0; i < a.cells.size(); ++i) {
    if (a.cells[i].count != b.cells[i].count || a.cells[i].vertices != b.cells[i].vertices)
      return false;
  }
  return true;
}

TEST(IslandsGrid, SameSeedSameGridDifferentSeedDifferentGrid) {
  const GridConfig c = config_of(GridKind::mixed);
  const Result<LayeredGrid> a = build_grid(c, 42);
  const Result<LayeredGrid> b = build_grid(c, 42);
  const Result<LayeredGrid> other = build_grid(c, 43);
  ASSERT_TRUE(a.ok() && b.ok() && other.ok());
  EXPECT_TRUE(same_grid(a->plane, b->plane));
  EXPECT_FALSE(same_grid(a->plane, other->plane));
}

TEST(IslandsGrid, RejectsConfigsOutOfTheirLimits) {
  GridConfig c;
  c.radius = 1;
  EXPECT_FALSE(base_grid(c, 1).ok());
  c = GridConfig{};
  c.cell_m = 0.0;
  EXPECT_FALSE(build_grid(c, 1).ok());
  c = GridConfig{};
  c.layers = 0;
  EXPECT_FALSE(build_grid(c, 1).ok());
  c = GridConfig{};
  c.field_squares = 4097;
  const Result<LayeredGrid> fields = build_grid(c, 1);
  ASSERT_FALSE(fields.ok());
  EXPECT_NE(fields.error().message.find("field_squares must be <= 4096"), std::string::npos);
  c = GridConfig{};
  c.kind = GridKind::triangle;
  c.radius = 1;
  EXPECT_TRUE(build_grid(c, 1).ok());
}

}  // namespace
}  // namespace cityforge::islands
