// SPDX-License-Identifier: Apache-2.0
// The wandering shepherd (seeds/002, the bulk system): closed loops over the sidewalks, found as
// the cycles of the step graph, and members whose position on their loop is a pure function of
// time.
#include <algorithm>
#include <cmath>
#include <limits>

#include "cityforge/crowd/shepherd.hpp"

namespace cityforge::crowd {

WanderingPath make_path(const WalkNetwork& walk, std::vector<WalkStep> steps) {
  WanderingPath p;
  p.steps = std::move(steps);
  p.start_m.reserve(p.steps.size() + 1);
  double s = 0;
  p.start_m.push_back(0);
  for (const WalkStep& st : p.steps) {
    s += walk.net->length_m[st.lane];
    p.start_m.push_back(s);
  }
  return p;
}

std::vector<WanderingPath> make_wandering_paths(const WalkNetwork& walk, std::uint32_t count,
                                                double min_length_m, Seed seed) {
  const traffic::Network& net = *walk.net;
  const std::size_t n = walk.lanes.size();
  // 1. The step graph without crosswalks: node 2i + (dir > 0) walks lanes[i]; each node's
  //    next is its first sidewalk exit, so the graph is functional and its cycles are found in
  //    one pass (on the roads stage's sidewalks: each block's perimeter, both ways).
  constexpr std::uint32_t kEnd = 0xffffffffU;
  std::vector<std::uint32_t> next(2 * n, kEnd);
  for (std::size_t i = 0; i < n; ++i) {
    if (walk.crosswalk(walk.lanes[i]) || !walk.centre_clear(walk.lanes[i])) continue;
    for (int d = 0; d < 2; ++d) {
      const auto [b, e] = walk.exits_after(walk.lanes[i], d == 1 ? 1 : -1);
      for (const WalkStep* x = b; x != e; ++x) {
        if (walk.crosswalk(x->lane) || !walk.centre_clear(x->lane)) continue;
        next[2 * i + d] = 2 * walk.index[x->lane] + (x->dir > 0 ? 1U : 0U);
        break;
      }
    }
  }
  std::vector<std::uint8_t> state(2 * n, 0);  // 0 new, 1 on the current walk, 2 done.
  std::vector<std::vector<WalkStep>> cycles;
  std::vector<std::uint32_t> trail;
  for (std::uint32_t start = 0; start < 2 * n; ++start) {
    if (state[start] != 0 || walk.crosswalk(walk.lanes[start / 2]) ||
        !walk.centre_clear(walk.lanes[start / 2]))
      continue;
    trail.clear();
    std::uint32_t v = start;
    while (v != kEnd && state[v] == 0) {
      state[v] = 1;
      trail.push_back(v);
      v = next[v];
    }
    if (v != kEnd && state[v] == 1) {
      const auto from = std::find(trail.begin(), trail.end(), v);
      std::vector<WalkStep> c;
      for (auto it = from; it != trail.end(); ++it) {
        c.push_back({walk.lanes[*it / 2], static_cast<std::int8_t>(*it % 2 == 1 ? 1 : -1)});
      }
      cycles.push_back(std::move(c));
    }
    for (const std::uint32_t t : trail) {
      state[t] = 2;
    }
  }
  // 2. Candidates: long enough (or all, when none is), weighted by length x density.
  std::vector<WanderingPath> cand;
  for (auto& c : cycles) {
    cand.push_back(make_path(walk, std::move(c)));
  }
  const bool any_long = std::any_of(cand.begin(), cand.end(), [&](const WanderingPath& p) {
    return p.length_m() >= min_length_m;
  });
  if (any_long) {
    std::erase_if(cand, [&](const WanderingPath& p) { return p.length_m() < min_length_m; });
  }
  // 3. Weighted draw without replacement (Efraimidis-Spirakis keys), then a random rotation.
  Rng rng(seed, Stage::crowd, hash_string("wandering"));
  std::vector<std::pair<double, std::uint32_t>> keys;
  for (std::uint32_t i = 0; i < cand.size(); ++i) {
    double w = 0;
    for (std::size_t k = 0; k < cand[i].steps.size(); ++k) {
      const LaneId l = cand[i].steps[k].lane;
      w += net.length_m[l] * (0.05 + net.pedestrian_density[l]);
    }
    const double u = std::max(rng.uniform01(), 1e-300);
    keys.emplace_back(std::log(u) / std::max(w, 1e-9), i);
  }
  std::sort(keys.begin(), keys.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first > b.first : a.second < b.second;
  });
  std::vector<WanderingPath> out;
  for (std::size_t k = 0; k < keys.size() && out.size() < count; ++k) {
    std::vector<WalkStep> steps = cand[keys[k].second].steps;
    const std::uint32_t rot = rng.below(static_cast<std::uint32_t>(steps.size()));
    std::rotate(steps.begin(), steps.begin() + rot, steps.end());
    out.push_back(make_path(walk, std::move(steps)));
  }
  return out;
}

