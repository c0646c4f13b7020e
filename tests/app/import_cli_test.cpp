// SPDX-License-Identifier: Apache-2.0
// `cityforge import` end to end (issue 9): every sample extract imports (tests/data; ©
// OpenStreetMap contributors, ODbL), outputs carry the attribution and the WGS84 origin,
// layout.geojson is in WGS84, city.glb validates, the SUMO network runs for 600 s, same input gives
// the same bytes, and each bad input of the issue gives a clear message, a non-zero exit and no
// output. A DEM in tiles (issue 23: --dem repeated, or a folder) gives the whole file's bytes.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <vector>

#include "app/cli_run.hpp"
#include "osm/dem_pieces.hpp"

namespace fs = std::filesystem;
using namespace cityforge::clitest;

namespace {

std::string data(const std::string& rel) { return std::string(CITYFORGE_TEST_DATA) + "/" + rel; }

void write(const fs::path& p, const std::string& text) {
  std::ofstream f(p, std::ios::binary);
  f << text;
}

/// Validates an OpenDRIVE 1.4 map against the ASAM XSD (xmllint); "" when it validates or the
/// offline schemas / xmllint are missing (then `skipped` is set), else xmllint's complaint.
std::string xodr_xsd_errors(const fs::path& xodr, bool* skipped) {
  const fs::path xsd = fs::path(CITYFORGE_SOURCE_DIR) / ".." / "shared" / "schemas" / "opendrive" /
                       "1.4" / "OpenDRIVE_1.4H.xsd";
  *skipped = !fs::exists(xsd) || run_command("command -v xmllint >/dev/null").exit_code != 0;
  if (*skipped) return "";
  const CliRun v =
      run_command("xmllint --noout --schema '" + xsd.string() + "' '" + xodr.string() + "' 2>&1");
  return v.exit_code == 0 ? "" : v.output.substr(0, 2000);
}

bool have_sumo() {
  return run_command("command -v netconvert >/dev/null && command -v sumo >/dev/null").exit_code ==
         0;
}

// The West Village (smallest sample) imported once for the suite, with SUMO conversion.
class ManhattanCli : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    s_dir = temp_dir("import_nyc");
    s_run = run_cli("import " + data("osm/manhattan_west_village.osm.pbf") + " -q --threads 1 -o " +
                    (s_dir / "a").string());
    s_run2 = run_cli("import " + data("osm/manhattan_west_village.osm.pbf") +
                     " -q --no-sumo --threads 2 -o " + (s_dir / "b").string());
  }
  static void TearDownTestSuite() {
    if (!::testing::Test::HasFailure()) fs::remove_all(s_dir);
  }
  static fs::path s_dir;
  static CliRun s_run;
  static CliRun s_run2;
};
fs::path ManhattanCli::s_dir;
CliRun ManhattanCli::s_run;
CliRun ManhattanCli::s_run2;

