// SPDX-License-Identifier: Apache-2.0
// SUMO "plain XML" network: nodes, edges, connections and traffic lights for netconvert.
// Based on: the SUMO user documentation, "Networks/PlainXML" (node types, edge attributes,
// spreadType) for SUMO 1.15, the version Debian 12 ships.
//
// Each two-way layout edge becomes two one-way SUMO edges that share the centre line: with
// spreadType="right" SUMO lays each direction's lanes on its right of that line, which is
// right-hand traffic on a carriageway of the layout's width. Connections and signal programs
// are left to netconvert, which builds them from the node types written here.

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cityforge/export/export.hpp"

namespace cityforge::exporter {

namespace {

// roads::Control values, spelled out so this writer does not depend on the roads header.
constexpr std::uint8_t kControlNone = 0;
constexpr std::uint8_t kControlYield = 1;
constexpr std::uint8_t kControlStop = 2;
constexpr std::uint8_t kControlSignal = 3;

/// Appends XML text. Numbers are %.9g; the first non-finite number is remembered with its place
/// and turns the whole export into an error.
class XmlText {
 public:
  std::string& str() { return m_out; }
  const std::optional<Error>& error() const { return m_error; }

  void raw(std::string_view s) { m_out.append(s); }

  /// ` name="value"` with the value escaped for an attribute.
  void attr(std::string_view name, std::string_view value) {
    m_out.push_back(' ');
    m_out.append(name);
    m_out.append("=\"");
    for (const char c : value) {
      switch (c) {
        case '&':
          m_out.append("&amp;");
          break;
        case '<':
          m_out.append("&lt;");
          break;
        case '>':
          m_out.append("&gt;");
          break;
        case '"':
          m_out.append("&quot;");
          break;
        case '\'':
          m_out.append("&apos;");
          break;
        default:
          m_out.push_back(c);
          break;
      }
    }
    m_out.push_back('"');
  }

  void attr(std::string_view name, double v, std::string_view where) {
    attr(name, number(v, where));
  }

  void attr_int(std::string_view name, long long v) { attr(name, std::to_string(v)); }

  /// A finite number as %.9g; a non-finite one records an error naming `where`.
  std::string number(double v, std::string_view where) {
    if (!std::isfinite(v)) {
      fail(Error::invalid_input(std::string(where),
                                "expected a finite number, got " + std::to_string(v)));
      return "0";
    }
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.9g", v);
    return buf;
  }

  void fail(Error e) {
    if (!m_error) {
      m_error = std::move(e);
    }
  }

