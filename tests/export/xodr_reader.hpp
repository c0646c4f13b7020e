// SPDX-License-Identifier: Apache-2.0
#pragma once
/// An OpenDRIVE (.xodr) reader for tests, written from the ASAM OpenDRIVE 1.4 and 1.8
/// specifications, independently of cityforge's writer, to check that writer's output.
///
/// parse_string / parse_file read a file into plain structs (no exceptions escape; an error
/// names the line). The evaluation functions follow the specification:
/// - reference line (planView): line, arc, spiral (Euler clothoid, curvature linear in s,
///   integrated with composite 5-point Gauss-Legendre, error far below 1 mm), poly3 (v(u) in
///   the local frame, u found from the arc length), paramPoly3 (u(p), v(p) in the local frame
///   rotated by hdg; p = ds / length for pRange="normalized", p = ds for "arcLength");
/// - elevation z(s), superelevation, crossfall (1.4), shape (1.5+), laneOffset;
/// - lanes stacked outward from the centre lane at t = laneOffset(s), widths evaluated at
///   ds = s - laneSection.s - width.sOffset; <border> gives a lane's outer t directly;
/// - world points (x, y, z) for (road, s, t).
/// Records (elevation, width, ...) apply from their start to the next one's start: the one in
/// force at s is the last one that starts at or before s (the first one before any start).

#include <expat.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace cityforge::xodr_test {

// ---------------------------------------------------------------------------------------------
// Data

/// a + b·ds + c·ds² + d·ds³.
inline double cubic(double a, double b, double c, double d, double ds) {
  return a + ds * (b + ds * (c + ds * d));
}

/// A cubic starting at s (elevation, superelevation, crossfall, laneOffset).
struct Poly3Record {
  double s = 0, a = 0, b = 0, c = 0, d = 0;
  double at(double s_now) const { return cubic(a, b, c, d, s_now - s); }
};

/// <crossfall> (1.4): the angle [rad] the surface falls from the reference line outward.
struct Crossfall {
  std::string side = "both";  ///< "both", "left" or "right".
  Poly3Record poly;
};

/// <shape> (1.5+): height a + b·dt + c·dt² + d·dt³ at dt = t - t_start, at road position s.
struct Shape {
  double s = 0, t_start = 0, a = 0, b = 0, c = 0, d = 0;
};

enum class GeometryKind { kLine, kArc, kSpiral, kPoly3, kParamPoly3 };

/// One <geometry> of the planView with its primitive's parameters.
struct Geometry {
  double s = 0, x = 0, y = 0, hdg = 0, length = 0;
  GeometryKind kind = GeometryKind::kLine;
  double curvature = 0;                   ///< arc
  double curv_start = 0, curv_end = 0;    ///< spiral
  double a = 0, b = 0, c = 0, d = 0;      ///< poly3: v(u)
  double au = 0, bu = 0, cu = 0, du = 0;  ///< paramPoly3: u(p)
  double av = 0, bv = 0, cv = 0, dv = 0;  ///< paramPoly3: v(p)
  bool normalized = true;                 ///< paramPoly3 pRange (default "normalized").
};

/// A road's <predecessor>/<successor>; `present` is false when the file has none.
struct RoadLink {
  bool present = false;
  std::string element_type;  ///< "road" or "junction".
  std::string element_id;
  std::string contact_point;  ///< "start", "end" or "" (junctions).
};

/// <width> or <border>: cubic in ds = s - section.s - s_offset.
struct LaneWidth {
  double s_offset = 0, a = 0, b = 0, c = 0, d = 0;
};
struct LaneHeight {
  double s_offset = 0, inner = 0, outer = 0;
};
struct RoadMark {
  double s_offset = 0;
  std::string type, weight, color;
  double width = 0;
};
struct LaneSpeed {
  double s_offset = 0, max = 0;
  std::string unit;
};

struct Lane {
  int id = 0;
  std::string type = "none";
  bool level = false;
  std::optional<int> predecessor, successor;  ///< Linked lane ids.
  std::vector<LaneWidth> widths, borders;
  std::vector<LaneHeight> heights;
  std::vector<RoadMark> road_marks;
  std::vector<LaneSpeed> speeds;
};

struct LaneSection {
  double s = 0;
  std::vector<Lane> left, center, right;  ///< In file order.
};

struct SignalValidity {
  int from_lane = 0, to_lane = 0;
};
struct Signal {
  std::string id, name, orientation, type, subtype, country, dynamic;
  double s = 0, t = 0, z_offset = 0, value = 0;
  std::vector<SignalValidity> validity;
};

