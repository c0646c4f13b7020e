// SPDX-License-Identifier: Apache-2.0
// The local metric frame of an import: transverse Mercator on WGS84 around the centre of the
// imported bounds, through PROJ. The frame is a PROJ pipeline of plain +proj steps (degrees to
// radians, then tmerc), so it needs no proj.db; one PROJ context per Projection, calls
// serialised by a mutex (a PJ object is not safe to use from two threads at once).
#include <proj.h>

#include <cmath>
#include <cstdio>
#include <mutex>
#include <string>

#include "cityforge/osm/osm.hpp"

namespace cityforge::osm {

struct Projection::Impl {
  std::mutex mutex;
  PJ_CONTEXT* ctx = nullptr;
  PJ* pj = nullptr;
  ~Impl() {
    if (pj) proj_destroy(pj);
    if (ctx) proj_context_destroy(ctx);
  }
};

Projection::Projection(Projection&&) noexcept = default;
Projection& Projection::operator=(Projection&&) noexcept = default;
Projection::~Projection() = default;

Result<Projection> Projection::around(double lon0_deg, double lat0_deg) {
  char origin[96];
  std::snprintf(origin, sizeof origin, "(lon %.9g, lat %.9g)", lon0_deg, lat0_deg);
  if (!std::isfinite(lon0_deg) || !std::isfinite(lat0_deg) || lon0_deg < -180.0 ||
      lon0_deg > 180.0 || lat0_deg <= -90.0 || lat0_deg >= 90.0) {
    return Error::invalid_input("projection",
                                std::string("expected an origin with lon in [-180, 180] and lat in "
                                            "(-90, 90) degrees, got ") +
                                    origin);
  }
  // 12 decimals: 1e-12 degree is about 0.1 micrometre, so the definition is the frame.
  char tmerc[192];
  std::snprintf(tmerc, sizeof tmerc,
                "+proj=tmerc +lat_0=%.12f +lon_0=%.12f +k=1 +x_0=0 +y_0=0 +ellps=WGS84 +units=m",
                lat0_deg, lon0_deg);
  const std::string pipeline =
      std::string("+proj=pipeline +step +proj=unitconvert +xy_in=deg +xy_out=rad +step ") + tmerc;

  auto impl = std::make_unique<Impl>();
  impl->ctx = proj_context_create();
  if (!impl->ctx) return Error::internal("projection", "PROJ could not create a context");
  proj_log_level(impl->ctx, PJ_LOG_NONE);
  impl->pj = proj_create(impl->ctx, pipeline.c_str());
  if (!impl->pj) {
    const int err = proj_context_errno(impl->ctx);
    return Error::invalid_input(
        "projection", std::string("PROJ refused the local frame around ") + origin + " ('" + tmerc +
                          "'): " + proj_context_errno_string(impl->ctx, err));
  }
  Projection p;
  p.m_impl = std::move(impl);
  p.m_lon0 = lon0_deg;
  p.m_lat0 = lat0_deg;
  p.m_definition = std::string(tmerc) + " +no_defs";
  return p;
}

Vec2 Projection::to_local(double lon_deg, double lat_deg) const {
  std::lock_guard<std::mutex> lock(m_impl->mutex);
  const PJ_COORD out = proj_trans(m_impl->pj, PJ_FWD, proj_coord(lon_deg, lat_deg, 0.0, 0.0));
  return Vec2{out.xy.x, out.xy.y};
}

std::pair<double, double> Projection::to_wgs84(Vec2 p) const {
  std::lock_guard<std::mutex> lock(m_impl->mutex);
  const PJ_COORD out = proj_trans(m_impl->pj, PJ_INV, proj_coord(p.x, p.y, 0.0, 0.0));
  return {out.xy.x, out.xy.y};
}

}  // namespace cityforge::osm
