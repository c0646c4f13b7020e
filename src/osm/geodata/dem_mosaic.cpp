// SPDX-License-Identifier: Apache-2.0
// Several DEM files read as one (a region on SRTM or GeoTIFF tiles): the files named on the
// command line (folders expanded by dem_files), checked one by one and against each other,
// mosaicked by GDAL (GDALBuildVRT into an in-memory VRT) and resampled like a single DEM
// (dem.cpp). Part of the geodata module (osm/geodata_api.hpp).
#include <gdal_utils.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "cityforge/osm/osm.hpp"
#include "osm/geodata/dem_detail.hpp"

namespace cityforge::osm {
namespace {

std::string number(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

bool same_nodata(const detail::BandValues& a, const detail::BandValues& b) {
  if (a.has_nodata != b.has_nodata) return false;
  if (!a.has_nodata) return true;
  return a.nodata == b.nodata || (std::isnan(a.nodata) && std::isnan(b.nodata));
}

/// A no-data value for the mosaic's band that no real height takes: NaN for floating-point
/// cells, the type's lowest value for signed integers (-32768 for Int16, SRTM's void) and its
/// highest for unsigned ones.
std::string void_marker(GDALDataType type) {
  if (GDALDataTypeIsFloating(type) != 0 || GDALDataTypeIsComplex(type) != 0) return "nan";
  const int bits = GDALGetDataTypeSizeBits(type);
  if (GDALDataTypeIsSigned(type) != 0) return number(-std::ldexp(1.0, bits - 1));
  return number(std::ldexp(1.0, bits) - 1.0);
}

/// One checked tile of the mosaic.
struct Tile {
  std::string path;
  std::string driver;
  std::unique_ptr<OGRSpatialReference> srs;
  detail::BandValues values;
  GDALDataType type = GDT_Unknown;
};

/// Every file of `paths` in the mosaic GDAL built, or the error for the first one it left out.
std::optional<Error> check_all_in(GDALDataset& vrt, const std::vector<std::string>& paths,
                                  const std::string& gdal_said) {
  std::set<std::string> in;
  char** list = vrt.GetFileList();
  for (char** f = list; f != nullptr && *f != nullptr; ++f)
    in.insert(*f);
  CSLDestroy(list);
  for (const std::string& p : paths) {
    if (in.count(p) == 0) {
      return Error::invalid_input(p, "GDAL left this DEM file out of the mosaic of " +
                                         std::to_string(paths.size()) +
                                         " files (expected the band data type and colour "
                                         "interpretation of " +
                                         paths.front() + ")" + gdal_said);
    }
  }
  return std::nullopt;
}

}  // namespace

Result<terrain::Heightfield> detail::read_dem_mosaic(const std::vector<std::string>& paths_in,
                                                     const std::string& pipeline, const Aabb2& area,
                                                     double cell_m, DemStats* stats) {
  // 1. The files in path order; one is a plain DEM.
  std::vector<std::string> paths = paths_in;
  std::sort(paths.begin(), paths.end());
  paths.erase(std::unique(paths.begin(), paths.end()), paths.end());
  if (paths.empty()) return Error::invalid_input("--dem", "expected at least one DEM file");
  std::string proj_error;
  bool proj_internal = false;
  const detail::FramePtr frame(detail::frame_open(pipeline, &proj_error, &proj_internal));
  if (!frame) {
    return Error{proj_internal ? ErrorCode::internal : ErrorCode::invalid_input, "projection",
                 "PROJ refused the local frame '" + pipeline + "': " + proj_error};
  }
  if (paths.size() == 1) return detail::read_dem(paths.front(), *frame, area, cell_m, stats);
  const std::string name = "the mosaic of " + std::to_string(paths.size()) + " DEM files " +
                           paths.front() + " .. " + paths.back();
  if (std::optional<Error> bad = detail::check_dem_request(name, area, cell_m)) return *bad;

  // 2. Each file on its own, then against the first: one CRS, the same value encoding.
  std::vector<Tile> tiles;
  for (const std::string& path : paths) {
    Result<detail::Dataset> ds = detail::open_dem(path);
    if (!ds) return ds.error();
    Tile t;
    t.path = path;
    t.driver = (*ds)->GetDriver() != nullptr ? (*ds)->GetDriver()->GetDescription() : "";
    t.srs.reset((*ds)->GetSpatialRef()->Clone());
    GDALRasterBand& band = *(*ds)->GetRasterBand(1);
    t.values = detail::band_values(band);
    t.type = band.GetRasterDataType();
    tiles.push_back(std::move(t));
  }
  const Tile& first = tiles.front();
  const char* same_crs[] = {"IGNORE_DATA_AXIS_TO_SRS_AXIS_MAPPING=YES",
                            "CRITERION=EQUIVALENT_EXCEPT_AXIS_ORDER_GEOGCRS", nullptr};
  bool one_nodata = true;
  for (const Tile& t : tiles) {
    if (!t.srs->IsSame(first.srs.get(), same_crs)) {
      return Error::invalid_input(
          t.path, "expected every DEM file of a mosaic in one CRS: " + first.path + " is in " +
                      detail::crs_label(*first.srs) + ", " + t.path + " is in " +
                      detail::crs_label(*t.srs));
    }
    if (t.values.scale != first.values.scale || t.values.offset != first.values.offset ||
        t.values.unit_m != first.values.unit_m) {
      return Error::invalid_input(
          t.path, "expected every DEM file of a mosaic to store heights alike: " + first.path +
                      " has scale " + number(first.values.scale) + ", offset " +
                      number(first.values.offset) + ", " + number(first.values.unit_m) +
                      " m per unit; " + t.path + " has scale " + number(t.values.scale) +
                      ", offset " + number(t.values.offset) + ", " + number(t.values.unit_m) +
                      " m per unit");
    }
    one_nodata = one_nodata && same_nodata(t.values, first.values);
  }

  // 3. The mosaic: every tile at the finest resolution among them, band 1; cells no tile covers
  //    (and each tile's own voids) hold the mosaic's no-data value: the tiles' common one, or a
  //    marker when they have none or differ.
  detail::register_gdal();
  detail::QuietGdal quiet;
  std::vector<std::string> args = {"-resolution", "highest", "-b", "1",
                                   "-allow_projection_difference"};
  if (!one_nodata || !first.values.has_nodata) {
    args.push_back("-vrtnodata");
    args.push_back(void_marker(first.type));
  }
  std::vector<char*> argv;
  for (std::string& a : args)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  GDALBuildVRTOptions* options = GDALBuildVRTOptionsNew(argv.data(), nullptr);
  std::vector<const char*> names;
  for (const std::string& p : paths)
    names.push_back(p.c_str());
  int usage_error = FALSE;
  detail::Dataset vrt(GDALDataset::FromHandle(GDALBuildVRT(
      "", static_cast<int>(names.size()), nullptr, names.data(), options, &usage_error)));
  GDALBuildVRTOptionsFree(options);
  const std::string gdal_said = detail::QuietGdal::last();
  if (!vrt) {
    return Error::invalid_input(name, "GDAL cannot mosaic the DEM files" + gdal_said);
  }
  if (std::optional<Error> left_out = check_all_in(*vrt, paths, gdal_said)) return *left_out;

  // 4. Resampled as one DEM; the stats name the tiles' drivers.
  detail::BandValues values = first.values;
  int has_nodata = 0;
  values.nodata = vrt->GetRasterBand(1)->GetNoDataValue(&has_nodata);
  values.has_nodata = has_nodata != 0;
  Result<terrain::Heightfield> hf =
      detail::resample_dem(*vrt, name, values, *frame, area, cell_m, stats);
  if (hf && stats != nullptr) {
    std::set<std::string> drivers;
    for (const Tile& t : tiles)
      drivers.insert(t.driver);
    stats->driver.clear();
    for (const std::string& d : drivers) {
      if (!stats->driver.empty()) stats->driver += '+';
      stats->driver += d;
    }
  }
  return hf;
}

}  // namespace cityforge::osm
