// SPDX-License-Identifier: Apache-2.0
// Conversions between cityforge polygons and GEOS geometries (reentrant C API).
#include "core/detail/geos.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include "cityforge/core/geos_library.hpp"
#include "cityforge/core/loadable.hpp"

namespace cityforge::detail {
namespace {

void keep_error(const char* message, void* user) {
  auto* error = static_cast<std::string*>(user);
  if (error != nullptr && message != nullptr) {
    *error = message;
  }
}

void ignore_notice(const char* /*message*/, void* /*user*/) {}

bool finite(Vec2 p) { return std::isfinite(p.x) && std::isfinite(p.y); }

/// A closed GEOS linear ring from an implicit-closing ring; null when degenerate.
GEOSGeometry* make_ring(GEOSContextHandle_t h, const Ring& ring) {
  Ring pts = polyline_dedupe(ring, 0.0);
  while (pts.size() > 1 && pts.back() == pts.front()) {
    pts.pop_back();
  }
  if (pts.size() < 3 || !std::all_of(pts.begin(), pts.end(), finite)) {
    return nullptr;
  }
  const auto n = static_cast<unsigned>(pts.size());
  const GeosApi& api = geos();  // Once, not per point.
  GEOSCoordSequence* seq = api.GEOSCoordSeq_create_r(h, n + 1, 2);
  if (seq == nullptr) {
    return nullptr;
  }
  for (unsigned i = 0; i <= n; ++i) {
    const Vec2 p = pts[i % n];
    api.GEOSCoordSeq_setXY_r(h, seq, i, p.x, p.y);
  }
  return api.GEOSGeom_createLinearRing_r(h, seq);  // Takes ownership of seq, even on failure.
}

Ring read_ring(GEOSContextHandle_t h, const GEOSGeometry* ring) {
  Ring out;
  const GeosApi& api = geos();  // Once, not per point.
  const GEOSCoordSequence* seq = ring != nullptr ? api.GEOSGeom_getCoordSeq_r(h, ring) : nullptr;
  unsigned n = 0;
  if (seq == nullptr || api.GEOSCoordSeq_getSize_r(h, seq, &n) == 0) {
    return out;
  }
  out.reserve(n);
  for (unsigned i = 0; i < n; ++i) {
    double x = 0.0;
    double y = 0.0;
    api.GEOSCoordSeq_getXY_r(h, seq, i, &x, &y);
    out.push_back({x, y});
  }
  if (out.size() > 1 && out.front() == out.back()) {
    out.pop_back();
  }
  return out;
}

bool less_points(const Ring& a, const Ring& b) {
  return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end(), [](Vec2 p, Vec2 q) {
    return p.x != q.x ? p.x < q.x : p.y < q.y;
  });
}

}  // namespace

namespace {

// The loaded API, or why it could not be loaded (the first caller's attempt; never retried).
struct GeosLoad {
  GeosApi api;
  std::string error;
};

const GeosLoad& geos_load() {
  static const GeosLoad load = [] {
    GeosLoad out;
    const SystemLibrary lib = open_system_library(
        "CITYFORGE_GEOS_LIBRARY", "libgeos_c.so.1",
        "the GEOS C library: Debian package libgeos-c1v5, which scripts/install-deps.sh installs");
    if (lib.handle == nullptr) {
      out.error = lib.error;
      return out;
    }
    const auto bind = [&](auto& fn, const char* name) {
      void* sym = dlsym(lib.handle, name);
      if (sym == nullptr && out.error.empty()) {
        out.error = "GEOS (" + lib.name + ") has no function " + name +
                    "; cityforge needs GEOS 3.11 or later";
      }
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(sym);
    };
#define CITYFORGE_GEOS_BIND(name) bind(out.api.name, #name);
    CITYFORGE_GEOS_FUNCTIONS(CITYFORGE_GEOS_BIND)
#undef CITYFORGE_GEOS_BIND
    return out;  // The library stays loaded for the life of the process.
  }();
  return load;
}

}  // namespace

const std::string& geos_load_error() { return geos_load().error; }

const GeosApi& geos() {
  const GeosLoad& load = geos_load();
  if (!load.error.empty()) throw std::runtime_error(load.error);
  return load.api;
}

GeosContext::GeosContext() : m_ctx(geos().GEOS_init_r()) {
  if (m_ctx != nullptr) {
    geos().GEOSContext_setNoticeMessageHandler_r(m_ctx, ignore_notice, nullptr);
    geos().GEOSContext_setErrorMessageHandler_r(m_ctx, keep_error, &m_error);
  }
}

GeosContext::~GeosContext() {
  if (m_ctx != nullptr) {
    geos().GEOS_finish_r(m_ctx);
  }
}

GeomPtr to_geos(const GeosContext& ctx, const Polygon& poly) {
  GEOSContextHandle_t h = ctx.get();
  if (h == nullptr) {
    return own(ctx, nullptr);
  }
  GEOSGeometry* shell = make_ring(h, poly.outer);
  if (shell == nullptr) {
    return own(ctx, nullptr);
  }
  std::vector<GEOSGeometry*> holes;
  holes.reserve(poly.holes.size());
  for (const Ring& hole : poly.holes) {
    if (GEOSGeometry* r = make_ring(h, hole); r != nullptr) {
      holes.push_back(r);
    }
  }
  // createPolygon takes ownership of the shell and the holes.
  return own(ctx, geos().GEOSGeom_createPolygon_r(h, shell, holes.data(),
                                                  static_cast<unsigned>(holes.size())));
}

