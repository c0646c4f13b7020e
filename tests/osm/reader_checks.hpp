// SPDX-License-Identifier: Apache-2.0
// The OSM sample extracts' paths and the invariants every extract keeps, for the reader tests
// (unit and city).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "cityforge/osm/osm.hpp"

namespace cityforge::osm::testing {

inline std::string sample(const std::string& name) {
  std::string path = CITYFORGE_TEST_DATA "/osm/";
  path += name;
  return path;
}

/// Invariants every extract keeps: sorted ids, sorted unique tag keys, canonical rings,
/// everything inside the bounds where it has to be.
inline void check_invariants(const Extract& ex) {
  ASSERT_TRUE(ex.bounds.valid());
  EXPECT_DOUBLE_EQ(ex.lon0, 0.5 * (ex.bounds.min_lon + ex.bounds.max_lon));
  EXPECT_DOUBLE_EQ(ex.lat0, 0.5 * (ex.bounds.min_lat + ex.bounds.max_lat));
  auto tags_ok = [](const Tags& tags) {
    for (std::size_t i = 1; i < tags.size(); ++i)
      if (!(tags[i - 1].first < tags[i].first)) return false;
    return !tags.empty();
  };
  for (std::size_t i = 0; i < ex.nodes.size(); ++i) {
    if (i > 0) {
      ASSERT_LT(ex.nodes[i - 1].id, ex.nodes[i].id);
    }
    ASSERT_TRUE(tags_ok(ex.nodes[i].tags)) << "node " << ex.nodes[i].id;
    ASSERT_TRUE(ex.bounds.contains(ex.nodes[i].lon, ex.nodes[i].lat));
  }
  for (std::size_t i = 0; i < ex.ways.size(); ++i) {
    const Way& w = ex.ways[i];
    if (i > 0) {
      ASSERT_LT(ex.ways[i - 1].id, w.id);
    }
    ASSERT_TRUE(tags_ok(w.tags)) << "way " << w.id;
    ASSERT_GE(w.refs.size(), 2u);
    ASSERT_EQ(w.refs.size(), w.points.size());
    for (const Vec2& p : w.points)
      ASSERT_TRUE(std::isfinite(p.x) && std::isfinite(p.y));
  }
  for (std::size_t i = 0; i < ex.areas.size(); ++i) {
    const Area& a = ex.areas[i];
    if (i > 0) {
      ASSERT_LE(ex.areas[i - 1].osm_id, a.osm_id);
      if (ex.areas[i - 1].osm_id == a.osm_id) {
        ASSERT_FALSE(ex.areas[i - 1].from_relation);
      }
    }
    ASSERT_TRUE(tags_ok(a.tags)) << "area " << a.osm_id;
    ASSERT_FALSE(a.polygons.empty());
    for (const Polygon& poly : a.polygons) {
      ASSERT_GE(poly.outer.size(), 3u);
      EXPECT_GT(ring_signed_area(poly.outer), 0.0) << "area " << a.osm_id;
      for (const Ring& h : poly.holes)
        EXPECT_LT(ring_signed_area(h), 0.0) << "hole of area " << a.osm_id;
    }
  }
}

inline std::size_t count_ways_with(const Extract& ex, const char* key) {
  return std::size_t(std::count_if(ex.ways.begin(), ex.ways.end(),
                                   [&](const Way& w) { return !tag(w.tags, key).empty(); }));
}

inline std::size_t count_areas_with(const Extract& ex, const char* key, bool from_relation) {
  return std::size_t(std::count_if(ex.areas.begin(), ex.areas.end(), [&](const Area& a) {
    return a.from_relation == from_relation && !tag(a.tags, key).empty();
  }));
}

}  // namespace cityforge::osm::testing