/// <cornerRoad> (s, t, dz) or <cornerLocal> (u, v, z), with its height.
struct Corner {
  bool road = true;
  double s = 0, t = 0, dz = 0;  ///< cornerRoad
  double u = 0, v = 0, z = 0;   ///< cornerLocal
  double height = 0;
};
struct Outline {
  std::string id;
  std::vector<Corner> corners;
};
struct Object {
  std::string id, type, name, orientation;
  double s = 0, t = 0, z_offset = 0, hdg = 0;
  std::vector<Outline> outlines;  ///< 1.4 <outline> and 1.5+ <outlines><outline> alike.
};

struct Road {
  std::string id, name, junction = "-1";
  double length = 0;
  RoadLink predecessor, successor;
  std::vector<Geometry> plan_view;
  std::vector<Poly3Record> elevations, superelevations, lane_offsets;
  std::vector<Crossfall> crossfalls;
  std::vector<Shape> shapes;
  std::vector<LaneSection> lane_sections;
  std::vector<Signal> signals;
  std::vector<Object> objects;
};

struct LaneLink {
  int from = 0, to = 0;
};
struct Connection {
  std::string id, incoming_road, connecting_road, contact_point;
  std::vector<LaneLink> lane_links;
};
/// A junction's <controller> reference.
struct JunctionController {
  std::string id, type;
  int sequence = 0;
};
struct Junction {
  std::string id, name;
  std::vector<Connection> connections;
  std::vector<JunctionController> controllers;
};

struct Control {
  std::string signal_id, type;
};
struct Controller {
  std::string id, name;
  std::vector<Control> controls;
};

struct Header {
  int rev_major = 0, rev_minor = 0;
  std::string name, geo_reference;  ///< geoReference text (CDATA included), trimmed.
  double north = 0, south = 0, east = 0, west = 0;
};

struct Document {
  Header header;
  std::vector<Road> roads;
  std::vector<Junction> junctions;
  std::vector<Controller> controllers;
};

/// Either a document or an error ("line N: ...").
struct ParseResult {
  Document doc;
  std::string error;
  bool ok() const { return error.empty(); }
};

inline const Road* find_road(const Document& doc, std::string_view id) {
  for (const Road& r : doc.roads) {
    if (r.id == id) return &r;
  }
  return nullptr;
}
inline const Junction* find_junction(const Document& doc, std::string_view id) {
  for (const Junction& j : doc.junctions) {
    if (j.id == id) return &j;
  }
  return nullptr;
}
/// The lane with this id in a section (centre lane 0 included), or nullptr.
inline const Lane* find_lane(const LaneSection& sec, int id) {
  const std::vector<Lane>& side = id > 0 ? sec.left : id < 0 ? sec.right : sec.center;
  for (const Lane& l : side) {
    if (l.id == id) return &l;
  }
  return nullptr;
}

// ---------------------------------------------------------------------------------------------
// Parsing

namespace detail {

struct ParserState {
  XML_Parser parser = nullptr;
  Document doc;
  std::string error;
  std::vector<std::string> stack;  ///< Open element names.
  const XML_Char** atts = nullptr;
  bool seen_root = false;
  std::string text;  ///< geoReference text.

  std::string parent(std::size_t up = 1) const {
    return stack.size() > up ? stack[stack.size() - 1 - up] : std::string();
  }
  void fail(const std::string& msg) {
    if (!error.empty()) return;
    error = "line ";
    error += std::to_string(XML_GetCurrentLineNumber(parser));
    error += ": <";
    error += stack.empty() ? std::string("?") : stack.back();
    error += "> ";
    error += msg;
    XML_StopParser(parser, XML_FALSE);
  }
  const char* raw(const char* name) const {
    for (const XML_Char** a = atts; a && *a; a += 2) {
      if (std::string_view(a[0]) == name) return a[1];
    }
    return nullptr;
  }
  const char* need(const char* name, bool required) {
    const char* v = raw(name);
    if (!v && required) fail(std::string("missing attribute '") + name + "'");
    return v;
  }
  std::string str(const char* name, bool required = false, const char* fallback = "") {
    const char* v = need(name, required);
    return v ? v : fallback;
  }
  double num(const char* name, bool required = true, double fallback = 0) {
    const char* v = need(name, required);
    if (!v) return fallback;
    char* end = nullptr;
    errno = 0;
    const double x = std::strtod(v, &end);
    end += std::strspn(end, " \t\r\n");
    if (end == v || *end != '\0' || errno == ERANGE || !std::isfinite(x)) {
      fail(std::string("attribute '") + name + "' is not a number: '" + v + "'");
      return fallback;
    }
    return x;
  }
  int integer(const char* name, bool required = true, int fallback = 0) {
    const char* v = need(name, required);
    if (!v) return fallback;
    char* end = nullptr;
    errno = 0;
    const long x = std::strtol(v, &end, 10);
    end += std::strspn(end, " \t\r\n");
    if (end == v || *end != '\0' || errno == ERANGE) {
      fail(std::string("attribute '") + name + "' is not an integer: '" + v + "'");
      return fallback;
    }
    return static_cast<int>(x);
  }
  Poly3Record poly() { return {num("s"), num("a"), num("b"), num("c"), num("d")}; }
  LaneWidth width() { return {num("sOffset"), num("a"), num("b"), num("c"), num("d")}; }

