// SPDX-License-Identifier: Apache-2.0
// The DEM entry points of `osm` that need no GDAL: the list of DEM files the command line names,
// flat ground, and read_dem / read_dem_mosaic, which hand the reading to the geodata module
// (geodata_api.hpp), loaded on the first DEM.
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

#include "cityforge/osm/osm.hpp"
#include "osm/dem_grid.hpp"
#include "osm/geodata_api.hpp"

namespace cityforge::osm {
namespace {

namespace fs = std::filesystem;

/// The extensions a folder's DEM files have (compared lower-cased).
bool is_dem_name(const fs::path& file) {
  std::string ext = file.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return ext == ".tif" || ext == ".tiff" || ext == ".hgt" || ext == ".asc";
}

}  // namespace

terrain::Heightfield flat_ground(const Aabb2& area, double cell_m) {
  terrain::Heightfield hf;
  hf.origin = area.min;
  hf.cell_m = cell_m;
  const detail::DemGrid g = detail::dem_grid_size(area, cell_m);
  hf.nx = g.nx;
  hf.ny = g.ny;
  hf.heights.assign(std::size_t{hf.nx} * hf.ny, 0.0f);
  return hf;
}

Result<std::vector<std::string>> dem_files(const std::vector<std::string>& args) {
  std::vector<std::string> out;
  for (const std::string& arg : args) {
    std::error_code ec;
    const fs::file_status st = fs::status(arg, ec);
    if (fs::is_directory(st)) {
      std::size_t found = 0;
      for (fs::directory_iterator it(arg, ec), end; !ec && it != end; it.increment(ec)) {
        std::error_code fec;
        if (!it->is_regular_file(fec) || !is_dem_name(it->path())) continue;
        out.push_back(it->path().string());
        ++found;
      }
      if (ec) {
        return Error::invalid_input(arg, "cannot list the DEM folder: " + ec.message());
      }
      if (found == 0) {
        return Error::invalid_input(arg,
                                    "expected DEM files (.tif, .tiff, .hgt or .asc) in the "
                                    "folder, found none");
      }
    } else if (!fs::exists(st)) {
      return Error::invalid_input(arg,
                                  "cannot open the DEM: no such file (expected a GeoTIFF, SRTM "
                                  ".hgt or ArcInfo ASCII grid, or a folder of them)");
    } else {
      out.push_back(arg);
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

Result<terrain::Heightfield> read_dem(const std::string& path, const Projection& projection,
                                      const Aabb2& area, double cell_m, DemStats* stats) {
  return read_dem_mosaic({path}, projection, area, cell_m, stats);
}

Result<terrain::Heightfield> read_dem_mosaic(const std::vector<std::string>& paths,
                                             const Projection& projection, const Aabb2& area,
                                             double cell_m, DemStats* stats) {
  Result<const detail::GeodataApi*> api = detail::geodata();
  if (!api) return api.error();
  return (*api)->read_dem_mosaic(
      paths, detail::frame_pipeline(projection.lon0(), projection.lat0()), area, cell_m, stats);
}

}  // namespace cityforge::osm
