// SPDX-License-Identifier: Apache-2.0
// Street dressing over a whole small city: lights at the class spacing, trees off the walking
// strip, park trees seeded by block, furniture and signals where they belong, parking spots clear
// of crosswalks, hydrants, junctions and entrances, overlap resolution and determinism.
#include <gtest/gtest.h>
#include <tbb/global_control.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <iostream>
#include <map>

#include "city_fixture.hpp"
#include "cityforge/core/polyline.hpp"
#include "dressing/detail.hpp"
#include "dressing/detail/exclusions.hpp"

namespace cityforge::dressing {
namespace {

using detail::kParkingSpotWidthM;

constexpr Seed kSeed = 11;

struct Street {
  std::vector<Item> lights, plants, furniture;
  std::vector<ParkingSpot> parking;
};

Street dress(const testing::City& city, const Config& config = {}) {
  Street s;
  const Inputs in = city.inputs();
  detail::street_lights(in, config, kSeed, s.lights);
  detail::furniture(in, config, kSeed, s.furniture);
  std::vector<Item> placed = s.lights;
  placed.insert(placed.end(), s.furniture.begin(), s.furniture.end());
  detail::vegetation(in, config, kSeed, placed, s.plants);
  s.parking = detail::parking_spots(in, config, s.furniture);
  return s;
}

const testing::City& city() {
  const testing::City& c = testing::shared_city();
  EXPECT_TRUE(c.error.empty()) << c.error;
  return c;
}

const Street& street() {
  static const Street s = dress(city());
  return s;
}

std::uint32_t prop(const char* id) { return static_cast<std::uint32_t>(find_prop(id)); }
Vec2 xy(const Item& item) { return {item.position[0], item.position[1]}; }
Vec2 facing(const Item& item) { return {std::cos(item.yaw_rad), std::sin(item.yaw_rad)}; }

// Arc length of p's projection on a polyline and its signed offset (+ left).
std::pair<double, double> project(const Polyline& line, Vec2 p) {
  double best = 1e18;
  double s_best = 0.0;
  double off = 0.0;
  double s = 0.0;
  for (std::size_t k = 0; k + 1 < line.size(); ++k) {
    const Vec2 a = line[k];
    const Vec2 d = line[k + 1] - a;
    const double len = length(d);
    const double t = std::clamp(dot(p - a, d) / (len * len), 0.0, 1.0);
    const double dist = distance(a + d * t, p);
    if (dist < best) {
      best = dist;
      s_best = s + t * len;
      off = cross(d, p - a) > 0.0 ? dist : -dist;
    }
    s += len;
  }
  return {s_best, off};
}

std::vector<Polygon> crosswalk_bands(const roads::Output& roads) {
  std::vector<Polygon> out;
  for (const roads::Lane& lane : roads.lanes.lanes) {
    if ((lane.tags & roads::kCrosswalk) == 0U) continue;
    const Vec2 a{lane.points.front().x, lane.points.front().y};
    const Vec2 b{lane.points.back().x, lane.points.back().y};
    const Vec2 n = perp(normalize(b - a)) * (lane.width_m * 0.5);
    out.push_back(Polygon{{a - n, b - n, b + n, a + n}, {}});
  }
  return out;
}

std::vector<detail::EntranceBox> entrance_boxes(const buildings::Output& b) {
  std::vector<detail::EntranceBox> out;
  for (const buildings::Entrance& e : b.entrances) {
    detail::EntranceBox box;
    box.centre = {e.exclusion_centre[0], e.exclusion_centre[1]};
    box.along = {std::cos(e.yaw_rad), std::sin(e.yaw_rad)};
    box.out = perp(box.along);
    box.half_along = e.exclusion_half[0];
    box.half_out = e.exclusion_half[1];
    out.push_back(box);
  }
  return out;
}

bool inside_any(const std::vector<Polygon>& polys, Vec2 p) {
  return std::any_of(polys.begin(), polys.end(),
                     [&](const Polygon& q) { return polygon_contains(q, p); });
}

TEST(StreetDressing, CityBuilds) {
  ASSERT_TRUE(city().error.empty());
  EXPECT_GT(city().roads.sections.size(), 20U);
  EXPECT_GT(city().buildings.entrances.size(), 10U);
}

TEST(StreetLights, SpacingMatchesClassAlongEachSide) {
  const auto& c = city();
  const Config config;
  const auto& lights = street().lights;
  ASSERT_GT(lights.size(), 50U);
  std::map<std::pair<std::uint32_t, int>, std::vector<double>> sides;
  for (const Item& l : lights) {
    ASSERT_EQ(l.prop, prop("street_light"));
    EXPECT_EQ(l.state, 1);
    const roads::Section& sec = c.roads.sections[l.owner];
    const auto [s, off] = project(sec.centre, xy(l));
    // The arm points back at the centre line.
    const Vec2 foot = polyline_point_at(sec.centre, s);
    EXPECT_GT(dot(facing(l), foot - xy(l)), 0.9 * distance(foot, xy(l)));
    sides[{l.owner, off > 0.0 ? 1 : -1}].push_back(s);
  }
  std::size_t pairs = 0;
  for (auto& [key, ss] : sides) {
    std::sort(ss.begin(), ss.end());
    const auto cls = static_cast<int>(c.layout.network.edges[key.first].road_class);
    const double spacing = config.light_spacing_m[cls];
    for (std::size_t k = 1; k < ss.size(); ++k) {
      const double d = ss[k] - ss[k - 1];
      const double n = std::max(1.0, std::round(d / spacing));
      EXPECT_NEAR(d, n * spacing, 1.5) << "edge " << key.first << " side " << key.second;
      ++pairs;
    }
  }
  EXPECT_GT(pairs, 20U);
}

TEST(StreetDressing, ItemsStandOnSidewalksOrParks) {
  const auto& c = city();
  const Street& s = street();
  std::vector<Polygon> carriageways;
  std::vector<Polygon> junctions;
  for (const auto& sec : c.roads.sections)
    carriageways.push_back(sec.surface);
  for (const auto& j : c.roads.intersections)
    junctions.push_back(j.surface);
  const std::vector<Polygon> bands = crosswalk_bands(c.roads);
  std::vector<Polygon> entrances;
  for (const auto& box : entrance_boxes(c.buildings))
    entrances.push_back(Polygon{box.ring(), {}});
  std::vector<const Item*> all;
  for (const auto* list : {&s.lights, &s.plants, &s.furniture})
    for (const Item& it : *list)
      all.push_back(&it);
  for (const Item* it : all) {
    // Signal heads hang over the road from their pole's arm.
    if (it->prop == prop("signal_head")) continue;
    const Vec2 p = xy(*it);
    const bool park = it->prop == prop("park_tree") || it->prop == prop("bush");
    if (park) {
      const layout::Block& b = c.layout.blocks[it->owner];
      EXPECT_EQ(b.zone, layout::ZoneKind::park);
      EXPECT_TRUE(polygon_contains(b.area, p));
    } else {
      EXPECT_TRUE(inside_any(c.roads.sidewalks, p)) << prop_catalog()[it->prop].id;
    }
    EXPECT_FALSE(inside_any(carriageways, p)) << prop_catalog()[it->prop].id;
    EXPECT_FALSE(inside_any(junctions, p)) << prop_catalog()[it->prop].id;
    EXPECT_FALSE(inside_any(bands, p)) << prop_catalog()[it->prop].id;
    EXPECT_FALSE(inside_any(entrances, p)) << prop_catalog()[it->prop].id;
  }
}

TEST(Vegetation, StreetTreesOffTheWalkingStripAndClearOfLightsAndHydrants) {
  const auto& c = city();
  const Street& s = street();
  std::size_t trees = 0;
  for (const Item& t : s.plants) {
    if (t.prop != prop("street_tree")) continue;
    ++trees;
    const layout::RoadEdge& e = c.layout.network.edges[t.owner];
    const auto [st, off] = project(c.roads.sections[t.owner].centre, xy(t));
    const double from_curb = std::abs(off) - e.width_m * 0.5;
    EXPECT_GT(e.sidewalk_width_m, 3.0);
    EXPECT_GT(from_curb, 0.0);
    EXPECT_LT(from_curb, e.sidewalk_width_m - 1.5) << "tree on the walking strip";
    for (const auto* list : {&s.lights, &s.furniture}) {
      for (const Item& o : *list) {
        if (o.prop != prop("street_light") && o.prop != prop("hydrant")) continue;
        EXPECT_GE(distance(xy(o), xy(t)), 3.0 - 1e-3);
      }
    }
  }
  EXPECT_GT(trees, 20U);
}

TEST(Vegetation, ParkTreesArePoissonAndSeededByBlock) {
  const auto& c = city();
  const Config config;
  std::map<std::uint32_t, std::vector<Item>> by_block;
  for (const Item& t : street().plants)
    if (t.prop == prop("park_tree")) by_block[t.owner].push_back(t);
  ASSERT_FALSE(by_block.empty());
  for (const auto& [block, trees] : by_block)
    for (std::size_t i = 0; i < trees.size(); ++i)
      for (std::size_t j = i + 1; j < trees.size(); ++j)
        EXPECT_GE(distance(xy(trees[i]), xy(trees[j])), config.park_tree_spacing_m - 1e-3);
  // The same block gets the same plants when every other park block is gone.
  const std::uint32_t keep = by_block.begin()->first;
  testing::City alone;
  alone.ground = c.ground;
  alone.layout = c.layout;
  for (layout::Block& b : alone.layout.blocks)
    if (b.id != keep && b.zone == layout::ZoneKind::park) b.zone = layout::ZoneKind::residential;
  alone.roads = c.roads;
  alone.freeway = c.freeway;
  alone.lots = c.lots;
  alone.buildings = c.buildings;
  std::vector<Item> mine;
  std::vector<Item> placed;
  detail::street_lights(alone.inputs(), config, kSeed, placed);
  detail::furniture(alone.inputs(), config, kSeed, placed);
  detail::vegetation(alone.inputs(), config, kSeed, placed, mine);
  std::vector<Item> a;
  std::vector<Item> b;
  for (const Item& t : street().plants)
    if (t.owner == keep && (t.prop == prop("park_tree") || t.prop == prop("bush"))) a.push_back(t);
  for (const Item& t : mine)
    if (t.prop == prop("park_tree") || t.prop == prop("bush")) b.push_back(t);
  ASSERT_EQ(a.size(), b.size());
  EXPECT_EQ(0, std::memcmp(a.data(), b.data(), a.size() * sizeof(Item)));
}

TEST(Furniture, BenchesNeverInFrontOfEntrances) {
  const auto& c = city();
  std::size_t benches = 0;
  const auto boxes = entrance_boxes(c.buildings);
  for (const Item& b : street().furniture) {
    if (b.prop != prop("bench")) continue;
    ++benches;
    // Facing the road (the centre line).
    const auto [s, off] = project(c.roads.sections[b.owner].centre, xy(b));
    const Vec2 foot = polyline_point_at(c.roads.sections[b.owner].centre, s);
    EXPECT_GT(dot(facing(b), foot - xy(b)), 0.0);
    for (const auto& box : boxes) {
      // The box swept out to the road: the bench must not stand in it.
      detail::EntranceBox front = box;
      front.centre = box.centre + box.out * 3.0;
      front.half_out = box.half_out + 3.0;
      EXPECT_FALSE(ring_contains(front.ring(), xy(b))) << "bench in front of a door";
    }
  }
  EXPECT_GT(benches, 5U);
}

TEST(Furniture, SignalsAndSignsPerApproachLeg) {
  const auto& c = city();
  std::map<std::uint32_t, std::vector<const Item*>> by_junction;
  for (const Item& it : street().furniture) {
    const Category cat = prop_catalog()[it.prop].category;
    if (cat == Category::signals) by_junction[it.owner].push_back(&it);
  }
  std::size_t signalised = 0;
  for (std::size_t j = 0; j < c.roads.intersections.size(); ++j) {
    const roads::Intersection& x = c.roads.intersections[j];
    const Vec2 node = c.layout.network.nodes[x.node].pos;
    std::size_t poles = 0, heads = 0, stops = 0, yields = 0;
    for (const Item* it : by_junction[static_cast<std::uint32_t>(j)]) {
      poles += it->prop == prop("signal_pole");
      heads += it->prop == prop("signal_head");
      stops += it->prop == prop("stop_sign");
      yields += it->prop == prop("yield_sign");
      // Heads and signs face the traffic coming toward the junction.
      if (it->prop != prop("signal_pole")) {
        EXPECT_GT(dot(facing(*it), normalize(xy(*it) - node)), 0.5);
      }
    }
    EXPECT_EQ(poles, heads);
    EXPECT_LE(poles, x.legs.size());
    if (x.control == roads::Control::signal) {
      signalised += 1;
      EXPECT_GE(poles, 1U);
      EXPECT_EQ(stops + yields, 0U);
    } else {
      EXPECT_EQ(poles, 0U);
    }
    if (x.control == roads::Control::stop) {
      EXPECT_LE(stops, x.legs.size());
    }
    if (x.control != roads::Control::stop) {
      EXPECT_EQ(stops, 0U);
    }
    if (x.control != roads::Control::yield) {
      EXPECT_EQ(yields, 0U);
    }
  }
  EXPECT_GT(signalised, 0U);
}

TEST(Parking, SpotsClearOfCrosswalksHydrantsJunctionsAndEntrances) {
  const auto& c = city();
  const Config config;
  const Street& s = street();
  ASSERT_GT(s.parking.size(), 20U);
  const auto bands = crosswalk_bands(c.roads);
  const auto boxes = entrance_boxes(c.buildings);
  for (const ParkingSpot& spot : s.parking) {
    const Ring ring = detail::parking_spot_ring(spot);
    EXPECT_NE(c.layout.network.edges[spot.edge].road_class, layout::RoadClass::artery);
    ASSERT_NE(spot.lane, roads::kNoLane);
    const roads::Lane& lane = c.roads.lanes.lanes[spot.lane];
    EXPECT_EQ(lane.lane_index, 0);
    EXPECT_EQ(static_cast<std::uint32_t>(lane.section), spot.edge);
    for (const Polygon& b : bands)
      EXPECT_GE(detail::ring_distance(ring, b.outer), config.parking_clear_crosswalk_m - 1e-6);
    for (const auto& j : c.roads.intersections)
      if (!j.surface.outer.empty()) {
        EXPECT_GE(detail::ring_distance(ring, j.surface.outer),
                  config.parking_clear_intersection_m - 1e-6);
      }
    for (const Item& h : s.furniture)
      if (h.prop == prop("hydrant")) {
        EXPECT_GE(detail::point_polygon_distance(Polygon{ring, {}}, xy(h)),
                  config.parking_clear_hydrant_m - 1e-6);
      }
    // Entrance boxes at this curb (between the curb and a little past the facade), projected
    // onto the curb and widened by 1 m, miss the spot's stretch of curb.
    const roads::Section& sec = c.roads.sections[spot.edge];
    const layout::RoadEdge& e = c.layout.network.edges[spot.edge];
    const auto [ss, so] = project(sec.centre, {spot.position[0], spot.position[1]});
    for (const auto& box : boxes) {
      const auto [bs, bo] = project(sec.centre, box.centre);
      if ((bo > 0.0) != (so > 0.0)) continue;
      const double from_curb = std::abs(bo) - e.width_m * 0.5;
      if (from_curb < -0.5 || from_curb > e.sidewalk_width_m + 2.0) continue;
      if (bs <= 0.0 || bs >= polyline_length(sec.centre)) continue;
      double s0 = 1e18;
      double s1 = -1e18;
      for (const Vec2& q : box.ring()) {
        const double qs = project(sec.centre, q).first;
        s0 = std::min(s0, qs);
        s1 = std::max(s1, qs);
      }
      const bool overlap =
          s1 + 1.0 > ss - spot.length_m * 0.5 + 1e-3 && s0 - 1.0 < ss + spot.length_m * 0.5 - 1e-3;
      EXPECT_FALSE(overlap) << "spot in front of a door: edge " << spot.edge << " s " << ss;
    }
  }
}

TEST(ResolveOverlaps, NoOverlapsAndPriorityRespected) {
  const Street& s = street();
  std::vector<Item> items;
  // Lowest priority first in the input: order must not matter.
  for (const auto* list : {&s.plants, &s.furniture, &s.lights})
    items.insert(items.end(), list->begin(), list->end());
  std::vector<Item> kept = items;
  const std::size_t dropped = detail::resolve_overlaps(kept);
  EXPECT_EQ(kept.size() + dropped, items.size());
  auto radius = [](const Item& it) {
    return detail::overlap_priority(it.prop) < 0 ? 0.0 : prop_catalog()[it.prop].radius_m;
  };
  auto meets = [&](const Item& a, const Item& b) {
    return radius(a) > 0.0 && radius(b) > 0.0 &&
           distance(xy(a), xy(b)) < radius(a) + radius(b) - 1e-4;
  };
  for (std::size_t i = 0; i < kept.size(); ++i)
    for (std::size_t j = i + 1; j < kept.size(); ++j)
      if (distance(xy(kept[i]), xy(kept[j])) < 5.0) {
        EXPECT_FALSE(meets(kept[i], kept[j]));
      }
  // Every dropped item meets a kept one of the same or a higher priority.
  std::size_t k = 0;
  for (const Item& it : items) {
    if (k < kept.size() && std::memcmp(&it, &kept[k], sizeof(Item)) == 0) {
      ++k;
      continue;
    }
    const bool blocked = std::any_of(kept.begin(), kept.end(), [&](const Item& o) {
      return meets(it, o) && detail::overlap_priority(o.prop) <= detail::overlap_priority(it.prop);
    });
    EXPECT_TRUE(blocked) << prop_catalog()[it.prop].id;
  }
  EXPECT_EQ(k, kept.size());
}

TEST(StreetDressing, SameAtOneAndTwoThreads) {
  auto run = [](int threads) {
    tbb::global_control gc(tbb::global_control::max_allowed_parallelism,
                           static_cast<std::size_t>(threads));
    return dress(city());
  };
  const Street a = run(1);
  const Street b = run(2);
  auto same = [](const auto& x, const auto& y) {
    return x.size() == y.size() &&
           (x.empty() || std::memcmp(x.data(), y.data(), x.size() * sizeof(x[0])) == 0);
  };
  EXPECT_TRUE(same(a.lights, b.lights));
  EXPECT_TRUE(same(a.plants, b.plants));
  EXPECT_TRUE(same(a.furniture, b.furniture));
  EXPECT_TRUE(same(a.parking, b.parking));
}

TEST(StreetDressing, Figures) {
  const auto t0 = std::chrono::steady_clock::now();
  Street s = dress(city());
  std::vector<Item> all;
  for (const auto* list : {&s.lights, &s.plants, &s.furniture})
    all.insert(all.end(), list->begin(), list->end());
  const std::size_t dropped = detail::resolve_overlaps(all);
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  std::map<std::string, std::size_t> by_prop;
  for (const Item& it : all)
    by_prop[prop_catalog()[it.prop].id] += 1;
  std::size_t stations = 0;
  for (const roads::Section& sec : city().roads.sections) {
    const layout::RoadEdge& e = city().layout.network.edges[sec.edge];
    if (e.sidewalk_width_m > 0.0)
      stations +=
          2 * detail::light_stations(polyline_length(sec.centre),
                                     Config{}.light_spacing_m[static_cast<int>(e.road_class)])
                  .size();
  }
  std::cout << "light stations " << stations << ", sections " << city().roads.sections.size()
            << ", blocks " << city().layout.blocks.size() << "\n";
  std::cout << "street dressing: " << ms << " ms, dropped " << dropped << ", parking "
            << s.parking.size() << "\n";
  for (const auto& [id, n] : by_prop)
    std::cout << "  " << id << ": " << n << "\n";
  EXPECT_FALSE(all.empty());
}

}  // namespace
}  // namespace cityforge::dressing
