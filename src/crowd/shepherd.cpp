// SPDX-License-Identifier: Apache-2.0
// Shepherds (seeds/002, the bulk system): static groups whose members are placed
// deterministically on the sidewalks inside a designer's polygon, the wandering shepherd's
// closed loops over the sidewalks with members whose position is a pure function of time, and
// the shepherds.json file that saves both so positions can be edited by hand.
#include "cityforge/crowd/shepherd.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <initializer_list>
#include <limits>
#include <nlohmann/json.hpp>
#include <numbers>
#include <optional>
#include <sstream>
#include <unordered_map>

#include "cityforge/core/format.hpp"
#include "cityforge/core/polygon.hpp"

namespace cityforge::crowd {
namespace {

constexpr double kPi = std::numbers::pi;

Vec2 xy(const Vec3& v) { return {v.x, v.y}; }

// A stretch of a lane's centre line inside the polygon, with its walkable area.
struct Interval {
  LaneId lane = kNoLane;
  double s0 = 0;
  double s1 = 0;
};

// Axis-aligned bounds of a lane's points.
Aabb2 lane_bounds(const traffic::Network& net, LaneId lane) {
  Aabb2 b{{1e300, 1e300}, {-1e300, -1e300}};
  for (std::uint32_t i = net.point_begin[lane]; i < net.point_begin[lane + 1]; ++i) {
    b.min.x = std::min(b.min.x, net.points[i].x);
    b.min.y = std::min(b.min.y, net.points[i].y);
    b.max.x = std::max(b.max.x, net.points[i].x);
    b.max.y = std::max(b.max.y, net.points[i].y);
  }
  return b;
}

bool overlaps(const Aabb2& a, const Aabb2& b, double pad) {
  return a.min.x - pad <= b.max.x && b.min.x <= a.max.x + pad && a.min.y - pad <= b.max.y &&
         b.min.y <= a.max.y + pad;
}

// Members' positions hashed by cell for the spacing test.
class SpacingGrid {
 public:
  explicit SpacingGrid(double spacing_m) : m_spacing(spacing_m), m_cell(std::max(spacing_m, 0.1)) {}
  bool free(Vec2 p) const {
    const std::int64_t cx = cell(p.x);
    const std::int64_t cy = cell(p.y);
    for (std::int64_t dy = -1; dy <= 1; ++dy) {
      for (std::int64_t dx = -1; dx <= 1; ++dx) {
        const auto it = m_cells.find(key(cx + dx, cy + dy));
        if (it == m_cells.end()) continue;
        for (Vec2 q : it->second) {
          if (distance(p, q) < m_spacing) return false;
        }
      }
    }
    return true;
  }
  void add(Vec2 p) { m_cells[key(cell(p.x), cell(p.y))].push_back(p); }

