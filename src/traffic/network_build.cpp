// SPDX-License-Identifier: Apache-2.0
// The runtime network: the roads::LaneGraph validated and flattened into arrays (CSR links,
// polylines with arc length), with the junction tables the coordinator needs: connectors per
// junction, connector conflicts (crossing centre lines or a shared target lane), crossings of
// crosswalks, validated signal plans and merge flags.
#include <tbb/parallel_for.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cityforge/core/polyline.hpp"
#include "cityforge/traffic/network.hpp"
#include "traffic/detail/conflict_points.hpp"

namespace cityforge::traffic {
namespace {

using roads::Lane;

std::string lane_where(std::size_t i) { return "lanes[" + std::to_string(i) + "]"; }

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

bool is_connector(std::uint32_t tags) {
  return (tags & roads::kVehicle) != 0U && (tags & roads::kIntersection) != 0U;
}

double arc_length(const std::vector<Vec3>& pts) {
  double total = 0.0;
  for (std::size_t k = 1; k < pts.size(); ++k)
    total += length(pts[k] - pts[k - 1]);
  return total;
}

/// Checks one lane on its own and its links against the lane count.
std::optional<Error> validate_lane(const Lane& l, std::size_t i, std::size_t n,
                                   std::size_t intersections) {
  const std::string w = lane_where(i);
  if (l.id != i) {
    return Error::invalid_input(w + ".id", "expected the lane's index " + std::to_string(i) +
                                               ", found " + std::to_string(l.id));
  }
  for (std::size_t k = 0; k < l.points.size(); ++k) {
    const Vec3 p = l.points[k];
    if (!std::isfinite(p.x) || !std::isfinite(p.y) || !std::isfinite(p.z)) {
      return Error::invalid_input(w + ".points[" + std::to_string(k) + "]",
                                  "expected finite coordinates, found [" + num(p.x) + ", " +
                                      num(p.y) + ", " + num(p.z) + "]");
    }
  }
  if ((l.tags & roads::kVehicle) != 0U) {
    if (l.points.size() < 2) {
      return Error::invalid_input(w + ".points", "a vehicle lane needs >= 2 points, found " +
                                                     std::to_string(l.points.size()));
    }
    const double len = std::min(l.length_m, arc_length(l.points));
    if (!(len > 1e-3)) {
      return Error::invalid_input(w + ".length_m",
                                  "a vehicle lane needs a length > 0.001 m, found " + num(len));
    }
    if (!(l.speed_limit_mps > 0.0) || !std::isfinite(l.speed_limit_mps)) {
      return Error::invalid_input(
          w + ".speed_limit_mps",
          "a vehicle lane needs a finite speed limit > 0, found " + num(l.speed_limit_mps));
    }
  }
  if (l.intersection < -1 || l.intersection >= static_cast<std::int64_t>(intersections)) {
    return Error::invalid_input(
        w + ".intersection", "expected -1 or a junction index < " + std::to_string(intersections) +
                                 ", found " + std::to_string(l.intersection));
  }
  auto check_ids = [&](const std::vector<LaneId>& ids, const char* field,
                       const char* what) -> std::optional<Error> {
    for (std::size_t k = 0; k < ids.size(); ++k) {
      if (ids[k] >= n) {
        return Error::invalid_input(w + "." + field + "[" + std::to_string(k) + "]",
                                    std::string("dangling ") + what + ": expected a lane id < " +
                                        std::to_string(n) + ", found " + std::to_string(ids[k]));
      }
    }
    return std::nullopt;
  };
  if (auto e = check_ids(l.successors, "successors", "successor")) return e;
  if (auto e = check_ids(l.predecessors, "predecessors", "predecessor")) return e;
  for (const auto& [id, field] : {std::pair{l.left_neighbour, "left_neighbour"},
                                  std::pair{l.right_neighbour, "right_neighbour"}}) {
    if (id != kNoLane && id >= n) {
      return Error::invalid_input(w + "." + field, "dangling neighbour: expected a lane id < " +
                                                       std::to_string(n) + " or null, found " +
                                                       std::to_string(id));
    }
  }
  return std::nullopt;
}

/// Successors and predecessors of vehicle lanes must mirror each other. Pedestrian lanes are
/// exempt: the roads stage links sidewalks and crosswalks both ways (walkers go either way).
std::optional<Error> validate_links(const std::vector<Lane>& lanes) {
  auto lists = [](const std::vector<LaneId>& v, LaneId x) {
    return std::find(v.begin(), v.end(), x) != v.end();
  };
  for (std::size_t i = 0; i < lanes.size(); ++i) {
    const Lane& l = lanes[i];
    const auto id = static_cast<LaneId>(i);
    if ((l.tags & roads::kVehicle) == 0U) continue;
    for (std::size_t k = 0; k < l.successors.size(); ++k) {
      if (!lists(lanes[l.successors[k]].predecessors, id)) {
        return Error::invalid_input(lane_where(i) + ".successors[" + std::to_string(k) + "]",
                                    "successors and predecessors must mirror: expected lane " +
                                        std::to_string(l.successors[k]) + " to list " +
                                        std::to_string(i) +
                                        " among its predecessors, found it missing");
      }
    }
    for (std::size_t k = 0; k < l.predecessors.size(); ++k) {
      if (!lists(lanes[l.predecessors[k]].successors, id)) {
        return Error::invalid_input(lane_where(i) + ".predecessors[" + std::to_string(k) + "]",
                                    "successors and predecessors must mirror: expected lane " +
                                        std::to_string(l.predecessors[k]) + " to list " +
                                        std::to_string(i) +
                                        " among its successors, found it missing");
      }
    }
  }
  return std::nullopt;
}

/// Fills a CSR list from per-lane vectors, each sorted.
void fill_csr(const std::vector<Lane>& lanes, std::vector<LaneId> Lane::*field,
              std::vector<std::uint32_t>& begin, std::vector<LaneId>& out) {
  begin.assign(lanes.size() + 1, 0);
  for (std::size_t i = 0; i < lanes.size(); ++i)
    begin[i + 1] = begin[i] + static_cast<std::uint32_t>((lanes[i].*field).size());
  out.resize(begin.back());
  for (std::size_t i = 0; i < lanes.size(); ++i) {
    const auto& v = lanes[i].*field;
    std::copy(v.begin(), v.end(), out.begin() + begin[i]);
    std::sort(out.begin() + begin[i], out.begin() + begin[i + 1]);
  }
}

/// A lane's plan view for crossing tests: its points, arc length and bounding box.
struct Line {
  const Vec3* pts = nullptr;
  const float* s = nullptr;
  std::uint32_t count = 0;
  Aabb2 box;
};

/// Points [from, to) of a lane (all by default).
Line line_of(const Network& net, LaneId lane, std::uint32_t from = 0,
             std::uint32_t to = 0xffffffffU) {
  Line l;
  const std::uint32_t b = net.point_begin[lane] + from;
  l.pts = net.points.data() + b;
  l.s = net.point_s.data() + b;
  l.count = std::min(net.point_begin[lane + 1] - net.point_begin[lane], to) - from;
  for (std::uint32_t k = 0; k < l.count; ++k)
    l.box.add({l.pts[k].x, l.pts[k].y});
  return l;
}

Vec2 xy(Vec3 p) { return {p.x, p.y}; }

/// How far before and after a connector its movement is checked against crosswalks.
constexpr double kApproachM = 10.0;

/// The last >= length_m of a lane (the whole lane when shorter).
Line lane_tail(const Network& net, LaneId lane, double length_m) {
  const std::uint32_t b = net.point_begin[lane];
  const std::uint32_t e = net.point_begin[lane + 1];
  if (e == b) return {};
  const double end_s = net.point_s[e - 1];
  std::uint32_t k = e - 1;
  while (k > b && end_s - net.point_s[k] < length_m)
    --k;
  return line_of(net, lane, k - b);
}

/// The first >= length_m of a lane (the whole lane when shorter).
Line lane_head(const Network& net, LaneId lane, double length_m) {
  const std::uint32_t b = net.point_begin[lane];
  const std::uint32_t e = net.point_begin[lane + 1];
  std::uint32_t k = b;
  while (k + 1 < e && net.point_s[k] < length_m)
    ++k;
  return line_of(net, lane, 0, k - b + 1);
}

/// Arc length of point `hit` on segment k (from point k - 1 to k) of a line.
double s_at(const Line& l, std::uint32_t k, Vec2 hit) {
  const Vec2 a = xy(l.pts[k - 1]);
  const double seg = distance(a, xy(l.pts[k]));
  const double t = seg > 0.0 ? std::clamp(distance(a, hit) / seg, 0.0, 1.0) : 0.0;
  return l.s[k - 1] + t * (l.s[k] - l.s[k - 1]);
}

/// Whether two lines cross in plan. Hits within tolerance of the shared start (both lines,
/// when `shared_start`) or of the shared end (when `shared_end`) do not count.
bool lines_cross(const Line& a, const Line& b, bool shared_start, bool shared_end,
                 double tolerance_m) {
  if (!a.box.overlaps(b.box)) return false;
  const double len_a = a.s[a.count - 1];
  const double len_b = b.s[b.count - 1];
  for (std::uint32_t i = 1; i < a.count; ++i) {
    const Vec2 a0 = xy(a.pts[i - 1]);
    const Vec2 a1 = xy(a.pts[i]);
    Aabb2 sa;
    sa.add(a0);
    sa.add(a1);
    if (!sa.overlaps(b.box)) continue;
    for (std::uint32_t j = 1; j < b.count; ++j) {
      Vec2 hit;
      if (!segment_intersection(a0, a1, xy(b.pts[j - 1]), xy(b.pts[j]), &hit)) continue;
      const double sa_hit = s_at(a, i, hit);
      const double sb_hit = s_at(b, j, hit);
      if (shared_start && sa_hit <= tolerance_m && sb_hit <= tolerance_m) continue;
      if (shared_end && len_a - sa_hit <= tolerance_m && len_b - sb_hit <= tolerance_m) continue;
      return true;
    }
  }
  return false;
}

bool share_any(const std::vector<std::uint32_t>& begin, const std::vector<LaneId>& ids, LaneId a,
               LaneId b) {
  for (std::uint32_t i = begin[a]; i < begin[a + 1]; ++i) {
    if (std::binary_search(ids.begin() + begin[b], ids.begin() + begin[b + 1], ids[i])) {
      return true;
    }
  }
  return false;
}

/// One junction's tables: per connector (in connector order) its crossing partners, its
/// conflicts and its crosswalks.
struct JunctionTables {
  std::vector<std::vector<LaneId>> crossing;
  std::vector<std::vector<LaneId>> conflicts;
  std::vector<std::vector<LaneId>> crosswalks;
};

JunctionTables junction_tables(const Network& net, std::uint32_t junction,
                               const std::vector<LaneId>& walks, double tolerance_m) {
  const std::uint32_t b = net.connector_begin[junction];
  const std::uint32_t n = net.connector_begin[junction + 1] - b;
  JunctionTables t;
  t.crossing.resize(n);
  t.conflicts.resize(n);
  t.crosswalks.resize(n);
  std::vector<Line> lines(n);
  for (std::uint32_t k = 0; k < n; ++k)
    lines[k] = line_of(net, net.connectors[b + k]);
  // 1. Connector pairs: a crossing outside a shared start or end, or a shared target lane.
  for (std::uint32_t i = 0; i < n; ++i) {
    const LaneId li = net.connectors[b + i];
    for (std::uint32_t j = i + 1; j < n; ++j) {
      const LaneId lj = net.connectors[b + j];
      const bool diverge = share_any(net.pred_begin, net.pred, li, lj);
      const bool merge = share_any(net.succ_begin, net.succ, li, lj);
      const bool cross = lines_cross(lines[i], lines[j], diverge, merge, tolerance_m);
      if (cross) {
        t.crossing[i].push_back(lj);
        t.crossing[j].push_back(li);
      }
      if (cross || merge) {
        t.conflicts[i].push_back(lj);
        t.conflicts[j].push_back(li);
      }
    }
  }
  // 2. Crosswalks lie just outside the junction, where the lanes meet the connectors: a
  // movement crosses one when the connector, the last metres of its incoming lane or the first
  // metres of its outgoing lane cross the walk's centre line (the roads stage's rule).
  std::vector<Line> walk_lines;
  walk_lines.reserve(walks.size());
  for (LaneId w : walks)
    walk_lines.push_back(line_of(net, w));
  std::vector<Line> path;
  for (std::uint32_t i = 0; i < n && !walks.empty(); ++i) {
    const LaneId c = net.connectors[b + i];
    path.assign(1, lines[i]);
    for (std::uint32_t k = net.pred_begin[c]; k < net.pred_begin[c + 1]; ++k)
      path.push_back(lane_tail(net, net.pred[k], kApproachM));
    for (std::uint32_t k = net.succ_begin[c]; k < net.succ_begin[c + 1]; ++k)
      path.push_back(lane_head(net, net.succ[k], kApproachM));
    for (std::size_t k = 0; k < walks.size(); ++k) {
      const bool hit = std::any_of(path.begin(), path.end(), [&](const Line& piece) {
        return piece.count >= 2 && lines_cross(piece, walk_lines[k], false, false, 0.0);
      });
      if (hit) t.crosswalks[i].push_back(walks[k]);
    }
  }
  for (std::uint32_t i = 0; i < n; ++i) {
    std::sort(t.crossing[i].begin(), t.crossing[i].end());
    std::sort(t.conflicts[i].begin(), t.conflicts[i].end());
  }
  return t;
}

/// Validates one signal plan against the junction tables.
std::optional<Error> validate_signal(const Network& net, const roads::SignalPlan& plan,
                                     std::size_t index,
                                     const std::vector<std::vector<LaneId>>& crossing_of_lane) {
  const std::string w = "signals[" + std::to_string(index) + "]";
  const std::uint32_t x = plan.intersection;
  if (x >= net.intersection_count()) {
    return Error::invalid_input(w + ".intersection", "expected a junction index < " +
                                                         std::to_string(net.intersection_count()) +
                                                         ", found " + std::to_string(x));
  }
  if (plan.phases.empty()) {
    return Error::invalid_input(w + ".phases", "expected >= 1 phase, found none");
  }
  if (!std::isfinite(plan.offset_s)) {
    return Error::invalid_input(w + ".offset_s",
                                "expected a finite offset, found " + num(plan.offset_s));
  }
  for (std::size_t p = 0; p < plan.phases.size(); ++p) {
    const roads::Phase& ph = plan.phases[p];
    const std::string wp = w + ".phases[" + std::to_string(p) + "]";
    for (const auto& [v, field] :
         {std::pair{ph.green_s, ".green_s"}, std::pair{ph.yellow_s, ".yellow_s"},
          std::pair{ph.all_red_s, ".all_red_s"}}) {
      if (!(v >= 0.0) || !std::isfinite(v)) {
        return Error::invalid_input(wp + field,
                                    "expected a finite duration >= 0 s, found " + num(v));
      }
    }
    const double total = ph.green_s + ph.yellow_s + ph.all_red_s;
    if (!(total > 0.0)) {
      return Error::invalid_input(
          wp, "expected green_s + yellow_s + all_red_s > 0, found " + num(total));
    }
    for (std::size_t g = 0; g < ph.green.size(); ++g) {
      const LaneId c = ph.green[g];
      if (c >= net.lane_count() || !is_connector(net.tags[c]) ||
          net.intersection[c] != static_cast<std::int32_t>(x)) {
        return Error::invalid_input(wp + ".green[" + std::to_string(g) + "]",
                                    "expected a connector of junction " + std::to_string(x) +
                                        ", found lane " + std::to_string(c));
      }
    }
    for (std::size_t k = 0; k < ph.walk.size(); ++k) {
      const LaneId c = ph.walk[k];
      if (c >= net.lane_count() || !net.is(c, roads::kCrosswalk) ||
          net.intersection[c] != static_cast<std::int32_t>(x)) {
        return Error::invalid_input(wp + ".walk[" + std::to_string(k) + "]",
                                    "expected a crosswalk of junction " + std::to_string(x) +
                                        ", found lane " + std::to_string(c));
      }
    }
    // Conflicting greens: two movements with right of way whose centre lines cross (merges
    // into one lane are allowed: the roads stage gives them green together).
    std::vector<LaneId> firm;
    for (LaneId c : ph.green) {
      if (!net.is(c, roads::kYield)) firm.push_back(c);
    }
    std::sort(firm.begin(), firm.end());
    for (LaneId c : firm) {
      for (LaneId o : crossing_of_lane[c]) {
        if (o > c && std::binary_search(firm.begin(), firm.end(), o)) {
          return Error::invalid_input(wp + ".green", "lanes " + std::to_string(c) + " and " +
                                                         std::to_string(o) +
                                                         " cross; expected at most one of them "
                                                         "without the yield tag");
        }
      }
    }
  }
  return std::nullopt;
}

}  // namespace

Result<Network> build_network(const roads::LaneGraph& graph,
                              const std::vector<roads::Control>& controls,
                              const NetworkOptions& options) {
  if (!(options.diverge_tolerance_m >= 0.0) || !std::isfinite(options.diverge_tolerance_m)) {
    return Error::invalid_input(
        "options.diverge_tolerance_m",
        "expected a finite distance >= 0, found " + num(options.diverge_tolerance_m));
  }
  const auto& lanes = graph.lanes;
  const std::size_t n = lanes.size();
  if (n >= kNoLane) {
    return Error::invalid_input("lanes", "too many lanes: " + std::to_string(n));
  }
  // 1. Validate every lane, then the links between them.
  for (std::size_t i = 0; i < n; ++i) {
    if (auto e = validate_lane(lanes[i], i, n, controls.size())) return *e;
  }
  if (auto e = validate_links(lanes)) return *e;

  // 2. Per-lane arrays, links and polylines.
  Network net;
  net.length_m.resize(n);
  net.speed_limit_mps.resize(n);
  net.tags.resize(n);
  net.intersection.resize(n);
  net.left.resize(n);
  net.right.resize(n);
  net.traffic_density.resize(n);
  net.width_m.resize(n);
  net.pedestrian_density.resize(n);
  net.turn.resize(n);
  net.point_begin.assign(n + 1, 0);
  for (std::size_t i = 0; i < n; ++i) {
    net.point_begin[i + 1] =
        net.point_begin[i] + static_cast<std::uint32_t>(lanes[i].points.size());
  }
  net.points.resize(net.point_begin.back());
  net.point_s.resize(net.point_begin.back());
  for (std::size_t i = 0; i < n; ++i) {
    const Lane& l = lanes[i];
    const std::uint32_t b = net.point_begin[i];
    double s = 0.0;
    for (std::size_t k = 0; k < l.points.size(); ++k) {
      if (k > 0) s += length(l.points[k] - l.points[k - 1]);
      net.points[b + k] = l.points[k];
      net.point_s[b + k] = static_cast<float>(s);
    }
    // The arc length of the polyline, so positions along the lane match lane_pose.
    net.length_m[i] = static_cast<float>(s);
    net.speed_limit_mps[i] = static_cast<float>(l.speed_limit_mps);
    net.tags[i] = l.tags;
    net.intersection[i] = l.intersection;
    net.left[i] = l.left_neighbour;
    net.right[i] = l.right_neighbour;
    net.traffic_density[i] = static_cast<float>(l.traffic_density);
    net.width_m[i] = static_cast<float>(l.width_m);
    net.pedestrian_density[i] = static_cast<float>(l.pedestrian_density);
    net.turn[i] = l.turn;
  }
  fill_csr(lanes, &Lane::successors, net.succ_begin, net.succ);
  fill_csr(lanes, &Lane::predecessors, net.pred_begin, net.pred);

  // 3. Junctions: controls, connectors and crosswalks per junction (ascending lane id).
  const std::size_t nx = controls.size();
  net.control = controls;
  net.connector_begin.assign(nx + 1, 0);
  std::vector<std::vector<LaneId>> walks(nx);
  for (std::size_t i = 0; i < n; ++i) {
    // Freeway turnarounds are connectors outside any junction (intersection -1).
    if (is_connector(net.tags[i]) && net.intersection[i] >= 0) {
      ++net.connector_begin[net.intersection[i] + 1];
    }
    if (net.is(static_cast<LaneId>(i), roads::kCrosswalk) && net.intersection[i] >= 0) {
      walks[net.intersection[i]].push_back(static_cast<LaneId>(i));
    }
  }
  for (std::size_t x = 0; x < nx; ++x)
    net.connector_begin[x + 1] += net.connector_begin[x];
  net.connectors.resize(net.connector_begin.back());
  {
    std::vector<std::uint32_t> fill(net.connector_begin.begin(), net.connector_begin.end() - 1);
    for (std::size_t i = 0; i < n; ++i) {
      if (is_connector(net.tags[i]) && net.intersection[i] >= 0) {
        net.connectors[fill[net.intersection[i]]++] = static_cast<LaneId>(i);
      }
    }
  }

  // 4. Conflicts and crosswalk crossings, one slot per junction, merged in junction order.
  std::vector<JunctionTables> tables(nx);
  tbb::parallel_for(std::size_t{0}, nx, [&](std::size_t x) {
    tables[x] =
        junction_tables(net, static_cast<std::uint32_t>(x), walks[x], options.diverge_tolerance_m);
  });
  std::vector<std::vector<LaneId>> crossing_of_lane(n);
  std::vector<std::vector<LaneId>> conflicts_of(n);
  std::vector<std::vector<LaneId>> crosswalks_of(n);
  for (std::size_t x = 0; x < nx; ++x) {
    const std::uint32_t b = net.connector_begin[x];
    for (std::uint32_t k = 0; k + b < net.connector_begin[x + 1]; ++k) {
      const LaneId c = net.connectors[b + k];
      crossing_of_lane[c] = std::move(tables[x].crossing[k]);
      conflicts_of[c] = std::move(tables[x].conflicts[k]);
      crosswalks_of[c] = std::move(tables[x].crosswalks[k]);
    }
  }
  auto to_csr = [n](const std::vector<std::vector<LaneId>>& per_lane,
                    std::vector<std::uint32_t>& begin, std::vector<LaneId>& out) {
    begin.assign(n + 1, 0);
    for (std::size_t i = 0; i < n; ++i)
      begin[i + 1] = begin[i] + static_cast<std::uint32_t>(per_lane[i].size());
    out.reserve(begin.back());
    for (const auto& v : per_lane)
      out.insert(out.end(), v.begin(), v.end());
  };
  to_csr(conflicts_of, net.conflict_begin, net.conflicts);
  to_csr(crosswalks_of, net.crosswalk_begin, net.crosswalks);

  // 5. Signals: validated, one plan per junction at most.
  net.signal_of.assign(nx, -1);
  for (std::size_t k = 0; k < graph.signals.size(); ++k) {
    const roads::SignalPlan& plan = graph.signals[k];
    if (auto e = validate_signal(net, plan, k, crossing_of_lane)) return *e;
    if (net.signal_of[plan.intersection] >= 0) {
      return Error::invalid_input("signals[" + std::to_string(k) + "].intersection",
                                  "expected one plan per junction, found a second plan for "
                                  "junction " +
                                      std::to_string(plan.intersection));
    }
    net.signal_of[plan.intersection] = static_cast<std::int32_t>(k);
  }
  net.signals = graph.signals;

  // 6. Merges outside junctions and spawn lanes.
  net.merge.assign(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint32_t t = net.tags[i];
    if ((t & roads::kVehicle) == 0U || is_connector(t)) continue;
    const std::uint32_t pb = net.pred_begin[i];
    const std::uint32_t pe = net.pred_begin[i + 1];
    const bool plain_entry = std::any_of(net.pred.begin() + pb, net.pred.begin() + pe,
                                         [&](LaneId p) { return !is_connector(net.tags[p]); });
    if (pe - pb >= 2 && plain_entry) net.merge[i] = 1;
    if ((t & roads::kRamp) == 0U) net.spawn_lanes.push_back(static_cast<LaneId>(i));
  }
  detail::compute_conflict_points(net);
  return net;
}

}  // namespace cityforge::traffic