  // Innermost open containers (valid while their element is open).
  Road* road() { return doc.roads.empty() ? nullptr : &doc.roads.back(); }
  LaneSection* section() {
    Road* r = road();
    return r && !r->lane_sections.empty() ? &r->lane_sections.back() : nullptr;
  }
  std::vector<Lane>* side() {
    LaneSection* sec = section();
    for (auto it = stack.rbegin(); sec && it != stack.rend(); ++it) {
      if (*it == "left") return &sec->left;
      if (*it == "right") return &sec->right;
      if (*it == "center") return &sec->center;
    }
    return nullptr;
  }
  Lane* lane() {
    std::vector<Lane>* s = side();
    return s && !s->empty() ? &s->back() : nullptr;
  }

  void start(const std::string& el);
};

inline void ParserState::start(const std::string& el) {
  const std::string p = parent();
  if (stack.size() == 1) {
    if (el != "OpenDRIVE") fail("root element is not <OpenDRIVE>");
    return;
  }
  const bool top = p == "OpenDRIVE";
  const bool in_road = std::find(stack.begin(), stack.end(), "road") != stack.end();
  Road* r = in_road ? road() : nullptr;
  if (el == "geoReference") {
    text.clear();
  } else if (el == "header" && top) {
    Header& h = doc.header;
    h.rev_major = integer("revMajor");
    h.rev_minor = integer("revMinor");
    h.name = str("name");
    h.north = num("north", false);
    h.south = num("south", false);
    h.east = num("east", false);
    h.west = num("west", false);
  } else if (el == "road" && top) {
    Road nr;
    nr.id = str("id", true);
    nr.name = str("name");
    nr.length = num("length");
    nr.junction = str("junction", false, "-1");
    doc.roads.push_back(std::move(nr));
  } else if (el == "junction" && top) {
    doc.junctions.push_back({str("id", true), str("name"), {}, {}});
  } else if (el == "connection" && p == "junction" && parent(2) == "OpenDRIVE") {
    doc.junctions.back().connections.push_back({str("id", true),
                                                str("incomingRoad", true),
                                                str("connectingRoad", true),
                                                str("contactPoint"),
                                                {}});
  } else if (el == "laneLink" && p == "connection" && parent(3) == "OpenDRIVE") {
    doc.junctions.back().connections.back().lane_links.push_back({integer("from"), integer("to")});
  } else if (el == "controller" && p == "junction" && parent(2) == "OpenDRIVE") {
    doc.junctions.back().controllers.push_back(
        {str("id", true), str("type"), integer("sequence", false)});
  } else if (el == "controller" && top) {
    doc.controllers.push_back({str("id", true), str("name"), {}});
  } else if (el == "control" && p == "controller" && parent(2) == "OpenDRIVE") {
    doc.controllers.back().controls.push_back({str("signalId", true), str("type")});
  } else if (!r) {
    return;  // Everything below lives in a <road>.
  } else if ((el == "predecessor" || el == "successor") && p == "link" && parent(2) == "road") {
    RoadLink& l = el == "predecessor" ? r->predecessor : r->successor;
    l.present = true;
    l.element_type = str("elementType", true);
    l.element_id = str("elementId", true);
    l.contact_point = str("contactPoint");
  } else if ((el == "predecessor" || el == "successor") && p == "link" && parent(2) == "lane") {
    if (Lane* ln = lane()) (el == "predecessor" ? ln->predecessor : ln->successor) = integer("id");
  } else if (el == "geometry" && p == "planView") {
    r->plan_view.push_back({num("s"), num("x"), num("y"), num("hdg"), num("length")});
  } else if (p == "geometry" && !r->plan_view.empty()) {
    Geometry& g = r->plan_view.back();
    if (el == "line") {
      g.kind = GeometryKind::kLine;
    } else if (el == "arc") {
      g.kind = GeometryKind::kArc;
      g.curvature = num("curvature");
    } else if (el == "spiral") {
      g.kind = GeometryKind::kSpiral;
      g.curv_start = num("curvStart");
      g.curv_end = num("curvEnd");
    } else if (el == "poly3") {
      g.kind = GeometryKind::kPoly3;
      g.a = num("a"), g.b = num("b"), g.c = num("c"), g.d = num("d");
    } else if (el == "paramPoly3") {
      g.kind = GeometryKind::kParamPoly3;
      g.au = num("aU"), g.bu = num("bU"), g.cu = num("cU"), g.du = num("dU");
      g.av = num("aV"), g.bv = num("bV"), g.cv = num("cV"), g.dv = num("dV");
      const std::string range = str("pRange", false, "normalized");
      if (range != "normalized" && range != "arcLength") fail("bad pRange '" + range + "'");
      g.normalized = range == "normalized";
    }
  } else if (el == "elevation" && p == "elevationProfile") {
    r->elevations.push_back(poly());
  } else if (el == "superelevation" && p == "lateralProfile") {
    r->superelevations.push_back(poly());
  } else if (el == "crossfall" && p == "lateralProfile") {
    Crossfall cf{str("side", false, "both"), poly()};
    if (cf.side != "both" && cf.side != "left" && cf.side != "right") {
      fail("bad crossfall side '" + cf.side + "'");
    }
    r->crossfalls.push_back(cf);
  } else if (el == "shape" && p == "lateralProfile") {
    r->shapes.push_back({num("s"), num("t"), num("a"), num("b"), num("c"), num("d")});
  } else if (el == "laneOffset" && p == "lanes") {
    r->lane_offsets.push_back(poly());
  } else if (el == "laneSection" && p == "lanes") {
    r->lane_sections.push_back({num("s"), {}, {}, {}});
  } else if (el == "lane" && (p == "left" || p == "center" || p == "right") && side()) {
    Lane ln;
    ln.id = integer("id");
    ln.type = str("type", false, "none");
    const std::string level = str("level", false, "false");
    ln.level = level == "true" || level == "1";
    if ((p == "left" && ln.id <= 0) || (p == "right" && ln.id >= 0) ||
        (p == "center" && ln.id != 0)) {
      fail("lane id " + std::to_string(ln.id) + " in <" + p + ">");
    }
    side()->push_back(std::move(ln));
  } else if (p == "lane" && lane()) {
    Lane& ln = *lane();
    if (el == "width") {
      ln.widths.push_back(width());
    } else if (el == "border") {
      ln.borders.push_back(width());
    } else if (el == "height") {
      ln.heights.push_back({num("sOffset"), num("inner", false), num("outer", false)});
    } else if (el == "roadMark") {
      ln.road_marks.push_back(
          {num("sOffset"), str("type"), str("weight"), str("color"), num("width", false)});
    } else if (el == "speed") {
      ln.speeds.push_back({num("sOffset"), num("max"), str("unit")});
    }
  } else if (el == "signal" && p == "signals") {
    Signal sg;
    sg.id = str("id", true);
    sg.s = num("s");
    sg.t = num("t");
    sg.name = str("name");
    sg.z_offset = num("zOffset", false);
    sg.orientation = str("orientation");
    sg.type = str("type");
    sg.subtype = str("subtype");
    sg.country = str("country");
    sg.dynamic = str("dynamic");
    sg.value = num("value", false);
    r->signals.push_back(std::move(sg));
  } else if (el == "validity" && p == "signal" && !r->signals.empty()) {
    r->signals.back().validity.push_back({integer("fromLane"), integer("toLane")});
  } else if (el == "object" && p == "objects") {
    Object ob;
    ob.id = str("id", true);
    ob.s = num("s");
    ob.t = num("t");
    ob.type = str("type");
    ob.name = str("name");
    ob.orientation = str("orientation");
    ob.z_offset = num("zOffset", false);
    ob.hdg = num("hdg", false);
    r->objects.push_back(std::move(ob));
  } else if (el == "outline" && (p == "object" || p == "outlines") && !r->objects.empty()) {
    r->objects.back().outlines.push_back({str("id"), {}});
  } else if ((el == "cornerRoad" || el == "cornerLocal") && p == "outline" && !r->objects.empty() &&
             !r->objects.back().outlines.empty()) {
    Corner c;
    c.road = el == "cornerRoad";
    if (c.road) {
      c.s = num("s"), c.t = num("t"), c.dz = num("dz", false);
    } else {
      c.u = num("u"), c.v = num("v"), c.z = num("z", false);
    }
    c.height = num("height", false);
    r->objects.back().outlines.back().corners.push_back(c);
  }
}

inline void XMLCALL on_start(void* user, const XML_Char* name, const XML_Char** atts) {
  auto* st = static_cast<ParserState*>(user);
  if (!st->error.empty()) return;
  st->stack.emplace_back(name);
  st->atts = atts;
  st->start(st->stack.back());
  st->atts = nullptr;
}
inline void XMLCALL on_end(void* user, const XML_Char* /*name*/) {
  auto* st = static_cast<ParserState*>(user);
  if (!st->stack.empty() && st->stack.back() == "geoReference") {
    const std::size_t b = st->text.find_first_not_of(" \t\r\n");
    const std::size_t e = st->text.find_last_not_of(" \t\r\n");
    st->doc.header.geo_reference = b == std::string::npos ? "" : st->text.substr(b, e - b + 1);
  }
  if (!st->stack.empty()) st->stack.pop_back();
}
inline void XMLCALL on_text(void* user, const XML_Char* s, int len) {
  auto* st = static_cast<ParserState*>(user);
  if (!st->stack.empty() && st->stack.back() == "geoReference") {
    st->text.append(s, static_cast<std::size_t>(len));
  }
}

}  // namespace detail

