// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "cityforge/osm/osm.hpp"

namespace cityforge::osm {
namespace {

namespace fs = std::filesystem;

const std::string kDem = std::string(CITYFORGE_TEST_DATA) + "/dem/";
const std::string kTif = kDem + "andorra_srtm3.tif";
const std::string kHgt = kDem + "N42E001.hgt";
const std::string kAsc = kDem + "andorra_la_vella_srtm3.asc";

/// A fresh empty folder under the test temp dir.
fs::path temp_dir(const std::string& name) {
  const fs::path dir = fs::path(testing::TempDir()) / ("cityforge_dem_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

/// The raw SRTM3 tile N42E001: 1201 x 1201 big-endian int16, row 0 at 43 N, column 0 at 1 E.
std::vector<std::int16_t> read_hgt() {
  std::ifstream in(kHgt, std::ios::binary);
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::int16_t> v(1201 * 1201);
  for (std::size_t k = 0; k < v.size() && 2 * k + 1 < bytes.size(); ++k) {
    v[k] = static_cast<std::int16_t>((static_cast<std::uint8_t>(bytes[2 * k]) << 8) |
                                     static_cast<std::uint8_t>(bytes[2 * k + 1]));
  }
  return v;
}
double hgt_lon(int col) { return 1.0 + col / 1200.0; }
double hgt_lat(int row) { return 43.0 - row / 1200.0; }

/// A square of side_m around the projection's origin.
Aabb2 square(double side_m) {
  Aabb2 a;
  a.add({-0.5 * side_m, -0.5 * side_m});
  a.add({0.5 * side_m, 0.5 * side_m});
  return a;
}

TEST(Dem, FlatGroundCoversTheArea) {
  Aabb2 area;
  area.add({-100.0, -50.0});
  area.add({100.0, 50.0});
  const terrain::Heightfield hf = flat_ground(area, 10.0);
  EXPECT_EQ(hf.nx, 21u);
  EXPECT_EQ(hf.ny, 11u);
  EXPECT_EQ(hf.origin, area.min);
  EXPECT_EQ(hf.heights.size(), 21u * 11u);
  EXPECT_TRUE(std::all_of(hf.heights.begin(), hf.heights.end(), [](float h) { return h == 0.0f; }));
  const terrain::Heightfield odd = flat_ground(area, 30.0);  // 200 / 30 -> 7 cells, 8 samples
  EXPECT_EQ(odd.nx, 8u);
  EXPECT_GE(odd.bounds().max.x, area.max.x);
}

TEST(Dem, EachFormatReadsAndorraLaVellaAndTheyAgree) {
  // A heightfield sample placed exactly on a DEM cell centre (SRTM rows/columns) near the
  // capital, so the three files can be checked against the raw tile there.
  const int row = 592;  // 42.50667 N
  const int col = 624;  // 1.52 E
  const std::vector<std::int16_t> raw = read_hgt();
  const int expected = raw[static_cast<std::size_t>(row) * 1201 + col];
  ASSERT_GT(expected, 800);
  auto proj = Projection::around(1.52, 42.507);
  ASSERT_TRUE(proj.ok()) << proj.error().to_string();
  const Vec2 at = proj->to_local(hgt_lon(col), hgt_lat(row));
  Aabb2 area;
  area.add(at);
  area.add(at + Vec2{3000.0, 2400.0});  // inside the .asc crop (1.48..1.58, 42.48..42.54)

  std::vector<terrain::Heightfield> fields;
  for (const std::string& path : {kTif, kHgt, kAsc}) {
    DemStats stats;
    auto hf = read_dem(path, *proj, area, 30.0, &stats);
    ASSERT_TRUE(hf.ok()) << hf.error().to_string();
    EXPECT_EQ(hf->nx, 101u);
    EXPECT_EQ(hf->ny, 81u);
    EXPECT_EQ(hf->origin, area.min);
    EXPECT_NEAR(hf->at(0, 0), expected, 0.5) << path;
    EXPECT_GE(stats.min_m, 800.0) << path;
    EXPECT_LE(stats.max_m, 2950.0) << path;
    EXPECT_LT(stats.min_m + 200.0, stats.max_m) << path;  // a valley with slopes
    EXPECT_EQ(stats.crs, "EPSG:4326") << path;
    EXPECT_TRUE(std::all_of(hf->heights.begin(), hf->heights.end(),
                            [](float h) { return std::isfinite(h); }));
    fields.push_back(std::move(*hf));
    const std::string driver = path == kTif ? "GTiff" : path == kHgt ? "SRTMHGT" : "AAIGrid";
    EXPECT_EQ(stats.driver, driver);
  }
  // The two crops were cut from the tile without resampling: the same heights everywhere but
  // where their (different) windows fill a void differently.
  for (std::size_t f = 1; f < fields.size(); ++f) {
    std::size_t close = 0;
    double worst = 0.0;
    for (std::size_t k = 0; k < fields[0].heights.size(); ++k) {
      const double d = std::abs(fields[f].heights[k] - fields[0].heights[k]);
      worst = std::max(worst, d);
      if (d < 0.01) ++close;
    }
    EXPECT_GT(close, fields[0].heights.size() * 99 / 100) << "file " << f;
    EXPECT_LT(worst, 5.0) << "file " << f;
  }
}

TEST(Dem, VoidsAreFilledWithPlausibleHeights) {
  // The first void cell of the tile inside Andorra's bounds (there are ~300).
  const std::vector<std::int16_t> raw = read_hgt();
  int vr = -1, vc = -1;
  for (int r = 420; r < 690 && vr < 0; ++r) {
    for (int c = 500; c < 940; ++c) {
      if (raw[static_cast<std::size_t>(r) * 1201 + c] == -32768) {
        vr = r;
        vc = c;
        break;
      }
    }
  }
  ASSERT_GE(vr, 0) << "no void cell found in the Andorra part of the tile";
  // Valid heights around the void region (within 6 cells).
  double lo = 1e9, hi = -1e9;
  for (int r = vr - 6; r <= vr + 6; ++r) {
    for (int c = vc - 6; c <= vc + 6; ++c) {
      const int v = raw[static_cast<std::size_t>(r) * 1201 + c];
      if (v == -32768) continue;
      lo = std::min(lo, static_cast<double>(v));
      hi = std::max(hi, static_cast<double>(v));
    }
  }
  ASSERT_LT(lo, hi);
  auto proj = Projection::around(hgt_lon(vc), hgt_lat(vr));
  ASSERT_TRUE(proj.ok());
  for (const std::string& path : {kHgt, kTif}) {
    DemStats stats;
    auto hf = read_dem(path, *proj, square(600.0), 10.0, &stats);
    ASSERT_TRUE(hf.ok()) << hf.error().to_string();
    EXPECT_GT(stats.voids_filled, 0u) << path;
    const double h = hf->sample({0.0, 0.0});
    EXPECT_TRUE(std::isfinite(h));
    EXPECT_GE(h, lo - 1.0) << path;
    EXPECT_LE(h, hi + 1.0) << path;
    EXPECT_TRUE(std::all_of(hf->heights.begin(), hf->heights.end(),
                            [](float v) { return std::isfinite(v) && v > 300.0f && v < 3200.0f; }));
  }
  // A place without voids reports none.
  auto capital = Projection::around(1.52, 42.507);
  ASSERT_TRUE(capital.ok());
  DemStats none;
  ASSERT_TRUE(read_dem(kAsc, *capital, square(400.0), 20.0, &none).ok());
  EXPECT_EQ(none.voids_filled, 0u);
}

TEST(Dem, AreaOutsideTheDemIsAnErrorWithBothExtents) {
  auto proj = Projection::around(1.52, 42.507);
  ASSERT_TRUE(proj.ok());
  // 20 km square: reaches outside the .asc crop (about 8 x 6.7 km).
  auto r = read_dem(kAsc, *proj, square(20000.0), 50.0);
  ASSERT_FALSE(r.ok());
  const std::string msg = r.error().to_string();
  EXPECT_NE(msg.find("andorra_la_vella_srtm3.asc"), std::string::npos) << msg;
  EXPECT_NE(msg.find("the heightfield covers lon 1.39"), std::string::npos) << msg;
  EXPECT_NE(msg.find("the DEM covers lon 1.479"), std::string::npos) << msg;
  EXPECT_NE(msg.find("lat 42.480"), std::string::npos) << msg;
  // Far away: Barcelona with the Andorra GeoTIFF.
  auto far = Projection::around(2.17, 41.39);
  ASSERT_TRUE(far.ok());
  auto r2 = read_dem(kTif, *far, square(1000.0), 30.0);
  ASSERT_FALSE(r2.ok());
  EXPECT_NE(r2.error().to_string().find("andorra_srtm3.tif"), std::string::npos);
  EXPECT_NE(r2.error().to_string().find("the DEM covers lon 1.39"), std::string::npos)
      << r2.error().to_string();
}

TEST(Dem, DemWithoutCrsIsAnError) {
  const fs::path dir = temp_dir("nocrs");
  const fs::path copy = dir / "valley.asc";
  fs::copy_file(kAsc, copy);
  auto proj = Projection::around(1.52, 42.507);
  ASSERT_TRUE(proj.ok());
  auto r = read_dem(copy.string(), *proj, square(500.0), 30.0);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().to_string().find("valley.asc"), std::string::npos);
  EXPECT_NE(r.error().to_string().find("no CRS"), std::string::npos) << r.error().to_string();
  // With a .prj it reads.
  fs::copy_file(kDem + "andorra_la_vella_srtm3.prj", dir / "valley.prj");
  EXPECT_TRUE(read_dem(copy.string(), *proj, square(500.0), 30.0).ok());
  fs::remove_all(dir);
}

TEST(Dem, NonDemFilesAreErrors) {
  auto proj = Projection::around(1.52, 42.507);
  ASSERT_TRUE(proj.ok());
  const std::string pbf = std::string(CITYFORGE_TEST_DATA) + "/osm/manhattan_west_village.osm.pbf";
  auto r = read_dem(pbf, *proj, square(500.0), 30.0);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().to_string().find("manhattan_west_village.osm.pbf"), std::string::npos);
  EXPECT_NE(r.error().to_string().find("not a DEM"), std::string::npos) << r.error().to_string();
  auto missing = read_dem(kDem + "nowhere.tif", *proj, square(500.0), 30.0);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().to_string().find("nowhere.tif"), std::string::npos);
  // An all-void grid.
  const fs::path dir = temp_dir("void");
  {
    std::ofstream asc(dir / "void.asc");
    asc << "ncols 4\nnrows 4\nxllcorner 1.5\nyllcorner 42.5\ncellsize 0.01\nNODATA_value -9999\n";
    for (int k = 0; k < 4; ++k)
      asc << "-9999 -9999 -9999 -9999\n";
  }
  fs::copy_file(kDem + "andorra_la_vella_srtm3.prj", dir / "void.prj");
  auto center = Projection::around(1.52, 42.52);
  ASSERT_TRUE(center.ok());
  auto v = read_dem((dir / "void.asc").string(), *center, square(500.0), 30.0);
  ASSERT_FALSE(v.ok());
  EXPECT_NE(v.error().to_string().find("void"), std::string::npos) << v.error().to_string();
  // Bad cell size.
  EXPECT_FALSE(read_dem(kTif, *proj, square(500.0), 0.0).ok());
  fs::remove_all(dir);
}

/// Writes an ArcInfo ASCII grid (WGS84) whose cell values are a linear function of the cell
/// centre's lon and lat: bilinear resampling reproduces it exactly wherever it is sampled, so
/// any error is in where the samples were placed.
void write_linear_grid(const fs::path& file, double lon0, double lat0, double ax, double ay) {
  const int ncols = 50, nrows = 40;
  const double xll = 1.30, yll = 42.40, cs = 0.01;
  std::ofstream asc(file);
  asc << "ncols " << ncols << "\nnrows " << nrows << "\nxllcorner " << xll << "\nyllcorner " << yll
      << "\ncellsize " << cs << "\nNODATA_value -99999\n";
  char buf[64];
  for (int r = 0; r < nrows; ++r) {
    for (int c = 0; c < ncols; ++c) {
      const double lon = xll + (c + 0.5) * cs;
      const double lat = yll + (nrows - r - 0.5) * cs;
      std::snprintf(buf, sizeof buf, "%.4f ", ax * (lon - lon0) + ay * (lat - lat0));
      asc << buf;
    }
    asc << "\n";
  }
}

TEST(Dem, ProjectedDemsAreReprojected) {
  // A grid in UTM zone 31N (metres) whose values are the easting of the cell centre, minus
  // 378 km (about Andorra la Vella's).
  const fs::path dir = temp_dir("utm");
  {
    std::ofstream asc(dir / "utm.asc");
    asc << "ncols 80\nnrows 70\nxllcorner 360000\nyllcorner 4690000\ncellsize 500\n"
           "NODATA_value -99999\n";
    for (int r = 0; r < 70; ++r) {
      for (int c = 0; c < 80; ++c)
        asc << (360000.0 + (c + 0.5) * 500.0 - 378000.0) << " ";
      asc << "\n";
    }
    std::ofstream prj(dir / "utm.prj");
    prj << "PROJCS[\"WGS_1984_UTM_Zone_31N\",GEOGCS[\"GCS_WGS_1984\",DATUM[\"D_WGS_1984\","
           "SPHEROID[\"WGS_1984\",6378137.0,298.257223563]],PRIMEM[\"Greenwich\",0.0],"
           "UNIT[\"Degree\",0.0174532925199433]],PROJECTION[\"Transverse_Mercator\"],"
           "PARAMETER[\"False_Easting\",500000.0],PARAMETER[\"False_Northing\",0.0],"
           "PARAMETER[\"Central_Meridian\",3.0],PARAMETER[\"Scale_Factor\",0.9996],"
           "PARAMETER[\"Latitude_Of_Origin\",0.0],UNIT[\"Meter\",1.0]]";
  }
  auto proj = Projection::around(1.52, 42.507);
  ASSERT_TRUE(proj.ok());
  DemStats stats;
  auto hf = read_dem((dir / "utm.asc").string(), *proj, square(2000.0), 50.0, &stats);
  ASSERT_TRUE(hf.ok()) << hf.error().to_string();
  EXPECT_FALSE(stats.crs.empty());
  EXPECT_NE(stats.crs, "EPSG:4326");
  // Andorra la Vella lies ~378.5 km east in zone 31 (1.5 degrees west of its meridian).
  const double h0 = hf->sample({0.0, 0.0});
  EXPECT_NEAR(h0, 500.0, 400.0);
  // East in the local frame is east in UTM, turned by the meridian convergence (~1 degree).
  const double dx = hf->sample({900.0, 0.0}) - h0;
  const double dy = hf->sample({0.0, 900.0}) - h0;
  EXPECT_NEAR(dx, 900.0, 2.0);
  EXPECT_GT(std::abs(dy), 5.0);
  EXPECT_LT(std::abs(dy), 30.0);
  // A local (engineering) CRS cannot be placed.
  {
    std::ofstream prj(dir / "utm.prj");
    prj << "LOCAL_CS[\"site grid\",LOCAL_DATUM[\"site\",0],UNIT[\"Meter\",1.0],"
           "AXIS[\"X\",EAST],AXIS[\"Y\",NORTH]]";
  }
  auto local = read_dem((dir / "utm.asc").string(), *proj, square(2000.0), 50.0);
  ASSERT_FALSE(local.ok());
  EXPECT_NE(local.error().to_string().find("utm.asc"), std::string::npos);
  fs::remove_all(dir);
}

TEST(Dem, SamplesLandWithinACentimetreOfTheirExactPlace) {
  // Andorra-sized area (30 x 25 km) at 28 m cells; the heights are east and north distances
  // (metres per degree), so height errors are placement errors in metres.
  const double lon0 = 1.60, lat0 = 42.54;
  auto proj = Projection::around(lon0, lat0);
  ASSERT_TRUE(proj.ok());
  const double m_lon = 111'320.0 * std::cos(lat0 * 3.14159265358979323846 / 180.0);
  const double m_lat = 111'000.0;
  const fs::path dir = temp_dir("linear");
  write_linear_grid(dir / "east.asc", lon0, lat0, m_lon, 0.0);
  write_linear_grid(dir / "north.asc", lon0, lat0, 0.0, m_lat);
  for (const char* name : {"east", "north"}) {
    fs::copy_file(kDem + "andorra_la_vella_srtm3.prj", dir / (std::string(name) + ".prj"));
  }
  Aabb2 area;
  area.add({-15000.0, -12500.0});
  area.add({15000.0, 12500.0});
  for (int axis = 0; axis < 2; ++axis) {
    const fs::path file = dir / (axis == 0 ? "east.asc" : "north.asc");
    auto hf = read_dem(file.string(), *proj, area, 28.0);
    ASSERT_TRUE(hf.ok()) << hf.error().to_string();
    double worst = 0.0;
    // Every 3rd sample both ways (most fall between lattice points).
    for (std::uint32_t j = 0; j < hf->ny; j += 3) {
      for (std::uint32_t i = 0; i < hf->nx; i += 3) {
        const Vec2 p = hf->origin + Vec2{i * hf->cell_m, j * hf->cell_m};
        const auto [lon, lat] = proj->to_wgs84(p);
        const double exact = axis == 0 ? m_lon * (lon - lon0) : m_lat * (lat - lat0);
        worst = std::max(worst, std::abs(hf->at(i, j) - exact));
      }
    }
    EXPECT_LT(worst, 0.01) << file;
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace cityforge::osm