 private:
  std::int64_t cell(double v) const { return static_cast<std::int64_t>(std::floor(v / m_cell)); }
  static std::uint64_t key(std::int64_t x, std::int64_t y) {
    return (static_cast<std::uint64_t>(x) << 32U) ^ (static_cast<std::uint64_t>(y) & 0xffffffffU);
  }
  double m_spacing;
  double m_cell;
  std::unordered_map<std::uint64_t, std::vector<Vec2>> m_cells;  // Lookups only: order unused.
};

// The stretches of pedestrian lanes whose centre line is inside `ring`, sampled every ~step.
std::vector<Interval> intervals_inside(const WalkNetwork& walk, const Ring& ring, double step,
                                       bool crosswalks, double* area_m2) {
  const traffic::Network& net = *walk.net;
  const Aabb2 box = ring_bounds(ring);
  std::vector<Interval> out;
  *area_m2 = 0;
  for (const LaneId lane : walk.lanes) {
    if ((!crosswalks && walk.crosswalk(lane)) || !walk.centre_clear(lane)) continue;
    if (!overlaps(box, lane_bounds(net, lane), net.width_m[lane])) continue;
    const double len = net.length_m[lane];
    const int n = std::max(1, static_cast<int>(std::ceil(len / step)));
    const double ds = len / n;
    bool open = false;
    for (int k = 0; k < n; ++k) {
      const double s = (k + 0.5) * ds;
      const bool in = ring_contains(ring, xy(traffic::lane_pose(net, lane, s).position));
      if (in && !open) out.push_back({lane, k * ds, k * ds});
      if (in) {
        out.back().s1 = (k + 1) * ds;
        *area_m2 += net.width_m[lane] * ds;
      }
      open = in;
    }
  }
  return out;
}

}  // namespace

float lateral_limit(const WalkNetwork& walk, LaneId lane) {
  return std::max(0.0f, std::min(walk.band_m.empty() ? 1e9f : walk.band_m[lane],
                                 walk.half_width(lane) - kEdgeMarginM));
}

traffic::LanePose walk_pose(const WalkNetwork& walk, WalkPoint p, double lateral_m) {
  traffic::LanePose pose =
      traffic::lane_pose(*walk.net, p.lane, p.s_m, p.dir > 0 ? lateral_m : -lateral_m);
  if (p.dir < 0) {
    pose.heading_rad += pose.heading_rad > 0 ? -kPi : kPi;
  }
  return pose;
}

const char* to_string(ShepherdBehaviour b) {
  return b == ShepherdBehaviour::look_around ? "look_around" : "idle";
}

bool shepherd_behaviour_from_string(std::string_view name, ShepherdBehaviour* out) {
  for (const auto b : {ShepherdBehaviour::idle, ShepherdBehaviour::look_around}) {
    if (name == to_string(b)) {
      *out = b;
      return true;
    }
  }
  return false;
}

bool operator==(const ShepherdMember& a, const ShepherdMember& b) {
  return a.at.lane == b.at.lane && a.at.s_m == b.at.s_m && a.at.dir == b.at.dir &&
         a.lateral_m == b.lateral_m && a.heading_rad == b.heading_rad && a.variant == b.variant;
}

bool operator==(const WanderingMember& a, const WanderingMember& b) {
  return a.path == b.path && a.phase_m == b.phase_m && a.speed_mps == b.speed_mps &&
         a.lateral_m == b.lateral_m && a.variant == b.variant;
}

Result<ShepherdGroup> place_shepherds(const WalkNetwork& walk, const ShepherdSpec& spec, Seed seed,
                                      const PlaceOptions& options, PlaceReport* report) {
  const std::string where = "shepherd '" + spec.name + "'";
  // 1. Check the spec.
  if (spec.polygon.size() < 3) {
    return Error::invalid_input(
        where, "polygon needs >= 3 points, got " + std::to_string(spec.polygon.size()));
  }
  for (Vec2 p : spec.polygon) {
    if (!std::isfinite(p.x) || !std::isfinite(p.y)) {
      return Error::invalid_input(where, "polygon has a non-finite coordinate");
    }
  }
  if (!std::isfinite(spec.density_per_m2) || spec.density_per_m2 < 0) {
    return Error::invalid_input(where, "density must be a finite number >= 0");
  }
  std::vector<double> mix_cum;
  for (double w : spec.variant_mix) {
    if (!std::isfinite(w) || w < 0) {
      return Error::invalid_input(where, "variant_mix weights must be finite and >= 0");
    }
    mix_cum.push_back((mix_cum.empty() ? 0.0 : mix_cum.back()) + w);
  }
  if (!mix_cum.empty() && mix_cum.back() <= 0) {
    return Error::invalid_input(where, "variant_mix needs a positive weight");
  }
  // 2. Walkable stretches inside and the member count.
  PlaceReport rep;
  const std::vector<Interval> inside =
      intervals_inside(walk, spec.polygon, std::max(0.05, double{options.sample_step_m}),
                       options.crosswalks, &rep.walkable_area_m2);
  rep.wanted = spec.count;
  if (spec.density_per_m2 > 0) {
    const double cap = std::floor(spec.density_per_m2 * rep.walkable_area_m2);
    rep.wanted = static_cast<std::uint32_t>(std::min<double>(spec.count, cap));
  }
  if (inside.empty()) rep.wanted = 0;
  std::vector<double> cum;  // Cumulative walkable area per interval.
  for (const Interval& iv : inside) {
    cum.push_back((cum.empty() ? 0.0 : cum.back()) + walk.net->width_m[iv.lane] * (iv.s1 - iv.s0));
  }
  // 3. Draw candidates until enough are placed or the tries run out.
  ShepherdGroup g;
  g.spec = spec;
  g.members.reserve(rep.wanted);
  Rng rng(seed, Stage::crowd, hash_string(spec.name));
  SpacingGrid grid(options.min_spacing_m);
  const std::uint64_t max_tries = std::uint64_t{options.tries_per_member} * rep.wanted;
  const std::uint16_t variants = std::max<std::uint16_t>(options.variants, 1);
  while (g.members.size() < rep.wanted && rep.tries < max_tries) {
    ++rep.tries;
    const double u = rng.uniform(0.0, cum.back());
    const auto k = std::min<std::size_t>(
        static_cast<std::size_t>(std::upper_bound(cum.begin(), cum.end(), u) - cum.begin()),
        inside.size() - 1);
    const Interval& iv = inside[k];
    ShepherdMember m;
    m.at.lane = iv.lane;
    m.at.s_m = static_cast<float>(rng.uniform(iv.s0, iv.s1));
    m.at.dir = rng.chance(0.5) ? 1 : -1;
    const float lim = lateral_limit(walk, iv.lane);
    m.lateral_m = static_cast<float>(rng.uniform(-lim, lim));
    m.heading_rad = static_cast<float>(rng.uniform(-kPi, kPi));
    if (mix_cum.empty()) {
      m.variant = static_cast<std::uint16_t>(rng.below(variants));
    } else {
      const double v = rng.uniform(0.0, mix_cum.back());
      std::size_t idx = static_cast<std::size_t>(
          std::upper_bound(mix_cum.begin(), mix_cum.end(), v) - mix_cum.begin());
      while (idx >= mix_cum.size() || spec.variant_mix[idx] <= 0) {
        idx = idx >= mix_cum.size() ? 0 : idx + 1;  // Rounding at the top: first non-zero.
      }
      m.variant = static_cast<std::uint16_t>(idx);
    }
    const Vec2 p = xy(walk_pose(walk, m.at, m.lateral_m).position);
    if (!ring_contains(spec.polygon, p) || !grid.free(p)) continue;
    grid.add(p);
    g.members.push_back(m);
  }
  rep.placed = static_cast<std::uint32_t>(g.members.size());
  if (report != nullptr) *report = rep;
  return g;
}

bool snap_to_walk(const WalkNetwork& walk, Vec2 p, bool crosswalks, WalkPoint* at,
                  float* lateral_m) {
  const traffic::Network& net = *walk.net;
  double best = std::numeric_limits<double>::infinity();
  LaneId best_lane = kNoLane;
  double best_s = 0;
  double best_side = 0;
  for (const LaneId lane : walk.lanes) {
    if ((!crosswalks && walk.crosswalk(lane)) || !walk.centre_clear(lane)) continue;
    for (std::uint32_t i = net.point_begin[lane]; i + 1 < net.point_begin[lane + 1]; ++i) {
      const Vec2 a = xy(net.points[i]);
      const Vec2 d = xy(net.points[i + 1]) - a;
      const double l2 = dot(d, d);
      const double t = l2 > 0 ? std::clamp(dot(p - a, d) / l2, 0.0, 1.0) : 0.0;
      const Vec2 q = a + d * t;
      const double dist = distance(p, q);
      if (dist < best) {
        best = dist;
        best_lane = lane;
        best_s = net.point_s[i] + t * (net.point_s[i + 1] - net.point_s[i]);
        best_side = l2 > 0 ? cross(d, p - a) / std::sqrt(l2) : 0.0;
      }
    }
  }
  if (best_lane == kNoLane) return false;
  at->lane = best_lane;
  at->s_m = static_cast<float>(std::clamp(best_s, 0.0, double{net.length_m[best_lane]}));
  at->dir = 1;
  const float lim = lateral_limit(walk, best_lane);
  *lateral_m = std::clamp(static_cast<float>(best_side), -lim, lim);
  return true;
}

// -- The wandering shepherd ----------------------------------------------------------------------

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

// -- shepherds.json -------------------------------------------------------------------------------

namespace {

using nlohmann::json;
using ojson = nlohmann::ordered_json;

// The shortest decimal that reads back as `f`, as a double (so the JSON holds "1.35", not
// "1.35000002384185791").
double short_float(float f) {
  char buf[32];
  const auto res = std::to_chars(buf, buf + sizeof buf, f);
  return std::strtod(std::string(buf, res.ptr).c_str(), nullptr);
}

std::string describe(const json* j) {
  if (j == nullptr) return "nothing";
  std::string s = j->dump();
  if (s.size() > 60) s = s.substr(0, 57) + "...";
  return std::string(j->type_name()) + " " + s;
}

std::string at(const std::string& where, const char* key) {
  return where.empty() ? std::string(key) : where + "." + key;
}
std::string at(const std::string& where, std::size_t i) {
  return where + "[" + std::to_string(i) + "]";
}

// Reads values; the first failure is kept.
class Reader {
 public:
  explicit Reader(std::string name) : m_name(std::move(name)) {}
  std::optional<Error> error;

