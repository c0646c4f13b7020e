// SPDX-License-Identifier: Apache-2.0
// The local metric frame of an import: transverse Mercator on WGS84 around the centre of the
// imported bounds, through PROJ in the geodata module (geodata_api.hpp), loaded on the first
// Projection.
#include <cmath>
#include <cstdio>
#include <string>

#include "cityforge/osm/osm.hpp"
#include "osm/geodata_api.hpp"

namespace cityforge::osm {

struct Projection::Impl {
  const detail::GeodataApi* api = nullptr;
  detail::GeoFrame* frame = nullptr;
  Impl(const detail::GeodataApi* a, detail::GeoFrame* f) : api(a), frame(f) {}
  Impl(const Impl&) = delete;
  Impl& operator=(const Impl&) = delete;
  ~Impl() { api->frame_close(frame); }
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
  Result<const detail::GeodataApi*> api = detail::geodata();
  if (!api) return api.error();
  const std::string tmerc = detail::tmerc_definition(lon0_deg, lat0_deg);
  std::string error;
  bool internal = false;
  detail::GeoFrame* frame =
      (*api)->frame_open(detail::frame_pipeline(lon0_deg, lat0_deg), &error, &internal);
  if (frame == nullptr) {
    if (internal) return Error::internal("projection", error);
    return Error::invalid_input("projection", std::string("PROJ refused the local frame around ") +
                                                  origin + " ('" + tmerc + "'): " + error);
  }
  Projection p;
  p.m_impl = std::make_unique<Impl>(*api, frame);
  p.m_lon0 = lon0_deg;
  p.m_lat0 = lat0_deg;
  p.m_definition = tmerc + " +no_defs";
  return p;
}

Vec2 Projection::to_local(double lon_deg, double lat_deg) const {
  return m_impl->api->frame_to_local(*m_impl->frame, lon_deg, lat_deg);
}

std::pair<double, double> Projection::to_wgs84(Vec2 p) const {
  return m_impl->api->frame_to_wgs84(*m_impl->frame, p);
}

}  // namespace cityforge::osm
