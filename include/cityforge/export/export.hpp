// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cityforge/core/result.hpp"
#include "cityforge/layout/layout.hpp"
#include "cityforge/pipeline/city_config.hpp"
#include "cityforge/terrain/heightfield.hpp"

/// Writers for everything a user gets out of a run. `export` is a C++ keyword, so the namespace
/// is `exporter`.
namespace cityforge::exporter {

/// Export settings: the `export` object of the city JSON (chunk size, setbacks, raises).
using Config = pipeline::ExportSettings;

/// Where the local frame sits on Earth; (0,0) with `georeferenced = false` for invented cities.
struct Origin {
  bool georeferenced = false;
  double lon_deg = 0.0;
  double lat_deg = 0.0;
};

/// Builds `city.glb` (glTF 2.0 binary) in memory: one node per chunk_m x chunk_m chunk (named
/// "chunk_<cx>_<cy>", ordered by (cy, cx)), each with one mesh whose primitives are the
/// terrain, the road ribbons per class, block surfaces and block volumes that fall in it
/// (triangles are assigned by centroid). Converts z-up engine coordinates to glTF's y-up
/// (x, z, -y). Positions are float32 with min/max, normals float32, indices uint32. Byte
/// identical for identical inputs. Fails (never emits NaN) if any coordinate is not finite.
Result<std::vector<std::uint8_t>> city_glb(const layout::Output& city,
                                           const terrain::Heightfield& ground,
                                           const Config& config);

/// `layout.geojson`: a FeatureCollection of roads (LineString with class, width, lanes,
/// sidewalk, speed, densities, from/to nodes), blocks and zones (Polygon), in local metres;
/// the top-level member "cityforge" holds units, origin and the crs note. Floats printed with
/// %.9g, keys in a fixed order: byte identical for identical inputs.
Result<std::string> layout_geojson(const layout::Output& city, const Origin& origin);

/// `map.svg`: a top-down map: zones tinted by kind, blocks, roads drawn to width and coloured
/// by class, the boundary, a scale bar and a legend. North is up.
std::string map_svg(const layout::Output& city);

/// Writes bytes to `path` through a temporary file in the same folder and an atomic rename, so
/// a reader never sees a half-written file. The error names the path.
Status write_file_atomic(const std::string& path, const void* data, std::size_t size);
inline Status write_file_atomic(const std::string& path, const std::string& text) {
  return write_file_atomic(path, text.data(), text.size());
}

}  // namespace cityforge::exporter