TEST_F(ManhattanCli, WritesEveryOutputWithTheAttributionAndOrigin) {
  ASSERT_EQ(s_run.exit_code, 0) << s_run.output;
  const fs::path d = s_dir / "a";
  for (const char* f :
       {"city.glb", "layout.geojson", "map.svg", "stats.json", "lanes.json",
        "points/road_modules.ply", "points/building_modules.ply", "sumo/city.nod.xml",
        "sumo/city.edg.xml", "sumo/city.con.xml", "opendrive/city.xodr", "opendrive/city.json"}) {
    EXPECT_TRUE(fs::exists(d / f)) << f;
  }
  // The OpenDRIVE map: valid, and carrying the local frame's PROJ definition.
  bool skipped = false;
  EXPECT_EQ(xodr_xsd_errors(d / "opendrive" / "city.xodr", &skipped), "");
  const std::string xodr = slurp(d / "opendrive" / "city.xodr");
  EXPECT_NE(xodr.find("<geoReference><![CDATA[+proj="), std::string::npos);

  const auto stats = nlohmann::json::parse(slurp(d / "stats.json"));
  ASSERT_TRUE(stats.contains("import")) << stats.dump();
  EXPECT_GT(stats["opendrive"]["junctions"].get<int>(), 10);
  const auto& im = stats["import"];
  EXPECT_EQ(im["attribution"], "\u00a9 OpenStreetMap contributors");
  EXPECT_NEAR(im["origin"]["lon_deg"].get<double>(), -74.0066, 0.01);
  EXPECT_NEAR(im["origin"]["lat_deg"].get<double>(), 40.736, 0.01);
  EXPECT_EQ(im["buildings"]["buildings"], stats["buildings"]["buildings"]);
  // city.glb's asset carries the credit and the origin.
  const std::string glb = slurp(d / "city.glb");
  EXPECT_NE(glb.find("OpenStreetMap contributors"), std::string::npos);
  EXPECT_NE(glb.find("cityforge_georeference"), std::string::npos);
  // layout.geojson is WGS84 (RFC 7946): every coordinate is a lon/lat near the West Village.
  const auto geo = nlohmann::json::parse(slurp(d / "layout.geojson"));
  EXPECT_EQ(geo["cityforge"]["attribution"], "\u00a9 OpenStreetMap contributors");
  std::size_t coords = 0;
  std::size_t roads = 0;
  for (const auto& f : geo["features"]) {
    const std::string layer = f["properties"]["layer"];
    roads += layer == "road" ? 1 : 0;
    const auto& g = f["geometry"];
    const auto check = [&](const nlohmann::json& pt) {
      ++coords;
      EXPECT_NEAR(pt[0].get<double>(), -74.005, 0.05) << f.dump();
      EXPECT_NEAR(pt[1].get<double>(), 40.737, 0.05) << f.dump();
    };
    if (g["type"] == "LineString") {
      for (const auto& pt : g["coordinates"])
        check(pt);
    } else if (g["type"] == "Polygon") {
      for (const auto& ring : g["coordinates"])
        for (const auto& pt : ring)
          check(pt);
    }
  }
  EXPECT_GT(coords, 1000U);
  EXPECT_EQ(roads, stats["counts"]["road_edges"].get<std::size_t>());
}

TEST_F(ManhattanCli, GlbPassesTheKhronosValidator) {
  ASSERT_EQ(s_run.exit_code, 0) << s_run.output;
  if (!validator_installed()) GTEST_SKIP() << "gltf-validator not installed: run `make validator`";
  const CliRun v = validate_glb(s_dir / "a" / "city.glb");
  EXPECT_EQ(v.exit_code, 0) << v.output;
}

TEST_F(ManhattanCli, SameInputSameBytesAtAnyThreadCount) {
  ASSERT_EQ(s_run.exit_code, 0) << s_run.output;
  ASSERT_EQ(s_run2.exit_code, 0) << s_run2.output;
  for (const char* f :
       {"city.glb", "layout.geojson", "map.svg", "lanes.json", "points/road_modules.ply",
        "points/building_modules.ply", "sumo/city.nod.xml", "sumo/city.edg.xml",
        "sumo/city.con.xml", "opendrive/city.xodr", "opendrive/city.json"}) {
    const std::string a = slurp(s_dir / "a" / f);
    EXPECT_FALSE(a.empty()) << f;
    EXPECT_TRUE(a == slurp(s_dir / "b" / f)) << f << " differs between 1 and 2 threads";
  }
}

