// SPDX-License-Identifier: Apache-2.0
// Every OSM sample extract read against the census of tests/data/SOURCES.md (slow: label city).
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "cityforge/osm/osm.hpp"
#include "reader_checks.hpp"

namespace cityforge::osm {
namespace {

using testing::check_invariants;
using testing::count_areas_with;
using testing::count_ways_with;
using testing::sample;

struct Census {
  const char* file;
  std::size_t nodes, ways, relations;         // SOURCES.md: objects in the file.
  std::size_t highway_ways_total;             // SOURCES.md: highway=* ways in the file.
  std::size_t building_ways_total;            // SOURCES.md: building=* ways in the file.
  double min_lon, min_lat, max_lon, max_lat;  // SOURCES.md: header bounds.
};
const Census kSamples[] = {
    {"manhattan_west_village.osm.pbf", 10429, 1696, 41, 95, 1520, -74.01369, 40.73302, -73.99960,
     40.73969},
    {"aberdeen_centre.osm", 2053, 363, 15, 209, 131, -2.10280, 57.14750, -2.09300, 57.15490},
    {"munich_altstadt.osm.pbf", 38803, 7050, 762, 2959, 2372, 11.56566, 48.13144, 11.58613,
     48.14339},
    {"baltimore_downtown.osm.pbf", 51385, 7230, 167, 3844, 1731, -76.60810, 39.25860, -76.52880,
     39.30650},
    {"andorra.osm.pbf", 246028, 12677, 287, 4764, 4894, 1.41237, 42.42760, 1.78748, 42.65717},
};

TEST(Reader, EverySampleReadsWithTheCensusOfSourcesMd) {
  for (const Census& c : kSamples) {
    SCOPED_TRACE(c.file);
    auto ex = read_file(sample(c.file));
    ASSERT_TRUE(ex.ok()) << ex.error().to_string();
    check_invariants(*ex);
    // Objects in the file: exactly the census.
    EXPECT_EQ(ex->stats.nodes, c.nodes);
    EXPECT_EQ(ex->stats.ways, c.ways);
    EXPECT_EQ(ex->stats.relations, c.relations);
    // Bounds: the header's (SOURCES.md rounds to 5 decimals).
    EXPECT_NEAR(ex->bounds.min_lon, c.min_lon, 1e-5);
    EXPECT_NEAR(ex->bounds.min_lat, c.min_lat, 1e-5);
    EXPECT_NEAR(ex->bounds.max_lon, c.max_lon, 1e-5);
    EXPECT_NEAR(ex->bounds.max_lat, c.max_lat, 1e-5);
    // No sample has a way pointing at a missing node (osmium check-refs).
    EXPECT_EQ(ex->stats.ways_missing_nodes, 0u);
    // Highways inside the header bounds: some, at most all of the file's.
    const std::size_t highways = count_ways_with(*ex, "highway");
    EXPECT_GT(highways, 0u);
    EXPECT_LE(highways, c.highway_ways_total);
    // Building ways inside: some, at most all (building areas from closed ways).
    const std::size_t buildings = count_areas_with(*ex, "building", false);
    EXPECT_GT(buildings, 0u);
    EXPECT_LE(buildings, c.building_ways_total);
    EXPECT_FALSE(ex->nodes.empty());
    std::printf(
        "[census] %s: nodes %zu ways %zu areas %zu | highway ways %zu/%zu, building ways "
        "%zu/%zu, building relations %zu | missing %zu invalid %zu incomplete mp %zu\n",
        c.file, ex->nodes.size(), ex->ways.size(), ex->areas.size(), highways, c.highway_ways_total,
        buildings, c.building_ways_total, count_areas_with(*ex, "building", true),
        ex->stats.ways_missing_nodes, ex->stats.areas_invalid, ex->stats.relations_incomplete);
  }
}

}  // namespace
}  // namespace cityforge::osm