/// Parses OpenDRIVE XML text. On error, `error` reads "line N: ..." (XML syntax, a missing or
/// malformed required attribute, a root that is not <OpenDRIVE>, no <header>).
inline ParseResult parse_string(std::string_view xml) {
  detail::ParserState st;
  st.parser = XML_ParserCreate(nullptr);
  XML_SetUserData(st.parser, &st);
  XML_SetElementHandler(st.parser, detail::on_start, detail::on_end);
  XML_SetCharacterDataHandler(st.parser, detail::on_text);
  const auto status = XML_Parse(st.parser, xml.data(), static_cast<int>(xml.size()), /*isFinal=*/1);
  ParseResult out;
  if (!st.error.empty()) {
    out.error = st.error;
  } else if (status != XML_STATUS_OK) {
    out.error = "line " + std::to_string(XML_GetCurrentLineNumber(st.parser)) + ": " +
                XML_ErrorString(XML_GetErrorCode(st.parser));
  } else if (st.doc.header.rev_major == 0) {
    out.error = "line " + std::to_string(XML_GetCurrentLineNumber(st.parser)) +
                ": no <header> with revMajor";
  }
  XML_ParserFree(st.parser);
  if (out.error.empty()) out.doc = std::move(st.doc);
  return out;
}

/// Reads and parses a file; a file that cannot be read is an error too.
inline ParseResult parse_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    ParseResult r;
    r.error = "cannot read " + path;
    return r;
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  return parse_string(ss.str());
}

