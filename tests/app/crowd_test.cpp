// SPDX-License-Identifier: Apache-2.0
// The crowd on the default city: the acceptance checks of issue 7 (walkable ground after every
// tick, no crossing against don't-walk except tagged jaywalkers, LOD budgets, continuity and
// persistence across levels, the pool's mix, wandering shepherds as a pure function of time,
// flee, determinism at any thread count) and `cityforge simulate`'s crowd options.
//
// Each TEST runs in its own process under ctest and pays one `cityforge generate` (~8 s), so
// the checks are grouped into few TESTs.
#include "cityforge/crowd/crowd.hpp"

#include <gtest/gtest.h>
#include <tbb/global_control.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <numbers>
#include <optional>
#include <sstream>

#include "app/cli_run.hpp"
#include "cityforge/traffic/network.hpp"
#include "cityforge/traffic/traffic.hpp"

namespace fs = std::filesystem;
using namespace cityforge;
using clitest::run_cli;
using crowd::Behaviour;
using crowd::Lod;
using crowd::PedestrianView;
using traffic::LaneId;
using traffic::WalkState;

namespace {

constexpr double kPi = std::numbers::pi;
constexpr LaneId kNoLaneId = traffic::kNoLane;
// Downtown: a busy junction corner and the densest blocks of the default city.
constexpr Vec2 kDowntown{1125.0, 1039.0};

std::string describe(const PedestrianView& v) {
  std::ostringstream s;
  s << "pedestrian " << v.id << " at (" << v.position.x << ", " << v.position.y << ", "
    << v.position.z << ") lane " << v.lane << " s " << v.s_m << " lateral " << v.lateral_m
    << " dir " << int{v.dir} << " " << crowd::to_string(v.behaviour) << " lod "
    << crowd::to_string(v.lod) << " flags " << int{v.flags};
  return s.str();
}

// -- Ground: building footprints and vehicle lane bands --------------------------------------

/// Item indices over a uniform grid of cells (each item listed in every cell its box touches).
class Grid {
 public:
  Grid(double x0, double y0, double x1, double y1, double cell) : m_x0(x0), m_y0(y0), m_cell(cell) {
    m_nx = static_cast<int>(std::ceil((x1 - x0) / cell)) + 1;
    m_ny = static_cast<int>(std::ceil((y1 - y0) / cell)) + 1;
    m_items.resize(static_cast<std::size_t>(m_nx) * m_ny);
  }
  void add(double x0, double y0, double x1, double y1, std::uint32_t item) {
    const int i0 = cx(x0), i1 = cx(x1), j0 = cy(y0), j1 = cy(y1);
    for (int j = j0; j <= j1; ++j) {
      for (int i = i0; i <= i1; ++i)
        m_items[static_cast<std::size_t>(j) * m_nx + i].push_back(item);
    }
  }
  const std::vector<std::uint32_t>& at(Vec2 p) const {
    return m_items[static_cast<std::size_t>(cy(p.y)) * m_nx + cx(p.x)];
  }

 private:
  int cx(double x) const {
    return std::clamp(static_cast<int>(std::floor((x - m_x0) / m_cell)), 0, m_nx - 1);
  }
  int cy(double y) const {
    return std::clamp(static_cast<int>(std::floor((y - m_y0) / m_cell)), 0, m_ny - 1);
  }
  double m_x0, m_y0, m_cell;
  int m_nx = 0, m_ny = 0;
  std::vector<std::vector<std::uint32_t>> m_items;
};

/// Even-odd rule over all rings (outer and holes).
bool inside(const std::vector<std::vector<Vec2>>& rings, Vec2 p) {
  bool in = false;
  for (const std::vector<Vec2>& r : rings) {
    for (std::size_t i = 0, j = r.size() - 1; i < r.size(); j = i++) {
      if ((r[i].y > p.y) != (r[j].y > p.y) &&
          p.x < (r[j].x - r[i].x) * (p.y - r[i].y) / (r[j].y - r[i].y) + r[i].x) {
        in = !in;
      }
    }
  }
  return in;
}

/// Where nobody may stand: inside a building footprint (layout.geojson), or on a vehicle lane's
/// band (closer than width / 2 - 0.1 m to its centre line, at the same height within 3 m, so a
/// sidewalk under a freeway viaduct is not on it) unless on a crosswalk lane.
class Ground {
 public:
  Ground(const traffic::Network& net, const fs::path& layout) : m_net(net) {
    const nlohmann::json j = nlohmann::json::parse(clitest::slurp(layout));
    for (const auto& f : j["features"]) {
      if (f["properties"].value("layer", "") != "building") continue;
      const auto& g = f["geometry"];
      const auto add = [&](const nlohmann::json& poly) {
        std::vector<std::vector<Vec2>> rings;
        for (const auto& ring : poly) {
          std::vector<Vec2> r;
          for (const auto& c : ring)
            r.push_back(Vec2{c[0].get<double>(), c[1].get<double>()});
          if (r.size() >= 3) rings.push_back(std::move(r));
        }
        if (!rings.empty()) m_buildings.push_back(std::move(rings));
      };
      if (g["type"] == "Polygon") add(g["coordinates"]);
      if (g["type"] == "MultiPolygon") {
        for (const auto& p : g["coordinates"])
          add(p);
      }
    }
    double x0 = 1e18, y0 = 1e18, x1 = -1e18, y1 = -1e18;
    for (const Vec3& p : net.points) {
      x0 = std::min(x0, p.x), y0 = std::min(y0, p.y), x1 = std::max(x1, p.x),
      y1 = std::max(y1, p.y);
    }
    x0 -= 50, y0 -= 50, x1 += 50, y1 += 50;
    m_building_grid.emplace(x0, y0, x1, y1, 20.0);
    for (std::uint32_t b = 0; b < m_buildings.size(); ++b) {
      double bx0 = 1e18, by0 = 1e18, bx1 = -1e18, by1 = -1e18;
      for (const Vec2& p : m_buildings[b][0]) {
        bx0 = std::min(bx0, p.x), by0 = std::min(by0, p.y), bx1 = std::max(bx1, p.x),
        by1 = std::max(by1, p.y);
      }
      m_building_grid->add(bx0, by0, bx1, by1, b);
    }
    m_lane_grid.emplace(x0, y0, x1, y1, 10.0);
    for (LaneId l = 0; l < net.lane_count(); ++l) {
      if (!net.is(l, roads::kVehicle)) continue;
      const double hw = 0.5 * net.width_m[l];
      for (std::uint32_t k = net.point_begin[l] + 1; k < net.point_begin[l + 1]; ++k) {
        const Vec3 a = net.points[k - 1];
        const Vec3 b = net.points[k];
        m_lane_grid->add(std::min(a.x, b.x) - hw, std::min(a.y, b.y) - hw, std::max(a.x, b.x) + hw,
                         std::max(a.y, b.y) + hw, static_cast<std::uint32_t>(m_segments.size()));
        m_segments.push_back({a, b, static_cast<float>(hw), l});
      }
    }
  }

