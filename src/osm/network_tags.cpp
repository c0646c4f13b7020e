// SPDX-License-Identifier: Apache-2.0
// Highway tags over the class defaults of highways.cpp:
// - oneway=yes/1/true one-way along the way, -1/reverse against it (the way is reversed, and
//   with it lanes:forward/backward and turn:lanes:forward/backward), no/false/0 two-way; the
//   classes marked oneway (motorway, motorway_link) and junction=roundabout/circular are one-way
//   unless tagged otherwise.
// - lanes (total), lanes:forward / lanes:backward: one-way: lanes:forward, else lanes, else
//   the class lanes; two-way: both directions given, or lanes split (forward gets the odd
//   lane), or the class lanes each way. 1..6 per direction.
// - width ("7", "7.5 m", "23 ft"); else, where lanes are tagged, lanes x the class lane width
//   (class width / class lanes); a one-way way of a two-way class without lanes or width: half
//   the class width + 1 m. Never under 2.5 m per lane.
// - sidewalk both/left/right/yes: the class sidewalk width (2 m where the class has none) on
//   both sides (one width per edge); no/none/separate/false: none (separately mapped sidewalks
//   are paths); also sidewalk:both, sidewalk:left / sidewalk:right.
// - lit: no/disused/false unlit, any other value lit. maxspeed: see parse_maxspeed_kmh.
// - bridge (any value but no) and tunnel (any value but no, building_passage,
//   avalanche_protector; also indoor=yes) make the way a bridge / an underground tunnel;
//   layer; the edge's layer is the effective level: a bridge at layer 0 counts as 1, a
//   tunnel as -1.
// - highway=construction uses the defaults of construction=<class> where that is a class.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <string>

#include "osm/network_detail.hpp"