// ---------------------------------------------------------------------------------------------
// Evaluation

struct Pose {
  double x = 0, y = 0, hdg = 0;
};
struct Vec3 {
  double x = 0, y = 0, z = 0;
};

namespace detail {

/// ∫_0^len f(σ) dσ for f returning (fx, fy): composite 5-point Gauss-Legendre on n pieces.
template <class F>
void gauss_legendre(double len, int n, F f, double& ix, double& iy) {
  static constexpr double kX[5] = {0.0, -0.5384693101056831, 0.5384693101056831,
                                   -0.9061798459386640, 0.9061798459386640};
  static constexpr double kW[5] = {0.5688888888888889, 0.4786286704993665, 0.4786286704993665,
                                   0.2369268850561891, 0.2369268850561891};
  ix = iy = 0;
  const double h = len / n;
  for (int i = 0; i < n; ++i) {
    const double mid = (i + 0.5) * h;
    for (int k = 0; k < 5; ++k) {
      double fx = 0, fy = 0;
      f(mid + 0.5 * h * kX[k], fx, fy);
      ix += 0.5 * h * kW[k] * fx;
      iy += 0.5 * h * kW[k] * fy;
    }
  }
}

/// Pieces so that each spans at most 2 m and turns at most 0.05 rad.
inline int pieces(double len, double max_curvature) {
  const double n = std::max(len / 2.0, len * max_curvature / 0.05);
  return std::max(1, static_cast<int>(std::ceil(n)));
}

/// poly3: the local u whose arc length along v(u) from u = 0 is `arc` (Newton).
inline double poly3_u_at(const Geometry& g, double arc) {
  auto slope = [&](double u) { return g.b + u * (2 * g.c + 3 * g.d * u); };
  auto length_to = [&](double u) {
    double len = 0, unused = 0;
    gauss_legendre(
        u, std::max(4, static_cast<int>(std::ceil(std::fabs(u)))),
        [&](double x, double& fx, double& fy) {
          fx = std::sqrt(1 + slope(x) * slope(x));
          fy = 0;
        },
        len, unused);
    return len;
  };
  double u = arc / std::sqrt(1 + g.b * g.b);
  for (int i = 0; i < 50; ++i) {
    const double step = (length_to(u) - arc) / std::sqrt(1 + slope(u) * slope(u));
    u -= step;
    if (std::fabs(step) < 1e-12) break;
  }
  return u;
}

/// The record in force at key `s`: the last one whose start is <= s (the first before all).
template <class T, class Key>
const T* in_force(const std::vector<T>& v, double s, Key key) {
  const T* best = nullptr;
  for (const T& e : v) {
    if (key(e) <= s + 1e-9 && (!best || key(e) >= key(*best))) best = &e;
  }
  if (!best && !v.empty()) best = &v.front();
  return best;
}

inline double poly_at(const std::vector<Poly3Record>& v, double s) {
  const Poly3Record* r = in_force(v, s, [](const Poly3Record& p) { return p.s; });
  return r ? r->at(s) : 0.0;
}

}  // namespace detail