  std::size_t buildings() const { return m_buildings.size(); }

  struct Offence {
    bool building = false;
    LaneId lane = kNoLaneId;  ///< The vehicle lane stood on.
    std::string what;
  };
  /// Nothing set when the pedestrian stands on walkable ground.
  Offence offence(const PedestrianView& v) const {
    const Vec2 p{v.position.x, v.position.y};
    for (const std::uint32_t b : m_building_grid->at(p)) {
      if (inside(m_buildings[b], p)) {
        return {true, kNoLaneId,
                "inside building footprint " + std::to_string(b) + ": " + describe(v)};
      }
    }
    if (m_net.is(v.lane, roads::kCrosswalk)) return {};
    for (const std::uint32_t k : m_lane_grid->at(p)) {
      const Segment& s = m_segments[k];
      const Vec2 a{s.a.x, s.a.y};
      const Vec2 ab{s.b.x - s.a.x, s.b.y - s.a.y};
      const double l2 = dot(ab, ab);
      const double u = l2 > 0 ? std::clamp(dot(p - a, ab) / l2, 0.0, 1.0) : 0.0;
      const double d = distance(p, a + ab * u);
      const double z = s.a.z + (s.b.z - s.a.z) * u;
      if (d < s.half - 0.1 && std::abs(z - v.position.z) < 3.0) {
        std::ostringstream o;
        o << "on vehicle lane " << s.lane << " (" << d << " m from its centre, half width "
          << s.half << "): " << describe(v);
        return {false, s.lane, o.str()};
      }
    }
    return {};
  }

 private:
  struct Segment {
    Vec3 a, b;
    float half = 0;
    LaneId lane = 0;
  };
  const traffic::Network& m_net;
  std::vector<std::vector<std::vector<Vec2>>> m_buildings;
  std::vector<Segment> m_segments;
  std::optional<Grid> m_building_grid;
  std::optional<Grid> m_lane_grid;
};

// -- The fixture ---------------------------------------------------------------------------

class CrowdCity : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    // The default city made once for the build's test processes, linked into a folder of
    // this process's own (the tests simulate into it).
    s_dir = new fs::path(clitest::temp_dir("crowd"));
    const auto r = clitest::private_city("default-t2", clitest::kDefaultCityArgs, *s_dir);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    Result<traffic::LanesFile> f = traffic::load_lanes_json((*s_dir / "lanes.json").string());
    ASSERT_TRUE(f.ok()) << f.error().to_string();
    s_file = new traffic::LanesFile(std::move(*f));
    s_net = new traffic::Network(network());
    Result<std::vector<crowd::Footprint>> b =
        crowd::load_building_footprints((*s_dir / "layout.geojson").string());
    ASSERT_TRUE(b.ok()) << b.error().to_string();
    s_buildings = new std::vector<crowd::Footprint>(std::move(*b));
    const crowd::WalkNetwork walk = crowd::build_walk_network(*s_net, *s_buildings);
    Result<crowd::ShepherdsFile> sh =
        crowd::load_shepherds_json((*s_dir / "shepherds.json").string(), walk);
    ASSERT_TRUE(sh.ok()) << sh.error().to_string();
    s_shepherds = new crowd::ShepherdsFile(std::move(*sh));
  }
  static void TearDownTestSuite() {
    if (s_dir != nullptr) fs::remove_all(*s_dir);
    delete s_dir;
    delete s_file;
    delete s_net;
    delete s_shepherds;
    delete s_buildings;
  }
  void SetUp() override {
    ASSERT_NE(s_shepherds, nullptr) << "the city was not generated";
    ASSERT_FALSE(s_shepherds->walkers.empty());
    ASSERT_FALSE(s_shepherds->groups.empty());
  }

  static traffic::Network network() {
    Result<traffic::Network> net = traffic::build_network(s_file->graph, s_file->controls);
    EXPECT_TRUE(net.ok()) << net.error().to_string();
    return std::move(*net);
  }
  /// Signals only: a traffic simulation without vehicles on its own copy of the network.
  static std::unique_ptr<traffic::Simulation> signals(float dt_s) {
    traffic::Config cfg;
    cfg.dt_s = dt_s;
    cfg.vehicles = 0;
    Result<std::unique_ptr<traffic::Simulation>> sim =
        traffic::Simulation::create(network(), cfg, {}, 7);
    EXPECT_TRUE(sim.ok()) << sim.error().to_string();
    return std::move(*sim);
  }
  static crowd::Config config(std::uint32_t pedestrians, float dt_s, bool lod) {
    crowd::Config c;
    c.pedestrians = pedestrians;
    c.dt_s = dt_s;
    c.lod.enabled = lod;
    return c;
  }
  static std::unique_ptr<crowd::Crowd> make(const traffic::Network& net, const crowd::Config& c,
                                            Seed seed = 5, bool shepherds = true) {
    crowd::Inputs in;
    in.buildings = *s_buildings;
    if (shepherds) in.shepherds = *s_shepherds;
    Result<std::unique_ptr<crowd::Crowd>> made = crowd::Crowd::create(net, c, seed, std::move(in));
    EXPECT_TRUE(made.ok()) << made.error().to_string();
    return std::move(*made);
  }
  /// A viewer at eye height over the nearest pedestrian lane point, looking along yaw_deg.
  static crowd::Viewer eye(Vec2 xy, double yaw_deg) {
    const traffic::Network& net = *s_net;
    double best = 1e18;
    double z = 0;
    for (LaneId l = 0; l < net.lane_count(); ++l) {
      if (!net.is(l, roads::kSidewalk | roads::kCrosswalk)) continue;
      for (std::uint32_t k = net.point_begin[l]; k < net.point_begin[l + 1]; ++k) {
        const double d = distance(Vec2{net.points[k].x, net.points[k].y}, xy);
        if (d < best) best = d, z = net.points[k].z;
      }
    }
    crowd::Viewer v;
    v.position = Vec3{xy.x, xy.y, z + 1.7};
    v.yaw_rad = yaw_deg * kPi / 180.0;
    return v;
  }
  static double distance2d(const PedestrianView& a, const PedestrianView& b) {
    return distance(Vec2{a.position.x, a.position.y}, Vec2{b.position.x, b.position.y});
  }

  static fs::path* s_dir;
  static traffic::LanesFile* s_file;
  static traffic::Network* s_net;
  static crowd::ShepherdsFile* s_shepherds;
  static std::vector<crowd::Footprint>* s_buildings;
};
fs::path* CrowdCity::s_dir = nullptr;
traffic::LanesFile* CrowdCity::s_file = nullptr;
traffic::Network* CrowdCity::s_net = nullptr;
crowd::ShepherdsFile* CrowdCity::s_shepherds = nullptr;
std::vector<crowd::Footprint>* CrowdCity::s_buildings = nullptr;