// The real place runs in SUMO: netconvert's network, random trips between its edges, 600 s.
TEST_F(ManhattanCli, SumoNetworkRunsFor600Seconds) {
  ASSERT_EQ(s_run.exit_code, 0) << s_run.output;
  if (!have_sumo()) GTEST_SKIP() << "netconvert / sumo not installed (Debian package 'sumo')";
  const fs::path sumo = s_dir / "a" / "sumo";
  ASSERT_TRUE(fs::exists(sumo / "city.net.xml")) << s_run.output << slurp(sumo / "netconvert.log");
  // Edge ids of the network SUMO built (internal ":..." edges excluded).
  const std::string net = slurp(sumo / "city.net.xml");
  std::vector<std::string> edges;
  const std::regex edge_re("<edge id=\"(e[0-9]+[fb])\"");
  for (auto it = std::sregex_iterator(net.begin(), net.end(), edge_re);
       it != std::sregex_iterator(); ++it)
    edges.push_back((*it)[1]);
  ASSERT_GT(edges.size(), 20U);
  std::string trips = "<routes>\n";
  unsigned state = 12345;
  for (int i = 0; i < 200; ++i) {
    state = state * 1103515245U + 12345U;
    const std::string& from = edges[(state >> 8) % edges.size()];
    state = state * 1103515245U + 12345U;
    const std::string& to = edges[(state >> 8) % edges.size()];
    if (from == to) continue;
    trips += "  <trip id=\"t" + std::to_string(i) + "\" depart=\"" + std::to_string(i * 2) +
             "\" from=\"" + from + "\" to=\"" + to + "\"/>\n";
  }
  trips += "</routes>\n";
  write(s_dir / "trips.rou.xml", trips);
  const CliRun sim = run_command(
      "if [ -z \"${SUMO_HOME:-}\" ] && [ -d /usr/share/sumo ]; then export "
      "SUMO_HOME=/usr/share/sumo; "
      "fi; sumo -n " +
      (sumo / "city.net.xml").string() + " -r " + (s_dir / "trips.rou.xml").string() +
      " --end 600 --ignore-route-errors true --no-step-log --duration-log.statistics "
      "--tripinfo-output " +
      (s_dir / "tripinfo.xml").string());
  ASSERT_EQ(sim.exit_code, 0) << sim.output;
  EXPECT_NE(sim.output.find("Simulation ended at time: 600"), std::string::npos) << sim.output;
  const std::string info = slurp(s_dir / "tripinfo.xml");
  std::size_t arrived = 0;
  for (std::size_t at = info.find("<tripinfo "); at != std::string::npos;
       at = info.find("<tripinfo ", at + 1))
    ++arrived;
  std::printf("[ sumo     ] west village: %zu edges, %zu trips completed in 600 s\n", edges.size(),
              arrived);
  EXPECT_GT(arrived, 20U) << sim.output;
}

// Every sample extract imports without errors; Andorra, the largest, on its DEM over a 10 km2
// city-centre box (the whole country takes minutes: bench/import.sh).
TEST(ImportCli, EverySampleImports) {
  const fs::path dir = temp_dir("import_all");
  struct Case {
    const char* osm;
    const char* dem;
    const char* bbox = "";
  };
  for (const Case& c :
       {Case{"osm/aberdeen_centre.osm", ""}, Case{"osm/munich_altstadt.osm.pbf", ""},
        Case{"osm/baltimore_downtown.osm.pbf", ""},
        Case{"osm/andorra.osm.pbf", "dem/andorra_srtm3.tif", "1.505,42.498,1.555,42.520"}}) {
    const fs::path out = dir / fs::path(c.osm).stem();
    std::string args = "import " + data(c.osm) + " -q --no-sumo -o " + out.string();
    if (*c.dem != '\0') args += " --dem " + data(c.dem);
    if (*c.bbox != '\0') args += std::string(" --bbox ") + c.bbox;
    const CliRun r = run_cli(args);
    ASSERT_EQ(r.exit_code, 0) << c.osm << ": " << r.output;
    const auto stats = nlohmann::json::parse(slurp(out / "stats.json"));
    const auto& im = stats["import"];
    std::printf(
        "[ import   ] %s: %.2f km2, %zu road edges, %zu buildings, %d signals, %zu "
        "props, %.2f s, %.0f MiB\n",
        c.osm, im["area_km2"].get<double>(), stats["counts"]["road_edges"].get<std::size_t>(),
        stats["buildings"]["buildings"].get<std::size_t>(),
        stats["intersections"]["signal"].get<int>(), stats["dressing"]["items"].get<std::size_t>(),
        stats["timings"]["total_wall_s"].get<double>(),
        stats["timings"]["peak_rss_mib"].get<double>());
    EXPECT_GT(stats["counts"]["road_edges"].get<int>(), 10) << c.osm;
    EXPECT_GT(stats["buildings"]["buildings"].get<int>(), 50) << c.osm;
    if (validator_installed()) {
      const CliRun v = validate_glb(out / "city.glb");
      EXPECT_EQ(v.exit_code, 0) << c.osm << ": " << v.output;
    }
    bool skipped = false;
    EXPECT_EQ(xodr_xsd_errors(out / "opendrive" / "city.xodr", &skipped), "") << c.osm;
    fs::remove_all(out);
  }
  fs::remove_all(dir);
}