/// The pose at ds metres along one geometry (ds from the geometry's start).
inline Pose eval_geometry(const Geometry& g, double ds) {
  const double ch = std::cos(g.hdg), sh = std::sin(g.hdg);
  auto local = [&](double u, double v, double local_hdg) {
    return Pose{g.x + u * ch - v * sh, g.y + u * sh + v * ch, g.hdg + local_hdg};
  };
  switch (g.kind) {
    case GeometryKind::kLine:
      return local(ds, 0, 0);
    case GeometryKind::kArc: {
      const double k = g.curvature;
      if (std::fabs(k) < 1e-15) return local(ds, 0, 0);
      const double h = g.hdg + k * ds;
      return {g.x + (std::sin(h) - sh) / k, g.y - (std::cos(h) - ch) / k, h};
    }
    case GeometryKind::kSpiral: {
      // Curvature κ(σ) = k0 + (k1 - k0)·σ/L, heading θ(σ) = hdg + k0·σ + (k1 - k0)·σ²/(2L).
      const double k0 = g.curv_start;
      const double rate = g.length > 0 ? (g.curv_end - g.curv_start) / g.length : 0.0;
      auto theta = [&](double sig) { return g.hdg + sig * (k0 + 0.5 * rate * sig); };
      double ix = 0, iy = 0;
      const double kmax = std::max(std::fabs(k0), std::fabs(k0 + rate * ds));
      detail::gauss_legendre(
          ds, detail::pieces(std::fabs(ds), kmax),
          [&](double sig, double& fx, double& fy) {
            fx = std::cos(theta(sig));
            fy = std::sin(theta(sig));
          },
          ix, iy);
      return {g.x + ix, g.y + iy, theta(ds)};
    }
    case GeometryKind::kPoly3: {
      const double u = detail::poly3_u_at(g, ds);
      const double v = cubic(g.a, g.b, g.c, g.d, u);
      return local(u, v, std::atan(g.b + u * (2 * g.c + 3 * g.d * u)));
    }
    case GeometryKind::kParamPoly3: {
      const double p = g.normalized ? (g.length > 0 ? ds / g.length : 0.0) : ds;
      const double u = cubic(g.au, g.bu, g.cu, g.du, p);
      const double v = cubic(g.av, g.bv, g.cv, g.dv, p);
      const double du = g.bu + p * (2 * g.cu + 3 * g.du * p);
      const double dv = g.bv + p * (2 * g.cv + 3 * g.dv * p);
      return local(u, v, std::atan2(dv, du));
    }
  }
  return {};
}