// What a ground run saw.
struct GroundRun {
  /// Inside a building footprint from inside its lane's walkable band (the layout puts the
  /// building over the sidewalk).
  std::uint64_t buildings = 0;
  /// On a vehicle lane's band outside a crosswalk from inside its own lane's walkable band
  /// (the lane graph puts the sidewalk on the road).
  std::uint64_t band_lane_graph = 0;
  /// Inside a building or on a vehicle lane from outside its own band (the crowd's doing).
  std::uint64_t band_crowd = 0;
  std::uint64_t outside_band = 0;  ///< |lateral| > half width - body radius.
  std::string first_building, first_lane_graph, first_crowd, first_outside;
  std::uint64_t entries = 0, signalled = 0, jaywalks = 0;
  std::uint64_t violations = 0;          ///< Against the plan at the crowd's clock.
  std::uint64_t coupled_violations = 0;  ///< Against what the coupled traffic sim shows.
  std::string first_violation, first_coupled;
  std::array<std::uint64_t, crowd::kLods> seen{};
  crowd::Stats stats;
  std::uint32_t size = 0;
};

/// Walk state of a crosswalk at time t from the signal plans that list it (docs: walk for the
/// first walk_s of a green phase that lists it, flashing for the rest of that green, don't walk
/// otherwise; off when no plan lists it).
class PlanSignals {
 public:
  explicit PlanSignals(const traffic::Network& net) : m_net(net), m_plan(net.lane_count(), -1) {
    for (std::size_t k = 0; k < net.signals.size(); ++k) {
      for (const roads::Phase& ph : net.signals[k].phases) {
        for (const LaneId x : ph.walk)
          m_plan[x] = static_cast<std::int32_t>(k);
      }
    }
  }
  WalkState at(LaneId x, double t, double walk_s) const {
    if (m_plan[x] < 0) return WalkState::off;
    const roads::SignalPlan& plan = m_net.signals[static_cast<std::size_t>(m_plan[x])];
    double tau = std::fmod(t - plan.offset_s, plan.cycle_s());
    if (tau < 0) tau += plan.cycle_s();
    for (std::size_t k = 0; k < plan.phases.size(); ++k) {
      const roads::Phase& ph = plan.phases[k];
      const double len = ph.green_s + ph.yellow_s + ph.all_red_s;
      if (tau < len || k + 1 == plan.phases.size()) {
        if (tau < ph.green_s && std::binary_search(ph.walk.begin(), ph.walk.end(), x)) {
          return tau < walk_s ? WalkState::walk : WalkState::flashing;
        }
        return WalkState::dont_walk;
      }
      tau -= len;
    }
    return WalkState::dont_walk;
  }

 private:
  const traffic::Network& m_net;
  std::vector<std::int32_t> m_plan;
};

