// SPDX-License-Identifier: Apache-2.0
// Polygon validity, boolean operations and buffers, delegated to GEOS (OverlayNG) through its
// reentrant C API. Each call makes its own GEOS context, so calls are thread-safe; GEOS
// failures yield an empty result rather than an exception or a crash.
#include <cmath>
#include <cstdio>
#include <string>
#include <utility>

#include "core/detail/geos.hpp"

namespace cityforge {
namespace {

using detail::GeomPtr;
using detail::GeosContext;

/// Mitre limit (as a multiple of the distance) for offsets and buffers; matches
/// polyline_offset.
constexpr double kMitreLimit = 4.0;

/// The union of the valid versions of polys as one GEOS geometry (null when empty).
GeomPtr union_of(const GeosContext& ctx, const std::vector<Polygon>& polys) {
  std::vector<GeomPtr> parts;
  parts.reserve(polys.size());
  for (const Polygon& p : polys) {
    if (GeomPtr g = detail::to_geos_valid(ctx, p)) {
      parts.push_back(std::move(g));
    }
  }
  if (parts.empty()) {
    return detail::own(ctx, nullptr);
  }
  GeomPtr all = detail::make_collection(ctx, GEOS_GEOMETRYCOLLECTION, std::move(parts));
  if (!all) {
    return all;
  }
  return detail::own(ctx, detail::geos().GEOSUnaryUnion_r(ctx.get(), all.get()));
}

/// Buffers g with mitred joins and the given end cap; null on failure.
GeomPtr buffer(const GeosContext& ctx, const GEOSGeometry* g, double distance_m, int cap) {
  GEOSBufferParams* params = detail::geos().GEOSBufferParams_create_r(ctx.get());
  if (params == nullptr) {
    return detail::own(ctx, nullptr);
  }
  detail::geos().GEOSBufferParams_setEndCapStyle_r(ctx.get(), params, cap);
  detail::geos().GEOSBufferParams_setJoinStyle_r(ctx.get(), params, GEOSBUF_JOIN_MITRE);
  detail::geos().GEOSBufferParams_setMitreLimit_r(ctx.get(), params, kMitreLimit);
  GeomPtr out =
      detail::own(ctx, detail::geos().GEOSBufferWithParams_r(ctx.get(), g, params, distance_m));
  detail::geos().GEOSBufferParams_destroy_r(ctx.get(), params);
  return out;
}

std::string format_point(double x, double y) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "(%.9g, %.9g)", x, y);
  return buf;
}

}  // namespace

bool polygon_is_valid(const Polygon& poly, std::string* reason) {
  const auto fail = [reason](std::string why) {
    if (reason != nullptr) {
      *reason = std::move(why);
    }
    return false;
  };
  GeosContext ctx;
  if (ctx.get() == nullptr) {
    return fail("GEOS could not start");
  }
  GeomPtr g = detail::to_geos(ctx, poly);
  if (!g) {
    return fail("a ring has fewer than 3 distinct points or a non-finite coordinate");
  }
  char* why = nullptr;
  GEOSGeometry* location = nullptr;
  const char valid = detail::geos().GEOSisValidDetail_r(ctx.get(), g.get(), 0, &why, &location);
  GeomPtr where = detail::own(ctx, location);
  std::string message = why != nullptr ? why : "";
  if (why != nullptr) {
    detail::geos().GEOSFree_r(ctx.get(), why);
  }
  if (valid == 1) {
    return true;
  }
  if (valid != 0) {
    return fail("GEOS validity check failed: " + ctx.last_error());
  }
  double x = 0.0;
  double y = 0.0;
  if (where && detail::geos().GEOSGeomGetX_r(ctx.get(), where.get(), &x) == 1 &&
      detail::geos().GEOSGeomGetY_r(ctx.get(), where.get(), &y) == 1) {
    message += " at " + format_point(x, y);
  }
  return fail(std::move(message));
}

std::vector<Polygon> polygon_union(const std::vector<Polygon>& polys) {
  GeosContext ctx;
  GeomPtr u = union_of(ctx, polys);
  return detail::sorted_polygons(ctx, u.get());
}

std::vector<Polygon> polygon_difference(const Polygon& a, const std::vector<Polygon>& bs) {
  GeosContext ctx;
  GeomPtr ga = detail::to_geos_valid(ctx, a);
  if (!ga) {
    return {};
  }
  GeomPtr cut = union_of(ctx, bs);
  if (!cut) {
    return detail::sorted_polygons(ctx, ga.get());
  }
  GeomPtr out = detail::own(ctx, detail::geos().GEOSDifference_r(ctx.get(), ga.get(), cut.get()));
  return detail::sorted_polygons(ctx, out.get());
}

std::vector<Polygon> polygon_intersection(const Polygon& a, const Polygon& b) {
  GeosContext ctx;
  GeomPtr ga = detail::to_geos_valid(ctx, a);
  GeomPtr gb = detail::to_geos_valid(ctx, b);
  if (!ga || !gb) {
    return {};
  }
  GeomPtr out = detail::own(ctx, detail::geos().GEOSIntersection_r(ctx.get(), ga.get(), gb.get()));
  return detail::sorted_polygons(ctx, out.get());
}

std::vector<std::vector<Polygon>> polygon_intersections(const std::vector<Polygon>& as,
                                                        const Polygon& b) {
  std::vector<std::vector<Polygon>> out(as.size());
  if (as.empty()) return out;
  GeosContext ctx;
  GeomPtr gb = detail::to_geos_valid(ctx, b);
  if (!gb) return out;
  for (std::size_t i = 0; i < as.size(); ++i) {
    GeomPtr ga = detail::to_geos_valid(ctx, as[i]);
    if (!ga) continue;
    GeomPtr g = detail::own(ctx, detail::geos().GEOSIntersection_r(ctx.get(), ga.get(), gb.get()));
    out[i] = detail::sorted_polygons(ctx, g.get());
  }
  return out;
}

std::vector<Polygon> polygon_offset(const Polygon& poly, double distance_m) {
  GeosContext ctx;
  GeomPtr g = detail::to_geos_valid(ctx, poly);
  if (!g || !std::isfinite(distance_m)) {
    return {};
  }
  GeomPtr out = buffer(ctx, g.get(), distance_m, GEOSBUF_CAP_FLAT);
  return detail::sorted_polygons(ctx, out.get());
}

std::vector<Polygon> polyline_buffer(const Polyline& line, double half_width_m) {
  if (!(half_width_m > 0.0) || !std::isfinite(half_width_m)) {
    return {};
  }
  GeosContext ctx;
  GeomPtr g = detail::to_geos_line(ctx, line);
  if (!g) {
    return {};
  }
  GeomPtr out = buffer(ctx, g.get(), half_width_m, GEOSBUF_CAP_FLAT);
  return detail::sorted_polygons(ctx, out.get());
}

}  // namespace cityforge
