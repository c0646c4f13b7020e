// SPDX-License-Identifier: Apache-2.0
#pragma once

// Private glue between our polygons and the GEOS reentrant C API. Only src/core includes it.
#define GEOS_USE_ONLY_R_API
#include <geos_c.h>

#include <memory>
#include <string>
#include <vector>

#include "cityforge/core/polygon.hpp"

namespace cityforge::detail {

/// One GEOS context for the duration of one call: thread-safe without shared state. Messages
/// are kept (never printed); the last error is available for diagnostics.
class GeosContext {
 public:
  GeosContext();
  ~GeosContext();
  GeosContext(const GeosContext&) = delete;
  GeosContext& operator=(const GeosContext&) = delete;

  GEOSContextHandle_t get() const { return m_ctx; }
  const std::string& last_error() const { return m_error; }

 private:
  GEOSContextHandle_t m_ctx = nullptr;
  std::string m_error;
};

/// Destroys a GEOS geometry with the context it was made in.
struct GeomDeleter {
  GEOSContextHandle_t ctx = nullptr;
  void operator()(GEOSGeometry* g) const {
    if (g != nullptr) {
      GEOSGeom_destroy_r(ctx, g);
    }
  }
};
using GeomPtr = std::unique_ptr<GEOSGeometry, GeomDeleter>;

inline GeomPtr own(const GeosContext& ctx, GEOSGeometry* g) {
  return GeomPtr(g, GeomDeleter{ctx.get()});
}

/// A GEOS polygon with closed rings, or null for rings with < 3 points or non-finite values.
GeomPtr to_geos(const GeosContext& ctx, const Polygon& poly);
/// Like to_geos, but repairs invalid input (GEOSMakeValid, polygonal parts only) so overlay
/// operations do not fail on it. Null when nothing polygonal remains.
GeomPtr to_geos_valid(const GeosContext& ctx, const Polygon& poly);
/// A GEOS line string, or null for < 2 distinct points or non-finite values.
GeomPtr to_geos_line(const GeosContext& ctx, const Polyline& line);
/// A GEOS collection of the given geometries (takes ownership), of the given GEOS type.
GeomPtr make_collection(const GeosContext& ctx, int type, std::vector<GeomPtr> parts);

/// Appends the polygons of g (Polygon, MultiPolygon or nested collections; other types are
/// skipped) as canonical polygons without closing points. Drops empty and zero-area parts.
void collect_polygons(const GeosContext& ctx, const GEOSGeometry* g, std::vector<Polygon>& out);
/// The polygons of g (may be null) canonical and sorted by (min x, min y, area), then by
/// their points, so the order is total.
std::vector<Polygon> sorted_polygons(const GeosContext& ctx, const GEOSGeometry* g);

}  // namespace cityforge::detail
