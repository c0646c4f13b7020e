// SPDX-License-Identifier: Apache-2.0
// Coordination of signalised junctions that stand close together (two roads crossing a third
// a few metres apart, a jog, a dual carriageway crossing): a vehicle leaving one junction is
// at the next one's stop line seconds later, with no room to wait between them. Such a cluster
// (junctions joined by links shorter than kShortLinkM) runs on one common cycle, the longest of
// its plans (the others' greens are stretched in proportion), and each junction's offset is
// chosen so that every path through a link gets the longest window of usable greens: the time
// a vehicle may leave the first stop line and still find the second movement green for the
// whole of its travel time. Greedy over the cluster's junctions in index order; the offsets
// maximise the worst path's window first, then the total.
// Based on: FHWA Traffic Signal Timing Manual (2008), ch. 6 (coordination: common cycle,
// offsets from travel time between closely spaced intersections).
#include <algorithm>
#include <cmath>
#include <numeric>

#include "roads/detail/lanes.hpp"

namespace cityforge::roads::detail {
namespace {

constexpr double kStepS = 0.25;       // Timeline resolution.
constexpr double kOffsetStepS = 0.5;  // Offsets tried.
constexpr double kWindowCapS = 10.0;  // Windows longer than this serve any queue of one link.
constexpr double kStartAccel = 1.5;   // m/s^2, a vehicle starting from its stop line.

struct LinkPath {
  std::uint32_t from_plan, to_plan;  // Indices into the plans.
  LaneId first, second;              // Connectors of the two junctions.
  double travel_s;                   // From the first stop line to the second.
};

/// Green (or a green carried on into the next phase) for each connector of the plan at
/// kStepS samples of one cycle, offset 0: sample k of connector c is greens[c][k].
std::vector<std::uint8_t> green_timeline(const SignalPlan& plan, LaneId c, std::size_t samples) {
  std::vector<std::uint8_t> out(samples, 0);
  double start = 0.0;
  for (std::size_t p = 0; p < plan.phases.size(); ++p) {
    const Phase& ph = plan.phases[p];
    const Phase& next = plan.phases[(p + 1) % plan.phases.size()];
    const bool green = std::binary_search(ph.green.begin(), ph.green.end(), c);
    const bool carried = std::binary_search(next.green.begin(), next.green.end(), c);
    const double end = start + ph.green_s + (carried ? ph.yellow_s + ph.all_red_s : 0.0);
    if (green) {
      for (std::size_t k = 0; k < samples; ++k) {
        const double t = (static_cast<double>(k) + 0.5) * kStepS;
        if (t >= start && t < end) out[k] = 1;
      }
    }
    start += ph.green_s + ph.yellow_s + ph.all_red_s;
  }
  return out;
}

/// Samples of green left from each sample of a timeline on (circular, capped at its length).
std::vector<std::size_t> green_runs(const std::vector<std::uint8_t>& green) {
  const std::size_t n = green.size();
  std::vector<std::size_t> run(n, 0);
  for (std::size_t pass = 0; pass < 2; ++pass) {
    for (std::size_t i = n; i-- > 0;)
      run[i] = green[i] != 0U ? 1 + std::min(run[(i + 1) % n], n) : 0;
  }
  return run;
}

/// Seconds per cycle a vehicle may leave on the first movement (green timeline `a`, shifted by
/// `shift_a` samples) and find the second one green for `travel` samples (green runs of its
/// timeline, shifted by `shift_b`).
double usable_s(const std::vector<std::uint8_t>& a, const std::vector<std::size_t>& runs_b,
                std::size_t shift_a, std::size_t shift_b, std::size_t travel) {
  const std::size_t n = a.size();
  std::size_t count = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (a[(i + n - shift_a) % n] != 0U && runs_b[(i + n - shift_b) % n] > travel) ++count;
  }
  return static_cast<double>(count) * kStepS;
}

void stretch_to(SignalPlan& plan, double cycle_s) {
  double greens = 0.0;
  for (const Phase& p : plan.phases)
    greens += p.green_s;
  const double extra = cycle_s - plan.cycle_s();
  if (extra <= 0.0 || greens <= 0.0) return;
  for (Phase& p : plan.phases)
    p.green_s += extra * p.green_s / greens;
}

}  // namespace