 private:
  std::string m_out;
  std::optional<Error> m_error;
};

constexpr std::string_view kXmlDeclaration = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";

// Built by appending: g++ 12 flags `"n" + std::to_string(id)` with a false -Wrestrict.
std::string prefixed_id(char prefix, std::uint32_t id, std::string_view suffix = {}) {
  std::string s(1, prefix);
  s += std::to_string(id);
  s += suffix;
  return s;
}

std::string node_id(layout::NodeId id) { return prefixed_id('n', id); }

/// SUMO's edge priority: higher wins at priority junctions, so arteries beat local streets.
int edge_priority(layout::RoadClass c) {
  switch (c) {
    case layout::RoadClass::artery:
      return 3;
    case layout::RoadClass::main:
      return 2;
    case layout::RoadClass::local:
      return 1;
  }
  return 1;
}

/// Per node: the number of incident edge ends and whether all incident edges share a class.
struct NodeInfo {
  int degree = 0;
  bool single_class = true;
  layout::RoadClass road_class = layout::RoadClass::local;
};

void note_edge_end(NodeInfo& n, layout::RoadClass c) {
  if (n.degree > 0 && n.road_class != c) {
    n.single_class = false;
  }
  n.road_class = c;
  ++n.degree;
}

/// The SUMO node type for a node, or "" to let netconvert decide. Dead ends are "priority"
/// rather than SUMO's "dead_end", which would forbid the turnaround connection.
std::string_view node_type(const NodeInfo& n, bool have_control, std::uint8_t control) {
  if (n.degree == 0) {
    return "dead_end";
  }
  if (n.degree == 1) {
    return "priority";
  }
  if (!have_control) {
    return "";
  }
  switch (control) {
    case kControlSignal:
      return "traffic_light";
    // A stop where one road is clearly major stops only the minor legs.
    case kControlStop:
      return n.single_class ? "allway_stop" : "priority_stop";
    case kControlYield:
      return "priority";
    case kControlNone:
      return n.degree == 2 ? "priority" : "right_before_left";
    default:
      return "";
  }
}

/// Checks what the XML cannot express: node references, point counts, lanes, speed, width.
Status validate(const layout::Output& city, const std::vector<std::uint8_t>& node_control) {
  const auto& net = city.network;
  if (!node_control.empty() && node_control.size() != net.nodes.size()) {
    return Error::invalid_input("node_control", "expected " + std::to_string(net.nodes.size()) +
                                                    " entries (one per node) or none, got " +
                                                    std::to_string(node_control.size()));
  }
  for (std::size_t i = 0; i < node_control.size(); ++i) {
    if (node_control[i] > kControlSignal) {
      return Error::invalid_input(
          "node_control[" + std::to_string(i) + "]",
          "expected a roads::Control value 0..3, got " + std::to_string(node_control[i]));
    }
  }
  for (std::size_t i = 0; i < net.nodes.size(); ++i) {
    if (net.nodes[i].id != i) {
      return Error::invalid_input(
          "network.nodes[" + std::to_string(i) + "]",
          "expected id " + std::to_string(i) + ", got " + std::to_string(net.nodes[i].id));
    }
  }
  for (std::size_t i = 0; i < net.edges.size(); ++i) {
    const layout::RoadEdge& e = net.edges[i];
    const std::string where = "network.edges[" + std::to_string(i) + "]";
    if (e.from >= net.nodes.size() || e.to >= net.nodes.size()) {
      return Error::invalid_input(where, "expected from/to below the node count " +
                                             std::to_string(net.nodes.size()) + ", got " +
                                             std::to_string(e.from) + "/" + std::to_string(e.to));
    }
    if (e.points.size() < 2) {
      return Error::invalid_input(where + ".points",
                                  "expected >= 2 points, got " + std::to_string(e.points.size()));
    }
    if (e.lanes_per_direction < 1) {
      return Error::invalid_input(where + ".lanes_per_direction",
                                  "expected >= 1, got " + std::to_string(e.lanes_per_direction));
    }
    if (!(e.speed_limit_kmh > 0.0) || !std::isfinite(e.speed_limit_kmh)) {
      return Error::invalid_input(
          where + ".speed_limit_kmh",
          "expected a finite speed > 0, got " + std::to_string(e.speed_limit_kmh));
    }
    if (!(e.width_m > 0.0) || !std::isfinite(e.width_m)) {
      return Error::invalid_input(where + ".width_m",
                                  "expected a finite width > 0, got " + std::to_string(e.width_m));
    }
  }
  return Ok{};
}

std::string nodes_xml(const layout::Output& city, const std::vector<std::uint8_t>& node_control,
                      const std::vector<NodeInfo>& info, XmlText& x) {
  x.raw(kXmlDeclaration);
  x.raw("<nodes>\n");
  for (std::size_t i = 0; i < city.network.nodes.size(); ++i) {
    const layout::RoadNode& n = city.network.nodes[i];
    const std::string where = "network.nodes[" + std::to_string(i) + "].pos";
    x.raw("  <node");
    x.attr("id", node_id(n.id));
    x.attr("x", n.pos.x, where);
    x.attr("y", n.pos.y, where);
    const std::string_view type =
        node_type(info[i], !node_control.empty(), node_control.empty() ? 0 : node_control[i]);
    if (!type.empty()) {
      x.attr("type", type);
    }
    x.raw("/>\n");
  }
  x.raw("</nodes>\n");
  return std::move(x.str());
}

/// The shape attribute: the polyline in travel order, consecutive duplicates dropped (SUMO
/// wants distinct positions), each point "x,y" separated by spaces.
std::string shape_text(const Polyline& points, bool reversed, const std::string& where,
                       XmlText& x) {
  std::string out;
  const std::size_t n = points.size();
  const Vec2* previous = nullptr;
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t i = reversed ? n - 1 - k : k;
    const Vec2& p = points[i];
    if (previous != nullptr && previous->x == p.x && previous->y == p.y) {
      continue;
    }
    previous = &p;
    const std::string at = where + ".points[" + std::to_string(i) + "]";
    if (!out.empty()) {
      out.push_back(' ');
    }
    out += x.number(p.x, at);
    out.push_back(',');
    out += x.number(p.y, at);
  }
  return out;
}

void edge_xml(const layout::RoadEdge& e, std::size_t index, bool back, XmlText& x) {
  const std::string where = "network.edges[" + std::to_string(index) + "]";
  x.raw("  <edge");
  x.attr("id", prefixed_id('e', e.id, back ? "b" : "f"));
  x.attr("from", node_id(back ? e.to : e.from));
  x.attr("to", node_id(back ? e.from : e.to));
  x.attr_int("priority", edge_priority(e.road_class));
  x.attr_int("numLanes", e.lanes_per_direction);
  x.attr("speed", e.speed_limit_kmh / 3.6, where + ".speed_limit_kmh");
  x.attr("width", e.width_m / (2.0 * e.lanes_per_direction), where + ".width_m");
  x.attr("spreadType", "right");
  x.attr("shape", shape_text(e.points, back, where, x));
  x.raw("/>\n");
}

}  // namespace

Result<SumoFiles> sumo_plain_xml(const layout::Output& city,
                                 const std::vector<std::uint8_t>& node_control) {
  // 1. Reject what SUMO could not read or would silently misread.
  if (Status ok = validate(city, node_control); !ok) {
    return ok.error();
  }

  // 2. Degree and class mix per node decide the junction types.
  std::vector<NodeInfo> info(city.network.nodes.size());
  for (const layout::RoadEdge& e : city.network.edges) {
    note_edge_end(info[e.from], e.road_class);
    note_edge_end(info[e.to], e.road_class);
  }

  // 3. Nodes, then two one-way edges per road in edge order (forward first).
  SumoFiles files;
  XmlText nodes;
  files.nodes = nodes_xml(city, node_control, info, nodes);
  if (nodes.error()) {
    return *nodes.error();
  }
  XmlText edges;
  edges.raw(kXmlDeclaration);
  edges.raw("<edges>\n");
  for (std::size_t i = 0; i < city.network.edges.size(); ++i) {
    edge_xml(city.network.edges[i], i, false, edges);
    edge_xml(city.network.edges[i], i, true, edges);
  }
  edges.raw("</edges>\n");
  if (edges.error()) {
    return *edges.error();
  }
  files.edges = std::move(edges.str());

  // 4. netconvert guesses connections and builds signal programs from the node types; the
  // files are written anyway so a user can add overrides in place.
  files.connections = std::string(kXmlDeclaration) + "<connections>\n</connections>\n";
  files.tll = std::string(kXmlDeclaration) + "<tlLogics>\n</tlLogics>\n";
  return files;
}

}  // namespace cityforge::exporter