GeomPtr to_geos_valid(const GeosContext& ctx, const Polygon& poly) {
  GeomPtr g = to_geos(ctx, poly);
  if (!g || geos().GEOSisValid_r(ctx.get(), g.get()) == 1) {
    return g;
  }
  GeomPtr fixed = own(ctx, geos().GEOSMakeValid_r(ctx.get(), g.get()));
  if (!fixed) {
    return fixed;
  }
  std::vector<Polygon> parts;
  collect_polygons(ctx, fixed.get(), parts);
  std::vector<GeomPtr> geoms;
  for (const Polygon& p : parts) {
    if (GeomPtr part = to_geos(ctx, p)) {
      geoms.push_back(std::move(part));
    }
  }
  if (geoms.empty()) {
    return own(ctx, nullptr);
  }
  return make_collection(ctx, GEOS_MULTIPOLYGON, std::move(geoms));
}

GeomPtr to_geos_line(const GeosContext& ctx, const Polyline& line) {
  GEOSContextHandle_t h = ctx.get();
  const Polyline pts = polyline_dedupe(line, 0.0);
  if (h == nullptr || pts.size() < 2 || !std::all_of(pts.begin(), pts.end(), finite)) {
    return own(ctx, nullptr);
  }
  const auto n = static_cast<unsigned>(pts.size());
  const GeosApi& api = geos();  // Once, not per point.
  GEOSCoordSequence* seq = api.GEOSCoordSeq_create_r(h, n, 2);
  if (seq == nullptr) {
    return own(ctx, nullptr);
  }
  for (unsigned i = 0; i < n; ++i) {
    api.GEOSCoordSeq_setXY_r(h, seq, i, pts[i].x, pts[i].y);
  }
  return own(ctx, api.GEOSGeom_createLineString_r(h, seq));
}

GeomPtr make_collection(const GeosContext& ctx, int type, std::vector<GeomPtr> parts) {
  std::vector<GEOSGeometry*> raw;
  raw.reserve(parts.size());
  for (GeomPtr& p : parts) {
    raw.push_back(p.release());
  }
  GEOSGeometry* c = geos().GEOSGeom_createCollection_r(ctx.get(), type, raw.data(),
                                                       static_cast<unsigned>(raw.size()));
  if (c == nullptr) {
    // On failure the parts are still ours.
    for (GEOSGeometry* g : raw) {
      geos().GEOSGeom_destroy_r(ctx.get(), g);
    }
  }
  return own(ctx, c);
}

void collect_polygons(const GeosContext& ctx, const GEOSGeometry* g, std::vector<Polygon>& out) {
  GEOSContextHandle_t h = ctx.get();
  if (g == nullptr || geos().GEOSisEmpty_r(h, g) != 0) {
    return;
  }
  const int type = geos().GEOSGeomTypeId_r(h, g);
  if (type == GEOS_MULTIPOLYGON || type == GEOS_GEOMETRYCOLLECTION) {
    const int n = geos().GEOSGetNumGeometries_r(h, g);
    for (int i = 0; i < n; ++i) {
      collect_polygons(ctx, geos().GEOSGetGeometryN_r(h, g, i), out);
    }
    return;
  }
  if (type != GEOS_POLYGON) {
    return;
  }
  Polygon poly;
  poly.outer = read_ring(h, geos().GEOSGetExteriorRing_r(h, g));
  const int holes = geos().GEOSGetNumInteriorRings_r(h, g);
  for (int i = 0; i < holes; ++i) {
    poly.holes.push_back(read_ring(h, geos().GEOSGetInteriorRingN_r(h, g, i)));
  }
  poly = polygon_canonical(std::move(poly));
  if (poly.outer.size() >= 3 && polygon_area(poly) > 0.0) {
    out.push_back(std::move(poly));
  }
}

std::vector<Polygon> sorted_polygons(const GeosContext& ctx, const GEOSGeometry* g) {
  std::vector<Polygon> polys;
  collect_polygons(ctx, g, polys);
  struct Keyed {
    double min_x;
    double min_y;
    double area;
    std::size_t index;
  };
  std::vector<Keyed> keys;
  keys.reserve(polys.size());
  for (std::size_t i = 0; i < polys.size(); ++i) {
    const Aabb2 box = ring_bounds(polys[i].outer);
    keys.push_back({box.min.x, box.min.y, polygon_area(polys[i]), i});
  }
  std::stable_sort(keys.begin(), keys.end(), [&](const Keyed& a, const Keyed& b) {
    if (std::tie(a.min_x, a.min_y, a.area) != std::tie(b.min_x, b.min_y, b.area)) {
      return std::tie(a.min_x, a.min_y, a.area) < std::tie(b.min_x, b.min_y, b.area);
    }
    return less_points(polys[a.index].outer, polys[b.index].outer);
  });
  std::vector<Polygon> out;
  out.reserve(polys.size());
  for (const Keyed& k : keys) {
    out.push_back(std::move(polys[k.index]));
  }
  return out;
}

}  // namespace cityforge::detail

namespace cityforge {

Status load_geos() {
  const std::string& error = detail::geos_load_error();
  if (!error.empty()) return Error::internal("GEOS", error);
  return Ok{};
}

}  // namespace cityforge
