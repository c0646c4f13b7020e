// SPDX-License-Identifier: Apache-2.0
// `cityforge import` through the stages (issue 9): real OSM extracts (tests/data, © OpenStreetMap
// contributors, ODbL) with and without a DEM. Checks what the issue accepts on: counts against
// the input's census, buildings with heights and roofs standing on the terrain, roads on the
// terrain they cut, signals from mapped nodes, determinism; a DEM in pieces (issue 23) gives the
// whole file's terrain, and the terrain stage's key covers every piece.
#include "cityforge/pipeline/import_city.hpp"

#include <gtest/gtest.h>
#include <tbb/global_control.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "cityforge/core/geodesy.hpp"
#include "cityforge/pipeline/city_pipeline.hpp"
#include "cityforge/pipeline/default_city.hpp"
#include "cityforge/roads/roads.hpp"
#include "facade_rays.hpp"
#include "osm/dem_pieces.hpp"

namespace cityforge::pipeline {
namespace {

std::string data(const std::string& rel) { return std::string(CITYFORGE_TEST_DATA) + "/" + rel; }

ImportSettings settings_for(const std::string& osm, const std::string& dem = "",
                            std::optional<osm::GeoBox> bbox = std::nullopt) {
  ImportSettings s;
  s.osm_path = data(osm);
  if (!dem.empty()) s.dem_paths = {data(dem)};
  s.bbox = bbox;
  auto cfg = parse_city_config(default_city_json(), "<built-in>");
  EXPECT_TRUE(cfg.ok());
  s.rules = *cfg;
  return s;
}

/// Height of the terrain mesh (two triangles per cell, split along (i,j)-(i+1,j+1), as
/// terrain::mesh_chunks draws it) at p.
double mesh_height(const terrain::Heightfield& hf, Vec2 p) {
  const double fx = std::clamp((p.x - hf.origin.x) / hf.cell_m, 0.0, hf.nx - 1.000001);
  const double fy = std::clamp((p.y - hf.origin.y) / hf.cell_m, 0.0, hf.ny - 1.000001);
  const auto i = static_cast<std::uint32_t>(fx);
  const auto j = static_cast<std::uint32_t>(fy);
  const double u = fx - i;
  const double v = fy - j;
  const double h00 = hf.at(i, j), h10 = hf.at(i + 1, j), h01 = hf.at(i, j + 1),
               h11 = hf.at(i + 1, j + 1);
  if (u >= v) return h00 + u * (h10 - h00) + v * (h11 - h10);
  return h00 + v * (h01 - h00) + u * (h11 - h01);
}

/// One import per suite, shared by its tests.
struct Imported {
  std::unique_ptr<ImportResult> result;
  std::string error;
};

Imported run_import(const ImportSettings& s, int threads = 2) {
  tbb::global_control limit(tbb::global_control::max_allowed_parallelism, threads);
  Imported out;
  Result<ImportResult> r = import_city(s);
  if (r) {
    out.result = std::make_unique<ImportResult>(std::move(*r));
  } else {
    out.error = r.error().to_string();
  }
  return out;
}

class ManhattanImport : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    s_city = run_import(settings_for("osm/manhattan_west_village.osm.pbf"));
  }
  static void TearDownTestSuite() { s_city.result.reset(); }
  static Imported s_city;
};
Imported ManhattanImport::s_city;

TEST_F(ManhattanImport, BuildingsMatchTheCensusAndHaveHeightsAndRoofs) {
  ASSERT_TRUE(s_city.result) << s_city.error;
  const ImportResult& r = *s_city.result;
  const osm::BuildingCensus& c = r.report.buildings;
  std::printf(
      "[ census   ] manhattan: %zu building areas, %zu parts, %zu buildings, %zu parts used, "
      "%zu invalid, %zu tiny, %zu tagged heights, %zu drawn\n",
      c.building_areas, c.part_areas, c.buildings, c.parts_used, c.skipped_invalid, c.skipped_tiny,
      c.heights_tagged, c.heights_drawn);
  // The documented rule (docs/import.md): every building area inside the bounds is a building
  // or a counted skip.
  EXPECT_EQ(c.building_areas, c.buildings + c.skipped_invalid + c.skipped_tiny);
  // SOURCES.md: 1,520 building ways + 5 relations in the file; most lie inside the bounds.
  EXPECT_GT(c.buildings, 300U);
  EXPECT_EQ(r.city.buildings->buildings.size(), c.buildings);
  EXPECT_EQ(c.heights_tagged + c.heights_drawn, c.buildings);
  EXPECT_GT(c.heights_tagged, c.buildings / 2) << "NYC buildings nearly all carry a height";
  for (const buildings::Building& b : r.city.buildings->buildings) {
    EXPECT_GT(b.height_m, 0.0) << "building " << b.id;
    std::size_t roof_triangles = 0;
    for (const Mesh& m : r.city.buildings->roofs[b.id])
      roof_triangles += m.triangle_count();
    EXPECT_GT(roof_triangles, 0U) << "building " << b.id << " has no roof";
  }
}

