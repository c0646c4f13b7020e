// SPDX-License-Identifier: Apache-2.0
// Ramp planning: sites along each freeway every uniform(interval) metres (seeded per freeway,
// alternating the direction served). At each site the nearest artery section within reach is
// served by a half-diamond: an off-ramp diverging from the curb lane before the site down to
// the start of the artery's curb lane nearest the site, and an on-ramp from the end of the
// artery's other curb lane back up to the curb lane after the site. Ramps are cubic Bezier
// curves (the junction connectors of the roads stage) with z linear in arc length, so the
// grade is constant; the diverge / merge points slide away from the site until the grade and
// the minimum length hold.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "cityforge/core/polyline.hpp"
#include "cityforge/roads/lanes.hpp"
#include "freeway/detail.hpp"

namespace cityforge::freeway::detail {
namespace {

constexpr double kRampSpacingM = 5.0;
constexpr double kEndMarginM = 10.0;  // Diverge / merge stay this far from the deck ends.
constexpr double kSlideStepM = 20.0;

std::string fixed0(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f", v);
  return buf;
}

Vec2 xy(Vec3 p) { return {p.x, p.y}; }

double plan_length(const std::vector<Vec3>& pts) {
  double l = 0;
  for (std::size_t i = 1; i < pts.size(); ++i)
    l += distance(xy(pts[i]), xy(pts[i - 1]));
  return l;
}

Vec2 start_tangent(const roads::Lane& l) { return normalize(xy(l.points[1]) - xy(l.points[0])); }
Vec2 end_tangent(const roads::Lane& l) {
  const std::size_t n = l.points.size();
  return normalize(xy(l.points[n - 1]) - xy(l.points[n - 2]));
}

// A ramp between a and b with end tangents; empty if too short or too steep. `handles` gets
// the inner control points of its Bezier curve.
std::vector<Vec3> ramp_curve(Vec3 a, Vec2 ta, Vec3 b, Vec2 tb, const Config& config,
                             std::array<Vec2, 2>& handles) {
  const double chord = distance(xy(a), xy(b));
  std::vector<Vec3> pts = roads::bezier_connector(a, ta, b, tb, chord / 3.0, kRampSpacingM);
  handles = {xy(a) + ta * (chord / 3.0), xy(b) - tb * (chord / 3.0)};
  const double len = plan_length(pts);
  if (len < config.min_ramp_length_m) return {};
  if (std::fabs(b.z - a.z) > config.max_ramp_grade * len) return {};
  // z linear in the polyline's own plan length, so every segment has the same grade (the
  // connector's z follows the true curve's arc, slightly longer than the chords).
  double run = 0;
  for (std::size_t i = 1; i + 1 < pts.size(); ++i) {
    run += distance(xy(pts[i]), xy(pts[i - 1]));
    pts[i].z = a.z + (b.z - a.z) * run / len;
  }
  return pts;
}

struct ArteryEnds {
  std::uint32_t section = 0;
  double distance_m = 0;
  std::vector<roads::LaneId> curb;  // Curb-side driving lanes of the section (1 or 2).
};

}  // namespace

Result<std::vector<RampPlan>> plan_ramps(const FreewayCurve& curve, std::size_t index,
                                         const CentreLine& c, const layout::Output& city,
                                         const roads::Output& roads, const Config& config,
                                         Seed seed, std::vector<std::string>& warnings) {
  // 1. Curb-side lanes of every artery section.
  std::vector<std::vector<roads::LaneId>> curb(roads.sections.size());
  for (const roads::Lane& l : roads.lanes.lanes) {
    if (l.section < 0 || (l.tags & roads::kVehicle) == 0U || (l.tags & roads::kIntersection) != 0U)
      continue;
    if (l.lane_index != 0 || l.points.size() < 2) continue;
    curb[static_cast<std::size_t>(l.section)].push_back(l.id);
  }
  // 2. Sites.
  Rng rng{seed, Stage::freeway, index};
  const double len = c.line.length_m;
  const double interval = rng.uniform(config.ramp_interval_min_m, config.ramp_interval_max_m);
  const double first = rng.uniform(0.4, 0.6) * std::min(interval, len);
  const int half_lanes = curve.lanes_per_direction;
  const double curb_off = config.median_m / 2.0 + (half_lanes - 0.5) * config.lane_width_m;
  const StationLine lines[2] = {lane_line(c.line, curb_off, true),
                                lane_line(c.line, curb_off, false)};
  std::vector<RampPlan> plans;
  double last_end[2] = {-1e300, -1e300};
  bool any_reach = false;
  double nearest_any = 1e300;
  int site = 0;
  for (double s = first; s < len; s += interval, ++site) {
    const Vec3 p3 = point_at(c.line, s);
    const Vec2 p = xy(p3);
    const std::string at = "freeway '" + curve.name + "' ramp site at station " + fixed0(s) +
                           " m (" + fixed0(p.x) + ", " + fixed0(p.y) + ")";
    // 2a. Nearest artery section with curb lanes (ties by section index).
    ArteryEnds best{0, 1e300, {}};
    for (std::size_t i = 0; i < roads.sections.size(); ++i) {
      const roads::Section& sec = roads.sections[i];
      if (sec.edge >= city.network.edges.size() || curb[i].empty() || sec.centre.size() < 2)
        continue;
      if (city.network.edges[sec.edge].road_class != layout::RoadClass::artery) continue;
      const double d = polyline_distance(sec.centre, p);
      if (d < best.distance_m) best = {static_cast<std::uint32_t>(i), d, curb[i]};
    }
    nearest_any = std::min(nearest_any, best.distance_m);
    if (best.distance_m > config.ramp_reach_m) {
      warnings.push_back(at + ": no artery within " + fixed0(config.ramp_reach_m) +
                         " m; ramp skipped");
      continue;
    }
    any_reach = true;
    // 2b. The off-ramp ends at the curb lane start nearest the site; the on-ramp leaves from
    //     the other direction's curb lane end (the same end of the section).
    const auto& lanes = roads.lanes.lanes;
    std::sort(best.curb.begin(), best.curb.end(), [&](roads::LaneId a, roads::LaneId b) {
      const double da = distance(xy(lanes[a].points.front()), p);
      const double db = distance(xy(lanes[b].points.front()), p);
      return da != db ? da < db : a < b;
    });
    const roads::Lane& in = lanes[best.curb.front()];
    const roads::Lane& out = lanes[best.curb.back()];
    // 2c. Slide the diverge back and the merge forward until grade and length hold.
    RampPlan plan;
    plan.forward = site % 2 == 0;
    const int dir = plan.forward ? 0 : 1;
    const StationLine& lane = lines[dir];
    const double t_site = plan.forward ? s : len - s;
    const double lo = std::max(kEndMarginM, last_end[dir] + 50.0);
    for (double back = kSlideStepM; t_site - back >= lo; back += kSlideStepM) {
      const double t = t_site - back;
      plan.off_points = ramp_curve(point_at(lane, t), tangent_at(lane, t), in.points.front(),
                                   start_tangent(in), config, plan.off_handles);
      if (!plan.off_points.empty()) {
        plan.diverge_t = t;
        break;
      }
    }
    for (double ahead = kSlideStepM; t_site + ahead <= len - kEndMarginM; ahead += kSlideStepM) {
      const double t = t_site + ahead;
      plan.on_points = ramp_curve(out.points.back(), end_tangent(out), point_at(lane, t),
                                  tangent_at(lane, t), config, plan.on_handles);
      if (!plan.on_points.empty()) {
        plan.merge_t = t;
        break;
      }
    }
    if (plan.off_points.empty() || plan.on_points.empty()) {
      warnings.push_back(at + ": no " + std::string(plan.off_points.empty() ? "off" : "on") +
                         "-ramp to artery section " + std::to_string(best.section) +
                         " fits within the deck at <= " + fixed0(config.max_ramp_grade * 100.0) +
                         " % grade; ramp skipped");
      continue;
    }
    plan.artery_in = in.id;
    plan.artery_out = out.id;
    plan.section = best.section;
    last_end[dir] = plan.merge_t;
    plans.push_back(std::move(plan));
  }
  // 3. A freeway that no ramp site can connect is an error: it would be unreachable.
  if (!any_reach) {
    return Error::invalid_input(
        where(index),
        "freeway '" + curve.name + "': ramp cannot reach an artery; the nearest " +
            "artery section is " +
            (nearest_any > 1e299 ? std::string("nowhere") : fixed0(nearest_any) + " m") +
            " from its ramp sites, reach is " + fixed0(config.ramp_reach_m) + " m");
  }
  return plans;
}

}  // namespace cityforge::freeway::detail