// The Andorra GeoTIFF cut in four inside the box (GDAL, at test time): the tiles, given as
// --dem options in any order or as their folder, write the whole file's bytes.
TEST(ImportCli, DemTilesRepeatedOrAsAFolderWriteTheWholeFilesBytes) {
  const fs::path dir = temp_dir("import_dem_tiles");
  fs::create_directories(dir / "tiles");
  const std::vector<std::string> tiles =
      cityforge::testing_dem::cut_dem(data("dem/andorra_srtm3.tif"), dir / "tiles", {149}, {185});
  ASSERT_EQ(tiles.size(), 4u);
  const std::string head = "import " + data("osm/andorra.osm.pbf") +
                           " --bbox 1.518,42.503,1.530,42.510 -q --no-sumo --threads 2";
  const std::vector<std::pair<std::string, std::string>> runs = {
      {"whole", " --dem " + data("dem/andorra_srtm3.tif")},
      {"repeated",
       " --dem " + tiles[3] + " --dem " + tiles[0] + " --dem " + tiles[2] + " --dem " + tiles[1]},
      {"folder", " --dem " + (dir / "tiles").string()}};
  for (const auto& [name, dem] : runs) {
    const CliRun r = run_cli(head + dem + " -o " + (dir / name).string());
    ASSERT_EQ(r.exit_code, 0) << name << ": " << r.output;
  }
  for (const char* file : {"city.glb", "layout.geojson", "map.svg", "lanes.json"}) {
    const std::string whole = slurp(dir / "whole" / file);
    ASSERT_FALSE(whole.empty()) << file;
    EXPECT_TRUE(slurp(dir / "repeated" / file) == whole) << file;
    EXPECT_TRUE(slurp(dir / "folder" / file) == whole) << file;
  }
  const auto dem = [&](const char* name) {
    return nlohmann::json::parse(slurp(dir / name / "stats.json"))["import"]["dem"];
  };
  EXPECT_EQ(dem("repeated"), dem("whole"));
  EXPECT_EQ(dem("folder"), dem("whole"));
  fs::remove_all(dir);
}

// ---- Bad input: a clear message naming the file, exit 2, nothing written -----------------------

struct Bad {
  CliRun run;
  fs::path out;
};

Bad import_bad(const std::string& name, const std::string& args) {
  const fs::path dir = temp_dir("import_bad_" + name);
  Bad b;
  b.out = dir / "out";
  b.run = run_cli("import " + args + " -q --no-sumo -o " + b.out.string());
  return b;
}

void expect_refused(const Bad& b, const std::string& names) {
  EXPECT_EQ(b.run.exit_code, 2) << b.run.output;
  EXPECT_NE(b.run.output.find(names), std::string::npos) << b.run.output;
  EXPECT_FALSE(fs::exists(b.out / "city.glb")) << "half-written output";
  EXPECT_FALSE(fs::exists(b.out / "stats.json")) << "half-written output";
}

TEST(ImportCliBadInput, TruncatedXml) {
  const fs::path dir = temp_dir("import_trunc");
  const std::string full = slurp(data("osm/aberdeen_centre.osm"));
  write(dir / "cut.osm", full.substr(0, full.size() / 2));
  const Bad b = import_bad("trunc", (dir / "cut.osm").string());
  expect_refused(b, "cut.osm");
  EXPECT_NE(b.run.output.find("line"), std::string::npos) << b.run.output;
}