// Runs a crowd coupled to a traffic simulation (signals only, no vehicles) at dt 0.1 s and
// audits every pedestrian after every tick: ground, lateral band, crosswalk entries.
GroundRun ground_run(const fs::path& dir, const traffic::LanesFile& file,
                     const crowd::ShepherdsFile& shepherds, bool lod, std::uint32_t pedestrians,
                     int ticks, crowd::Viewer viewer) {
  GroundRun out;
  Result<traffic::Network> net = traffic::build_network(file.graph, file.controls);
  EXPECT_TRUE(net.ok());
  traffic::Config tc;
  tc.dt_s = 0.1f;
  tc.vehicles = 0;
  Result<std::unique_ptr<traffic::Simulation>> made =
      traffic::Simulation::create(std::move(*net), tc, {}, 7);
  EXPECT_TRUE(made.ok()) << made.error().to_string();
  traffic::Simulation& sim = **made;
  const traffic::Network& n = sim.network();
  const Ground ground(n, dir / "layout.geojson");
  EXPECT_GT(ground.buildings(), 1000U);
  crowd::Config cfg;
  cfg.pedestrians = pedestrians;
  cfg.dt_s = 0.1f;
  cfg.lod.enabled = lod;
  crowd::Inputs in;
  in.shepherds = shepherds;
  Result<std::vector<crowd::Footprint>> houses =
      crowd::load_building_footprints((dir / "layout.geojson").string());
  EXPECT_TRUE(houses.ok());
  if (houses.ok()) in.buildings = std::move(*houses);
  Result<std::unique_ptr<crowd::Crowd>> c = crowd::Crowd::create(n, cfg, 5, std::move(in));
  EXPECT_TRUE(c.ok()) << c.error().to_string();
  crowd::Crowd& people = **c;
  people.set_viewer(viewer);
  const crowd::WalkNetwork& walk = people.walk_network();
  const PlanSignals plan(n);
  const double walk_s = tc.walk_s;
  std::vector<PedestrianView> views = people.views();
  std::vector<LaneId> lane(views.size());
  for (const PedestrianView& v : views)
    lane[v.id] = v.lane;
  std::vector<WalkState> shown_before(n.lane_count(), WalkState::off);
  for (LaneId l = 0; l < n.lane_count(); ++l)
    shown_before[l] = sim.walk(l);
  for (int t = 1; t <= ticks; ++t) {
    sim.tick();
    people.tick(&sim);
    EXPECT_DOUBLE_EQ(sim.time_s(), people.time_s());
    views = people.views();
    for (const PedestrianView& v : views) {
      out.seen[static_cast<std::size_t>(v.lod)] += 1;
      const std::string where = "tick " + std::to_string(t) + ": ";
      // Ground. The crowd keeps each body inside its lane's walkable band (|lateral| <=
      // half width - body radius); standing on a building or a vehicle lane from inside that
      // band means the band itself overlaps it (the lane graph's or the layout's doing).
      const float limit = walk.half_width(v.lane) - cfg.radius_m + 1e-4f;
      const bool in_band = std::abs(v.lateral_m) <= limit;
      if (!in_band && out.outside_band++ == 0) {
        out.first_outside = where + "band limit " + std::to_string(limit) + ": " + describe(v);
      }
      const Ground::Offence o = ground.offence(v);
      if (o.building || o.lane != kNoLaneId) {
        if (!in_band) {
          if (out.band_crowd++ == 0) out.first_crowd = where + o.what;
        } else if (o.building) {
          if (out.buildings++ == 0) out.first_building = where + o.what;
        } else if (out.band_lane_graph++ == 0) {
          out.first_lane_graph = where + o.what;
        }
      }
      // Crosswalk entries.
      const LaneId before = lane[v.id];
      lane[v.id] = v.lane;
      if (v.lane == before || !n.is(v.lane, roads::kCrosswalk)) continue;
      ++out.entries;
      // Coupled to the traffic, the crowd follows the signals it shows: set at the start of
      // its tick, they show the plan at its time less one tick (docs/crowd.md).
      const double shown = sim.time_s() - tc.dt_s;
      const WalkState p0 = plan.at(v.lane, shown - cfg.dt_s, walk_s);
      const WalkState p1 = plan.at(v.lane, shown, walk_s);
      if (p0 == WalkState::off && p1 == WalkState::off) continue;
      ++out.signalled;
      const bool excused = (v.flags & crowd::kPedJaywalker) != 0U || v.behaviour == Behaviour::flee;
      if ((v.flags & crowd::kPedJaywalker) != 0U) ++out.jaywalks;
      std::ostringstream o2;
      o2 << where << "entered crosswalk " << v.lane << " from lane " << before;
      if (p0 != WalkState::walk && p1 != WalkState::walk && !excused && out.violations++ == 0) {
        o2 << " with the plan showing " << int(p0) << " then " << int(p1) << " (0 = don't "
           << "walk, 2 = flashing): " << describe(v);
        out.first_violation = o2.str();
      }
      const WalkState s0 = shown_before[v.lane];
      const WalkState s1 = sim.walk(v.lane);
      if (s0 != WalkState::walk && s1 != WalkState::walk && !excused &&
          out.coupled_violations++ == 0) {
        o2 << " with the traffic simulation showing " << int(s0) << " then " << int(s1)
           << " (the plan: " << int(p0) << " then " << int(p1) << "): " << describe(v);
        out.first_coupled = o2.str();
      }
    }
    for (LaneId l = 0; l < n.lane_count(); ++l)
      shown_before[l] = n.is(l, roads::kCrosswalk) ? sim.walk(l) : WalkState::off;
  }
  out.stats = people.stats();
  out.size = people.size();
  return out;
}

// 1. Ten minutes, everyone at full fidelity with avoidance (1500 roaming + the shepherds), every
// pedestrian audited after every tick: never inside a building footprint, never on a vehicle
// lane's band (its half width less 0.1 m) outside a crosswalk, never outside its lane's
// walkable band, and onto a signalled crosswalk only when its plan, and the coupled traffic
// simulation's signals, show walk at the previous or the current tick, or as a tagged
// jaywalker. (The lane graph leads a few sidewalks over connectors at clustered junctions and
// some corner sidewalks cut building corners; the walk network narrows or drops those bands,
// docs/crowd.md.) Then two
// minutes with LOD on (3000 + shepherds) around a downtown viewer, the same audits.
TEST_F(CrowdCity, WalkableGroundAndNoCrossingAgainstDontWalk) {
  for (const bool lod : {false, true}) {
    SCOPED_TRACE(lod ? "LOD on, 3000 pedestrians, 2 minutes" : "LOD off, 1500, 10 minutes");
    const int ticks = lod ? 1200 : 6000;
    const GroundRun r = ground_run(*s_dir, *s_file, *s_shepherds, lod, lod ? 3000 : 1500, ticks,
                                   eye(kDowntown, 30));
    EXPECT_EQ(r.band_crowd, 0U) << r.first_crowd;
    EXPECT_EQ(r.outside_band, 0U) << r.first_outside;
    EXPECT_EQ(r.violations, 0U) << r.first_violation;
    // The literal criteria: nobody in a building or on a vehicle lane outside a crosswalk, and
    // crosswalk entries judged by the coupled traffic simulation's own signals.
    EXPECT_EQ(r.buildings, 0U) << r.first_building;
    EXPECT_EQ(r.band_lane_graph, 0U) << r.first_lane_graph;
    EXPECT_EQ(r.coupled_violations, 0U) << r.first_coupled;
    std::printf(
        "[ info ] %s: pedestrian-ticks inside a building footprint %llu (first: %s), on a "
        "vehicle lane outside a crosswalk %llu (first: %s), both from inside the lane's "
        "walkable band; %llu crosswalk entries, %llu signalled, %llu by jaywalkers; %llu "
        "entries while the coupled traffic simulation shows no walk (first: %s)\n",
        lod ? "LOD on" : "LOD off", static_cast<unsigned long long>(r.buildings),
        r.first_building.c_str(), static_cast<unsigned long long>(r.band_lane_graph),
        r.first_lane_graph.c_str(), static_cast<unsigned long long>(r.entries),
        static_cast<unsigned long long>(r.signalled), static_cast<unsigned long long>(r.jaywalks),
        static_cast<unsigned long long>(r.coupled_violations), r.first_coupled.c_str());
    // The audits had something to audit.
    EXPECT_GT(r.signalled, lod ? 100U : 300U) << r.entries << " entries";
    EXPECT_GT(r.stats.jaywalks, 0U);
    EXPECT_GT(r.stats.neighbour_queries, 0U);
    if (lod) {
      EXPECT_GT(r.seen[0], 0U);
      EXPECT_GT(r.seen[2], 0U);
      EXPECT_GT(r.seen[3], 0U);
    } else {
      EXPECT_EQ(r.seen[0], static_cast<std::uint64_t>(ticks) * r.size);
    }
  }
}