std::vector<WanderingMember> make_wandering_members(const WalkNetwork& walk,
                                                    const std::vector<WanderingPath>& paths,
                                                    std::uint32_t count, Seed seed,
                                                    std::uint16_t variants) {
  std::vector<WanderingMember> out;
  if (paths.empty()) return out;
  variants = std::max<std::uint16_t>(variants, 1);
  // Per path: cumulative length (members per metre are even), lateral band, region variants.
  std::vector<double> cum;
  std::vector<float> band(paths.size());
  std::vector<std::uint16_t> base(paths.size());
  for (std::size_t i = 0; i < paths.size(); ++i) {
    cum.push_back((cum.empty() ? 0.0 : cum.back()) + paths[i].length_m());
    float lim = std::numeric_limits<float>::max();
    for (const WalkStep& st : paths[i].steps)
      lim = std::min(lim, lateral_limit(walk, st.lane));
    band[i] = paths[i].steps.empty() ? 0.0f : 0.8f * lim;
    const WalkStep first = paths[i].steps.empty() ? WalkStep{} : paths[i].steps.front();
    const Vec3 p = first.lane == kNoLane
                       ? Vec3{}
                       : traffic::lane_pose(*walk.net, first.lane,
                                            first.dir > 0 ? 0.0 : walk.net->length_m[first.lane])
                             .position;
    const auto cx = static_cast<std::int64_t>(std::floor(p.x / 400.0));
    const auto cy = static_cast<std::int64_t>(std::floor(p.y / 400.0));
    base[i] = static_cast<std::uint16_t>(
        hash_combine(static_cast<std::uint64_t>(cx), static_cast<std::uint64_t>(cy)) % variants);
  }
  if (cum.back() <= 0) return out;
  const std::uint32_t span = std::max<std::uint32_t>(1, variants / 2U);
  out.reserve(count);
  for (std::uint32_t k = 0; k < count; ++k) {
    Rng rng(seed, Stage::crowd, hash_string("wandering members"), k);
    WanderingMember m;
    const double u = rng.uniform(0.0, cum.back());
    m.path = static_cast<std::uint32_t>(std::min<std::size_t>(
        static_cast<std::size_t>(std::upper_bound(cum.begin(), cum.end(), u) - cum.begin()),
        paths.size() - 1));
    m.phase_m = rng.uniform(0.0, paths[m.path].length_m());
    m.speed_mps = static_cast<float>(rng.uniform(1.1, 1.6));
    m.lateral_m = static_cast<float>(rng.uniform(-band[m.path], band[m.path]));
    m.variant = static_cast<std::uint16_t>((base[m.path] + rng.below(span)) % variants);
    out.push_back(m);
  }
  return out;
}

double wandering_arc(const WanderingPath& path, const WanderingMember& m, double time_s) {
  const double len = path.length_m();
  if (!(len > 0)) return 0.0;
  double a = std::fmod(m.phase_m + static_cast<double>(m.speed_mps) * time_s, len);
  if (a < 0) a += len;
  if (a >= len) a = 0;  // a + len rounded up to len.
  return a;
}

namespace {

WanderingPose pose_on_step(const WalkNetwork& walk, const WanderingPath& path,
                           const WanderingMember& m, double arc, std::uint32_t k) {
  const WalkStep st = path.steps[k];
  const double len = walk.net->length_m[st.lane];
  const double along = std::clamp(arc - path.start_m[k], 0.0, len);
  WanderingPose p;
  p.at.lane = st.lane;
  p.at.s_m = static_cast<float>(st.dir > 0 ? along : len - along);
  p.at.dir = st.dir;
  const float lim = lateral_limit(walk, st.lane);
  p.lateral_m = std::clamp(m.lateral_m, -lim, lim);
  p.step = k;
  return p;
}

}  // namespace

WanderingPose member_at(const WalkNetwork& walk, const WanderingPath& path,
                        const WanderingMember& m, double time_s) {
  if (path.steps.empty()) return {};
  const double arc = wandering_arc(path, m, time_s);
  const auto n = static_cast<std::ptrdiff_t>(path.steps.size());
  // The last step k with start_m[k] <= arc.
  const auto it = std::upper_bound(path.start_m.begin(), path.start_m.begin() + n, arc);
  const auto k =
      static_cast<std::uint32_t>(std::max<std::ptrdiff_t>(it - path.start_m.begin(), 1) - 1);
  return pose_on_step(walk, path, m, arc, k);
}

WanderingPose advance_member(const WalkNetwork& walk, const WanderingPath& path,
                             const WanderingMember& m, double time_s, std::uint32_t step_hint) {
  if (path.steps.empty()) return {};
  const double arc = wandering_arc(path, m, time_s);
  const auto n = static_cast<std::uint32_t>(path.steps.size());
  std::uint32_t k = step_hint < n ? step_hint : 0;
  if (arc < path.start_m[k]) k = 0;  // Wrapped round the loop (or went back in time).
  while (k + 1 < n && path.start_m[k + 1] <= arc) {
    ++k;
  }
  return pose_on_step(walk, path, m, arc, k);
}

}  // namespace cityforge::crowd