  bool fail(const std::string& where, const std::string& expected, const json* found) {
    if (!error) {
      error = Error::invalid_input(m_name + ": " + where,
                                   "expected " + expected + ", found " + describe(found));
    }
    return false;
  }
  bool keys(const json& obj, const std::string& where, std::initializer_list<const char*> allowed,
            const char* what) {
    if (!obj.is_object()) return fail(where, what, &obj);
    for (const auto& item : obj.items()) {
      if (std::none_of(allowed.begin(), allowed.end(),
                       [&](const char* k) { return item.key() == k; })) {
        std::string list;
        for (const char* k : allowed)
          list += std::string(list.empty() ? "" : ", ") + k;
        return fail(at(where, item.key().c_str()), "one of the keys " + list, &item.value());
      }
    }
    return true;
  }
  const json* member(const json& obj, const char* key, const std::string& where, bool required) {
    const auto it = obj.find(key);
    if (it != obj.end()) return &*it;
    if (required) fail(at(where, key), std::string("field \"") + key + "\"", nullptr);
    return nullptr;
  }
  bool number(const json& v, const std::string& where, double lo, double hi, double& out,
              bool lo_open = false, bool hi_open = false) {
    const bool ok = v.is_number() && std::isfinite(v.get<double>()) &&
                    (lo_open ? v.get<double>() > lo : v.get<double>() >= lo) &&
                    (hi_open ? v.get<double>() < hi : v.get<double>() <= hi);
    if (!ok) {
      return fail(where,
                  std::string("a number in ") + (lo_open ? "(" : "[") + format_g9(lo) + ", " +
                      format_g9(hi) + (hi_open ? ")" : "]"),
                  &v);
    }
    out = v.get<double>();
    return true;
  }
  bool integer(const json& v, const std::string& where, std::int64_t lo, std::int64_t hi,
               std::int64_t& out) {
    const bool ok = v.is_number_integer() &&
                    !(v.is_number_unsigned() && v.get<std::uint64_t>() > 0x7fffffffffffffffULL) &&
                    v.get<std::int64_t>() >= lo && v.get<std::int64_t>() <= hi;
    if (!ok) {
      return fail(where, "an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]",
                  &v);
    }
    out = v.get<std::int64_t>();
    return true;
  }
  bool array(const json& v, const std::string& where, const char* what) {
    return v.is_array() || fail(where, what, &v);
  }