// 2. LOD budgets hold after every tick while the viewer walks through downtown and looks
// around; an agent whose level changes between two ticks on the same lane moves no more than
// its top speed x dt; and an agent standing (idle, looking around or waiting to cross) keeps
// doing the same thing, where it stood, when the viewer walks away and comes back.
TEST_F(CrowdCity, LodBudgetsContinuityAndPersistence) {
  const float dt = 1.0f / 30.0f;
  const crowd::Config cfg = config(4000, dt, true);
  auto people = make(*s_net, cfg);
  // The viewer's way: west to east past the downtown corner, north, then west, turning as it
  // goes, its head sweeping +-50 degrees every 12 s.
  struct Key {
    double t;
    Vec2 p;
    double yaw_deg;
  };
  const Key keys[] = {
      {0, {950, 1035}, 0}, {60, kDowntown, 0}, {100, {1125, 1200}, 90}, {180, {900, 1210}, 180}};
  std::vector<double> key_z;  // Eye height at the key points (linear between them).
  for (const Key& key : keys)
    key_z.push_back(eye(key.p, 0).position.z);
  const auto viewer_at = [&](double t) {
    std::size_t k = 0;
    while (k + 2 < std::size(keys) && t > keys[k + 1].t)
      ++k;
    const double u = std::clamp((t - keys[k].t) / (keys[k + 1].t - keys[k].t), 0.0, 1.0);
    const Vec2 p = keys[k].p + (keys[k + 1].p - keys[k].p) * u;
    const double yaw = keys[k].yaw_deg + (keys[k + 1].yaw_deg - keys[k].yaw_deg) * u +
                       50.0 * std::sin(2 * kPi * t / 12.0);
    crowd::Viewer v;
    v.position = Vec3{p.x, p.y, key_z[k] + (key_z[k + 1] - key_z[k]) * u};
    v.yaw_rad = yaw * kPi / 180.0;
    return v;
  };
  const double top_speed = cfg.flee_speed_mps * 1.3;
  const double max_jump = top_speed * dt + 0.05;
  std::vector<PedestrianView> before = people->views();
  std::uint64_t changes = 0, checked = 0, over_budget = 0;
  double worst = 0;
  std::string worst_what, budget_what;
  std::map<std::pair<int, int>, std::uint64_t> kinds;
  const int ticks = static_cast<int>(std::lround(180.0 / dt));
  for (int t = 1; t <= ticks; ++t) {
    const double now = t * static_cast<double>(dt);
    people->set_viewer(viewer_at(now));
    people->tick();
    std::vector<PedestrianView> after = people->views();
    std::array<std::uint32_t, crowd::kLods> per{};
    for (const PedestrianView& a : after)
      per[static_cast<std::size_t>(a.lod)] += 1;
    if ((per[0] > cfg.lod.budget_high || per[1] > cfg.lod.budget_medium ||
         per[2] > cfg.lod.budget_low) &&
        over_budget++ == 0) {
      budget_what = "tick " + std::to_string(t) + ": high " + std::to_string(per[0]) + " medium " +
                    std::to_string(per[1]) + " low " + std::to_string(per[2]);
    }
    for (std::size_t i = 0; i < after.size(); ++i) {
      const PedestrianView& a = before[i];
      const PedestrianView& b = after[i];
      if (a.lod == b.lod) continue;
      ++changes;
      kinds[{static_cast<int>(a.lod), static_cast<int>(b.lod)}] += 1;
      if (a.lane != b.lane) continue;
      ++checked;
      const double d = distance2d(a, b);
      if (d > worst) {
        worst = d;
        worst_what = "tick " + std::to_string(t) + ": " + describe(a) + " -> " + describe(b);
      }
    }
    before = std::move(after);
  }
  EXPECT_EQ(over_budget, 0U) << budget_what;
  EXPECT_LE(worst, max_jump) << worst_what;
  std::ostringstream k;
  for (const auto& [from_to, n] : kinds)
    k << " " << from_to.first << "->" << from_to.second << ":" << n;
  std::printf(
      "[ info ] %llu LOD changes (%llu on the same lane), largest jump %.3f m (limit "
      "%.3f);%s\n",
      static_cast<unsigned long long>(changes), static_cast<unsigned long long>(checked), worst,
      max_jump, k.str().c_str());
  // Every kind of change happened, many times.
  EXPECT_GT(checked, 1000U);
  EXPECT_GT((kinds[{2, 0}] + kinds[{2, 1}] + kinds[{3, 0}] + kinds[{3, 1}]), 50U) << k.str();
  EXPECT_GT((kinds[{0, 2}] + kinds[{1, 2}] + kinds[{0, 3}] + kinds[{1, 3}]), 50U) << k.str();

  // Persistence: two crowds, same seed, same viewer for 20 s (so the same state). Then A keeps
  // the viewer; B's viewer goes 1 km away for 1 s (everyone near turns off) and comes back.
  const crowd::Viewer here = eye(kDowntown, 30);
  crowd::Viewer away = here;
  away.position.x += 1000;
  away.yaw_rad += kPi;
  auto a = make(*s_net, cfg, 21);
  auto b = make(*s_net, cfg, 21);
  a->set_viewer(here);
  b->set_viewer(here);
  const int settle = 600;
  for (int t = 0; t < settle; ++t) {
    a->tick();
    b->tick();
  }
  ASSERT_EQ(a->state_hash(), b->state_hash());
  const std::vector<PedestrianView> start = a->views();
  std::vector<std::uint32_t> standing;  // Seen (not off) now and standing.
  for (const PedestrianView& p : start) {
    if (p.lod != Lod::off &&
        (p.behaviour == Behaviour::idle || p.behaviour == Behaviour::look_around ||
         p.behaviour == Behaviour::wait_crossing)) {
      standing.push_back(p.id);
    }
  }
  ASSERT_FALSE(standing.empty()) << "nobody standing near the viewer";
  // In A: when does each stop standing?
  std::map<std::uint32_t, int> ends;
  for (int t = 1; t <= 600; ++t) {
    a->tick();
    for (const std::uint32_t id : standing) {
      if (!ends.contains(id) && a->view(id).behaviour != start[id].behaviour) ends[id] = t;
    }
  }
  // In B: away for 30 ticks, back for 45, then until the end.
  std::map<std::uint32_t, Lod> worst_lod;
  std::map<std::uint32_t, int> ends_b;
  std::uint32_t persisted = 0, roaming = 0;
  for (int t = 1; t <= 600; ++t) {
    b->set_viewer(t <= 30 ? away : here);
    b->tick();
    for (const std::uint32_t id : standing) {
      const PedestrianView p = b->view(id);
      if (t <= 30) worst_lod[id] = std::max(worst_lod[id], p.lod);
      if (!ends_b.contains(id) && p.behaviour != start[id].behaviour) ends_b[id] = t;
      if (t == 75) {
        // Still standing if A says so: same behaviour, where it stood (a standing agent moves
        // at most 0.3 m/s while pushed, for the 1.5 s it may have been active).
        const int end = ends.contains(id) ? ends[id] : 1 << 30;
        if (end <= 75) continue;
        EXPECT_EQ(worst_lod[id], Lod::off) << describe(p);
        EXPECT_EQ(p.behaviour, start[id].behaviour) << describe(p);
        EXPECT_EQ(p.lane, start[id].lane) << describe(p);
        EXPECT_LE(distance2d(p, start[id]), 0.3 * 2.5 + 0.05) << describe(p);
        ++persisted;
        if (id < cfg.pedestrians) ++roaming;
      }
    }
  }
  // And it stops standing when it would have without the round trip (to the tick, or the next
  // one when the level of the agent differs between A and B).
  for (const auto& [id, end] : ends) {
    if (end <= 75) continue;
    ASSERT_TRUE(ends_b.contains(id)) << describe(b->view(id));
    EXPECT_LE(std::abs(ends_b[id] - end), 1) << describe(b->view(id));
  }
  std::printf(
      "[ info ] %zu standing near the viewer, %u still standing after the round trip "
      "(%u roaming), %zu stopped within the next 20 s\n",
      standing.size(), persisted, roaming, ends.size());
  EXPECT_GT(roaming, 0U) << "no roaming pedestrian to check (only shepherd members)";
}