// Issue 30: occlusion on real footprints (row houses sharing mapped walls, buildings of several
// parts, walls at any angle) hides nothing a pedestrian can see (facade_rays.hpp).
TEST_F(ManhattanImport, NoRemovedModuleIsVisibleFromTheSidewalks) {
  ASSERT_TRUE(s_city.result) << s_city.error;
  const CityResult& c = s_city.result->city;
  Result<CityConfig> rules = parse_city_config(default_city_json(), "<built-in>");
  ASSERT_TRUE(rules.ok());
  buildings::Config cfg = rules->buildings.generator;
  cfg.keep_facade_spans = true;
  auto out = buildings::run(*c.lots, *c.styles, rules->buildings.tag_volumes, *c.terrain, cfg,
                            rules->seed);
  ASSERT_TRUE(out.ok()) << out.error().to_string();
  const Visibility v =
      check_visibility(*out, c.roads->sidewalks, *c.terrain, cfg.occlusion_push_m, 60.0, 20);
  std::printf(
      "[ occluded ] manhattan: %zu removed modules (every 20th checked), %zu eyes (of %zu on "
      "sidewalks, the rest inside mapped buildings), %zu removed seen, %zu of %zu street "
      "modules seen\n",
      v.removed, v.eyes, v.eyes_total, v.seen, v.near_seen, v.near);
  ASSERT_GT(v.removed, 1000U) << "row houses share walls";
  for (const std::string& e : v.examples)
    ADD_FAILURE() << e;
  EXPECT_EQ(v.seen, 0U) << "of " << v.removed << " removed modules";
  ASSERT_GT(v.near, 100U);
  EXPECT_GT(v.near_seen, v.near * 9 / 10) << "street-facing ground-floor modules it should see";
}

TEST_F(ManhattanImport, RoadsAndSignalsMatchTheCensus) {
  ASSERT_TRUE(s_city.result) << s_city.error;
  const ImportResult& r = *s_city.result;
  const osm::RoadCensus& c = r.report.roads;
  std::printf(
      "[ census   ] manhattan: %zu highway ways: %zu roads, %zu paths, %zu skipped, %zu "
      "tunnels; %zu edges; signals %zu nodes -> %zu junctions; crossings %zu -> %zu\n",
      c.highway_ways, c.vehicle_ways, c.path_ways, c.skipped_ways, c.tunnel_ways, c.edges,
      c.signal_nodes, c.signals_mapped, c.crossing_nodes, c.crossings_mapped);
  EXPECT_EQ(c.highway_ways, c.vehicle_ways + c.path_ways + c.skipped_ways);
  EXPECT_EQ(c.edges, r.city.layout->network.edges.size());
  EXPECT_GE(c.edges, c.vehicle_ways);
  std::size_t signalised = 0;
  for (const roads::Intersection& x : r.city.roads->intersections)
    signalised += x.control == roads::Control::signal ? 1 : 0;
  EXPECT_GT(c.signal_nodes, 0U);
  EXPECT_GT(c.signals_mapped, 0U);
  EXPECT_EQ(signalised, c.signals_mapped) << "every mapped signal and only those signal a junction";
  EXPECT_EQ(r.city.roads->lanes.signals.size(), signalised);
}

TEST_F(ManhattanImport, BuildingsStandOnTheTerrain) {
  ASSERT_TRUE(s_city.result) << s_city.error;
  const ImportResult& r = *s_city.result;
  const terrain::Heightfield& hf = *r.city.terrain;
  for (const buildings::Building& b : r.city.buildings->buildings) {
    double lowest = 1e300;
    for (const buildings::Volume& v : b.volumes) {
      if (v.z0_m > 0.0) continue;  // parts on top of others (towers on a roof)
      for (const Vec2& p : v.footprint.outer)
        lowest = std::min(lowest, mesh_height(hf, p));
    }
    if (lowest > 1e299) continue;
    EXPECT_LE(std::abs(b.base_z_m - lowest), 0.5) << "building " << b.id;
  }
}

