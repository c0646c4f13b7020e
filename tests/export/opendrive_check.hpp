// SPDX-License-Identifier: Apache-2.0
// Compares an OpenDRIVE map, read by the independent test reader (xodr_reader.hpp), with the
// lane graph it was written from: lane centres, lane borders and the road surface height.
#pragma once

#include <algorithm>
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
  /// Turn (radians) from the lane joined directly at its start (end) to it: a bend between two
  /// sections without a junction, where the lanes meet mitred. 0 elsewhere.
  double start_turn_rad = 0.0;
  double end_turn_rad = 0.0;
};

/// Upper bound of r + |t| (corner radius plus lane offset) in our maps: the corner radius is
/// the outermost border's offset (half the widest carriageway plus its sidewalk, < 17 m), and
/// no lane lies further out.
inline constexpr double kCornerReachM = 35.0;
/// How far the map may depart from our mitred lanes near a corner turning by theta: an offset
/// curve of a smooth reference line that rounds the corner with radius r passes the mitre point
/// of a lane at offset d at (r + d) (1 / cos(theta / 2) - 1) (0 only for a sharp corner, which
/// OpenDRIVE cannot offset without a gap). 2 cm plus that, with r + d <= kCornerReachM.
inline double corner_allowance(double theta) {
  return 0.02 + kCornerReachM * (1.0 / std::cos(0.5 * std::min(theta, 3.0)) - 1.0);
}

/// Largest departures found, and where.
struct Fit {
  double centre_m = 0.0;    ///< Our lane points from the map's lane centre curve (plan).
  double border_m = 0.0;    ///< The map's lane borders from ours (plan).
  double vertical_m = 0.0;  ///< The map's surface from the drawn surface (drawn_z).
  /// Near corners of our lanes (vertices whose corner_allowance is over 2.1 cm, 2.7 degrees and
  /// more): the largest departure (plan) as a share of corner_allowance, and how many samples
  /// were near one. Outside corners the limit is 2 cm.
  double corner_share = 0.0;
  std::size_t corner_samples = 0;
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
    // Corners of our lane: (vertex, turn), and the lane ends joined mitred to the next section.
    std::vector<std::pair<Vec2, double>> corners;
    for (std::size_t i = 1; i + 1 < ours.size(); ++i) {
      const Vec2 a = normalize(ours[i] - ours[i - 1]);
      const Vec2 b = normalize(ours[i + 1] - ours[i]);
      const double turn = std::abs(std::atan2(a.x * b.y - a.y * b.x, dot(a, b)));
      if (corner_allowance(turn) > 0.021) corners.emplace_back(ours[i], turn);
    }
    if (corner_allowance(l.start_turn_rad) > 0.021)
      corners.emplace_back(ours.front(), l.start_turn_rad);
    if (corner_allowance(l.end_turn_rad) > 0.021) corners.emplace_back(ours.back(), l.end_turn_rad);
    // The allowance at q: 2 cm, or a corner's within reach of it.
    const auto allowance = [&](Vec2 q) {
      double a = 0.02;
      for (const auto& [v, turn] : corners)
        if (distance(v, q) <= kCornerReachM * std::tan(0.5 * std::min(turn, 3.0)) + 1.0)
          a = std::max(a, corner_allowance(turn));
      return a;
    };
    const auto note = [&](double d, Vec2 q, double& worst, std::string& at, const std::string& w) {
      const double a = allowance(q);
      if (a > 0.021) {
        ++fit.corner_samples;
        fit.corner_share = std::max(fit.corner_share, d / a);
        return;
      }
      if (d > worst) {
        worst = d;
        at = w;
      }
    };
    const Polyline border_a = polyline_offset(ours, 0.5 * l.width_m);
    const Polyline border_b = polyline_offset(ours, -0.5 * l.width_m);
    Polyline centre, inner, outer;  // The map's lane centre and borders, densely sampled.
    const int n = std::max(2, static_cast<int>(std::ceil(road->length / step_m)));
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
        if (l.connector) break;
        const double d = std::min(polyline_distance(border_a, q), polyline_distance(border_b, q));
        note(d, q, fit.border_m, fit.worst_border, where(l, s));
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
      note(polyline_distance(centre, p), p, fit.centre_m, fit.worst_centre,
           "lane " + std::to_string(l.id) + " (road " + l.road + ") point (" + std::to_string(p.x) +
               ", " + std::to_string(p.y) + ")");
    }
    for (const Polyline* border : {&border_a, &border_b}) {
      for (std::size_t i = 0; i < border->size(); ++i) {
        // A connector's end chords are 1 cm stubs along the curve's end tangents (within
        // 0.25 degrees): the offset across such a stub says nothing about the border.
        if (l.connector && (i < 2 || i + 2 >= border->size())) continue;
        const Vec2 p = (*border)[i];
        const double d = std::min(polyline_distance(inner, p), polyline_distance(outer, p));
        note(d, p, fit.border_m, fit.worst_border,
             "lane " + std::to_string(l.id) + " (road " + l.road + ") border point (" +
                 std::to_string(p.x) + ", " + std::to_string(p.y) + ")");
      }
    }
  }
  return fit;
}

}  // namespace cityforge::exporter::odr_check