// 3. The pool's variant mix follows the mix of the people around a fixed viewer. Tolerance:
// 2 / slots per variant. The pool re-dresses at most K (1) free slots per LOD update and stops
// once the most over- and under-represented variants are within one slot of their targets (so
// a settled pool is off by less than one slot per variant); the local mix moves as people walk
// in and out of the stats radius between updates, which the second slot allows for.
TEST_F(CrowdCity, PoolMixFollowsTheLocalMix) {
  const float dt = 1.0f / 30.0f;
  auto people = make(*s_net, config(4000, dt, true));
  people->set_viewer(eye(kDowntown, 30));
  const crowd::AgentPool& pool = people->pool();
  const double tolerance = 2.0 / pool.slots();
  const std::vector<double> initial = pool.mix();
  double worst = 0;
  double moved = 0;  // How far the local mix is from the pool's initial round-robin dressing.
  std::string what;
  for (int t = 1; t <= 1800; ++t) {
    people->tick();
    if (t * static_cast<double>(dt) < 30.0) continue;  // Settling.
    const std::vector<double> mix = pool.mix();
    const std::vector<double> local = people->local_mix();
    ASSERT_EQ(mix.size(), local.size());
    for (std::size_t v = 0; v < mix.size(); ++v) {
      moved = std::max(moved, std::abs(local[v] - initial[v]));
      if (std::abs(mix[v] - local[v]) > worst) {
        worst = std::abs(mix[v] - local[v]);
        what = "tick " + std::to_string(t) + " variant " + std::to_string(v) + ": pool " +
               std::to_string(mix[v]) + " local " + std::to_string(local[v]);
      }
    }
  }
  std::printf(
      "[ info ] %u slots, worst |pool - local| after 30 s %.4f (tolerance %.4f), %llu "
      "re-dresses, %llu mismatches\n",
      pool.slots(), worst, tolerance, static_cast<unsigned long long>(pool.redresses()),
      static_cast<unsigned long long>(pool.mismatches()));
  EXPECT_LE(worst, tolerance) << what;
  // Not vacuous: the target is not the initial dressing, so the pool had to follow it.
  EXPECT_GT(moved, tolerance);
  EXPECT_GT(pool.redresses(), 0U);
}

// 4. Wandering shepherd members are where their path puts them at time tick x dt, bit for bit,
// at every level of detail (some near the viewer high or medium, some low, most off) and with
// LOD off.
TEST_F(CrowdCity, WanderingMembersAreAPureFunctionOfTime) {
  for (const bool lod : {true, false}) {
    SCOPED_TRACE(lod ? "LOD on" : "LOD off");
    const crowd::Config cfg = config(lod ? 3000 : 300, 1.0f / 30.0f, lod);
    auto people = make(*s_net, cfg);
    std::uint32_t first = cfg.pedestrians;
    for (const crowd::ShepherdGroup& g : s_shepherds->groups)
      first += static_cast<std::uint32_t>(g.members.size());
    const auto& walkers = s_shepherds->walkers;
    ASSERT_EQ(people->size(), first + walkers.size());
    // The viewer stands by the first walker, looking the way it walks.
    const PedestrianView w0 = people->view(first);
    people->set_viewer(eye(Vec2{w0.position.x, w0.position.y} -
                               Vec2{std::cos(w0.heading_rad), std::sin(w0.heading_rad)} * 4.0,
                           w0.heading_rad * 180.0 / kPi));
    const crowd::WalkNetwork& walk = people->walk_network();
    std::array<std::uint64_t, crowd::kLods> seen{};
    std::uint64_t mismatches = 0;
    std::string what;
    const int ticks = lod ? 900 : 150;
    for (int t = 1; t <= ticks; ++t) {
      people->tick();
      const double time = static_cast<double>(t) * cfg.dt_s;  // As the crowd's clock.
      for (std::uint32_t w = 0; w < walkers.size(); ++w) {
        const PedestrianView v = people->view(first + w);
        const crowd::WanderingMember& m = walkers[w];
        const crowd::WanderingPose p = crowd::member_at(walk, s_shepherds->paths[m.path], m, time);
        seen[static_cast<std::size_t>(v.lod)] += 1;
        const bool same =
            v.lane == p.at.lane && v.dir == p.at.dir &&
            std::bit_cast<std::uint32_t>(v.s_m) == std::bit_cast<std::uint32_t>(p.at.s_m) &&
            std::bit_cast<std::uint32_t>(v.lateral_m) ==
                std::bit_cast<std::uint32_t>(p.lateral_m) &&
            (v.flags & crowd::kPedWandering) != 0U;
        if (!same && mismatches++ == 0) {
          std::ostringstream o;
          o << "tick " << t << " walker " << w << ": " << describe(v) << "; its path says lane "
            << p.at.lane << " s " << p.at.s_m << " dir " << int{p.at.dir} << " lateral "
            << p.lateral_m;
          what = o.str();
        }
      }
    }
    EXPECT_EQ(mismatches, 0U) << what;
    if (lod) {
      EXPECT_GT(seen[0] + seen[1], 0U);
      EXPECT_GT(seen[2], 0U);
      EXPECT_GT(seen[3], 0U);
      std::printf(
          "[ info ] walker-ticks at high %llu, medium %llu, low %llu, off %llu\n",
          static_cast<unsigned long long>(seen[0]), static_cast<unsigned long long>(seen[1]),
          static_cast<unsigned long long>(seen[2]), static_cast<unsigned long long>(seen[3]));
    }
  }
}

