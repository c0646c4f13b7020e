// SPDX-License-Identifier: Apache-2.0
// Freeway lanes: lanes_per_direction lanes each way, right-hand traffic, curb lane (index 0)
// outermost. Every lane of a direction is cut at that direction's diverge and merge stations
// so the ramps join lane ends; pieces meet exactly because all lanes share the centre line's
// stations. Ids: per freeway, forward pieces, backward pieces, the two end turnarounds, then
// ramps (off, on) in site order.

#include "cityforge/roads/lanes.hpp"

#include <algorithm>

#include "freeway/detail.hpp"

namespace cityforge::freeway::detail {
namespace {

void link(Output& out, roads::LaneId from, roads::LaneId to) {
  const roads::LaneId base = out.first_lane_id;
  if (from >= base) out.lanes[from - base].successors.push_back(to);
  if (to >= base) out.lanes[to - base].predecessors.push_back(from);
  if (from < base || to < base) out.links.push_back({from, to});
}

}  // namespace

void build_lanes(std::uint32_t freeway, const FreewayCurve& curve, const CentreLine& c,
                 const std::vector<RampPlan>& ramps, const Config& config, Output& out) {
  const int n = curve.lanes_per_direction;
  const double speed = curve.design_speed_kmh / 3.6;
  const double len = c.line.length_m;
  auto next_id = [&] { return static_cast<roads::LaneId>(out.first_lane_id + out.lanes.size()); };
  // ids[dir][piece][lane index]; cuts[dir] = piece boundaries in travel stations.
  std::vector<std::vector<std::vector<roads::LaneId>>> ids(2);
  std::vector<std::vector<double>> cuts(2);
  for (int dir = 0; dir < 2; ++dir) {
    const bool fwd = dir == 0;
    std::vector<double>& cut_at = cuts[dir];
    cut_at = {0.0, len};
    for (const RampPlan& r : ramps) {
      if (r.forward == fwd) cut_at.insert(cut_at.end(), {r.diverge_t, r.merge_t});
    }
    std::sort(cut_at.begin(), cut_at.end());
    cut_at.erase(std::unique(cut_at.begin(), cut_at.end()), cut_at.end());
    std::vector<StationLine> lines;
    for (int i = 0; i < n; ++i)
      lines.push_back(
          lane_line(c.line, config.median_m / 2.0 + (n - 1 - i + 0.5) * config.lane_width_m, fwd));
    for (std::size_t p = 0; p + 1 < cut_at.size(); ++p) {
      ids[dir].emplace_back();
      for (int i = 0; i < n; ++i) {
        roads::Lane lane;
        lane.id = next_id();
        lane.tags = roads::kVehicle | roads::kFreeway;
        lane.points = cut(lines[static_cast<std::size_t>(i)], cut_at[p], cut_at[p + 1]);
        lane.width_m = config.lane_width_m;
        lane.length_m = roads::polyline3_length(lane.points);
        lane.speed_limit_mps = speed;
        lane.lane_index = i;
        lane.forward = fwd;
        lane.traffic_density = 1.0;
        ids[dir].back().push_back(lane.id);
        out.lanes.push_back(std::move(lane));
      }
    }
  }
  // Neighbours and successors along each direction.
  for (int dir = 0; dir < 2; ++dir) {
    const auto& pieces = ids[dir];
    for (std::size_t p = 0; p < pieces.size(); ++p) {
      for (int i = 0; i < n; ++i) {
        roads::Lane& l = out.lanes[pieces[p][i] - out.first_lane_id];
        if (i + 1 < n) l.left_neighbour = pieces[p][i + 1];
        if (i > 0) l.right_neighbour = pieces[p][i - 1];
        if (p + 1 < pieces.size()) link(out, pieces[p][i], pieces[p + 1][i]);
      }
    }
  }
  // Turnarounds at both ends of the deck, innermost lane to innermost lane, like the roads
  // stage's dead ends: the freeway continues beyond the city in reality, and without them
  // vehicles reaching an end would be trapped. At the deck's far end the forward lanes end and
  // the backward lanes start; at its start, the reverse.
  const auto tangent_at_end = [](const std::vector<Vec3>& pts) {
    const Vec3 a = pts[pts.size() - 2];
    const Vec3 b = pts.back();
    return normalize(Vec2{b.x - a.x, b.y - a.y});
  };
  const auto tangent_at_start = [](const std::vector<Vec3>& pts) {
    return normalize(Vec2{pts[1].x - pts[0].x, pts[1].y - pts[0].y});
  };
  for (int dir = 0; dir < 2; ++dir) {
    const roads::LaneId from = ids[dir].back()[static_cast<std::size_t>(n - 1)];
    const roads::LaneId to = ids[1 - dir].front()[static_cast<std::size_t>(n - 1)];
    const std::vector<Vec3>& a = out.lanes[from - out.first_lane_id].points;
    const std::vector<Vec3>& b = out.lanes[to - out.first_lane_id].points;
    if (a.size() < 2 || b.size() < 2) continue;
    const double gap = distance(Vec2{a.back().x, a.back().y}, Vec2{b.front().x, b.front().y});
    roads::Lane turn;
    turn.id = next_id();
    turn.tags = roads::kVehicle | roads::kFreeway | roads::kIntersection;
    turn.turn = roads::Turn::u_turn;
    turn.points = roads::bezier_connector(a.back(), tangent_at_end(a), b.front(),
                                          tangent_at_start(b), std::max(gap, 5.0), 1.0);
    turn.handles = {Vec2{a.back().x, a.back().y} + tangent_at_end(a) * std::max(gap, 5.0),
                    Vec2{b.front().x, b.front().y} - tangent_at_start(b) * std::max(gap, 5.0)};
    turn.width_m = config.lane_width_m;
    turn.length_m = roads::polyline3_length(turn.points);
    turn.speed_limit_mps = std::min(speed, 30.0 / 3.6);
    turn.lane_index = n - 1;
    turn.forward = dir == 0;
    turn.traffic_density = 0.2;
    const roads::LaneId id = turn.id;
    out.lanes.push_back(std::move(turn));
    link(out, from, id);
    link(out, id, to);
  }
  // Ramps: the curb piece ending at the diverge feeds the off-ramp; the on-ramp feeds the curb
  // piece starting at the merge.
  const double ramp_speed = config.ramp_speed_kmh / 3.6;
  for (const RampPlan& r : ramps) {
    const int dir = r.forward ? 0 : 1;
    const auto& cut_at = cuts[dir];
    const auto piece_from = [&](double t) {
      return static_cast<std::size_t>(std::lower_bound(cut_at.begin(), cut_at.end(), t) -
                                      cut_at.begin());
    };
    for (const bool off : {true, false}) {
      roads::Lane lane;
      lane.id = next_id();
      lane.tags = roads::kVehicle | roads::kRamp;
      lane.points = off ? r.off_points : r.on_points;
      lane.handles = off ? r.off_handles : r.on_handles;
      lane.width_m = config.ramp_lane_width_m;
      lane.length_m = roads::polyline3_length(lane.points);
      lane.speed_limit_mps = ramp_speed;
      lane.lane_index = 0;
      lane.forward = r.forward;
      lane.traffic_density = 0.5;
      const roads::LaneId id = lane.id;
      out.lanes.push_back(std::move(lane));
      double plan_len = 0;
      const auto& pts = out.lanes.back().points;
      for (std::size_t k = 1; k < pts.size(); ++k)
        plan_len += distance(Vec2{pts[k].x, pts[k].y}, Vec2{pts[k - 1].x, pts[k - 1].y});
      Ramp ramp;
      ramp.freeway = freeway;
      ramp.off = off;
      ramp.lane = id;
      ramp.section = r.section;
      ramp.length_m = plan_len;
      ramp.grade = (pts.back().z - pts.front().z) / plan_len;
      if (off) {
        const std::size_t p = piece_from(r.diverge_t);  // cut index: piece p - 1 ends there
        link(out, ids[dir][p - 1][0], id);
        link(out, id, r.artery_in);
        ramp.artery_lane = r.artery_in;
        ramp.station_m = r.forward ? r.diverge_t : len - r.diverge_t;
      } else {
        const std::size_t p = piece_from(r.merge_t);  // piece p starts there
        link(out, r.artery_out, id);
        link(out, id, ids[dir][p][0]);
        ramp.artery_lane = r.artery_out;
        ramp.station_m = r.forward ? r.merge_t : len - r.merge_t;
      }
      out.ramps.push_back(ramp);
    }
  }
}

}  // namespace cityforge::freeway::detail
