// SPDX-License-Identifier: Apache-2.0
#pragma once

// Private glue between our polygons and the GEOS reentrant C API. Only src/core includes it.
#define GEOS_USE_ONLY_R_API
#include <geos_c.h>

#include <memory>
#include <string>
#include <vector>

#include "cityforge/core/polygon.hpp"

// The GEOS functions we call, as an X-macro list (each X(name) once).
#define CITYFORGE_GEOS_FUNCTIONS(X)         \
  X(GEOSBufferParams_create_r)              \
  X(GEOSBufferParams_destroy_r)             \
  X(GEOSBufferParams_setEndCapStyle_r)      \
  X(GEOSBufferParams_setJoinStyle_r)        \
  X(GEOSBufferParams_setMitreLimit_r)       \
  X(GEOSBufferWithParams_r)                 \
  X(GEOSConstrainedDelaunayTriangulation_r) \
  X(GEOSContext_setErrorMessageHandler_r)   \
  X(GEOSContext_setNoticeMessageHandler_r)  \
  X(GEOSCoordSeq_create_r)                  \
  X(GEOSCoordSeq_getSize_r)                 \
  X(GEOSCoordSeq_getXY_r)                   \
  X(GEOSCoordSeq_setXY_r)                   \
  X(GEOSDifference_r)                       \
  X(GEOSFree_r)                             \
  X(GEOSGeomGetX_r)                         \
  X(GEOSGeomGetY_r)                         \
  X(GEOSGeomTypeId_r)                       \
  X(GEOSGeom_createCollection_r)            \
  X(GEOSGeom_createLineString_r)            \
  X(GEOSGeom_createLinearRing_r)            \
  X(GEOSGeom_createPolygon_r)               \
  X(GEOSGeom_destroy_r)                     \
  X(GEOSGeom_getCoordSeq_r)                 \
  X(GEOSGetExteriorRing_r)                  \
  X(GEOSGetGeometryN_r)                     \
  X(GEOSGetInteriorRingN_r)                 \
  X(GEOSGetNumGeometries_r)                 \
  X(GEOSGetNumInteriorRings_r)              \
  X(GEOSIntersection_r)                     \
  X(GEOSMakeValid_r)                        \
  X(GEOSUnaryUnion_r)                       \
  X(GEOS_finish_r)                          \
  X(GEOS_init_r)                            \
  X(GEOSisEmpty_r)                          \
  X(GEOSisValidDetail_r)                    \
  X(GEOSisValid_r)

namespace cityforge::detail {

/// The GEOS C API, loaded with dlopen the first time a geometry needs it (libgeos_c.so.1, from
/// Debian's libgeos-c1v5) rather than linked: GEOS and GEOS C bring about 7,200 relocations,
/// more than libstdc++, which every start of the program would pay, --help and the island
/// included. Thread-safe; throws std::runtime_error naming the library when it cannot be
/// loaded or lacks a function (commands call load_geos() first, so they fail cleanly instead).
struct GeosApi {
#define CITYFORGE_GEOS_MEMBER(name) decltype(&::name) name = nullptr;
  CITYFORGE_GEOS_FUNCTIONS(CITYFORGE_GEOS_MEMBER)
#undef CITYFORGE_GEOS_MEMBER
};
const GeosApi& geos();
/// Empty when GEOS is loaded, else why not (loads it on the first call).
const std::string& geos_load_error();

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
      geos().GEOSGeom_destroy_r(ctx, g);
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