// 5. An event at a busy downtown point: everyone within its radius flees and, 5 s later, is
// farther from it (but for a few: a lane following the block may bend back past the event's
// side, and a dead end turns an agent round; at most 5%), the mean distance up by 5 m or more.
// The viewer stands by the event and spins, so fleeing agents change levels mid-flee: they
// must go on fleeing.
TEST_F(CrowdCity, FleeMovesAgentsAwayAndSurvivesLevelChanges) {
  const float dt = 1.0f / 30.0f;
  const crowd::Config cfg = config(10000, dt, true);
  auto people = make(*s_net, cfg);
  crowd::Event e;
  e.time_s = 5.0;
  e.radius_m = 30.0f;
  e.duration_s = 20.0f;
  crowd::Viewer v;
  const auto spin = [&](double t) {
    v.yaw_rad = 2 * kPi * t / 3.0;  // A turn every 3 s.
    people->set_viewer(v);
  };
  v = eye(kDowntown, 0);
  std::vector<PedestrianView> before;
  while (people->time_s() + dt + 1e-9 < e.time_s) {
    spin(people->time_s() + dt);
    people->tick();
  }
  // The busy point: the roaming pedestrian (500 m or less from downtown) with the most roaming
  // pedestrians within the radius. The event is scheduled for the next tick.
  before = people->views();
  std::size_t most = 0;
  for (const PedestrianView& p : before) {
    const Vec2 at{p.position.x, p.position.y};
    if (p.id >= cfg.pedestrians || distance(at, kDowntown) > 500) continue;
    std::size_t n = 0;
    for (std::uint32_t q = 0; q < cfg.pedestrians; ++q) {
      n += distance(Vec2{before[q].position.x, before[q].position.y}, at) < e.radius_m ? 1 : 0;
    }
    if (n > most) most = n, e.position = at;
  }
  people->add_event(e);
  v = eye(e.position + Vec2{-15, 0}, 0);
  spin(people->time_s() + dt);
  people->tick();
  ASSERT_GE(people->time_s() + 1e-9, e.time_s);
  const auto from_event = [&](const PedestrianView& p) {
    return distance(Vec2{p.position.x, p.position.y}, e.position);
  };
  std::vector<PedestrianView> prev = people->views();
  std::vector<std::uint32_t> fleeing;
  for (const PedestrianView& p : prev) {
    const double d = from_event(before[p.id]);
    if (p.behaviour == Behaviour::flee) {
      fleeing.push_back(p.id);
      EXPECT_LE(d, e.radius_m + 0.2) << describe(p);
    } else {
      EXPECT_GT(d, e.radius_m - 0.2) << "inside the radius and not fleeing: " << describe(p);
    }
  }
  ASSERT_GE(fleeing.size(), 20U) << "the event point is not busy";
  EXPECT_EQ(people->stats().flee_reactions, fleeing.size());
  std::uint64_t switches = 0, stopped = 0;
  std::string what;
  const int ticks = static_cast<int>(std::lround(5.0 / dt));
  for (int t = 1; t <= ticks; ++t) {
    spin(people->time_s() + dt);
    people->tick();
    for (const std::uint32_t id : fleeing) {
      const PedestrianView p = people->view(id);
      if (p.lod != prev[id].lod) ++switches;
      if (p.behaviour != Behaviour::flee && stopped++ == 0) {
        what = "tick " + std::to_string(t) + " after the event, was " +
               crowd::to_string(prev[id].lod) + ": " + describe(p);
      }
      prev[id] = p;
    }
  }
  EXPECT_EQ(stopped, 0U) << what;
  EXPECT_GT(switches, 0U) << "no fleeing agent changed level: the check saw nothing";
  std::size_t closer = 0;
  double gained = 0;
  std::string closer_what;
  for (const std::uint32_t id : fleeing) {
    const double d0 = from_event(before[id]);
    const double d1 = from_event(prev[id]);
    gained += d1 - d0;
    if (d1 <= d0) {
      ++closer;
      if (closer_what.empty()) {
        closer_what = describe(before[id]) + " -> " + describe(prev[id]);
      }
    }
  }
  const double mean = gained / static_cast<double>(fleeing.size());
  std::printf(
      "[ info ] %zu fled, %llu level changes while fleeing, %zu not farther after 5 s, "
      "mean distance +%.1f m\n",
      fleeing.size(), static_cast<unsigned long long>(switches), closer, mean);
  EXPECT_LE(static_cast<double>(closer), 0.05 * static_cast<double>(fleeing.size())) << closer_what;
  EXPECT_GE(mean, 5.0);
}

// 6. Same seed, same state hash with 1 and 2 threads: LOD on with a moving viewer and an
// event, and LOD off; 30 s each. Another seed, another hash.
TEST_F(CrowdCity, SameSeedSameHashWithOneAndTwoThreads) {
  const crowd::Viewer start = eye(kDowntown, 0);
  for (const bool lod : {true, false}) {
    SCOPED_TRACE(lod ? "LOD on" : "LOD off");
    const auto run = [&](int threads, Seed seed) {
      tbb::global_control limit(tbb::global_control::max_allowed_parallelism,
                                static_cast<std::size_t>(threads));
      auto people = make(*s_net, config(lod ? 4000 : 1500, 1.0f / 30.0f, lod), seed);
      crowd::Event e;
      e.position = kDowntown + Vec2{20, 10};
      e.time_s = 10.0;
      people->add_event(e);
      for (int t = 1; t <= 900; ++t) {
        crowd::Viewer v = start;
        v.position.x += 0.1 * t;
        v.yaw_rad = 0.01 * t;
        people->set_viewer(v);
        people->tick();
      }
      EXPECT_GT(people->stats().flee_reactions, 0U);
      EXPECT_GT(people->stats().lane_transitions, 0U);
      if (lod) {
        EXPECT_GT(people->stats().lod_changes, 0U);
      }
      return people->state_hash();
    };
    const std::uint64_t one = run(1, 9);
    EXPECT_EQ(one, run(2, 9));
    EXPECT_NE(one, run(2, 10)) << "the seed must matter";
  }
}

