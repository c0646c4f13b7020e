// SPDX-License-Identifier: Apache-2.0
// The geodata module: the parts of `osm` that need GDAL and PROJ (reading DEMs, the local
// transverse Mercator frame), built as a library of their own (libcityforge_geodata.so) and
// loaded with dlopen the first time an import needs them. GDAL and PROJ bring about a hundred
// shared libraries whose loading and relocation took 80 of the 87 ms every `cityforge` process
// spent starting, whatever the command; now only `import` pays it (README, Performance).
//
// Both sides compile this header: the program (geodata_loader.cpp, projection.cpp,
// dem_read.cpp) and the module (geodata/). They are built together by one build, so the table
// may pass C++ types; `abi` catches a module left over from another build.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "cityforge/osm/osm.hpp"

namespace cityforge::osm::detail {

/// Bumped whenever GeodataApi or the meaning of a member changes.
inline constexpr std::uint32_t kGeodataAbi = 1;

/// The module's PROJ transformer for one local frame (opaque to the program).
struct GeoFrame;

/// What the module offers; cityforge_geodata_api() returns one static table.
struct GeodataApi {
  std::uint32_t abi = 0;
  /// A frame for a PROJ pipeline definition; nullptr with `error` set when PROJ refuses it
  /// (`internal` set when PROJ could not even create a context).
  GeoFrame* (*frame_open)(const std::string& pipeline, std::string* error, bool* internal);
  void (*frame_close)(GeoFrame* frame);
  /// WGS84 degrees <-> local metres. Calls on one frame are serialised by the module.
  Vec2 (*frame_to_local)(GeoFrame& frame, double lon_deg, double lat_deg);
  std::pair<double, double> (*frame_to_wgs84)(GeoFrame& frame, Vec2 p);
  /// read_dem_mosaic (osm.hpp) with the projection given by its pipeline definition.
  Result<terrain::Heightfield> (*read_dem_mosaic)(const std::vector<std::string>& paths,
                                                  const std::string& pipeline, const Aabb2& area,
                                                  double cell_m, DemStats* stats);
};

/// The module's one exported symbol: `extern "C" const GeodataApi* cityforge_geodata_api()`.
inline constexpr const char* kGeodataEntry = "cityforge_geodata_api";
using GeodataEntry = const GeodataApi* (*)();

/// The module's table, loaded on the first call (thread-safe, once per process). The module is
/// looked for beside the running program, then where the build put it; CITYFORGE_GEODATA_MODULE
/// names another file. Errors (internal) name the file and what the loader said.
Result<const GeodataApi*> geodata();

/// The PROJ pipeline of the local frame around (lon0, lat0): degrees to radians, then tmerc.
/// 12 decimals: 1e-12 degree is about 0.1 micrometre, so the definition is the frame.
inline std::string tmerc_definition(double lon0_deg, double lat0_deg) {
  char tmerc[192];
  std::snprintf(tmerc, sizeof tmerc,
                "+proj=tmerc +lat_0=%.12f +lon_0=%.12f +k=1 +x_0=0 +y_0=0 +ellps=WGS84 +units=m",
                lat0_deg, lon0_deg);
  return tmerc;
}
inline std::string frame_pipeline(double lon0_deg, double lat0_deg) {
  return "+proj=pipeline +step +proj=unitconvert +xy_in=deg +xy_out=rad +step " +
         tmerc_definition(lon0_deg, lat0_deg);
}

}  // namespace cityforge::osm::detail