// Readers without PROJ (crowd files, the viewer) map layout.geojson's WGS84 back with the series
// of core/geodesy.hpp: it must agree with PROJ's transverse Mercator at city scale.
TEST(ImportFrame, SeriesApproximationAgreesWithProj) {
  for (const auto& [lon0, lat0] : {std::pair{-74.0066, 40.736}, std::pair{1.60, 42.54},
                                   std::pair{11.576, 48.137}, std::pair{-2.098, 57.151}}) {
    Result<osm::Projection> p = osm::Projection::around(lon0, lat0);
    ASSERT_TRUE(p.ok()) << p.error().to_string();
    for (const double dx : {-0.12, -0.03, 0.0, 0.05, 0.12}) {
      for (const double dy : {-0.1, -0.02, 0.03, 0.1}) {
        const Vec2 exact = p->to_local(lon0 + dx, lat0 + dy);
        const Vec2 approx = wgs84_to_local_approx(lon0 + dx, lat0 + dy, lon0, lat0);
        const double km = std::hypot(exact.x, exact.y) / 1000.0;
        // Millimetres within 10 km, centimetres at the 15 km corners.
        EXPECT_LT(std::hypot(exact.x - approx.x, exact.y - approx.y), km < 10.0 ? 0.01 : 0.05)
            << lon0 << "," << lat0 << " +" << dx << "," << dy << " at " << km << " km";
      }
    }
  }
}

TEST(ImportDeterminism, SameInputSameCityAtAnyThreadCount) {
  const ImportSettings s = settings_for("osm/aberdeen_centre.osm");
  const Imported a = run_import(s, 1);
  const Imported b = run_import(s, 2);
  ASSERT_TRUE(a.result) << a.error;
  ASSERT_TRUE(b.result) << b.error;
  const CityResult& x = a.result->city;
  const CityResult& y = b.result->city;
  ASSERT_EQ(x.layout->network.edges.size(), y.layout->network.edges.size());
  for (std::size_t i = 0; i < x.layout->network.edges.size(); ++i)
    ASSERT_EQ(x.layout->network.edges[i].points, y.layout->network.edges[i].points) << i;
  ASSERT_EQ(x.roads->lanes.lanes.size(), y.roads->lanes.lanes.size());
  ASSERT_EQ(x.buildings->instances.size(), y.buildings->instances.size());
  for (std::size_t i = 0; i < x.buildings->instances.size(); ++i) {
    ASSERT_EQ(x.buildings->instances[i].position, y.buildings->instances[i].position) << i;
    ASSERT_EQ(x.buildings->instances[i].module, y.buildings->instances[i].module) << i;
  }
  ASSERT_EQ(x.dressing->items.size(), y.dressing->items.size());
  for (std::size_t i = 0; i < x.dressing->items.size(); ++i)
    ASSERT_EQ(x.dressing->items[i].position, y.dressing->items[i].position) << i;
}

// Andorra la Vella and Escaldes on SRTM: steep valley sides.
class AndorraImport : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    s_city = run_import(settings_for("osm/andorra.osm.pbf", "dem/andorra_srtm3.tif",
                                     osm::GeoBox{1.515, 42.500, 1.545, 42.515}));
  }
  static void TearDownTestSuite() { s_city.result.reset(); }
  static Imported s_city;
};
Imported AndorraImport::s_city;