// 7. `cityforge simulate` with bad crowd inputs: exit 2, a message naming the option or the
// file and place and what was expected, and nothing written.
TEST_F(CrowdCity, SimulateRejectsBadCrowdInputsAndWritesNothing) {
  const auto nothing_written = [](const fs::path& d) {
    EXPECT_FALSE(fs::exists(d / "traffic.cfrec"));
    EXPECT_FALSE(fs::exists(d / "sim_stats.json"));
    for (const auto& f : fs::directory_iterator(d)) {
      EXPECT_EQ(f.path().string().find(".tmp"), std::string::npos) << f.path();
    }
  };
  const auto expect_bad = [&](const fs::path& d, const std::string& args,
                              const std::vector<std::string>& needles) {
    SCOPED_TRACE(args);
    const auto r =
        run_cli("simulate " + d.string() + " --seconds 2 --vehicles 10 --pedestrians 50 " + args);
    EXPECT_EQ(r.exit_code, 2) << r.output;
    for (const std::string& n : needles)
      EXPECT_NE(r.output.find(n), std::string::npos) << "'" << n << "' in: " << r.output;
    nothing_written(d);
  };
  const fs::path& dir = *s_dir;
  expect_bad(dir, "--viewer 1,2,3", {"--viewer 1,2,3", "x,y,z,yaw"});
  expect_bad(dir, "--viewer 1,2,3,east", {"--viewer", "four numbers"});
  expect_bad(dir, "--event boom@1,2,3", {"--event boom@1,2,3", "flee@x,y,t"});
  expect_bad(dir, "--event flee@1,2", {"--event flee@1,2", "flee@x,y,t"});
  expect_bad(dir, "--event flee@1,2,3,-5", {"--event", "radius"});
  // A viewer file with a bad line (comments and blank lines count as lines).
  const fs::path views = clitest::temp_dir("crowd_viewer");
  std::ofstream(views / "path.txt") << "# t x y z yaw\n0 1125 1039 0 30\n\n5 1130 oops 0 30\n";
  expect_bad(dir, "--viewer " + (views / "path.txt").string(),
             {(views / "path.txt").string() + ":4", "five numbers"});
  std::ofstream(views / "back.txt") << "0 1125 1039 0 30\n0 1130 1039 0 30\n";
  expect_bad(dir, "--viewer " + (views / "back.txt").string(),
             {(views / "back.txt").string() + ":2", "increase"});
  fs::remove_all(views);
  // A bad shepherds.json next to good lanes: a member on a vehicle lane, a walker on a path
  // that does not exist.
  LaneId vehicle = 0;
  while (!s_net->is(vehicle, roads::kVehicle))
    ++vehicle;
  const auto bad_shepherds = [&](const std::function<void(nlohmann::json&)>& edit,
                                 const std::vector<std::string>& needles) {
    const fs::path d = clitest::temp_dir("crowd_badshep");
    fs::create_symlink(dir / "lanes.json", d / "lanes.json");
    fs::create_directory_symlink(dir / "points", d / "points");
    nlohmann::json j = nlohmann::json::parse(clitest::slurp(dir / "shepherds.json"));
    edit(j);
    std::ofstream(d / "shepherds.json") << j.dump(1);
    expect_bad(d, "", needles);
    fs::remove_all(d);
  };
  bad_shepherds([&](nlohmann::json& j) { j["groups"][0]["members"][0]["lane"] = vehicle; },
                {"shepherds.json", "groups[0].members[0].lane", std::to_string(vehicle)});
  bad_shepherds([&](nlohmann::json& j) { j["wandering"]["members"][3]["path"] = 999; },
                {"shepherds.json", "wandering.members[3].path"});
}

// 8. A good run with a viewer path and an event at a busy point: sim_stats.json reports the
// crowd (pedestrians, updates per second, agents per level within the budgets, flee
// reactions) and the recording is written.
TEST_F(CrowdCity, SimulateReportsTheCrowd) {
  const crowd::Viewer v = eye(kDowntown, 30);
  const fs::path& dir = *s_dir;
  std::ofstream(dir / "viewer.txt")
      << "# t x y z yaw\n0 " << v.position.x << " " << v.position.y << " " << v.position.z
      << " 30\n8 " << v.position.x + 40 << " " << v.position.y << " " << v.position.z << " 120\n";
  std::ostringstream args;
  args << "simulate " << dir.string() << " --seconds 12 --vehicles 100 --pedestrians 3000 "
       << "--threads 2 -q --viewer " << (dir / "viewer.txt").string() << " --event flee@"
       << kDowntown.x << "," << kDowntown.y << ",4";
  const auto r = run_cli(args.str());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(fs::exists(dir / "traffic.cfrec"));
  for (const auto& f : fs::directory_iterator(dir))
    EXPECT_EQ(f.path().string().find(".tmp"), std::string::npos) << f.path();
  const auto stats = nlohmann::json::parse(clitest::slurp(dir / "sim_stats.json"));
  ASSERT_TRUE(stats.contains("crowd")) << stats.dump(1);
  const auto& c = stats["crowd"];
  std::size_t members = s_shepherds->walkers.size();
  for (const crowd::ShepherdGroup& g : s_shepherds->groups)
    members += g.members.size();
  EXPECT_EQ(c["pedestrians"].get<std::size_t>(), 3000 + members);
  EXPECT_GT(c["pedestrian_updates_per_s"].get<double>(), 0.0);
  ASSERT_TRUE(c.contains("per_lod"));
  std::size_t total = 0;
  for (const char* k : {"high", "medium", "low", "off"}) {
    ASSERT_TRUE(c["per_lod"].contains(k)) << k;
    total += c["per_lod"][k].get<std::size_t>();
  }
  EXPECT_EQ(total, 3000 + members);
  EXPECT_GT(c["per_lod_max"]["high"].get<int>() + c["per_lod_max"]["medium"].get<int>(), 0);
  EXPECT_LE(c["per_lod_max"]["high"].get<int>(), 10);
  EXPECT_LE(c["per_lod_max"]["medium"].get<int>(), 20);
  EXPECT_LE(c["per_lod_max"]["low"].get<int>(), 500);
  EXPECT_GT(c["flee_reactions"].get<int>(), 0) << c.dump(1);
}

}  // namespace
