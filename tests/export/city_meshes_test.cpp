// SPDX-License-Identifier: Apache-2.0
// The chunked meshes behind city.glb (the road stage's surface meshes and the block volumes, cut
// into chunks by the exporter): chunk assignment, orientation, draping, volumes, determinism.
#include "export/city_meshes.hpp"

#include <gtest/gtest.h>
#include <tbb/task_arena.h>

#include <cmath>
#include <map>

#include "export/fixture.hpp"

namespace cityforge::exporter::detail {
namespace {

using exporter::fixture::small_city;
using exporter::fixture::small_ground;

Vec3 at(const Mesh& m, std::uint32_t i) {
  return {m.positions[i][0], m.positions[i][1], m.positions[i][2]};
}

/// Geometric (unnormalised) normal of triangle t.
Vec3 face_normal(const Mesh& m, std::size_t t) {
  const Vec3 a = at(m, m.indices[3 * t]);
  const Vec3 b = at(m, m.indices[3 * t + 1]);
  const Vec3 c = at(m, m.indices[3 * t + 2]);
  return cross(b - a, c - a);
}

std::size_t triangles(const detail::ChunkList& chunks, Part part) {
  std::size_t n = 0;
  for (const auto& c : chunks) {
    n += c.parts[static_cast<std::size_t>(part)].triangle_count();
  }
  return n;
}

detail::ChunkList build(const layout::Output& city, const Config& config = {}) {
  auto built = fixture::chunks_of(city, small_ground(), config);
  EXPECT_TRUE(built.ok()) << built.error().to_string();
  return built.ok() ? *built : detail::ChunkList{};
}

TEST(CityMeshes, EveryTriangleLiesInItsChunkAndFacesItsNormal) {
  const Config config;
  for (const ChunkMeshes& chunk : build(small_city(), config)) {
    for (std::size_t p = 0; p < kPartCount; ++p) {
      const Mesh& m = chunk.parts[p];
      ASSERT_EQ(m.positions.size(), m.normals.size());
      for (std::size_t t = 0; t < m.triangle_count(); ++t) {
        const Vec3 c =
            (at(m, m.indices[3 * t]) + at(m, m.indices[3 * t + 1]) + at(m, m.indices[3 * t + 2])) *
            (1.0 / 3.0);
        EXPECT_EQ(static_cast<std::int32_t>(std::floor(c.x / config.chunk_m)), chunk.cx);
        EXPECT_EQ(static_cast<std::int32_t>(std::floor(c.y / config.chunk_m)), chunk.cy);
        // Counter-clockwise seen from outside: the winding agrees with the vertex normals.
        const Vec3 n = face_normal(m, t);
        const auto& vn = m.normals[m.indices[3 * t]];
        EXPECT_GT(dot(n, Vec3{vn[0], vn[1], vn[2]}), 0.0)
            << part_name(static_cast<Part>(p)) << " triangle " << t;
        EXPECT_GT(length(n), 0.0);
      }
      for (const auto& vn : m.normals) {
        EXPECT_NEAR(std::sqrt(vn[0] * vn[0] + vn[1] * vn[1] + vn[2] * vn[2]), 1.0, 1e-6);
      }
    }
  }
}

TEST(CityMeshes, RoadsDrapeOnTheGround) {
  const auto ground = small_ground();
  const Config config;
  std::size_t checked = 0;
  for (const ChunkMeshes& chunk : build(small_city(), config)) {
    // Wider classes sit higher so overlaps at junctions resolve cleanly; sidewalks lowest.
    const std::pair<Part, double> parts[] = {{Part::road_artery, 0.04},
                                             {Part::road_main, 0.02},
                                             {Part::road_local, 0.0},
                                             {Part::sidewalk, -0.02}};
    for (const auto& [p, above] : parts) {
      const Mesh& m = chunk.parts[static_cast<std::size_t>(p)];
      for (const auto& v : m.positions) {
        EXPECT_NEAR(v[2], ground.sample({v[0], v[1]}) + roads::Config{}.road_raise_m + above, 1e-3);
        ++checked;
      }
      // Segments are at most 10 m long along the road: ribbons are densely sampled.
      for (std::size_t t = 0; t < m.triangle_count(); ++t) {
        EXPECT_GT(face_normal(m, t).z, 0.0);
      }
    }
  }
  // 300 m roads split into <= 10 m pieces: >= 31 cross sections each, two vertices per
  // section, plus duplicates where a ribbon crosses a chunk border.
  EXPECT_GE(checked, 4U * 2U * 11U);
}

TEST(CityMeshes, ParkBlocksGetNoVolume) {
  auto city = small_city();
  const std::size_t with_park = triangles(build(city), Part::volume);
  city.blocks[2].zone = layout::ZoneKind::residential;
  const std::size_t without_park = triangles(build(city), Part::volume);
  EXPECT_GT(without_park, with_park);
  // Park or not, the block surface is there.
  EXPECT_EQ(triangles(build(city), Part::block), triangles(build(small_city()), Part::block));
}

TEST(CityMeshes, VolumesRiseFromTheLowestGroundToTheTargetHeight) {
  layout::Output city;
  city.blocks.push_back(
      exporter::fixture::make_block(0, {110, 10}, {190, 90}, layout::ZoneKind::commercial, 30.0));
  const auto ground = small_ground();
  Config config;
  config.chunk_m = 1000.0;  // the block is in chunk (0, 0); terrain reaches into (-1, -1)
  const auto chunks = build(city, config);
  ASSERT_EQ(chunks.size(), 4U);
  ASSERT_EQ(chunks[3].cx, 0);
  ASSERT_EQ(chunks[3].cy, 0);
  const Mesh& v = chunks[3].parts[static_cast<std::size_t>(Part::volume)];
  ASSERT_FALSE(v.empty());
  float lo = 1e9f;
  float hi = -1e9f;
  float min_x = 1e9f;
  float max_x = -1e9f;
  for (const auto& p : v.positions) {
    lo = std::min(lo, p[2]);
    hi = std::max(hi, p[2]);
    min_x = std::min(min_x, p[0]);
    max_x = std::max(max_x, p[0]);
  }
  // Inset by the 3 m setback.
  EXPECT_NEAR(min_x, 113.0, 1e-3);
  EXPECT_NEAR(max_x, 187.0, 1e-3);
  // Lowest ground under the inset footprint (the slope falls towards low x and y).
  double ground_lo = 1e9;
  for (double y = 13.0; y <= 87.0; y += 1.0) {
    for (double x = 113.0; x <= 187.0; x += 1.0) {
      ground_lo = std::min(ground_lo, ground.sample({x, y}));
    }
  }
  EXPECT_NEAR(lo, ground_lo, 0.05);
  EXPECT_NEAR(hi - lo, 30.0, 1e-3);
  // Four walls (2 triangles, 4 vertices each) and a roof of >= 2 triangles.
  EXPECT_GE(v.triangle_count(), 10U);
}

TEST(CityMeshes, IdenticalAtAnyThreadCount) {
  const auto a = build(small_city());
  detail::ChunkList b;
  tbb::task_arena one(1);
  one.execute([&] { b = build(small_city()); });
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t c = 0; c < a.size(); ++c) {
    for (std::size_t p = 0; p < kPartCount; ++p) {
      EXPECT_EQ(a[c].parts[p].positions, b[c].parts[p].positions);
      EXPECT_EQ(a[c].parts[p].normals, b[c].parts[p].normals);
      EXPECT_EQ(a[c].parts[p].indices, b[c].parts[p].indices);
    }
  }
}

TEST(CityMeshes, AFilterKeepsItsChunksAloneAndTheCountedBytesMatch) {
  // What a rank of a tileset does: counts every chunk's bytes, then keeps its own chunks.
  const Config config;
  std::map<std::pair<std::int32_t, std::int32_t>, double> bytes;
  auto all = fixture::chunks_of(small_city(), small_ground(), config, {}, {}, &bytes);
  ASSERT_TRUE(all.ok()) << all.error().to_string();
  ASSERT_GT(all->size(), 3U);
  ASSERT_EQ(bytes.size(), all->size());
  for (const ChunkMeshes& c : *all) {
    double expected = 0.0;
    for (const Mesh& m : c.parts)
      expected += 24.0 * static_cast<double>(m.positions.size()) +
                  4.0 * static_cast<double>(m.indices.size());
    EXPECT_EQ(bytes.at({c.cy, c.cx}), expected) << c.cy << "," << c.cx;
  }
  const auto mine = [](std::int32_t cy, std::int32_t cx) { return (cy + cx) % 2 == 0; };
  auto kept = fixture::chunks_of(small_city(), small_ground(), config, {}, mine);
  ASSERT_TRUE(kept.ok()) << kept.error().to_string();
  std::size_t k = 0;
  for (const ChunkMeshes& c : *all) {
    if (!mine(c.cy, c.cx)) continue;
    ASSERT_LT(k, kept->size());
    const ChunkMeshes& o = (*kept)[k++];
    EXPECT_EQ(o.cy, c.cy);
    EXPECT_EQ(o.cx, c.cx);
    for (std::size_t p = 0; p < kPartCount; ++p) {
      EXPECT_EQ(o.parts[p].positions, c.parts[p].positions);
      EXPECT_EQ(o.parts[p].indices, c.parts[p].indices);
    }
  }
  EXPECT_EQ(k, kept->size()) << "a chunk the filter did not pick";
  EXPECT_GT(k, 0U);
  EXPECT_LT(k, all->size());
}

// Road and block surfaces are made and cut a batch of items at a time (never all held): with
// more items than a batch, every item lands once, in item order, in its chunk.
TEST(CityMeshes, SurfacesMadeInBatchesLandOnceEachInItemOrder) {
  layout::Output city;
  constexpr int kSide = 55;  // 3,025 blocks: more than one batch.
  std::map<std::pair<std::int32_t, std::int32_t>, std::vector<std::size_t>> expected;
  for (int j = 0; j < kSide; ++j) {
    for (int i = 0; i < kSide; ++i) {
      // 2 m squares 6 m apart: none crosses a chunk line.
      const double x = 6.0 * i + 2.0;
      const double y = 6.0 * j + 2.0;
      layout::Block block;
      block.area.outer = {{x, y}, {x + 2.0, y}, {x + 2.0, y + 2.0}, {x, y + 2.0}};
      expected[{static_cast<std::int32_t>(std::floor((y + 1.0) / 100.0)),
                static_cast<std::int32_t>(std::floor((x + 1.0) / 100.0))}]
          .push_back(city.blocks.size());
      city.blocks.push_back(block);
    }
  }
  const terrain::Heightfield ground = small_ground();
  auto chunks = fixture::chunks_of(city, ground, Config{});
  ASSERT_TRUE(chunks.ok()) << chunks.error().to_string();
  const roads::Config rules;
  const roads::SurfaceSource source{
      .city = &city, .ground = &ground, .roads = nullptr, .config = &rules};
  std::size_t seen = 0;
  for (const ChunkMeshes& c : *chunks) {
    const Mesh& blocks = c.parts[static_cast<std::size_t>(Part::block)];
    const std::vector<std::size_t>& mine = expected[{c.cy, c.cx}];
    std::size_t made_triangles = 0;
    for (const std::size_t b : mine)
      made_triangles +=
          roads::surface_mesh(source, roads::SurfaceKind::block, b).mesh.indices.size();
    EXPECT_EQ(blocks.indices.size(), made_triangles) << c.cy << "," << c.cx;
    if (mine.empty() || blocks.indices.empty()) continue;
    // Item order: the chunk's first triangle is its lowest block's, its last its highest's.
    const auto inside = [&](std::size_t b, std::uint32_t v) {
      const auto& p = blocks.positions[v];
      const Ring& r = city.blocks[b].area.outer;
      return p[0] >= r[0].x - 1e-3 && p[0] <= r[2].x + 1e-3 && p[1] >= r[0].y - 1e-3 &&
             p[1] <= r[2].y + 1e-3;
    };
    EXPECT_TRUE(inside(mine.front(), blocks.indices.front()));
    EXPECT_TRUE(inside(mine.back(), blocks.indices.back()));
    seen += mine.size();
  }
  EXPECT_EQ(seen, city.blocks.size());
}

// What a rank of a tileset does with the census: it makes and cuts only the items that fall in
// its own chunks, and gets the same chunks as cutting everything and dropping the others.
TEST(CityMeshes, TheCensusBoxesLetARankSkipItemsOutsideItsChunks) {
  const Config config;
  const layout::Output city = small_city();
  const terrain::Heightfield ground = small_ground();
  auto meshes = fixture::city_meshes(city, ground, config);
  ASSERT_TRUE(meshes.ok()) << meshes.error().to_string();
  const CityGlbInputs in = fixture::inputs_of(city, ground, config, *meshes, {});
  auto census = chunk_census(in, single_rank());
  ASSERT_TRUE(census.ok()) << census.error().to_string();
  ASSERT_FALSE(census->items.empty());
  auto all = chunk_city_meshes(in);
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(census->bytes.size(), all->size());
  for (const ChunkBox& b : census->items) {
    if (b.min_cy > b.max_cy) continue;  // An item without a piece.
    EXPECT_LE(b.min_cx, b.max_cx);
  }
  const auto mine = [](std::int32_t cy, std::int32_t cx) { return (cy + 2 * cx) % 3 == 0; };
  auto dropped = chunk_city_meshes(in, mine);
  auto skipped = chunk_city_meshes(in, mine, &census->items);
  ASSERT_TRUE(dropped.ok() && skipped.ok());
  ASSERT_EQ(dropped->size(), skipped->size());
  ASSERT_GT(dropped->size(), 0U);
  for (std::size_t k = 0; k < dropped->size(); ++k) {
    EXPECT_EQ((*dropped)[k].cy, (*skipped)[k].cy);
    EXPECT_EQ((*dropped)[k].cx, (*skipped)[k].cx);
    for (std::size_t p = 0; p < kPartCount; ++p) {
      EXPECT_EQ((*dropped)[k].parts[p].positions, (*skipped)[k].parts[p].positions);
      EXPECT_EQ((*dropped)[k].parts[p].indices, (*skipped)[k].parts[p].indices);
    }
  }
  // Boxes that keep nothing drop every item's pieces: nothing is made at all.
  std::vector<ChunkBox> none(census->items.size());
  auto nothing = chunk_city_meshes(in, mine, &none);
  ASSERT_TRUE(nothing.ok());
  EXPECT_TRUE(nothing->empty());
}

TEST(CityMeshes, RejectsBadGround) {
  terrain::Heightfield flat;
  flat.nx = 1;
  flat.ny = 5;
  flat.heights.resize(5);
  auto built = chunk_city_meshes({.terrain = flat, .layout = small_city(), .settings = Config{}});
  ASSERT_FALSE(built.ok());
  EXPECT_EQ(built.error().where, "terrain");
  auto meshes = roads::build_surface_meshes(small_city(), flat, nullptr, roads::Config{});
  ASSERT_FALSE(meshes.ok());
  EXPECT_EQ(meshes.error().where, "terrain");
}

namespace seams {

using Key = std::array<std::int64_t, 9>;

/// A triangle by its corners rounded to the millimetre, starting at its smallest corner (the
/// winding kept), so the same triangle in two meshes gives the same key.
Key triangle_key(const Mesh& m, std::size_t t) {
  std::array<std::array<std::int64_t, 3>, 3> c{};
  for (int k = 0; k < 3; ++k) {
    const auto& p = m.positions[m.indices[3 * t + static_cast<std::size_t>(k)]];
    for (int d = 0; d < 3; ++d)
      c[static_cast<std::size_t>(k)][static_cast<std::size_t>(d)] =
          std::llround(static_cast<double>(p[static_cast<std::size_t>(d)]) * 1000.0);
  }
  const auto first = std::min_element(c.begin(), c.end()) - c.begin();
  std::rotate(c.begin(), c.begin() + first, c.end());
  Key key{};
  for (int k = 0; k < 9; ++k)
    key[static_cast<std::size_t>(k)] =
        c[static_cast<std::size_t>(k / 3)][static_cast<std::size_t>(k % 3)];
  return key;
}

void add_triangles(const Mesh& m, std::map<Key, int>& out) {
  for (std::size_t t = 0; t < m.triangle_count(); ++t) {
    if (length(face_normal(m, t)) > 1e-9) ++out[triangle_key(m, t)];
  }
}

}  // namespace seams

// The tiles of a tileset take whole chunks (each chunk in exactly one leaf), so road surfaces
// meet across tile borders exactly where they meet across chunk borders: every road, junction
// and sidewalk triangle the road stage made is in exactly one chunk, its corners unmoved (1 mm):
// no gap and no overlap between neighbouring tiles.
TEST(CityMeshes, RoadSurfacesAreSplitBetweenChunksWithoutGapOrOverlap) {
  Config config;
  config.chunk_m = 40.0;  // Many chunk borders across the 300 m city.
  const auto meshes = fixture::city_meshes(small_city(), small_ground(), config);
  ASSERT_TRUE(meshes.ok()) << meshes.error().to_string();
  std::map<seams::Key, int> made;
  for (const roads::ClassMesh& c : meshes->roads.carriageways)
    seams::add_triangles(c.mesh, made);
  for (const roads::ClassMesh& c : meshes->roads.junctions)
    seams::add_triangles(c.mesh, made);
  for (const Mesh& m : meshes->roads.sidewalks)
    seams::add_triangles(m, made);
  ASSERT_GT(made.size(), 100U);
  std::map<seams::Key, int> chunked;
  std::set<std::pair<std::int32_t, std::int32_t>> keys;
  for (const ChunkMeshes& chunk : build(small_city(), config)) {
    keys.insert({chunk.cy, chunk.cx});
    for (const Part p : {Part::road_artery, Part::road_main, Part::road_local, Part::sidewalk})
      seams::add_triangles(chunk.parts[static_cast<std::size_t>(p)], chunked);
  }
  EXPECT_GT(keys.size(), 30U) << "the roads cross many chunk borders";
  std::size_t missing = 0;
  std::size_t twice = 0;
  for (const auto& [key, n] : made) {
    const auto it = chunked.find(key);
    if (it == chunked.end() || it->second < n) ++missing;
    if (it != chunked.end() && it->second > n) ++twice;
  }
  EXPECT_EQ(missing, 0U) << "road triangles lost between chunks (a gap)";
  EXPECT_EQ(twice, 0U) << "road triangles in two chunks (an overlap)";
  EXPECT_EQ(chunked.size(), made.size()) << "chunks hold road triangles the roads never made";
}

}  // namespace
}  // namespace cityforge::exporter::detail

namespace cityforge::exporter {
namespace {

// Block surfaces follow the ground inside the block, not only at its corners: the centre of
// every triangle sits within 10 cm of ground + raise (the fixture's ground is curved).
TEST(CityMeshes, BlockSurfacesDrapeInsideTheBlock) {
  const auto ground = fixture::small_ground();
  const Config config;
  std::size_t checked = 0;
  const auto chunks = fixture::chunks_of(fixture::small_city(), ground, config);
  ASSERT_TRUE(chunks.ok());
  for (const detail::ChunkMeshes& chunk : *chunks) {
    const Mesh& m = chunk.parts[static_cast<std::size_t>(detail::Part::block)];
    for (std::size_t t = 0; t < m.triangle_count(); ++t) {
      double x = 0, y = 0, z = 0;
      for (int k = 0; k < 3; ++k) {
        const auto& v = m.positions[m.indices[3 * t + k]];
        x += v[0] / 3;
        y += v[1] / 3;
        z += v[2] / 3;
      }
      EXPECT_NEAR(z, ground.sample({x, y}) + roads::Config{}.block_raise_m, 0.1);
      ++checked;
    }
  }
  EXPECT_GT(checked, 20U);
}

}  // namespace
}  // namespace cityforge::exporter