TEST_F(AndorraImport, RoadSurfacesStayOnTheTerrainTheyCut) {
  ASSERT_TRUE(s_city.result) << s_city.error;
  const ImportResult& r = *s_city.result;
  ASSERT_TRUE(r.report.dem.has_value());
  const terrain::Heightfield& hf = *r.city.terrain;
  const layout::Output& city = *r.city.layout;
  const roads::Output& rd = *r.city.roads;
  const roads::Config cfg = settings_for("osm/andorra.osm.pbf").rules.roads;
  double worst = 0.0;
  std::size_t samples = 0;
  std::size_t over = 0;
  for (std::uint32_t s = 0; s < rd.sections.size(); ++s) {
    const layout::RoadEdge& e = city.network.edges[rd.sections[s].edge];
    if (e.tunnel || e.bridge) continue;
    double length = 0.0;
    const Polyline& c = rd.sections[s].centre;
    for (std::size_t k = 1; k < c.size(); ++k)
      length += std::hypot(c[k].x - c[k - 1].x, c[k].y - c[k - 1].y);
    const double half = e.width_m / 2.0;
    for (double at = 0.0; at <= length; at += 2.0) {
      for (const double lateral : {-0.9 * half, 0.0, 0.9 * half}) {
        const Vec2 p = roads::section_point(rd, s, lateral, at);
        const double road = roads::road_surface_z(city, rd, hf, cfg, s, lateral, at);
        const double diff = road - mesh_height(hf, p);
        worst = std::max(worst, std::abs(diff));
        over += std::abs(diff) > 0.2 ? 1 : 0;
        ++samples;
      }
    }
  }
  std::printf(
      "[ terrain  ] andorra la vella: %zu road surface samples, worst |road - terrain| "
      "%.3f m, %zu over 0.2 m; cut %.1f m, fill %.1f m, %zu samples changed\n",
      samples, worst, over, r.report.condition.max_cut_m, r.report.condition.max_fill_m,
      r.report.condition.samples_changed);
  EXPECT_GT(samples, 1000U);
  EXPECT_EQ(over, 0U) << "worst " << worst << " m";
  EXPECT_GT(r.report.condition.samples_changed, 0U);
}

TEST_F(AndorraImport, TerrainIsTheValleyAndBuildingsStandOnIt) {
  ASSERT_TRUE(s_city.result) << s_city.error;
  const ImportResult& r = *s_city.result;
  const terrain::Heightfield& hf = *r.city.terrain;
  const auto [lo, hi] = std::minmax_element(hf.heights.begin(), hf.heights.end());
  // SOURCES.md: the crop spans the valley floor (~1,000 m) and its slopes.
  EXPECT_GT(*lo, 900.0F);
  EXPECT_LT(*hi, 2400.0F);
  EXPECT_GT(*hi - *lo, 200.0F);
  ASSERT_GT(r.city.buildings->buildings.size(), 100U);
  for (const buildings::Building& b : r.city.buildings->buildings) {
    double lowest = 1e300;
    for (const buildings::Volume& v : b.volumes) {
      if (v.z0_m > 0.0) continue;
      for (const Vec2& p : v.footprint.outer)
        lowest = std::min(lowest, mesh_height(hf, p));
    }
    if (lowest > 1e299) continue;
    EXPECT_LE(std::abs(b.base_z_m - lowest), 0.5) << "building " << b.id;
    EXPECT_GT(b.height_m, 0.0);
  }
}

TEST(ImportErrors, ADemThatDoesNotCoverTheBoundsIsAnError) {
  const Imported r = run_import(
      settings_for("osm/manhattan_west_village.osm.pbf", "dem/andorra_la_vella_srtm3.asc"));
  ASSERT_FALSE(r.result);
  EXPECT_NE(r.error.find("andorra_la_vella_srtm3.asc"), std::string::npos) << r.error;
}

TEST(ImportErrors, ABoxWithNothingInItIsAnError) {
  const Imported r = run_import(
      settings_for("osm/aberdeen_centre.osm", "", osm::GeoBox{10.0, 10.0, 10.01, 10.01}));
  ASSERT_FALSE(r.result);
  EXPECT_NE(r.error.find("aberdeen_centre.osm"), std::string::npos) << r.error;
}

// ---- The DEM in pieces (issue 23) ---------------------------------------------------------------

namespace fs = std::filesystem;