 private:
  std::string m_name;
};

const char* lane_kind(const traffic::Network& net, LaneId lane) {
  if (net.is(lane, roads::kVehicle)) return "a vehicle lane";
  if (net.is(lane, roads::kSidewalk | roads::kCrosswalk))
    return "a pedestrian lane that is not walked (too short, or its band runs over a carriageway)";
  return "not a pedestrian lane";
}

// A lane id that is walkable (and, for paths, not a crosswalk).
bool read_lane(Reader& r, const WalkNetwork& walk, const json& v, const std::string& where,
               bool sidewalk_only, LaneId& out) {
  const char* what =
      sidewalk_only ? "a sidewalk lane id (no crosswalks)" : "a sidewalk or crosswalk lane id";
  std::int64_t id = 0;
  if (!r.integer(v, where, 0, kNoLane - 1, id)) return false;
  const auto lane = static_cast<LaneId>(id);
  if (lane >= walk.net->lane_count()) {
    return r.fail(where,
                  std::string(what) + " (the network has " +
                      std::to_string(walk.net->lane_count()) + " lanes)",
                  &v);
  }
  if (!walk.walkable(lane)) {
    return r.fail(
        where,
        std::string(what) + "; lane " + std::to_string(lane) + " is " + lane_kind(*walk.net, lane),
        &v);
  }
  if (!walk.centre_clear(lane)) {
    return r.fail(where,
                  std::string(what) + "; lane " + std::to_string(lane) +
                      " is a sidewalk whose centre line cuts a building or a carriageway (only "
                      "its clear side is walked)",
                  &v);
  }
  if (sidewalk_only && walk.crosswalk(lane)) {
    return r.fail(where,
                  std::string(what) + "; lane " + std::to_string(lane) +
                      " is a crosswalk (positions must not depend on signals)",
                  &v);
  }
  out = lane;
  return true;
}

bool read_dir(Reader& r, const json& obj, const std::string& where, std::int8_t& out) {
  const json* v = r.member(obj, "dir", where, false);
  if (v == nullptr) return true;
  if (!v->is_number_integer() || (v->get<std::int64_t>() != 1 && v->get<std::int64_t>() != -1)) {
    return r.fail(at(where, "dir"), "1 or -1", v);
  }
  out = static_cast<std::int8_t>(v->get<std::int64_t>());
  return true;
}

bool read_variant(Reader& r, const json& obj, const std::string& where, std::uint16_t& out) {
  const json* v = r.member(obj, "variant", where, false);
  std::int64_t x = 0;
  if (v != nullptr && !r.integer(*v, at(where, "variant"), 0, 65535, x)) return false;
  out = static_cast<std::uint16_t>(x);
  return true;
}

bool read_member(Reader& r, const WalkNetwork& walk, const json& j, const std::string& w,
                 ShepherdMember& m) {
  if (!r.keys(j, w, {"lane", "s_m", "dir", "lateral_m", "heading_rad", "variant", "x", "y"},
              "a member object {\"lane\", \"s_m\", ...} or {\"x\", \"y\", ...}")) {
    return false;
  }
  const bool by_lane = j.contains("lane");
  if (by_lane && (j.contains("x") || j.contains("y"))) {
    return r.fail(at(w, j.contains("x") ? "x" : "y"),
                  "either \"lane\" + \"s_m\" or \"x\" + \"y\" (hand-placed), not both", &j);
  }
  double v = 0;
  if (by_lane) {
    if (!read_lane(r, walk, j["lane"], at(w, "lane"), false, m.at.lane)) return false;
    const json* s = r.member(j, "s_m", w, true);
    // 1 mm of slack: the file may have been placed on the lane graph in memory, whose lengths
    // differ from lanes.json's (coordinates rounded to 9 digits) in the last bits.
    const double len = walk.net->length_m[m.at.lane];
    if (s == nullptr || !r.number(*s, at(w, "s_m"), 0, len + 1e-3, v)) return false;
    m.at.s_m = static_cast<float>(std::min(v, len));
    if (!read_dir(r, j, w, m.at.dir)) return false;
    if (const json* l = r.member(j, "lateral_m", w, false)) {
      const double lim = lateral_limit(walk, m.at.lane) + 1e-3;
      if (!r.number(*l, at(w, "lateral_m"), -lim, lim, v)) return false;
      m.lateral_m = static_cast<float>(v);
    }
    m.heading_rad = static_cast<float>(walk_pose(walk, m.at, 0).heading_rad);
  } else {
    const json* x = r.member(j, "x", w, false);
    const json* y = r.member(j, "y", w, false);
    if (x == nullptr && y == nullptr) {
      return r.fail(at(w, "lane"), "field \"lane\" (or \"x\" and \"y\" for a hand-placed member)",
                    nullptr);
    }
    if (x == nullptr || y == nullptr) r.member(j, x == nullptr ? "x" : "y", w, true);
    Vec2 p;
    if (r.error || !r.number(*x, at(w, "x"), -1e7, 1e7, p.x) ||
        !r.number(*y, at(w, "y"), -1e7, 1e7, p.y)) {
      return false;
    }
    if (!snap_to_walk(walk, p, false, &m.at, &m.lateral_m)) {
      return r.fail(w, "a network with sidewalks to snap (x, y) to", &j);
    }
    m.heading_rad = static_cast<float>(walk_pose(walk, m.at, 0).heading_rad);
  }
  if (const json* h = r.member(j, "heading_rad", w, false)) {
    if (!r.number(*h, at(w, "heading_rad"), -2 * kPi, 2 * kPi, v)) return false;
    m.heading_rad = static_cast<float>(v);
  }
  return read_variant(r, j, w, m.variant);
}

bool read_group(Reader& r, const WalkNetwork& walk, const json& j, const std::string& w,
                ShepherdGroup& g) {
  if (!r.keys(j, w, {"name", "behaviour", "count", "density", "polygon", "variant_mix", "members"},
              "a group object")) {
    return false;
  }
  const json* name = r.member(j, "name", w, true);
  if (name == nullptr) return false;
  if (!name->is_string()) return r.fail(at(w, "name"), "a string", name);
  g.spec.name = name->get<std::string>();
  if (const json* b = r.member(j, "behaviour", w, false)) {
    if (!b->is_string() ||
        !shepherd_behaviour_from_string(b->get<std::string>(), &g.spec.behaviour)) {
      return r.fail(at(w, "behaviour"), "\"idle\" or \"look_around\"", b);
    }
  }
  std::int64_t count = -1;
  if (const json* c = r.member(j, "count", w, false)) {
    if (!r.integer(*c, at(w, "count"), 0, 1000000, count)) return false;
  }
  if (const json* d = r.member(j, "density", w, false)) {
    if (!r.number(*d, at(w, "density"), 0, 100, g.spec.density_per_m2)) return false;
  }
  const json* poly = r.member(j, "polygon", w, true);
  if (poly == nullptr) return false;
  if (!poly->is_array() || poly->size() < 3) {
    return r.fail(at(w, "polygon"), "an array of >= 3 points [x, y]", poly);
  }
  for (std::size_t i = 0; i < poly->size(); ++i) {
    const json& p = (*poly)[i];
    Vec2 v;
    if (!p.is_array() || p.size() != 2) return r.fail(at(at(w, "polygon"), i), "[x, y]", &p);
    if (!r.number(p[0], at(at(at(w, "polygon"), i), std::size_t{0}), -1e7, 1e7, v.x) ||
        !r.number(p[1], at(at(at(w, "polygon"), i), std::size_t{1}), -1e7, 1e7, v.y)) {
      return false;
    }
    g.spec.polygon.push_back(v);
  }
  if (const json* mix = r.member(j, "variant_mix", w, false)) {
    if (!r.array(*mix, at(w, "variant_mix"), "an array of weights >= 0")) return false;
    for (std::size_t i = 0; i < mix->size(); ++i) {
      double v = 0;
      if (!r.number((*mix)[i], at(at(w, "variant_mix"), i), 0, 1e9, v)) return false;
      g.spec.variant_mix.push_back(v);
    }
  }
  const json* members = r.member(j, "members", w, true);
  if (members == nullptr || !r.array(*members, at(w, "members"), "an array of members")) {
    return false;
  }
  g.members.resize(members->size());
  for (std::size_t i = 0; i < members->size(); ++i) {
    if (!read_member(r, walk, (*members)[i], at(at(w, "members"), i), g.members[i])) return false;
  }
  g.spec.count =
      count >= 0 ? static_cast<std::uint32_t>(count) : static_cast<std::uint32_t>(g.members.size());
  return true;
}

bool read_path(Reader& r, const WalkNetwork& walk, const json& j, const std::string& w,
               WanderingPath& out) {
  if (!r.keys(j, w, {"steps", "length_m"}, "a path object {\"steps\": [[lane, dir], ...]}")) {
    return false;
  }
  const json* steps = r.member(j, "steps", w, true);
  if (steps == nullptr) return false;
  if (!steps->is_array() || steps->empty()) {
    return r.fail(at(w, "steps"), "a non-empty array of steps [lane, dir]", steps);
  }
  std::vector<WalkStep> list(steps->size());
  for (std::size_t i = 0; i < steps->size(); ++i) {
    const json& s = (*steps)[i];
    const std::string sw = at(at(w, "steps"), i);
    if (!s.is_array() || s.size() != 2) return r.fail(sw, "a step [lane, dir]", &s);
    if (!read_lane(r, walk, s[0], at(sw, std::size_t{0}), true, list[i].lane)) return false;
    if (!s[1].is_number_integer() ||
        (s[1].get<std::int64_t>() != 1 && s[1].get<std::int64_t>() != -1)) {
      return r.fail(at(sw, std::size_t{1}), "1 or -1", &s[1]);
    }
    list[i].dir = static_cast<std::int8_t>(s[1].get<std::int64_t>());
  }
  // Closed and continuous: each step (and the first, after the last) is an exit of the one
  // before.
  for (std::size_t i = 0; i < list.size(); ++i) {
    const WalkStep prev = list[(i + list.size() - 1) % list.size()];
    const auto [b, e] = walk.exits_after(prev.lane, prev.dir);
    if (std::find(b, e, list[i]) == e) {
      return r.fail(at(at(w, "steps"), i),
                    "a step that starts where the previous one (lane " + std::to_string(prev.lane) +
                        ", dir " + std::to_string(prev.dir) +
                        ") ends: the path must be a closed chain",
                    &(*steps)[i]);
    }
  }
  out = make_path(walk, std::move(list));
  if (const json* l = r.member(j, "length_m", w, false)) {
    double v = 0;
    if (!r.number(*l, at(w, "length_m"), out.length_m() - 0.01, out.length_m() + 0.01, v)) {
      return false;  // The lanes changed since the file was written.
    }
  }
  return true;
}

bool read_walker(Reader& r, const std::vector<WanderingPath>& paths, const json& j,
                 const std::string& w, WanderingMember& m) {
  if (!r.keys(j, w, {"path", "phase_m", "speed_mps", "lateral_m", "variant"},
              "a member object {\"path\", \"phase_m\", \"speed_mps\", ...}")) {
    return false;
  }
  const json* p = r.member(j, "path", w, true);
  std::int64_t idx = 0;
  if (p == nullptr ||
      !r.integer(*p, at(w, "path"), 0, static_cast<std::int64_t>(paths.size()) - 1, idx)) {
    return false;
  }
  m.path = static_cast<std::uint32_t>(idx);
  double v = 0;
  const json* ph = r.member(j, "phase_m", w, true);
  // The phase is taken modulo the length; 1 cm of slack as for length_m.
  if (ph == nullptr ||
      !r.number(*ph, at(w, "phase_m"), 0, paths[m.path].length_m() + 0.01, m.phase_m)) {
    return false;
  }
  const json* sp = r.member(j, "speed_mps", w, true);
  if (sp == nullptr || !r.number(*sp, at(w, "speed_mps"), 0, 10, v, true)) return false;
  m.speed_mps = static_cast<float>(v);
  if (const json* l = r.member(j, "lateral_m", w, false)) {
    if (!r.number(*l, at(w, "lateral_m"), -10, 10, v)) return false;
    m.lateral_m = static_cast<float>(v);
  }
  return read_variant(r, j, w, m.variant);
}

bool read_document(Reader& r, const WalkNetwork& walk, const json& doc, ShepherdsFile& out) {
  if (!r.keys(doc, "/", {"format", "groups", "wandering"}, "an object")) return false;
  if (const json* f = r.member(doc, "format", "", false)) {
    if (*f != "cityforge shepherds 1") return r.fail("format", "\"cityforge shepherds 1\"", f);
  }
  if (const json* g = r.member(doc, "groups", "", false)) {
    if (!r.array(*g, "groups", "an array of groups")) return false;
    out.groups.resize(g->size());
    for (std::size_t i = 0; i < g->size(); ++i) {
      if (!read_group(r, walk, (*g)[i], at("groups", i), out.groups[i])) return false;
    }
  }
  const json* wd = r.member(doc, "wandering", "", false);
  if (wd == nullptr) return true;
  if (!r.keys(*wd, "wandering", {"paths", "members"}, "an object {\"paths\", \"members\"}")) {
    return false;
  }
  if (const json* p = r.member(*wd, "paths", "wandering", false)) {
    if (!r.array(*p, "wandering.paths", "an array of paths")) return false;
    out.paths.resize(p->size());
    for (std::size_t i = 0; i < p->size(); ++i) {
      if (!read_path(r, walk, (*p)[i], at("wandering.paths", i), out.paths[i])) return false;
    }
  }
  if (const json* m = r.member(*wd, "members", "wandering", false)) {
    if (!r.array(*m, "wandering.members", "an array of members")) return false;
    out.walkers.resize(m->size());
    for (std::size_t i = 0; i < m->size(); ++i) {
      if (!read_walker(r, out.paths, (*m)[i], at("wandering.members", i), out.walkers[i])) {
        return false;
      }
    }
  }
  return true;
}

}  // namespace

std::string shepherds_json(const ShepherdsFile& file) {
  // One member / step list per line, so a designer can edit positions in a text editor.
  std::string s = "{\n  \"format\": \"cityforge shepherds 1\",\n  \"groups\": [";
  for (std::size_t i = 0; i < file.groups.size(); ++i) {
    const ShepherdGroup& g = file.groups[i];
    ojson head;
    head["name"] = g.spec.name;
    head["behaviour"] = to_string(g.spec.behaviour);
    head["count"] = g.spec.count;
    head["density"] = g.spec.density_per_m2;
    ojson poly = ojson::array();
    for (Vec2 p : g.spec.polygon)
      poly.push_back({p.x, p.y});
    head["polygon"] = poly;
    if (!g.spec.variant_mix.empty()) head["variant_mix"] = g.spec.variant_mix;
    std::string h = head.dump();
    h.pop_back();  // The closing brace: members follow.
    s += (i ? ",\n    " : "\n    ") + h + ", \"members\": [";
    for (std::size_t k = 0; k < g.members.size(); ++k) {
      const ShepherdMember& m = g.members[k];
      ojson o;
      o["lane"] = m.at.lane;
      o["s_m"] = short_float(m.at.s_m);
      o["dir"] = static_cast<int>(m.at.dir);
      o["lateral_m"] = short_float(m.lateral_m);
      o["heading_rad"] = short_float(m.heading_rad);
      o["variant"] = m.variant;
      s += (k ? ",\n      " : "\n      ") + o.dump();
    }
    s += g.members.empty() ? "]}" : "\n    ]}";
  }
  s += file.groups.empty() ? "],\n" : "\n  ],\n";
  s += "  \"wandering\": {\n    \"paths\": [";
  for (std::size_t i = 0; i < file.paths.size(); ++i) {
    const WanderingPath& p = file.paths[i];
    ojson steps = ojson::array();
    for (const WalkStep& st : p.steps)
      steps.push_back({st.lane, static_cast<int>(st.dir)});
    ojson o;
    o["length_m"] = std::stod(format_g9(p.length_m()));
    o["steps"] = steps;
    s += (i ? ",\n      " : "\n      ") + o.dump();
  }
  s += file.paths.empty() ? "],\n" : "\n    ],\n";
  s += "    \"members\": [";
  for (std::size_t i = 0; i < file.walkers.size(); ++i) {
    const WanderingMember& m = file.walkers[i];
    ojson o;
    o["path"] = m.path;
    o["phase_m"] = m.phase_m;
    o["speed_mps"] = short_float(m.speed_mps);
    o["lateral_m"] = short_float(m.lateral_m);
    o["variant"] = m.variant;
    s += (i ? ",\n      " : "\n      ") + o.dump();
  }
  s += file.walkers.empty() ? "]\n  }\n}\n" : "\n    ]\n  }\n}\n";
  return s;
}

Result<ShepherdsFile> parse_shepherds_json(std::string_view text, const std::string& name,
                                           const WalkNetwork& walk) {
  json doc;
  try {
    doc = json::parse(text.begin(), text.end());
  } catch (const json::exception& e) {
    return Error::invalid_input(name, std::string("malformed JSON: ") + e.what());
  }
  Reader r(name);
  ShepherdsFile out;
  if (!read_document(r, walk, doc, out)) return *r.error;
  return out;
}

Result<ShepherdsFile> load_shepherds_json(const std::string& path, const WalkNetwork& walk) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error::io(path, "cannot open the file for reading");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return Error::io(path, "read failed");
  return parse_shepherds_json(text.str(), path, walk);
}

}  // namespace cityforge::crowd