void coordinate_signal_plans(std::vector<SignalPlan>& plans, const std::vector<Lane>& lanes) {
  // 1. Paths through short links between two signalised junctions.
  std::int32_t max_junction = -1;
  for (const SignalPlan& p : plans)
    max_junction = std::max(max_junction, static_cast<std::int32_t>(p.intersection));
  std::vector<std::int32_t> plan_of(static_cast<std::size_t>(max_junction + 1), -1);
  for (std::size_t i = 0; i < plans.size(); ++i)
    plan_of[plans[i].intersection] = static_cast<std::int32_t>(i);
  const auto plan_at = [&](LaneId c) -> std::int32_t {
    const std::int32_t j = lanes[c].intersection;
    if ((lanes[c].tags & kIntersection) == 0U || j < 0 || j > max_junction) return -1;
    return plan_of[static_cast<std::size_t>(j)];
  };
  std::vector<LinkPath> paths;
  for (const Lane& d : lanes) {
    if ((d.tags & kVehicle) == 0U || (d.tags & kIntersection) != 0U || d.length_m >= kShortLinkM) {
      continue;
    }
    for (const LaneId c1 : d.predecessors) {
      const std::int32_t a = plan_at(c1);
      if (a < 0) continue;
      for (const LaneId c2 : d.successors) {
        const std::int32_t b = plan_at(c2);
        if (b < 0 || a == b) continue;
        const double dist = lanes[c1].length_m + d.length_m + 2.0;
        paths.push_back({static_cast<std::uint32_t>(a), static_cast<std::uint32_t>(b), c1, c2,
                         std::sqrt(2.0 * dist / kStartAccel) + 1.0});
      }
    }
  }
  if (paths.empty()) return;
  // 2. Clusters (union-find over plans, smallest index as root).
  std::vector<std::uint32_t> root(plans.size());
  std::iota(root.begin(), root.end(), 0U);
  const auto find = [&](std::uint32_t x) {
    while (root[x] != x)
      x = root[x] = root[root[x]];
    return x;
  };
  for (const LinkPath& p : paths) {
    const std::uint32_t x = find(p.from_plan);
    const std::uint32_t y = find(p.to_plan);
    root[std::max(x, y)] = std::min(x, y);
  }
  std::vector<std::vector<std::uint32_t>> clusters(plans.size());
  for (std::uint32_t i = 0; i < plans.size(); ++i)
    clusters[find(i)].push_back(i);
  // 3. Per cluster: common cycle, then offsets junction by junction.
  for (const auto& cluster : clusters) {
    if (cluster.size() < 2) continue;
    double cycle = 0.0;
    for (const std::uint32_t i : cluster)
      cycle = std::max(cycle, plans[i].cycle_s());
    for (const std::uint32_t i : cluster)
      stretch_to(plans[i], cycle);
    const auto samples = static_cast<std::size_t>(std::ceil(cycle / kStepS));
    std::vector<std::uint8_t> placed(plans.size(), 0);
    std::vector<std::size_t> shift(plans.size(), 0);  // Offset in samples.
    placed[cluster.front()] = 1;
    plans[cluster.front()].offset_s = 0.0;
    for (std::size_t k = 1; k < cluster.size(); ++k) {
      // The lowest junction joined to one already placed (the cluster is connected).
      std::uint32_t me = plans.size();
      for (const LinkPath& p : paths) {
        for (const auto& [x, y] :
             {std::pair(p.from_plan, p.to_plan), std::pair(p.to_plan, p.from_plan)}) {
          if (find(x) == cluster.front() && placed[x] == 0U && placed[y] != 0U)
            me = std::min(me, x);
        }
      }
      if (me == plans.size()) break;
      struct Scored {
        const LinkPath* path;
        std::vector<std::uint8_t> a;
        std::vector<std::size_t> runs_b;
        std::size_t travel;
      };
      std::vector<Scored> mine;
      for (const LinkPath& p : paths) {
        const bool in = (p.from_plan == me && placed[p.to_plan] != 0U) ||
                        (p.to_plan == me && placed[p.from_plan] != 0U);
        if (!in) continue;
        mine.push_back({&p, green_timeline(plans[p.from_plan], p.first, samples),
                        green_runs(green_timeline(plans[p.to_plan], p.second, samples)),
                        static_cast<std::size_t>(std::ceil(p.travel_s / kStepS))});
      }
      double best_worst = -1.0;
      double best_total = -1.0;
      std::size_t best_shift = 0;
      const auto step = static_cast<std::size_t>(kOffsetStepS / kStepS);
      for (std::size_t s = 0; s < samples; s += step) {
        shift[me] = s;
        double worst = kWindowCapS;
        double total = 0.0;
        for (const Scored& sc : mine) {
          const double u = usable_s(sc.a, sc.runs_b, shift[sc.path->from_plan],
                                    shift[sc.path->to_plan], sc.travel);
          worst = std::min(worst, std::min(u, kWindowCapS));
          total += std::min(u, kWindowCapS);
        }
        if (worst > best_worst || (worst == best_worst && total > best_total)) {
          best_worst = worst;
          best_total = total;
          best_shift = s;
        }
      }
      shift[me] = best_shift;
      placed[me] = 1;
      plans[me].offset_s = static_cast<double>(best_shift) * kStepS;
    }
  }
}

}  // namespace cityforge::roads::detail