TEST(ImportCliBadInput, PbfWithABadBlock) {
  const fs::path dir = temp_dir("import_badpbf");
  std::string bytes = slurp(data("osm/manhattan_west_village.osm.pbf"));
  for (std::size_t i = bytes.size() / 2; i < bytes.size() / 2 + 64; ++i)
    bytes[i] = static_cast<char>(bytes[i] ^ 0x5A);
  write(dir / "bad.osm.pbf", bytes);
  expect_refused(import_bad("badpbf", (dir / "bad.osm.pbf").string()), "bad.osm.pbf");
}

TEST(ImportCliBadInput, TruncatedPbf) {
  const fs::path dir = temp_dir("import_cutpbf");
  const std::string bytes = slurp(data("osm/manhattan_west_village.osm.pbf"));
  write(dir / "cut.osm.pbf", bytes.substr(0, bytes.size() / 2));
  const Bad b = import_bad("cutpbf", (dir / "cut.osm.pbf").string());
  expect_refused(b, "cut.osm.pbf");
  EXPECT_NE(b.run.output.find("block"), std::string::npos) << b.run.output;
}

// A DEM whose header reads but whose cells are cut off: each kind names the file and the window.
TEST(ImportCliBadInput, TruncatedDemsOfEachKind) {
  const fs::path dir = temp_dir("import_cutdem");
  const std::string tif = slurp(data("dem/andorra_srtm3.tif"));
  write(dir / "cut.tif", tif.substr(0, tif.size() * 2 / 3));
  const std::string asc = slurp(data("dem/andorra_la_vella_srtm3.asc"));
  write(dir / "cut.asc", asc.substr(0, asc.size() / 2));
  fs::copy_file(data("dem/andorra_la_vella_srtm3.prj"), dir / "cut.prj");
  const std::string hgt = slurp(data("dem/N42E001.hgt"));
  write(dir / "N42E001.hgt", hgt.substr(0, hgt.size() / 3));
  for (const char* dem : {"cut.tif", "cut.asc", "N42E001.hgt"}) {
    const Bad b = import_bad(std::string("cutdem_") + dem,
                             data("osm/andorra.osm.pbf") + " --bbox 1.51,42.50,1.53,42.515 --dem " +
                                 (dir / dem).string());
    expect_refused(b, dem);
  }
}

TEST(ImportCliBadInput, ADemWithoutACrs) {
  const fs::path dir = temp_dir("import_nocrs");
  fs::copy_file(data("dem/andorra_la_vella_srtm3.asc"), dir / "nocrs.asc");
  expect_refused(
      import_bad("nocrs", data("osm/andorra.osm.pbf") + " --bbox 1.515,42.500,1.545,42.515 --dem " +
                              (dir / "nocrs.asc").string()),
      "nocrs.asc");
}

TEST(ImportCliBadInput, ADemNotCoveringTheBox) {
  expect_refused(import_bad("cover", data("osm/manhattan_west_village.osm.pbf") + " --dem " +
                                         data("dem/andorra_la_vella_srtm3.asc")),
                 "andorra_la_vella_srtm3.asc");
}

// Several DEM files (issue 23): each bad one is named.
struct DemTiles {
  fs::path dir;
  std::vector<std::string> tiles;
};
DemTiles two_tiles(const std::string& name) {
  DemTiles t;
  t.dir = temp_dir("import_dem_" + name);
  t.tiles = cityforge::testing_dem::cut_dem(data("dem/andorra_srtm3.tif"), t.dir, {149}, {});
  EXPECT_EQ(t.tiles.size(), 2u);
  return t;
}
const std::string kLaVella = data("osm/andorra.osm.pbf") + " --bbox 1.518,42.503,1.530,42.510";

