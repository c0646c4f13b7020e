// SPDX-License-Identifier: Apache-2.0
// Several DEM files read as one (issue 23): the repository's Andorra GeoTIFF is cut into pieces
// at test time (GDAL) and the mosaic of the pieces must give the whole file's heights exactly,
// whatever order the pieces come in; each bad input is an error naming the file.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "cityforge/osm/osm.hpp"
#include "osm/dem_pieces.hpp"

namespace cityforge::osm {
namespace {

namespace fs = std::filesystem;
using testing_dem::cut_dem;

const std::string kDem = std::string(CITYFORGE_TEST_DATA) + "/dem/";
const std::string kTif = kDem + "andorra_srtm3.tif";  // 480 x 288 cells of 3"

/// A fresh empty folder under the test temp dir.
fs::path temp_dir(const std::string& name) {
  const fs::path dir = fs::path(testing::TempDir()) / ("cityforge_mosaic_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

/// Nearly all of the GeoTIFF (33 x 27 km): 24 x 20 km around its centre at 60 m cells, its
/// void cells included.
struct Place {
  Projection projection;
  Aabb2 area;
};
Place most_of_the_tif() {
  auto proj = Projection::around(1.5996, 42.5404);
  EXPECT_TRUE(proj.ok());
  Aabb2 area;
  area.add({-12000.0, -10000.0});
  area.add({12000.0, 10000.0});
  return {std::move(*proj), area};
}

std::string message(const Result<terrain::Heightfield>& r) {
  return r ? std::string("(no error)") : r.error().to_string();
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(DemMosaic, PiecesGiveTheWholeFilesHeightsExactly) {
  const Place at = most_of_the_tif();
  DemStats whole_stats;
  auto whole = read_dem(kTif, at.projection, at.area, 60.0, &whole_stats);
  ASSERT_TRUE(whole.ok()) << message(whole);
  ASSERT_GT(whole_stats.voids_filled, 0u) << "the area should hold some of the tile's voids";
  const fs::path dir = temp_dir("pieces");
  // Nine uneven pieces, and two.
  for (const auto& [cols, rows] :
       {std::pair<std::vector<int>, std::vector<int>>{{97, 301}, {50, 211}},
        std::pair<std::vector<int>, std::vector<int>>{{240}, {}}}) {
    fs::remove_all(dir);
    fs::create_directories(dir);
    const std::vector<std::string> pieces = cut_dem(kTif, dir, cols, rows);
    ASSERT_EQ(pieces.size(), (cols.size() + 1) * (rows.size() + 1));
    DemStats stats;
    auto mosaic = read_dem_mosaic(pieces, at.projection, at.area, 60.0, &stats);
    ASSERT_TRUE(mosaic.ok()) << message(mosaic);
    EXPECT_EQ(mosaic->nx, whole->nx);
    EXPECT_EQ(mosaic->ny, whole->ny);
    EXPECT_EQ(mosaic->origin, whole->origin);
    EXPECT_TRUE(mosaic->heights == whole->heights) << pieces.size() << " pieces";
    EXPECT_EQ(stats.voids_filled, whole_stats.voids_filled);
    EXPECT_EQ(stats.min_m, whole_stats.min_m);
    EXPECT_EQ(stats.max_m, whole_stats.max_m);
    EXPECT_EQ(stats.crs, "EPSG:4326");
    EXPECT_EQ(stats.driver, "GTiff");
  }
  fs::remove_all(dir);
}

TEST(DemMosaic, AnyOrderOfThePiecesGivesTheSameHeights) {
  const Place at = most_of_the_tif();
  const fs::path dir = temp_dir("order");
  std::vector<std::string> pieces = cut_dem(kTif, dir, {150, 333}, {120});
  ASSERT_EQ(pieces.size(), 6u);
  auto sorted = read_dem_mosaic(pieces, at.projection, at.area, 60.0);
  ASSERT_TRUE(sorted.ok()) << message(sorted);
  std::vector<std::string> shuffled = {pieces[4], pieces[0], pieces[5],
                                       pieces[2], pieces[1], pieces[3]};
  std::vector<std::string> reversed(pieces.rbegin(), pieces.rend());
  for (const auto& order : {shuffled, reversed}) {
    auto again = read_dem_mosaic(order, at.projection, at.area, 60.0);
    ASSERT_TRUE(again.ok()) << message(again);
    EXPECT_TRUE(again->heights == sorted->heights);
    // The list the import keys its terrain stage by is the same too.
    auto listed = dem_files(order);
    ASSERT_TRUE(listed.ok()) << listed.error().to_string();
    EXPECT_EQ(*listed, pieces);
  }
  fs::remove_all(dir);
}

TEST(DemMosaic, AFolderMeansEveryDemFileInItSortedByName) {
  const fs::path dir = temp_dir("folder");
  const std::vector<std::string> pieces = cut_dem(kTif, dir, {240}, {144});
  ASSERT_EQ(pieces.size(), 4u);
  // Not DEM files, or not directly in the folder: left alone.
  std::ofstream(dir / "readme.txt") << "tiles\n";
  fs::create_directories(dir / "old");
  fs::copy_file(pieces[0], dir / "old" / "piece_00.tif");
  // Extensions in any case, .hgt and .asc too.
  fs::copy_file(kDem + "N42E001.hgt", dir / "N42E001.HGT");
  auto listed = dem_files({dir.string()});
  ASSERT_TRUE(listed.ok()) << listed.error().to_string();
  std::vector<std::string> expected = pieces;
  expected.insert(expected.begin(), (dir / "N42E001.HGT").string());
  EXPECT_EQ(*listed, expected);
  // A folder and one of its files named again: each file once.
  auto twice = dem_files({pieces[2], dir.string()});
  ASSERT_TRUE(twice.ok());
  EXPECT_EQ(*twice, expected);
  EXPECT_TRUE(dem_files({}).ok() && dem_files({})->empty());
  fs::remove_all(dir);
}

TEST(DemMosaic, CellsNoPieceCoversAreVoidsEvenWithoutANoDataValue) {
  // Two diagonal pieces of four: the other two quarters are a gap around the cut point.
  auto proj = Projection::around(1.39958333 + 240.0 / 1200.0, 42.66041667 - 144.0 / 1200.0);
  ASSERT_TRUE(proj.ok());
  Aabb2 area;
  area.add({-3000.0, -3000.0});
  area.add({3000.0, 3000.0});
  auto whole = read_dem(kTif, *proj, area, 30.0);
  ASSERT_TRUE(whole.ok()) << message(whole);
  const auto [lo, hi] = std::minmax_element(whole->heights.begin(), whole->heights.end());
  for (const bool keep_nodata : {true, false}) {
    const fs::path dir = temp_dir(keep_nodata ? "gap" : "gap_no_nodata");
    std::vector<std::string> extra;
    if (!keep_nodata) extra = {"-a_nodata", "none"};
    const std::vector<std::string> pieces = cut_dem(kTif, dir, {240}, {144}, extra);
    ASSERT_EQ(pieces.size(), 4u);
    DemStats stats;
    auto gap = read_dem_mosaic({pieces[0], pieces[3]}, *proj, area, 30.0, &stats);
    ASSERT_TRUE(gap.ok()) << message(gap);
    EXPECT_GT(stats.voids_filled, gap->heights.size() / 4) << "nodata kept: " << keep_nodata;
    // Interpolated from the pieces, never 0 m or a no-data value.
    EXPECT_GE(stats.min_m, *lo - 1.0) << "nodata kept: " << keep_nodata;
    EXPECT_LE(stats.max_m, *hi + 1.0) << "nodata kept: " << keep_nodata;
    fs::remove_all(dir);
  }
}

// ---- Bad input: an error naming the file and what was expected ---------------------------------

TEST(DemMosaic, AMissingFileAmongSeveralIsNamed) {
  const Place at = most_of_the_tif();
  const fs::path dir = temp_dir("missing");
  const std::vector<std::string> pieces = cut_dem(kTif, dir, {240}, {});
  ASSERT_EQ(pieces.size(), 2u);
  const std::string gone = (dir / "piece_02.tif").string();
  auto listed = dem_files({pieces[0], gone, pieces[1]});
  ASSERT_FALSE(listed.ok());
  EXPECT_EQ(listed.error().code, ErrorCode::invalid_input);
  EXPECT_TRUE(contains(listed.error().to_string(), gone)) << listed.error().to_string();
  EXPECT_TRUE(contains(listed.error().to_string(), "no such file")) << listed.error().to_string();
  auto r = read_dem_mosaic({pieces[0], gone, pieces[1]}, at.projection, at.area, 60.0);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::invalid_input);
  EXPECT_TRUE(contains(message(r), gone)) << message(r);
  // Unreadable (root reads every file, so only checked as another user).
  if (geteuid() != 0) {
    fs::permissions(pieces[1], fs::perms::none);
    auto locked = read_dem_mosaic(pieces, at.projection, at.area, 60.0);
    ASSERT_FALSE(locked.ok());
    EXPECT_TRUE(contains(message(locked), pieces[1])) << message(locked);
    EXPECT_TRUE(contains(message(locked), "cannot read")) << message(locked);
    fs::permissions(pieces[1], fs::perms::owner_all);
  }
  fs::remove_all(dir);
}

TEST(DemMosaic, FilesInDifferentCrsAreAnErrorNamingBothFilesAndBothCrs) {
  const fs::path dir = temp_dir("crs");
  const std::vector<std::string> pieces = cut_dem(kTif, dir, {240}, {});
  ASSERT_EQ(pieces.size(), 2u);
  // A grid in UTM zone 31N over the same valley.
  const fs::path utm = dir / "utm.asc";
  {
    std::ofstream asc(utm);
    asc << "ncols 4\nnrows 4\nxllcorner 370000\nyllcorner 4700000\ncellsize 500\n";
    for (int r = 0; r < 4; ++r)
      asc << "1000 1010 1020 1030\n";
    std::ofstream(dir / "utm.prj")
        << "PROJCS[\"WGS_1984_UTM_Zone_31N\",GEOGCS[\"GCS_WGS_1984\",DATUM[\"D_WGS_1984\","
           "SPHEROID[\"WGS_1984\",6378137.0,298.257223563]],PRIMEM[\"Greenwich\",0.0],"
           "UNIT[\"Degree\",0.0174532925199433]],PROJECTION[\"Transverse_Mercator\"],"
           "PARAMETER[\"False_Easting\",500000.0],PARAMETER[\"False_Northing\",0.0],"
           "PARAMETER[\"Central_Meridian\",3.0],PARAMETER[\"Scale_Factor\",0.9996],"
           "PARAMETER[\"Latitude_Of_Origin\",0.0],UNIT[\"Meter\",1.0]]";
  }
  const Place at = most_of_the_tif();
  auto r = read_dem_mosaic({pieces[0], utm.string(), pieces[1]}, at.projection, at.area, 60.0);
  ASSERT_FALSE(r.ok());
  const std::string msg = message(r);
  EXPECT_EQ(r.error().code, ErrorCode::invalid_input);
  EXPECT_TRUE(contains(msg, pieces[0])) << msg;
  EXPECT_TRUE(contains(msg, utm.string())) << msg;
  EXPECT_TRUE(contains(msg, "EPSG:4326")) << msg;
  EXPECT_TRUE(contains(msg, "UTM zone 31N")) << msg;
  fs::remove_all(dir);
}

TEST(DemMosaic, AFolderWithoutDemFilesIsAnError) {
  const fs::path dir = temp_dir("empty");
  auto empty = dem_files({kTif, dir.string()});
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.error().code, ErrorCode::invalid_input);
  EXPECT_TRUE(contains(empty.error().to_string(), dir.string())) << empty.error().to_string();
  EXPECT_TRUE(contains(empty.error().to_string(), "found none")) << empty.error().to_string();
  std::ofstream(dir / "notes.txt") << "no tiles yet\n";
  fs::create_directories(dir / "N42E001");
  auto still = dem_files({dir.string()});
  ASSERT_FALSE(still.ok());
  EXPECT_TRUE(contains(still.error().to_string(), "found none")) << still.error().to_string();
  fs::remove_all(dir);
}

TEST(DemMosaic, AFileThatIsNotARasterIsNamed) {
  const Place at = most_of_the_tif();
  const std::string pbf = std::string(CITYFORGE_TEST_DATA) + "/osm/aberdeen_centre.osm";
  auto r = read_dem_mosaic({kTif, pbf}, at.projection, at.area, 60.0);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::invalid_input);
  EXPECT_TRUE(contains(message(r), "aberdeen_centre.osm: not a DEM")) << message(r);
}

TEST(DemMosaic, PiecesStoringHeightsDifferentlyOrOfAnotherKindAreNamed) {
  const Place at = most_of_the_tif();
  const fs::path dir = temp_dir("kinds");
  const std::vector<std::string> plain = cut_dem(kTif, dir, {240}, {});
  ASSERT_EQ(plain.size(), 2u);
  // The second half again, its values now to be read in feet.
  const fs::path feet_dir = dir / "feet";
  fs::create_directories(feet_dir);
  const std::vector<std::string> feet = cut_dem(kTif, feet_dir, {240}, {}, {"-a_scale", "0.3048"});
  ASSERT_EQ(feet.size(), 2u);
  auto scaled = read_dem_mosaic({plain[0], feet[1]}, at.projection, at.area, 60.0);
  ASSERT_FALSE(scaled.ok());
  EXPECT_EQ(scaled.error().code, ErrorCode::invalid_input);
  EXPECT_TRUE(contains(message(scaled), plain[0])) << message(scaled);
  EXPECT_TRUE(contains(message(scaled), feet[1])) << message(scaled);
  EXPECT_TRUE(contains(message(scaled),
                       "expected every DEM file of a mosaic to store heights "
                       "alike"))
      << message(scaled);
  EXPECT_TRUE(contains(message(scaled), "scale 0.3048")) << message(scaled);
  // GDAL does not mosaic an SRTM .hgt (band colour undefined) with a GeoTIFF (grey): named.
  auto mixed = read_dem_mosaic({plain[0], kDem + "N42E001.hgt"}, at.projection, at.area, 60.0);
  ASSERT_FALSE(mixed.ok());
  EXPECT_EQ(mixed.error().code, ErrorCode::invalid_input);
  EXPECT_TRUE(contains(message(mixed), "GDAL left this DEM file out")) << message(mixed);
  EXPECT_TRUE(contains(message(mixed), plain[0])) << message(mixed);
  EXPECT_TRUE(contains(message(mixed), "N42E001.hgt")) << message(mixed);
  EXPECT_TRUE(contains(message(mixed), "colour interpretation")) << message(mixed);
  std::printf("[ mosaic   ] %s\n[ mosaic   ] %s\n", message(scaled).c_str(),
              message(mixed).c_str());
  fs::remove_all(dir);
}

}  // namespace
}  // namespace cityforge::osm