/// A 1 x 0.8 km box in Andorra la Vella and the GeoTIFF cut in four at a point inside it (GDAL,
/// at test time), so the box takes its heights from every piece.
const osm::GeoBox kLaVella{1.518, 42.503, 1.530, 42.510};
std::vector<std::string> cut_andorra(const fs::path& dir,
                                     const std::vector<std::string>& extra = {}) {
  // Column 149 is at 1.5237 E, row 185 at 42.5063 N.
  return testing_dem::cut_dem(data("dem/andorra_srtm3.tif"), dir, {149}, {185}, extra);
}
fs::path fresh_dir(const std::string& name) {
  const fs::path dir = fs::path(testing::TempDir()) / ("cityforge_import_dem_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

TEST(ImportDemPieces, GiveTheWholeFilesTerrainInAnyOrderOrAsAFolder) {
  const fs::path dir = fresh_dir("pieces");
  const std::vector<std::string> pieces = cut_andorra(dir);
  ASSERT_EQ(pieces.size(), 4u);
  const Imported whole =
      run_import(settings_for("osm/andorra.osm.pbf", "dem/andorra_srtm3.tif", kLaVella));
  ASSERT_TRUE(whole.result) << whole.error;
  ImportSettings shuffled = settings_for("osm/andorra.osm.pbf", "", kLaVella);
  shuffled.dem_paths = {pieces[3], pieces[1], pieces[0], pieces[2]};
  ImportSettings folder = settings_for("osm/andorra.osm.pbf", "", kLaVella);
  folder.dem_paths = {dir.string()};
  for (const ImportSettings& s : {shuffled, folder}) {
    const Imported tiled = run_import(s);
    ASSERT_TRUE(tiled.result) << tiled.error;
    const ImportResult& a = *whole.result;
    const ImportResult& b = *tiled.result;
    // The heights (cut and filled under the roads) and everything standing on them.
    EXPECT_EQ(a.city.terrain->nx, b.city.terrain->nx);
    EXPECT_EQ(a.city.terrain->ny, b.city.terrain->ny);
    EXPECT_TRUE(a.city.terrain->heights == b.city.terrain->heights) << s.dem_paths.front();
    ASSERT_TRUE(a.report.dem && b.report.dem);
    EXPECT_EQ(a.report.dem->min_m, b.report.dem->min_m);
    EXPECT_EQ(a.report.dem->max_m, b.report.dem->max_m);
    EXPECT_EQ(a.report.dem->voids_filled, b.report.dem->voids_filled);
    EXPECT_EQ(b.report.dem->driver, "GTiff");
    ASSERT_EQ(a.city.buildings->buildings.size(), b.city.buildings->buildings.size());
    for (std::size_t i = 0; i < a.city.buildings->buildings.size(); ++i)
      ASSERT_EQ(a.city.buildings->buildings[i].base_z_m, b.city.buildings->buildings[i].base_z_m)
          << i;
  }
  fs::remove_all(dir);
}

TEST(ImportDemPieces, TheTerrainKeyCoversEveryPiecesPathSizeAndTime) {
  const fs::path dir = fresh_dir("key");
  std::vector<std::string> pieces = cut_andorra(dir);
  ASSERT_EQ(pieces.size(), 4u);
  tbb::global_control limit(tbb::global_control::max_allowed_parallelism, 2);
  CityPipeline pipe;
  ImportSettings s = settings_for("osm/andorra.osm.pbf", "", kLaVella);
  s.dem_paths = pieces;
  auto import = [&](const char* what) {
    Result<ImportResult> r = pipe.import(s);
    EXPECT_TRUE(r.ok()) << what << ": " << (r ? std::string() : r.error().to_string());
    return pipe.executions("terrain");
  };
  EXPECT_EQ(import("first"), 1u);
  // The same pieces in another order: the same key.
  s.dem_paths = {pieces[2], pieces[0], pieces[3], pieces[1]};
  EXPECT_EQ(import("reordered"), 1u);
  // One piece touched.
  const fs::file_time_type t = fs::last_write_time(pieces[1]);
  fs::last_write_time(pieces[1], t + std::chrono::seconds(10));
  EXPECT_EQ(import("touched"), 2u);
  // One piece rewritten to another size (compressed), its time put back.
  const fs::path deflated = dir / "deflated";
  fs::create_directories(deflated);
  const std::vector<std::string> again = cut_andorra(deflated, {"-co", "COMPRESS=DEFLATE"});
  ASSERT_EQ(again.size(), 4u);
  const fs::file_time_type t2 = fs::last_write_time(pieces[2]);
  const auto size = fs::file_size(pieces[2]);
  fs::copy_file(again[2], pieces[2], fs::copy_options::overwrite_existing);
  fs::last_write_time(pieces[2], t2);
  ASSERT_NE(fs::file_size(pieces[2]), size);
  EXPECT_EQ(import("resized"), 3u);
  // One piece from another path.
  s.dem_paths = {pieces[0], pieces[1], pieces[2], again[3]};
  EXPECT_EQ(import("moved"), 4u);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace cityforge::pipeline
