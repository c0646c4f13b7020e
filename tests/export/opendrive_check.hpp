// SPDX-License-Identifier: Apache-2.0
// Compares an OpenDRIVE map, read by the independent test reader (xodr_reader.hpp), with the
// lane graph it was written from: lane centres, lane borders and the road surface height.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "cityforge/core/polyline.hpp"
#include "cityforge/core/vec.hpp"
#include "xodr_reader.hpp"

namespace cityforge::exporter::odr_check {

/// One lane of ours and where city.json says it is in the map.
struct OurLane {
  std::uint32_t id = 0;
  std::vector<Vec3> points;
  double width_m = 0.0;
  std::string road;
  int lane_id = 0;
  bool connector = false;
  /// A connector's cubic Bezier (its end points and roads::Lane::handles), when known: its
  /// borders are then its exact offsets, which fold back where the curve turns tighter than
  /// half the lane width, as the map's do; otherwise the offsets of `points`.
  bool has_curve = false;
  std::array<Vec2, 4> curve{};
};

/// Largest departures found, and where.
struct Fit {
  double centre_m = 0.0;    ///< Our lane points from the map's lane centre curve (plan).
  double border_m = 0.0;    ///< The map's lane borders from ours (plan).
  double vertical_m = 0.0;  ///< The map's surface from the drawn surface (drawn_z).
  std::size_t samples = 0;
  std::size_t lanes = 0;
  std::size_t missing = 0;  ///< Lanes the map does not have.
  std::string worst_centre, worst_border, worst_vertical;
};

/// Height of our drawn surface at `p` (plan) and lateral position t of the map's lane: what
/// the map's surface_z(road, s, t) should give there.
using DrawnZ = std::function<double(const OurLane&, Vec2 p, double t)>;

inline std::string where(const OurLane& l, double s) {
  return "lane " + std::to_string(l.id) + " (road " + l.road + ", lane " +
         std::to_string(l.lane_id) + ") at s=" + std::to_string(s);
}

/// Samples every lane of `lanes` in `doc` every `step_m` along its road.
inline Fit compare(const xodr_test::Document& doc, const std::vector<OurLane>& lanes,
                   const DrawnZ& drawn_z, double step_m = 0.5) {
  Fit fit;
  for (const OurLane& l : lanes) {
    const xodr_test::Road* road = xodr_test::find_road(doc, l.road);
    if (road == nullptr || l.points.size() < 2) {
      ++fit.missing;
      continue;
    }
    ++fit.lanes;
    Polyline ours;
    for (const Vec3& p : l.points)
      ours.push_back({p.x, p.y});
    ours = polyline_dedupe(ours, 1e-6);
    if (ours.size() < 2) continue;
    const auto note = [](double d, double& worst, std::string& at, const std::string& w) {
      if (d > worst) {
        worst = d;
        at = w;
      }
    };
    Polyline border_a, border_b;
    if (l.has_curve) {
      const auto& [a, b, c, d] = l.curve;
      // 5 cm apart along the curve's control polygon (at least as long as the curve).
      const double hull = distance(a, b) + distance(b, c) + distance(c, d);
      const int samples = std::max(20, static_cast<int>(std::ceil(hull / 0.05)));
      for (int i = 0; i <= samples; ++i) {
        const double u = static_cast<double>(i) / samples, v = 1.0 - u;
        const Vec2 p =
            a * (v * v * v) + b * (3.0 * v * v * u) + c * (3.0 * v * u * u) + d * (u * u * u);
        const Vec2 t =
            normalize((b - a) * (3.0 * v * v) + (c - b) * (6.0 * v * u) + (d - c) * (3.0 * u * u));
        border_a.push_back(p + perp(t) * (0.5 * l.width_m));
        border_b.push_back(p - perp(t) * (0.5 * l.width_m));
      }
    } else if (l.connector) {
      // Points sampled on a curve: its normal at each point from the chord of its neighbours
      // (parallel to the tangent on a circle), not a mitre of the chords, which departs from
      // the curve's offset by the sampling's turn. Only these points are compared (below).
      for (std::size_t i = 0; i < ours.size(); ++i) {
        const Vec2 t = normalize(ours[std::min(i + 1, ours.size() - 1)] - ours[i > 0 ? i - 1 : 0]);
        border_a.push_back(ours[i] + perp(t) * (0.5 * l.width_m));
        border_b.push_back(ours[i] - perp(t) * (0.5 * l.width_m));
      }
    } else {
      border_a = polyline_offset(ours, 0.5 * l.width_m);
      border_b = polyline_offset(ours, -0.5 * l.width_m);
    }
    Polyline centre, inner, outer;  // The map's lane centre and borders, densely sampled.
    // Connecting roads are short and may turn tightly: sampled 5x finer.
    const double step = l.connector ? 0.2 * step_m : step_m;
    const int n = std::max(2, static_cast<int>(std::ceil(road->length / step)));
    for (int i = 0; i <= n; ++i) {
      const double s = road->length * i / n;
      const auto b = xodr_test::lane_bounds(*road, s, l.lane_id);
      if (!b) {
        ++fit.missing;
        break;
      }
      ++fit.samples;
      const auto c = xodr_test::world_point(*road, s, b->centre_t);
      const auto pi = xodr_test::world_point(*road, s, b->inner_t);
      const auto po = xodr_test::world_point(*road, s, b->outer_t);
      centre.push_back({c.x, c.y});
      inner.push_back({pi.x, pi.y});
      outer.push_back({po.x, po.y});
      // Sections: our lanes are the polylines themselves, so the map's borders lie on them.
      // Connectors: our polyline samples the curve 1 m apart, its chords cut inside the
      // curve; only our points (on the curve) are compared, below.
      for (const Vec2 q : {Vec2{pi.x, pi.y}, Vec2{po.x, po.y}}) {
        if (l.connector && !l.has_curve) break;
        const double d = std::min(polyline_distance(border_a, q), polyline_distance(border_b, q));
        note(d, fit.border_m, fit.worst_border, where(l, s));
      }
      if (drawn_z) {
        for (const double t : {b->centre_t, b->inner_t, b->outer_t}) {
          const auto p = xodr_test::world_point(*road, s, t);
          const double dz =
              std::abs(xodr_test::surface_z(*road, s, t) - drawn_z(l, Vec2{p.x, p.y}, t));
          if (dz > fit.vertical_m) {
            fit.vertical_m = dz;
            fit.worst_vertical = where(l, s);
          }
        }
      }
    }
    // Our points (on the connector curve, or the section's polyline) from the map's curves.
    for (const Vec2 p : ours) {
      note(polyline_distance(centre, p), fit.centre_m, fit.worst_centre,
           "lane " + std::to_string(l.id) + " (road " + l.road + ") point (" + std::to_string(p.x) +
               ", " + std::to_string(p.y) + ")");
    }
    // Exact borders: every 10th of their samples (at most 0.5 m apart).
    const std::size_t stride = l.has_curve ? 10 : 1;
    for (const Polyline* border : {&border_a, &border_b}) {
      for (std::size_t i = 0; i < border->size(); i += stride) {
        // A connector's end chords are 1 cm stubs along the curve's end tangents (within
        // 0.25 degrees): the offset across such a stub says nothing about the border.
        if (l.connector && !l.has_curve && (i < 2 || i + 2 >= border->size())) continue;
        const Vec2 p = (*border)[i];
        const double d = std::min(polyline_distance(inner, p), polyline_distance(outer, p));
        note(d, fit.border_m, fit.worst_border,
             "lane " + std::to_string(l.id) + " (road " + l.road + ") border point (" +
                 std::to_string(p.x) + ", " + std::to_string(p.y) + ")");
      }
    }
  }
  return fit;
}

}  // namespace cityforge::exporter::odr_check
