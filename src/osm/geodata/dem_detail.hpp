// SPDX-License-Identifier: Apache-2.0
// Private helpers of the DEM readers of the geodata module (dem.cpp: one file; dem_mosaic.cpp:
// several through a GDAL VRT mosaic). GDAL's headers stay here, out of the public ones.
#pragma once

#include <cpl_error.h>
#include <gdal_priv.h>
#include <ogr_spatialref.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cityforge/osm/osm.hpp"
#include "osm/geodata/frame.hpp"

namespace cityforge::osm::detail {

/// Collects GDAL's messages instead of printing them; the last one goes into our errors.
class QuietGdal {
 public:
  QuietGdal() {
    CPLPushErrorHandler(CPLQuietErrorHandler);
    CPLErrorReset();
  }
  ~QuietGdal() { CPLPopErrorHandler(); }
  QuietGdal(const QuietGdal&) = delete;
  QuietGdal& operator=(const QuietGdal&) = delete;
  /// " (GDAL: <last message>)", or "" when GDAL said nothing.
  static std::string last() {
    const char* msg = CPLGetLastErrorMsg();
    return msg != nullptr && *msg != '\0' ? std::string(" (GDAL: ") + msg + ")" : std::string();
  }
};

/// Registers GDAL's drivers (once per process).
void register_gdal();

struct DatasetCloser {
  void operator()(GDALDataset* ds) const { GDALClose(GDALDataset::ToHandle(ds)); }
};
using Dataset = std::unique_ptr<GDALDataset, DatasetCloser>;

/// The error for a bad cell size or area, if any (`where` names the DEM).
std::optional<Error> check_dem_request(const std::string& where, const Aabb2& area, double cell_m);

/// Opens `path` as a DEM and checks what every DEM needs: a file GDAL reads as a raster with a
/// band and at least 2 x 2 cells, a north-up geotransform and a CRS tied to the Earth. Errors
/// name the file.
Result<Dataset> open_dem(const std::string& path);

/// How a band's stored values become metres.
struct BandValues {
  bool has_nodata = false;
  double nodata = 0.0;
  double scale = 1.0;
  double offset = 0.0;
  double unit_m = 1.0;  ///< Metres per unit (feet are converted).
};
BandValues band_values(GDALRasterBand& band);

/// CRS as "EPSG:<code>" when it has (or can be given) an authority, else its name.
std::string crs_label(const OGRSpatialReference& srs);

/// Resamples band 1 of an opened DEM (open_dem's checks passed) onto a heightfield covering
/// `area` (in `frame`'s metres) at `cell_m`, its values read as `values` says. `name` stands
/// for the DEM in errors.
Result<terrain::Heightfield> resample_dem(GDALDataset& ds, const std::string& name,
                                          const BandValues& values, GeoFrame& frame,
                                          const Aabb2& area, double cell_m, DemStats* stats);

/// osm::read_dem on the module's side.
Result<terrain::Heightfield> read_dem(const std::string& path, GeoFrame& frame, const Aabb2& area,
                                      double cell_m, DemStats* stats);
/// osm::read_dem_mosaic on the module's side (GeodataApi::read_dem_mosaic).
Result<terrain::Heightfield> read_dem_mosaic(const std::vector<std::string>& paths,
                                             const std::string& pipeline, const Aabb2& area,
                                             double cell_m, DemStats* stats);

}  // namespace cityforge::osm::detail