/// The reference line pose at road position s (the geometry in force at s; s is not clamped,
/// so s slightly past the last geometry extrapolates it).
inline Pose reference_pose(const Road& road, double s) {
  const Geometry* g = detail::in_force(road.plan_view, s, [](const Geometry& x) { return x.s; });
  return g ? eval_geometry(*g, s - g->s) : Pose{};
}

/// z of the reference line (elevationProfile), 0 without records.
inline double elevation(const Road& road, double s) { return detail::poly_at(road.elevations, s); }
/// Superelevation (roll) [rad]; positive falls to the right (the spec's words), 0 without.
inline double superelevation(const Road& road, double s) {
  return detail::poly_at(road.superelevations, s);
}
/// laneOffset(s): t of the centre lane, 0 without records.
inline double lane_offset(const Road& road, double s) {
  return detail::poly_at(road.lane_offsets, s);
}

/// Index of the lane section in force at s (a section starting exactly at s wins).
inline std::size_t section_index(const Road& road, double s) {
  const LaneSection* sec =
      detail::in_force(road.lane_sections, s, [](const LaneSection& x) { return x.s; });
  return sec ? static_cast<std::size_t>(sec - road.lane_sections.data()) : 0;
}

/// A width or border cubic of a lane at road position s in a section starting at section_s.
inline double lane_poly_at(const std::vector<LaneWidth>& v, double section_s, double s) {
  const double ds = s - section_s;
  const LaneWidth* w = detail::in_force(v, ds, [](const LaneWidth& x) { return x.s_offset; });
  return w ? cubic(w->a, w->b, w->c, w->d, ds - w->s_offset) : 0.0;
}

/// Where a lane lies across the road at s: the t of its inner border (towards the centre
/// lane), outer border and centre line. The centre lane has all three at laneOffset(s).
struct LaneBounds {
  int id = 0;
  double inner_t = 0, outer_t = 0, centre_t = 0;
};

/// Every lane of the section in force at s, left lanes (1, 2, ...) stacked from t =
/// laneOffset(s) towards +t, right lanes (-1, -2, ...) towards -t, by their <width> (or, for a
/// lane without width records, its <border>: the outer border's t from the reference line).
inline std::vector<LaneBounds> lane_bounds(const Road& road, double s) {
  std::vector<LaneBounds> out;
  if (road.lane_sections.empty()) return out;
  const LaneSection& sec = road.lane_sections[section_index(road, s)];
  const double offset = lane_offset(road, s);
  out.push_back({0, offset, offset, offset});
  auto stack = [&](std::vector<Lane> side, double sign) {
    std::sort(side.begin(), side.end(),
              [](const Lane& a, const Lane& b) { return std::abs(a.id) < std::abs(b.id); });
    double inner = offset;
    for (const Lane& l : side) {
      double outer = inner;
      if (!l.widths.empty()) {
        outer = inner + sign * lane_poly_at(l.widths, sec.s, s);
      } else if (!l.borders.empty()) {
        outer = lane_poly_at(l.borders, sec.s, s);
      }
      out.push_back({l.id, inner, outer, 0.5 * (inner + outer)});
      inner = outer;
    }
  };
  stack(sec.left, 1.0);
  stack(sec.right, -1.0);
  return out;
}

/// One lane's bounds at s, or nothing if the section in force at s has no such lane.
inline std::optional<LaneBounds> lane_bounds(const Road& road, double s, int lane_id) {
  for (const LaneBounds& b : lane_bounds(road, s)) {
    if (b.id == lane_id) return b;
  }
  return std::nullopt;
}