namespace cityforge::osm {

namespace {

std::string_view trim_blanks(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t'))
    s.remove_suffix(1);
  return s;
}

// A leading decimal number ("7,5" reads as 7.5); the rest of the text after it in *rest.
std::optional<double> leading_signed_number(std::string_view s, std::string_view* rest) {
  s = trim_blanks(s);
  std::string buf;
  std::size_t i = 0;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) buf.push_back(s[i++]);
  bool digits = false;
  bool dot = false;
  for (; i < s.size(); ++i) {
    const char c = s[i];
    if (c >= '0' && c <= '9') {
      buf.push_back(c);
      digits = true;
    } else if ((c == '.' || c == ',') && !dot) {
      buf.push_back('.');
      dot = true;
    } else {
      break;
    }
  }
  if (!digits) return std::nullopt;
  double v = 0.0;
  const auto [ptr, ec] = std::from_chars(buf.data(), buf.data() + buf.size(), v);
  if (ec != std::errc() || ptr != buf.data() + buf.size() || !std::isfinite(v)) {
    return std::nullopt;
  }
  if (rest != nullptr) *rest = trim_blanks(s.substr(i));
  return v;
}

std::optional<int> parse_int(std::string_view s) {
  s = trim_blanks(s);
  int v = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

bool is_yes(std::string_view v) { return v == "yes" || v == "1" || v == "true"; }
bool is_no(std::string_view v) { return v == "no" || v == "0" || v == "false"; }

}  // namespace

std::optional<double> parse_length_m(std::string_view text) {
  std::string_view rest;
  const std::optional<double> v = leading_signed_number(text, &rest);
  if (!v || !(*v > 0.0)) return std::nullopt;
  double metres = *v;
  if (rest.empty() || rest == "m") {
    // metres
  } else if (rest == "km") {
    metres *= 1000.0;
  } else if (rest == "cm") {
    metres /= 100.0;
  } else if (rest == "ft" || rest == "feet") {
    metres *= 0.3048;
  } else if (rest.front() == '\'') {
    // 12'6" : feet and inches.
    metres *= 0.3048;
    std::string_view inches_text = trim_blanks(rest.substr(1));
    std::string_view after;
    if (!inches_text.empty()) {
      const std::optional<double> inches = leading_signed_number(inches_text, &after);
      if (!inches || after != "\"") return std::nullopt;
      metres += *inches * 0.0254;
    }
  } else {
    return std::nullopt;
  }
  return metres;
}

std::optional<double> parse_maxspeed_kmh(std::string_view text) {
  text = trim_blanks(text);
  if (text == "none") return 130.0;
  if (text == "walk") return 7.0;
  std::string_view rest;
  if (const std::optional<double> v = leading_signed_number(text, &rest)) {
    if (!(*v > 0.0)) return std::nullopt;
    if (rest.empty() || rest == "km/h" || rest == "kmh" || rest == "kph") return *v;
    if (rest == "mph") return *v * 1.609344;
    if (rest == "knots") return *v * 1.852;
    return std::nullopt;
  }
  // Implicit limits "CC:kind" (country codes vary; these are the common German / European
  // values, which most countries share for urban roads).
  const std::size_t colon = text.find(':');
  if (colon == std::string_view::npos) return std::nullopt;
  std::string_view kind = text.substr(colon + 1);
  if (kind == "urban") return 50.0;
  if (kind == "rural") return text.substr(0, colon) == "DE" ? 100.0 : 90.0;
  if (kind == "motorway") return 130.0;
  if (kind == "trunk") return 100.0;
  if (kind == "living_street") return 7.0;
  if (kind == "bicycle_road" || kind == "cyclestreet") return 30.0;
  if (kind.starts_with("zone:")) kind.remove_prefix(5);
  if (kind.starts_with("zone")) kind.remove_prefix(4);
  if (const std::optional<double> v = leading_signed_number(kind, &rest);
      v && rest.empty() && *v > 0) {
    return *v;
  }
  return std::nullopt;
}

namespace detail {

WayAttributes way_attributes(const Way& way) {
  WayAttributes out;
  const std::string_view highway = tag(way.tags, "highway");
  out.highway = find_highway(highway);
  if (out.highway < 0) return out;
  const auto& table = highway_table();
  // Defaults: the class, or for construction the class under construction.
  int defaults = out.highway;
  if (highway == "construction") {
    const int sub = find_highway(tag(way.tags, "construction"));
    if (sub >= 0 && table[static_cast<std::size_t>(sub)].vehicles) defaults = sub;
  }
  const HighwaySpec& spec = table[static_cast<std::size_t>(defaults)];
  out.vehicles = table[static_cast<std::size_t>(out.highway)].vehicles;
  const bool closed = way.refs.size() >= 4 && way.refs.front() == way.refs.back();
  out.area = closed && is_yes(tag(way.tags, "area"));

  layout::RoadEdge& e = out.edge;
  e.road_class = spec.road_class;
  e.highway = static_cast<std::uint8_t>(out.highway + 1);
  e.osm_way = way.id;

  // 1. Direction.
  const std::string_view junction = tag(way.tags, "junction");
  bool oneway = spec.oneway || junction == "roundabout" || junction == "circular";
  const std::string_view ow = tag(way.tags, "oneway");
  if (is_yes(ow)) {
    oneway = true;
  } else if (ow == "-1" || ow == "reverse") {
    oneway = true;
    out.reversed = true;
  } else if (is_no(ow)) {
    oneway = false;
  }

  // 2. Lanes.
  // Tagged lane counts, 0 where absent or unreadable.
  auto count = [&](std::string_view key) {
    return std::max(0, parse_int(tag(way.tags, key)).value_or(0));
  };
  const int total = count("lanes");
  int lf = count("lanes:forward");
  int lb = count("lanes:backward");
  std::string turn_f(tag(way.tags, "turn:lanes:forward"));
  std::string turn_b(tag(way.tags, "turn:lanes:backward"));
  if (oneway && turn_f.empty()) turn_f = std::string(tag(way.tags, "turn:lanes"));
  if (out.reversed) {
    std::swap(lf, lb);
    std::swap(turn_f, turn_b);
  }
  const bool lanes_tagged = total > 0 || lf > 0 || lb > 0;
  int fwd = spec.lanes;
  int back = spec.lanes;
  if (oneway) {
    fwd = lf > 0 ? lf : total > 0 ? total : spec.lanes;
    back = 0;
    turn_b.clear();
  } else if (lf > 0 && lb > 0) {
    fwd = lf;
    back = lb;
  } else if (total > 0) {
    if (lf > 0) {
      fwd = lf;
      back = std::max(1, total - lf);
    } else if (lb > 0) {
      back = lb;
      fwd = std::max(1, total - lb);
    } else {
      fwd = std::max(1, (total + 1) / 2);
      back = std::max(1, total / 2);
    }
  } else if (lf > 0) {
    fwd = lf;
  } else if (lb > 0) {
    back = lb;
  }
  fwd = std::clamp(fwd, 1, 6);
  if (!oneway) back = std::clamp(back, 1, 6);
  e.lanes_per_direction = fwd;
  e.lanes_backward = oneway ? 0 : (back == fwd ? -1 : back);
  e.turn_lanes_forward = turn_f;
  e.turn_lanes_backward = turn_b;

  // 3. Width.
  const double lane_w = spec.width_m / (spec.oneway ? spec.lanes : 2.0 * spec.lanes);
  const int all_lanes = fwd + back;
  double width = spec.width_m;
  if (const std::optional<double> w = parse_length_m(tag(way.tags, "width"))) {
    width = *w;
  } else if (lanes_tagged || oneway != spec.oneway) {
    width = all_lanes * lane_w;
    if (oneway && !spec.oneway && !lanes_tagged) width = 0.5 * spec.width_m + 1.0;
  }
  if (!out.vehicles) {
    width = std::clamp(width, 0.5, 30.0);
  } else {
    width = std::clamp(width, 2.5 * all_lanes, 60.0);
  }
  e.width_m = width;

  // 4. Sidewalks, lights, speed.
  std::string_view sw = tag(way.tags, "sidewalk");
  if (sw.empty()) sw = tag(way.tags, "sidewalk:both");
  double sidewalk = spec.sidewalk_m;
  const double tagged_walk = spec.sidewalk_m > 0.0 ? spec.sidewalk_m : 2.0;
  if (sw == "both" || sw == "left" || sw == "right" || is_yes(sw)) {
    sidewalk = tagged_walk;
  } else if (sw == "none" || sw == "separate" || is_no(sw)) {
    sidewalk = 0.0;
  } else if (sw.empty()) {
    const std::string_view l = tag(way.tags, "sidewalk:left");
    const std::string_view r = tag(way.tags, "sidewalk:right");
    if (is_yes(l) || is_yes(r)) {
      sidewalk = tagged_walk;
    } else if (!l.empty() && !r.empty()) {
      sidewalk = 0.0;
    }
  }
  e.sidewalk_width_m = out.vehicles ? sidewalk : 0.0;
  const std::string_view lit = tag(way.tags, "lit");
  e.lit = lit.empty() ? spec.lit : !(is_no(lit) || lit == "disused");
  e.speed_limit_kmh = parse_maxspeed_kmh(tag(way.tags, "maxspeed")).value_or(spec.speed_kmh);

  // 5. Level.
  const std::string_view bridge = tag(way.tags, "bridge");
  const std::string_view tunnel = tag(way.tags, "tunnel");
  e.bridge = !bridge.empty() && !is_no(bridge);
  e.tunnel = (!tunnel.empty() && !is_no(tunnel) && tunnel != "building_passage" &&
              tunnel != "avalanche_protector") ||
             is_yes(tag(way.tags, "indoor"));
  const int layer = std::clamp(parse_int(tag(way.tags, "layer")).value_or(0), -5, 5);
  int level = layer;
  if (level == 0 && e.bridge) level = 1;
  if (level == 0 && e.tunnel) level = -1;
  e.layer = static_cast<std::int8_t>(level);

  // 6. Demand by class (imports have no zoning; a medium density).
  constexpr double kTraffic[3] = {0.9, 0.6, 0.3};
  constexpr double kPedestrian[3] = {0.8, 0.9, 0.6};
  const auto c = static_cast<std::size_t>(e.road_class);
  e.traffic_density = kTraffic[c] * 0.75;
  e.pedestrian_density = e.sidewalk_width_m > 0.0 ? kPedestrian[c] * 0.5 : 0.0;
  return out;
}

std::vector<ClippedPiece> clip_to_box(const std::vector<Vec2>& points,
                                      const std::vector<std::int64_t>& ids, const Aabb2& box) {
  std::vector<ClippedPiece> out;
  ClippedPiece cur;
  bool open = false;
  auto close = [&](bool at_last) {
    if (!open) return;
    cur.ends_at_last = at_last;
    double len = 0.0;
    for (std::size_t i = 1; i < cur.points.size(); ++i)
      len += distance(cur.points[i - 1], cur.points[i]);
    if (cur.points.size() >= 2 && len >= 1e-3) out.push_back(std::move(cur));
    cur = ClippedPiece{};
    open = false;
  };
  const std::size_t n = points.size();
  if (n == 1 && box.contains(points[0])) return out;
  for (std::size_t i = 0; i + 1 < n; ++i) {
    const Vec2 a = points[i];
    const Vec2 b = points[i + 1];
    // Liang-Barsky.
    double t0 = 0.0;
    double t1 = 1.0;
    const Vec2 d = b - a;
    const double p[4] = {-d.x, d.x, -d.y, d.y};
    const double q[4] = {a.x - box.min.x, box.max.x - a.x, a.y - box.min.y, box.max.y - a.y};
    bool inside = true;
    for (int k = 0; k < 4 && inside; ++k) {
      if (p[k] == 0.0) {
        if (q[k] < 0.0) inside = false;
      } else {
        const double r = q[k] / p[k];
        if (p[k] < 0.0) {
          t0 = std::max(t0, r);
        } else {
          t1 = std::min(t1, r);
        }
      }
    }
    if (!inside || t0 > t1) {
      close(false);
      continue;
    }
    if (!(open && t0 == 0.0)) {
      close(false);
      open = true;
      cur.starts_at_first = i == 0 && t0 == 0.0;
      if (t0 == 0.0) {
        cur.points.push_back(a);
        cur.ids.push_back(ids[i]);
      } else {
        cur.points.push_back(a + d * t0);
        cur.ids.push_back(0);
      }
    }
    if (t1 == 1.0) {
      cur.points.push_back(b);
      cur.ids.push_back(ids[i + 1]);
    } else {
      cur.points.push_back(a + d * t1);
      cur.ids.push_back(0);
      close(false);
    }
  }
  close(true);
  return out;
}

}  // namespace detail
}  // namespace cityforge::osm
