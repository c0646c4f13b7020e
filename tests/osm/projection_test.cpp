// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <thread>
#include <vector>

#include "cityforge/osm/osm.hpp"

namespace cityforge::osm {
namespace {

constexpr double kPi = 3.14159265358979323846;

/// Metres per degree of latitude and of longitude at `lat` (WGS84, for error bounds).
double metres_per_deg_lat() { return 111'000.0; }
double metres_per_deg_lon(double lat) { return 111'320.0 * std::cos(lat * kPi / 180.0); }

/// Great-circle distance on the mean sphere (accurate to ~0.5 % against the ellipsoid).
double haversine_m(double lon1, double lat1, double lon2, double lat2) {
  const double r = 6'371'008.8;
  const double p1 = lat1 * kPi / 180.0, p2 = lat2 * kPi / 180.0;
  const double dp = p2 - p1, dl = (lon2 - lon1) * kPi / 180.0;
  const double a = std::sin(dp / 2) * std::sin(dp / 2) +
                   std::cos(p1) * std::cos(p2) * std::sin(dl / 2) * std::sin(dl / 2);
  return 2 * r * std::asin(std::sqrt(a));
}

struct Origin {
  double lon, lat;
};
const Origin kOrigins[] = {
    {1.59993, 42.54239},      // Andorra
    {-74.006645, 40.736355},  // Manhattan
    {-2.0979, 57.1512},       // Aberdeen
    {0.0, 0.0},               // Equator, Greenwich
    {151.2093, -33.8688},     // Sydney (south, east)
    {179.9, 64.7},            // Near the antimeridian, far north
};

TEST(Projection, OriginMapsToZeroAndDefinitionNamesTheFrame) {
  for (const auto& o : kOrigins) {
    auto p = Projection::around(o.lon, o.lat);
    ASSERT_TRUE(p.ok()) << p.error().to_string();
    const Vec2 z = p->to_local(o.lon, o.lat);
    EXPECT_NEAR(z.x, 0.0, 1e-6);
    EXPECT_NEAR(z.y, 0.0, 1e-6);
    EXPECT_EQ(p->lon0(), o.lon);
    EXPECT_EQ(p->lat0(), o.lat);
    EXPECT_EQ(p->definition().rfind("+proj=tmerc", 0), 0u) << p->definition();
    EXPECT_NE(p->definition().find("+ellps=WGS84"), std::string::npos);
    EXPECT_NE(p->definition().find("+lat_0="), std::string::npos);
  }
}

TEST(Projection, RoundTripsAreSubMillimetreOutTo30Km) {
  for (const auto& o : kOrigins) {
    auto p = Projection::around(o.lon, o.lat);
    ASSERT_TRUE(p.ok());
    double worst_m = 0.0;
    for (int i = -6; i <= 6; ++i) {
      for (int j = -6; j <= 6; ++j) {
        const double lat = o.lat + i * 0.045;  // ~5 km steps, up to ~30 km
        const double lon = o.lon + j * 0.045 / std::max(0.2, std::cos(o.lat * kPi / 180.0));
        const Vec2 local = p->to_local(lon, lat);
        ASSERT_TRUE(std::isfinite(local.x) && std::isfinite(local.y));
        const auto [lon2, lat2] = p->to_wgs84(local);
        double dlon = lon2 - lon;  // Points past the antimeridian come back wrapped.
        if (dlon > 180.0) dlon -= 360.0;
        if (dlon < -180.0) dlon += 360.0;
        const double err_m =
            std::hypot(dlon * metres_per_deg_lon(lat), (lat2 - lat) * metres_per_deg_lat());
        worst_m = std::max(worst_m, err_m);
        // And metres -> degrees -> metres.
        const Vec2 again = p->to_local(lon2, lat2);
        worst_m = std::max(worst_m, std::hypot(again.x - local.x, again.y - local.y));
      }
    }
    EXPECT_LT(worst_m, 1e-3) << "origin " << o.lon << ", " << o.lat;
  }
}

TEST(Projection, AxesPointEastAndNorthAndDistancesAreMetres) {
  auto p = Projection::around(1.59993, 42.54239);
  ASSERT_TRUE(p.ok());
  const Vec2 east = p->to_local(1.60993, 42.54239);
  const Vec2 north = p->to_local(1.59993, 42.55239);
  EXPECT_GT(east.x, 0.0);
  EXPECT_NEAR(east.y, 0.0, 1.0);  // Meridian convergence bends a parallel only slightly.
  EXPECT_GT(north.y, 0.0);
  EXPECT_NEAR(north.x, 0.0, 1e-6);
  // 0.01 degree of latitude is about 1112 m here, of longitude about 820 m.
  EXPECT_NEAR(north.y, haversine_m(1.59993, 42.54239, 1.59993, 42.55239), 0.005 * north.y);
  EXPECT_NEAR(east.x, haversine_m(1.59993, 42.54239, 1.60993, 42.54239), 0.005 * east.x);
  // A 2 km diagonal: the local distance matches the geodesic within the sphere's error.
  const Vec2 d = p->to_local(1.61993, 42.55639);
  EXPECT_NEAR(std::hypot(d.x, d.y), haversine_m(1.59993, 42.54239, 1.61993, 42.55639),
              0.005 * std::hypot(d.x, d.y));
}

TEST(Projection, RejectsBadOrigins) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  const Origin bad[] = {{nan, 10.0},   {10.0, nan}, {inf, 0.0},   {0.0, -inf}, {180.5, 0.0},
                        {-181.0, 0.0}, {0.0, 90.0}, {0.0, -90.0}, {0.0, 91.0}};
  for (const auto& o : bad) {
    auto p = Projection::around(o.lon, o.lat);
    ASSERT_FALSE(p.ok()) << o.lon << ", " << o.lat;
    EXPECT_EQ(p.error().code, ErrorCode::invalid_input);
    EXPECT_NE(p.error().message.find("origin"), std::string::npos) << p.error().message;
  }
}

TEST(Projection, MovesAndIsSafeToShareBetweenThreads) {
  auto made = Projection::around(-74.006645, 40.736355);
  ASSERT_TRUE(made.ok());
  Projection p = std::move(*made);
  Projection q = std::move(p);
  EXPECT_EQ(q.lon0(), -74.006645);

  std::vector<Vec2> serial(4000);
  for (std::size_t i = 0; i < serial.size(); ++i)
    serial[i] = q.to_local(-74.02 + 1e-5 * double(i), 40.70 + 2e-5 * double(i));
  std::vector<Vec2> parallel(serial.size());
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (std::size_t i = std::size_t(t); i < parallel.size(); i += 4)
        parallel[i] = q.to_local(-74.02 + 1e-5 * double(i), 40.70 + 2e-5 * double(i));
    });
  }
  for (auto& th : threads)
    th.join();
  for (std::size_t i = 0; i < serial.size(); ++i) {
    ASSERT_EQ(serial[i].x, parallel[i].x) << i;
    ASSERT_EQ(serial[i].y, parallel[i].y) << i;
  }
}

}  // namespace
}  // namespace cityforge::osm