/// Height of the lateral profile at (s, t) above z(s), before the roll:
/// - crossfall (1.4): for each side, the record in force at s among those for that side (or
///   "both"); positive crossfall falls from the reference line outward: -|t|·tan(crossfall);
/// - shape (1.5+): records grouped by s; in a group, the cubic of the last record with
///   t_start <= t (the first if none) at dt = t - t_start; between the group in force at s and
///   the next group the two heights are interpolated linearly in s (the spec's rule).
inline double lateral_profile_height(const Road& road, double s, double t) {
  double h = 0;
  if (t != 0) {
    const char* side = t > 0 ? "left" : "right";
    const Crossfall* cf = nullptr;
    for (const Crossfall& c : road.crossfalls) {
      if ((c.side == "both" || c.side == side) && c.poly.s <= s + 1e-9 &&
          (!cf || c.poly.s >= cf->poly.s)) {
        cf = &c;
      }
    }
    if (cf) h -= std::fabs(t) * std::tan(cf->poly.at(s));
  }
  if (!road.shapes.empty()) {
    std::vector<double> group_s;
    for (const Shape& sh : road.shapes)
      group_s.push_back(sh.s);
    std::sort(group_s.begin(), group_s.end());
    group_s.erase(std::unique(group_s.begin(), group_s.end()), group_s.end());
    auto height_in = [&](double gs) {
      const Shape* best = nullptr;
      const Shape* first = nullptr;
      for (const Shape& sh : road.shapes) {
        if (sh.s != gs) continue;
        if (!first || sh.t_start < first->t_start) first = &sh;
        if (sh.t_start <= t + 1e-9 && (!best || sh.t_start >= best->t_start)) best = &sh;
      }
      if (!best) best = first;
      return cubic(best->a, best->b, best->c, best->d, t - best->t_start);
    };
    std::size_t i = 0;
    while (i + 1 < group_s.size() && group_s[i + 1] <= s + 1e-9)
      ++i;
    const double h1 = height_in(group_s[i]);
    if (i + 1 < group_s.size() && s > group_s[i]) {
      const double f = (s - group_s[i]) / (group_s[i + 1] - group_s[i]);
      h += h1 + f * (height_in(group_s[i + 1]) - h1);
    } else {
      h += h1;
    }
  }
  return h;
}

/// z of the road surface at (s, t): z(s) + t·sin(φ) + lateral_profile_height(s, t), where φ
/// is the superelevation. Sign: the spec (1.4 and 1.8, lateral profile) says superelevation
/// is positive for roads falling to the right side (t < 0): a roll about the s axis by the
/// right-hand rule, so z rises with t·sin(φ). t runs along the rolled t axis (1.8's reference
/// line coordinate system rolls the t axis by the superelevation), hence sin, not tan; the two
/// differ by t·φ³/2 (0.13 mm at t = 10 m, φ = 0.03). Lane heights and level="true" are not
/// applied here (see lane_height).
inline double surface_z(const Road& road, double s, double t) {
  return elevation(road, s) + t * std::sin(superelevation(road, s)) +
         lateral_profile_height(road, s, t);
}

/// <height> of the lane containing t at s: inner + (outer - inner)·f, f the fraction of the
/// way from the lane's inner to its outer border; 0 outside lanes or without records.
inline double lane_height(const Road& road, double s, double t) {
  if (road.lane_sections.empty()) return 0;
  const LaneSection& sec = road.lane_sections[section_index(road, s)];
  for (const LaneBounds& b : lane_bounds(road, s)) {
    const double lo = std::min(b.inner_t, b.outer_t), hi = std::max(b.inner_t, b.outer_t);
    if (b.id == 0 || t < lo || t > hi || hi <= lo) continue;
    const Lane* l = find_lane(sec, b.id);
    const LaneHeight* h =
        detail::in_force(l->heights, s - sec.s, [](const LaneHeight& x) { return x.s_offset; });
    if (!h) return 0;
    const double f = (t - b.inner_t) / (b.outer_t - b.inner_t);
    return h->inner + f * (h->outer - h->inner);
  }
  return 0;
}

/// The world point of (s, t) on the road surface, raised by h along z: the reference pose
/// moved t·cos(φ) along the left normal (-sin hdg, cos hdg), at z = surface_z(s, t) + h.
/// (The tilt of the t axis by the road's pitch, a second-order term, is left out.)
inline Vec3 world_point(const Road& road, double s, double t, double h = 0) {
  const Pose p = reference_pose(road, s);
  const double lateral = t * std::cos(superelevation(road, s));
  return {p.x - lateral * std::sin(p.hdg), p.y + lateral * std::cos(p.hdg),
          surface_z(road, s, t) + h};
}

/// World point of a lane's centre line at s (nothing if the lane is not in force at s).
inline std::optional<Vec3> lane_centre_point(const Road& road, double s, int lane_id) {
  const std::optional<LaneBounds> b = lane_bounds(road, s, lane_id);
  if (!b) return std::nullopt;
  return world_point(road, s, b->centre_t);
}

/// s of a road end named by a contact point: 0 for "start", the road's length otherwise.
inline double contact_s(const Road& road, std::string_view contact_point) {
  return contact_point == "start" ? 0.0 : road.length;
}

}  // namespace cityforge::xodr_test