TEST(ImportCliBadInput, ADemTileMissingAmongSeveral) {
  const DemTiles t = two_tiles("missing");
  const std::string gone = (t.dir / "piece_02.tif").string();
  expect_refused(import_bad("dem_missing", kLaVella + " --dem " + t.tiles[0] + " --dem " + gone +
                                               " --dem " + t.tiles[1]),
                 gone + ": cannot open the DEM: no such file");
}

TEST(ImportCliBadInput, DemTilesInDifferentCrs) {
  const DemTiles t = two_tiles("crs");
  // The Andorra la Vella crop, its .prj saying UTM zone 31N.
  fs::copy_file(data("dem/andorra_la_vella_srtm3.asc"), t.dir / "utm.asc");
  write(t.dir / "utm.prj",
        "PROJCS[\"WGS_1984_UTM_Zone_31N\",GEOGCS[\"GCS_WGS_1984\",DATUM[\"D_WGS_1984\","
        "SPHEROID[\"WGS_1984\",6378137.0,298.257223563]],PRIMEM[\"Greenwich\",0.0],"
        "UNIT[\"Degree\",0.0174532925199433]],PROJECTION[\"Transverse_Mercator\"],"
        "PARAMETER[\"False_Easting\",500000.0],PARAMETER[\"False_Northing\",0.0],"
        "PARAMETER[\"Central_Meridian\",3.0],PARAMETER[\"Scale_Factor\",0.9996],"
        "PARAMETER[\"Latitude_Of_Origin\",0.0],UNIT[\"Meter\",1.0]]");
  const Bad b = import_bad(
      "dem_crs", kLaVella + " --dem " + t.tiles[0] + " --dem " + (t.dir / "utm.asc").string());
  expect_refused(b, "utm.asc");
  EXPECT_NE(b.run.output.find(t.tiles[0] + " is in EPSG:4326"), std::string::npos) << b.run.output;
  EXPECT_NE(b.run.output.find("utm.asc is in WGS 84 / UTM zone 31N"), std::string::npos)
      << b.run.output;
}

TEST(ImportCliBadInput, ADemFolderWithoutDemFiles) {
  const fs::path dir = temp_dir("import_dem_empty");
  write(dir / "readme.txt", "the tiles go here\n");
  expect_refused(import_bad("dem_empty", kLaVella + " --dem " + dir.string()),
                 dir.string() + ": expected DEM files");
}

TEST(ImportCliBadInput, ADemTileThatIsNotARaster) {
  const DemTiles t = two_tiles("raster");
  write(t.dir / "piece_02.tif", "not a GeoTIFF\n");
  expect_refused(import_bad("dem_raster", kLaVella + " --dem " + t.dir.string()),
                 (t.dir / "piece_02.tif").string() + ": not a DEM");
}

TEST(ImportCliBadInput, ABoxWithNothingInIt) {
  expect_refused(
      import_bad("empty", data("osm/aberdeen_centre.osm") + " --bbox 10.0,10.0,10.01,10.01"),
      "aberdeen_centre.osm");
}

TEST(ImportCliBadInput, AMalformedBox) {
  expect_refused(import_bad("badbox", data("osm/aberdeen_centre.osm") + " --bbox 1,2,3"), "--bbox");
}

