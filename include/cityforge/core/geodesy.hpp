// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cmath>

#include "cityforge/core/vec.hpp"

namespace cityforge {

/// WGS84 degrees -> the local frame of an imported place (transverse Mercator on WGS84 around
/// (lon0, lat0), which osm::Projection computes exactly with PROJ), by its leading series terms:
/// for readers of layout.geojson without PROJ (crowd files, simulate, the viewer). Within a few
/// millimetres of PROJ up to ~10 km from the origin, a few centimetres at 30 km.
inline Vec2 wgs84_to_local_approx(double lon_deg, double lat_deg, double lon0_deg,
                                  double lat0_deg) {
  constexpr double kA = 6378137.0;
  constexpr double kE2 = 0.00669437999014;  // first eccentricity squared
  constexpr double kRad = 3.14159265358979323846 / 180.0;
  const double phi = lat_deg * kRad;
  const double phi0 = lat0_deg * kRad;
  const double dl = (lon_deg - lon0_deg) * kRad;
  const double s = std::sin(phi);
  const double n = kA / std::sqrt(1.0 - kE2 * s * s);  // prime vertical radius at phi
  // Meridian arc from phi0 to phi with the meridian radius at the mid latitude.
  const double sm = std::sin(0.5 * (phi + phi0));
  const double m = kA * (1.0 - kE2) / std::pow(1.0 - kE2 * sm * sm, 1.5);
  const double x = n * std::cos(phi) * dl;
  const double y = m * (phi - phi0) + x * x * std::tan(phi) / (2.0 * n);
  return Vec2{x, y};
}

}  // namespace cityforge
