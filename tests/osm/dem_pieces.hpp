// SPDX-License-Identifier: Apache-2.0
// Test helper: cuts a DEM into pieces with GDAL (gdal_translate -srcwin), so a mosaic of the
// pieces can be checked against the whole file.
#pragma once

#include <gdal_priv.h>
#include <gdal_utils.h>

#include <filesystem>
#include <string>
#include <vector>

namespace cityforge::testing_dem {

/// Writes the pieces of `src` cut at the given pixel columns and rows (each list ascending,
/// strictly inside the raster) into `dir` as GeoTIFFs named piece_<r><c>.tif, and returns their
/// paths in row-major order. `extra` are more gdal_translate options (e.g. {"-a_nodata",
/// "none"}). Empty on failure.
inline std::vector<std::string> cut_dem(const std::string& src, const std::filesystem::path& dir,
                                        const std::vector<int>& cols, const std::vector<int>& rows,
                                        const std::vector<std::string>& extra = {}) {
  GDALAllRegister();
  std::vector<std::string> out;
  GDALDatasetH whole = GDALOpen(src.c_str(), GA_ReadOnly);
  if (whole == nullptr) return out;
  std::vector<int> xs = {0};
  xs.insert(xs.end(), cols.begin(), cols.end());
  xs.push_back(GDALGetRasterXSize(whole));
  std::vector<int> ys = {0};
  ys.insert(ys.end(), rows.begin(), rows.end());
  ys.push_back(GDALGetRasterYSize(whole));
  for (std::size_t r = 0; r + 1 < ys.size(); ++r) {
    for (std::size_t c = 0; c + 1 < xs.size(); ++c) {
      std::vector<std::string> args = {"-q",
                                       "-srcwin",
                                       std::to_string(xs[c]),
                                       std::to_string(ys[r]),
                                       std::to_string(xs[c + 1] - xs[c]),
                                       std::to_string(ys[r + 1] - ys[r])};
      args.insert(args.end(), extra.begin(), extra.end());
      std::vector<char*> argv;
      for (std::string& a : args)
        argv.push_back(a.data());
      argv.push_back(nullptr);
      GDALTranslateOptions* options = GDALTranslateOptionsNew(argv.data(), nullptr);
      std::string name = "piece_" + std::to_string(r);
      name += std::to_string(c);
      name += ".tif";
      const std::string path = (dir / name).string();
      GDALDatasetH piece = GDALTranslate(path.c_str(), whole, options, nullptr);
      GDALTranslateOptionsFree(options);
      if (piece == nullptr) {
        GDALClose(whole);
        return {};
      }
      GDALClose(piece);
      out.push_back(path);
    }
  }
  GDALClose(whole);
  return out;
}

}  // namespace cityforge::testing_dem