// GDAL and PROJ are a module loaded by the first import (README, Performance): a build whose
// module is missing or broken says which file and why, exits 1 and writes nothing.
TEST(ImportCliBadInstall, AMissingGeodataModuleIsAClearError) {
  const fs::path out = temp_dir("import_no_geodata") / "out";
  const CliRun r =
      run_command("CITYFORGE_GEODATA_MODULE=/nonexistent/libcityforge_geodata.so " +
                  std::string(CITYFORGE_EXE) + " import " + data("osm/aberdeen_centre.osm") +
                  " -q --no-sumo -o " + out.string());
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("/nonexistent/libcityforge_geodata.so"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("GDAL and PROJ"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(out / "city.glb")) << "half-written output";
  EXPECT_FALSE(fs::exists(out / "stats.json")) << "half-written output";
}

TEST(ImportCliBadInstall, AFileThatIsNotTheGeodataModuleIsAClearError) {
  const fs::path dir = temp_dir("import_bad_geodata");
  write(dir / "libcityforge_geodata.so", "not a shared library");
  const CliRun r =
      run_command("CITYFORGE_GEODATA_MODULE=" + (dir / "libcityforge_geodata.so").string() + " " +
                  std::string(CITYFORGE_EXE) + " import " + data("osm/aberdeen_centre.osm") +
                  " -q --no-sumo -o " + (dir / "out").string());
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("cannot load the module (GDAL and PROJ"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(dir / "out" / "stats.json")) << "half-written output";
}

// Bad single features are skipped with a counted warning, never a crash.
TEST(ImportCliBadInput, MissingNodesAndSelfIntersectingBuildingsAreCountedSkips) {
  const fs::path dir = temp_dir("import_skips");
  std::string xml =
      "<?xml version='1.0' encoding='UTF-8'?>\n<osm version='0.6'>\n"
      " <bounds minlat='51.0000' minlon='0.0000' maxlat='51.0040' maxlon='0.0060'/>\n";
  // A 3 x 3 street grid, every node shared, plus a bow-tie building and a way to a missing node.
  int id = 1;
  for (int j = 0; j < 3; ++j)
    for (int i = 0; i < 3; ++i, ++id)
      xml += " <node id='" + std::to_string(id) + "' lat='" + std::to_string(51.0005 + 0.0015 * j) +
             "' lon='" + std::to_string(0.0005 + 0.0025 * i) + "'/>\n";
  // Bow-tie (self-intersecting) and a proper square building.
  const char* b[] = {
      "<node id='100' lat='51.0011' lon='0.0010'/>", "<node id='101' lat='51.0011' lon='0.0020'/>",
      "<node id='102' lat='51.0017' lon='0.0010'/>", "<node id='103' lat='51.0017' lon='0.0020'/>",
      "<node id='110' lat='51.0026' lon='0.0035'/>", "<node id='111' lat='51.0026' lon='0.0045'/>",
      "<node id='112' lat='51.0032' lon='0.0045'/>", "<node id='113' lat='51.0032' lon='0.0035'/>"};
  for (const char* n : b)
    xml += std::string(" ") + n + "\n";
  int way = 1000;
  const auto road = [&](std::vector<int> refs) {
    xml += " <way id='" + std::to_string(way++) + "'>";
    for (int r : refs)
      xml += "<nd ref='" + std::to_string(r) + "'/>";
    xml += "<tag k='highway' v='residential'/></way>\n";
  };
  road({1, 2, 3});
  road({4, 5, 6});
  road({7, 8, 9});
  road({1, 4, 7});
  road({2, 5, 8});
  road({3, 6, 9});
  road({9, 424242});  // missing node
  xml +=
      " <way id='2000'><nd ref='100'/><nd ref='101'/><nd ref='102'/><nd ref='103'/><nd ref='100'/>"
      "<tag k='building' v='yes'/></way>\n";
  xml +=
      " <way id='2001'><nd ref='110'/><nd ref='111'/><nd ref='112'/><nd ref='113'/><nd ref='110'/>"
      "<tag k='building' v='yes'/></way>\n";
  xml += "</osm>\n";
  write(dir / "skips.osm", xml);
  const fs::path out = dir / "out";
  const CliRun r =
      run_cli("import " + (dir / "skips.osm").string() + " --no-sumo -o " + out.string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("warning"), std::string::npos) << r.output;
  const auto stats = nlohmann::json::parse(slurp(out / "stats.json"));
  const auto& im = stats["import"];
  EXPECT_EQ(im["read"]["ways_missing_nodes"].get<int>(), 1) << im.dump(1);
  EXPECT_GE(im["read"]["areas_invalid"].get<int>() + im["buildings"]["skipped_invalid"].get<int>(),
            1)
      << im.dump(1);
  EXPECT_GE(im["warning_count"].get<int>(), 2) << im.dump(1);
  EXPECT_GE(stats["buildings"]["buildings"].get<int>(), 1);
  fs::remove_all(dir);
}

}  // namespace
