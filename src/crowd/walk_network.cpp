// SPDX-License-Identifier: Apache-2.0
// The walking topology of the sidewalk and crosswalk lanes. The roads stage lists, for a
// pedestrian lane, the pedestrian lanes touching its end as successors and those touching its
// start as predecessors (docs/lanes.md); which end of the other lane touches is found here by
// distance, so a pedestrian knows whether it walks the next lane forward or backward.
#include "cityforge/crowd/walk_network.hpp"

#include <tbb/parallel_for.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <unordered_map>

#include "cityforge/core/geodesy.hpp"
#include "cityforge/core/json_parse.hpp"
#include "cityforge/core/text_file.hpp"
#include "crowd/detail/state.hpp"

namespace cityforge::crowd {

namespace {

Vec3 lane_end(const traffic::Network& net, LaneId lane, bool end) {
  return end ? net.points[net.point_begin[lane + 1] - 1] : net.points[net.point_begin[lane]];
}

double dist2(const Vec3& a, const Vec3& b) {
  const double dx = a.x - b.x;
  const double dy = a.y - b.y;
  return dx * dx + dy * dy;
}

// Segments that bound where a body may stand, in a uniform grid: vehicle lane centre lines
// (keep-out radius: the lane's half width less kCarriagewayToleranceM, only at about the
// same height: freeway decks over a sidewalk do not count) and building outline edges (radius 0).
class KeepOut {
 public:
  struct Seg {
    Vec2 a, b;
    double z = 0;
    double r = 0;
    bool ground_only = false;  ///< Vehicle lanes: compared at about the same height.
  };
  void add(const Seg& s) {
    const auto i = static_cast<std::uint32_t>(m_segs.size());
    m_segs.push_back(s);
    // Filed in every cell its keep-out area meets, so lookups need not grow by the radius.
    for (std::int64_t cy = cell(std::min(s.a.y, s.b.y) - s.r);
         cy <= cell(std::max(s.a.y, s.b.y) + s.r); ++cy) {
      for (std::int64_t cx = cell(std::min(s.a.x, s.b.x) - s.r);
           cx <= cell(std::max(s.a.x, s.b.x) + s.r); ++cx)
        m_cells[key(cx, cy)].push_back(i);
    }
  }
  /// Segments whose cells meet the box [lo, hi] grown by `grow`,
  /// ascending, without repeats.
  std::vector<std::uint32_t> near(Vec2 lo, Vec2 hi, double grow) const {
    std::vector<std::uint32_t> out;
    const double g = grow;
    for (std::int64_t cy = cell(lo.y - g); cy <= cell(hi.y + g); ++cy) {
      for (std::int64_t cx = cell(lo.x - g); cx <= cell(hi.x + g); ++cx) {
        const auto it = m_cells.find(key(cx, cy));
        if (it != m_cells.end()) out.insert(out.end(), it->second.begin(), it->second.end());
      }
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
  }
  /// Whether p (at height z) is within the keep-out radius of one of `segs`.
  bool blocked(Vec3 p, const std::vector<std::uint32_t>& segs) const {
    for (const std::uint32_t i : segs) {
      const Seg& s = m_segs[i];
      if (s.r <= 0 || (s.ground_only && std::abs(s.z - p.z) >= 2.0)) continue;
      if (point_segment({p.x, p.y}, s.a, s.b) < s.r) return true;
    }
    return false;
  }
  /// Smallest clearance (distance less keep-out radius) from segment pq at height z to any
  /// segment within `reach`; `reach` when none is nearer.
  double clearance(Vec2 p, Vec2 q, double z, double reach) const {
    double best = reach;
    const double grow = reach;
    for (std::int64_t cy = cell(std::min(p.y, q.y) - grow); cy <= cell(std::max(p.y, q.y) + grow);
         ++cy) {
      for (std::int64_t cx = cell(std::min(p.x, q.x) - grow); cx <= cell(std::max(p.x, q.x) + grow);
           ++cx) {
        const auto it = m_cells.find(key(cx, cy));
        if (it == m_cells.end()) continue;
        for (const std::uint32_t i : it->second) {
          const Seg& s = m_segs[i];
          if (s.ground_only && std::abs(s.z - z) >= 2.0) continue;
          best = std::min(best, segment_distance(p, q, s.a, s.b) - s.r);
        }
      }
    }
    return best;
  }

 private:
  static double point_segment(Vec2 p, Vec2 a, Vec2 b) {
    const Vec2 ab = b - a;
    const double len2 = dot(ab, ab);
    const double t = len2 > 0 ? std::clamp(dot(p - a, ab) / len2, 0.0, 1.0) : 0.0;
    const Vec2 d = p - (a + ab * t);
    return std::sqrt(dot(d, d));
  }
  static double cross(Vec2 a, Vec2 b) { return a.x * b.y - a.y * b.x; }
  static double segment_distance(Vec2 p, Vec2 q, Vec2 a, Vec2 b) {
    const double d1 = cross(q - p, a - p);
    const double d2 = cross(q - p, b - p);
    const double d3 = cross(b - a, p - a);
    const double d4 = cross(b - a, q - a);
    if (((d1 > 0) != (d2 > 0)) && ((d3 > 0) != (d4 > 0))) return 0.0;  // They cross.
    return std::min({point_segment(p, a, b), point_segment(q, a, b), point_segment(a, p, q),
                     point_segment(b, p, q)});
  }
  static constexpr double kCell = 8.0;
  static std::int64_t cell(double v) { return static_cast<std::int64_t>(std::floor(v / kCell)); }
  static std::uint64_t key(std::int64_t x, std::int64_t y) {
    return (static_cast<std::uint64_t>(x) << 32U) ^ static_cast<std::uint32_t>(y);
  }
  std::vector<Seg> m_segs;
  std::unordered_map<std::uint64_t, std::vector<std::uint32_t>> m_cells;
};

// Building footprints in a uniform grid of their bounding boxes; even-odd point test over all
// rings (holes included).
class BuildingGrid {
 public:
  explicit BuildingGrid(const std::vector<Footprint>& buildings) : m_buildings(buildings) {
    for (std::uint32_t i = 0; i < buildings.size(); ++i) {
      if (buildings[i].empty() || buildings[i][0].empty()) continue;
      double x0 = 1e300, y0 = 1e300, x1 = -1e300, y1 = -1e300;
      for (const Vec2& p : buildings[i][0]) {
        x0 = std::min(x0, p.x);
        y0 = std::min(y0, p.y);
        x1 = std::max(x1, p.x);
        y1 = std::max(y1, p.y);
      }
      for (std::int64_t cy = cell(y0); cy <= cell(y1); ++cy) {
        for (std::int64_t cx = cell(x0); cx <= cell(x1); ++cx)
          m_cells[key(cx, cy)].push_back(i);
      }
    }
  }
  std::vector<std::uint32_t> near(Vec2 lo, Vec2 hi) const {
    std::vector<std::uint32_t> out;
    for (std::int64_t cy = cell(lo.y); cy <= cell(hi.y); ++cy) {
      for (std::int64_t cx = cell(lo.x); cx <= cell(hi.x); ++cx) {
        const auto it = m_cells.find(key(cx, cy));
        if (it != m_cells.end()) out.insert(out.end(), it->second.begin(), it->second.end());
      }
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
  }
  bool inside(const Vec3& p, const std::vector<std::uint32_t>& candidates) const {
    for (const std::uint32_t i : candidates) {
      if (in_footprint(p, m_buildings[i])) return true;
    }
    return false;
  }
  static bool in_footprint(const Vec3& p, const Footprint& f) {
    bool in = false;
    for (const std::vector<Vec2>& ring : f) {
      for (std::size_t a = 0, b = ring.size() - 1; a < ring.size(); b = a++) {
        if ((ring[a].y > p.y) != (ring[b].y > p.y) &&
            p.x < (ring[b].x - ring[a].x) * (p.y - ring[a].y) / (ring[b].y - ring[a].y) + ring[a].x)
          in = !in;
      }
    }
    return in;
  }
  bool inside(const Vec3& p) const {
    const auto it = m_cells.find(key(cell(p.x), cell(p.y)));
    if (it == m_cells.end()) return false;
    for (const std::uint32_t i : it->second) {
      bool in = false;
      for (const std::vector<Vec2>& ring : m_buildings[i]) {
        for (std::size_t a = 0, b = ring.size() - 1; a < ring.size(); b = a++) {
          if ((ring[a].y > p.y) != (ring[b].y > p.y) &&
              p.x < (ring[b].x - ring[a].x) * (p.y - ring[a].y) / (ring[b].y - ring[a].y) +
                        ring[a].x) {
            in = !in;
          }
        }
      }
      if (in) return true;
    }
    return false;
  }

 private:
  static constexpr double kCell = 16.0;
  static std::int64_t cell(double v) { return static_cast<std::int64_t>(std::floor(v / kCell)); }
  static std::uint64_t key(std::int64_t x, std::int64_t y) {
    return (static_cast<std::uint64_t>(x) << 32U) ^ static_cast<std::uint32_t>(y);
  }
  const std::vector<Footprint>& m_buildings;
  std::unordered_map<std::uint64_t, std::vector<std::uint32_t>> m_cells;
};

// How far from its centre line a sidewalk's band is clear of carriageways and buildings: the
// centre line's distance to them (a point within that distance of the centre line cannot be
// inside them), capped at the half width less the body radius; negative when the centre line
// itself is on a carriageway or in a building.
double clear_band(const traffic::Network& net, const KeepOut& keep_out, const BuildingGrid& houses,
                  LaneId lane) {
  const double band = std::max(0.0, 0.5 * net.width_m[lane] - kBodyRadiusM);
  double clear = band;
  for (std::uint32_t k = net.point_begin[lane]; k < net.point_begin[lane + 1]; ++k) {
    if (houses.inside(net.points[k])) return -1;
    if (k == net.point_begin[lane]) continue;
    const Vec3& a = net.points[k - 1];
    const Vec3& b = net.points[k];
    clear = std::min(clear, keep_out.clearance({a.x, a.y}, {b.x, b.y}, 0.5 * (a.z + b.z), band));
  }
  if (clear <= 0) return -1;
  return std::max(0.0, clear - 0.01);  // A centimetre for rounding.
}

// The widest strip of lateral offsets (left of the lane's direction) clear of carriageways and
// buildings all along the lane: offsets every 5 cm across the band, tested every 20 cm along
// the lane, then 10 cm kept from each blocked side (what lies between samples). An empty
// interval (lo > hi) when no strip of 20 cm is left.
std::pair<float, float> clear_interval(const traffic::Network& net, const KeepOut& keep_out,
                                       const BuildingGrid& houses, LaneId lane, float band) {
  const int steps = static_cast<int>(std::floor(band / 0.05f));
  const int count = 2 * steps + 1;  // Offsets -steps..steps x 5 cm.
  std::vector<std::uint8_t> clear(static_cast<std::size_t>(count), 1);
  const float len = net.length_m[lane];
  std::vector<std::uint32_t> segs;
  std::vector<std::uint32_t> near_houses;
  // Samples every 10 cm and at every vertex (offset positions follow frame_at: continuous).
  std::vector<float> samples;
  for (float s = 0; s < len; s += 0.1f)
    samples.push_back(s);
  for (std::uint32_t k = net.point_begin[lane]; k < net.point_begin[lane + 1]; ++k)
    samples.push_back(std::min(len, net.point_s[k]));
  samples.push_back(len);
  for (const float s : samples) {
    // What could block the offsets at this sample: what is filed near its centre point.
    const FramesAcross across(net, lane, s);
    const Frame cf = across.at(0);
    const Vec3 c{cf.p.x, cf.p.y, cf.z};
    const Vec2 reach{band + 0.5, band + 0.5};
    segs = keep_out.near(Vec2{c.x, c.y} - reach, Vec2{c.x, c.y} + reach, 0);
    near_houses = houses.near(Vec2{c.x, c.y} - reach, Vec2{c.x, c.y} + reach);
    for (int i = 0; i < count; ++i) {
      if (clear[static_cast<std::size_t>(i)] == 0U) continue;
      const auto lat = static_cast<float>(0.05 * (i - steps));
      const Frame pf = across.at(lat);
      const Vec3 p{pf.p.x, pf.p.y, pf.z};
      if (houses.inside(p, near_houses) || keep_out.blocked(p, segs))
        clear[static_cast<std::size_t>(i)] = 0;
    }
  }
  int best_a = 0, best_b = -1;
  for (int a = 0; a < count;) {
    if (clear[static_cast<std::size_t>(a)] == 0U) {
      ++a;
      continue;
    }
    int b = a;
    while (b + 1 < count && clear[static_cast<std::size_t>(b + 1)] != 0U)
      ++b;
    if (b - a > best_b - best_a) best_a = a, best_b = b;
    a = b + 1;
  }
  if (best_b < best_a) return {1.0f, 0.0f};
  float lo = 0.05f * static_cast<float>(best_a - steps);
  float hi = 0.05f * static_cast<float>(best_b - steps);
  if (best_a > 0) lo += 0.1f;
  if (best_b < count - 1) hi -= 0.1f;
  if (hi - lo < 0.2f) return {1.0f, 0.0f};
  return {lo, hi};
}

}  // namespace

Result<std::vector<Footprint>> load_building_footprints(const std::string& path) {
  Result<std::string> text = read_file_text(path, kWrittenFileLimits.max_bytes);
  if (!text) {
    Error e = text.error();
    if (e.code == ErrorCode::io) e.message += " (a `generate` output's layout.geojson)";
    return e;
  }
  return parse_building_footprints(*text, path);
}

Result<std::vector<Footprint>> parse_building_footprints(std::string_view text,
                                                         const std::string& path) {
  Result<nlohmann::json> parsed = parse_json(text, path, kWrittenFileLimits);
  if (!parsed) return parsed.error();
  const nlohmann::json& j = *parsed;
  // Members read with find() and checked types: a missing or mistyped value is an Error.
  const auto member = [](const nlohmann::json& o, const char* key) -> const nlohmann::json* {
    if (!o.is_object()) return nullptr;
    const auto it = o.find(key);
    return it == o.end() ? nullptr : &*it;
  };
  const auto text_of = [&](const nlohmann::json& o, const char* key) {
    const nlohmann::json* v = member(o, key);
    return v != nullptr && v->is_string() ? v->get<std::string>() : std::string();
  };
  const nlohmann::json* features = member(j, "features");
  if (features == nullptr || !features->is_array())
    return Error::invalid_input(path, "expected a GeoJSON FeatureCollection with \"features\"");
  std::vector<Footprint> out;
  // Imported places write WGS84 (RFC 7946): map it back onto the local frame.
  bool wgs84 = false;
  double lon0 = 0.0;
  double lat0 = 0.0;
  if (const nlohmann::json* cf = member(j, "cityforge");
      cf && text_of(*cf, "coordinates") == "wgs84") {
    const nlohmann::json* origin = member(*cf, "origin");
    const nlohmann::json* lon = origin ? member(*origin, "lon_deg") : nullptr;
    const nlohmann::json* lat = origin ? member(*origin, "lat_deg") : nullptr;
    if (!lon || !lat || !lon->is_number() || !lat->is_number()) {
      return Error::invalid_input(path, "cityforge.origin: expected lon_deg and lat_deg numbers");
    }
    wgs84 = true;
    lon0 = lon->get<double>();
    lat0 = lat->get<double>();
  }
  const auto ring = [&](const nlohmann::json& r, std::vector<Vec2>& into) {
    if (!r.is_array()) return false;
    for (const auto& p : r) {
      if (!p.is_array() || p.size() < 2 || !p[0].is_number() || !p[1].is_number()) return false;
      const Vec2 q{p[0].get<double>(), p[1].get<double>()};
      into.push_back(wgs84 ? wgs84_to_local_approx(q.x, q.y, lon0, lat0) : q);
      if (!std::isfinite(into.back().x) || !std::isfinite(into.back().y)) return false;
    }
    return into.size() >= 3;
  };
  for (std::size_t i = 0; i < features->size(); ++i) {
    const auto& ft = (*features)[i];
    const nlohmann::json* props = member(ft, "properties");
    if (props == nullptr || text_of(*props, "layer") != "building") continue;
    const std::string where = "features[" + std::to_string(i) + "].geometry";
    const nlohmann::json* g = member(ft, "geometry");
    const nlohmann::json* coords = g ? member(*g, "coordinates") : nullptr;
    const std::string type = g ? text_of(*g, "type") : std::string();
    if (coords == nullptr || !coords->is_array() || (type != "Polygon" && type != "MultiPolygon"))
      return Error::invalid_input(path, where + ": expected a Polygon or MultiPolygon");
    const auto add_polygon = [&](const nlohmann::json& poly) -> bool {
      Footprint fp;
      if (!poly.is_array()) return false;
      for (const auto& r : poly) {
        fp.emplace_back();
        if (!ring(r, fp.back())) return false;
      }
      if (!fp.empty()) out.push_back(std::move(fp));
      return true;
    };
    bool good = true;
    if (type == "Polygon") {
      good = add_polygon(*coords);
    } else {
      for (const auto& p : *coords)
        good = good && add_polygon(p);
    }
    if (!good) return Error::invalid_input(path, where + ": expected rings of [x, y] points");
  }
  return out;
}

WalkNetwork build_walk_network(const traffic::Network& net, const std::vector<Footprint>& buildings,
                               double join_m) {
  WalkNetwork w;
  w.net = &net;
  const std::uint32_t n = net.lane_count();
  w.index.assign(n, WalkNetwork::kNone);
  KeepOut keep_out;
  for (LaneId l = 0; l < n; ++l) {
    if (!net.is(l, roads::kVehicle)) continue;
    const double r = 0.5 * net.width_m[l] - kCarriagewayToleranceM;
    if (r <= 0) continue;
    for (std::uint32_t k = net.point_begin[l] + 1; k < net.point_begin[l + 1]; ++k) {
      const Vec3& a = net.points[k - 1];
      const Vec3& b = net.points[k];
      keep_out.add({{a.x, a.y}, {b.x, b.y}, 0.5 * (a.z + b.z), r, true});
    }
  }
  for (const Footprint& f : buildings) {
    for (const std::vector<Vec2>& ring : f) {
      for (std::size_t k = 0; k < ring.size(); ++k)
        keep_out.add({ring[k], ring[(k + 1) % ring.size()], 0, 0, false});
    }
  }
  const BuildingGrid houses(buildings);
  w.band_m.assign(n, 0.0f);
  w.band_lo.assign(n, 0.0f);
  w.band_hi.assign(n, 0.0f);
  tbb::parallel_for(LaneId{0}, n, [&](LaneId l) {
    if (!net.is(l, roads::kSidewalk | roads::kCrosswalk) || net.is(l, roads::kVehicle) ||
        net.point_begin[l + 1] - net.point_begin[l] < 2) {
      return;
    }
    const auto band = static_cast<float>(std::max(0.0, 0.5 * net.width_m[l] - kBodyRadiusM));
    if (net.is(l, roads::kCrosswalk)) {  // On the road by design.
      w.band_m[l] = band;
      w.band_lo[l] = -band;
      w.band_hi[l] = band;
      return;
    }
    const double clear = clear_band(net, keep_out, houses, l);
    if (clear >= band - 0.011) {  // Clear everywhere (clear_band keeps a centimetre).
      w.band_m[l] = band;
      w.band_lo[l] = -band;
      w.band_hi[l] = band;
      return;
    }
    // Something comes within the band: find the part of it that is clear all along.
    const auto [lo, hi] = clear_interval(net, keep_out, houses, l, band);
    w.band_lo[l] = lo;
    w.band_hi[l] = hi;
    w.band_m[l] = lo <= 0 && hi >= 0 ? std::min(-lo, hi) : -1.0f;  // -1: centre line blocked.
  });
  for (LaneId l = 0; l < n; ++l) {
    if (w.band_hi[l] < w.band_lo[l]) {  // No clear strip along the whole lane.
      w.excluded.push_back(l);
      w.band_m[l] = 0;
      continue;
    }
    if (net.is(l, roads::kSidewalk | roads::kCrosswalk) && !net.is(l, roads::kVehicle) &&
        net.point_begin[l + 1] - net.point_begin[l] >= 2 && net.length_m[l] > 0.01f) {
      w.index[l] = static_cast<std::uint32_t>(w.lanes.size());
      w.lanes.push_back(l);
    }
  }
  const double join2 = join_m * join_m;
  w.exit_begin.assign(2 * w.lanes.size() + 1, 0);
  std::vector<WalkStep> list;
  for (std::size_t i = 0; i < w.lanes.size(); ++i) {
    const LaneId lane = w.lanes[i];
    for (int e = 0; e < 2; ++e) {
      const Vec3 p = lane_end(net, lane, e == 1);
      list.clear();
      // Candidates: the roads stage's links at this end; any walkable lane end within join_m.
      const auto& begin = e == 1 ? net.succ_begin : net.pred_begin;
      const auto& links = e == 1 ? net.succ : net.pred;
      for (std::uint32_t k = begin[lane]; k < begin[lane + 1]; ++k) {
        const LaneId o = links[k];
        if (o == lane || !w.walkable(o)) continue;
        const double d0 = dist2(p, lane_end(net, o, false));
        const double d1 = dist2(p, lane_end(net, o, true));
        if (std::min(d0, d1) > std::max(join2, 1.0)) continue;  // Linked but apart: not a way on.
        list.push_back({o, static_cast<std::int8_t>(d0 <= d1 ? 1 : -1)});
      }
      std::sort(list.begin(), list.end(),
                [](const WalkStep& a, const WalkStep& b) { return a.lane < b.lane; });
      w.exits.insert(w.exits.end(), list.begin(), list.end());
      w.exit_begin[2 * i + e + 1] = static_cast<std::uint32_t>(w.exits.size());
    }
  }
  return w;
}

}  // namespace cityforge::crowd
