// SPDX-License-Identifier: Apache-2.0
// SUMO "plain XML" network: nodes, edges, connections and traffic lights for netconvert.
// Based on: the SUMO user documentation, "Networks/PlainXML" (node types, edge attributes,
// spreadType) for SUMO 1.15, the version Debian 12 ships.
//
// Each two-way layout edge becomes two one-way SUMO edges that share the centre line: with
// spreadType="right" SUMO lays each direction's lanes on its right of that line, which is
// right-hand traffic on a carriageway of the layout's width. Without the roads stage,
// connections and signal programs are left to netconvert, which builds them from the node
// types written here. With it, every vehicle movement of the lane graph becomes one lane-to-lane
// connection and every signal plan one static tlLogic whose link indices are pinned by
// `<connection tl= linkIndex=>` elements in the tll file (netconvert renumbers link indices
// given in the connections file, so they would not match the state strings).

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "cityforge/core/format.hpp"
#include "cityforge/export/export.hpp"
#include "export/detail/xml_text.hpp"

namespace cityforge::exporter {

namespace {

using detail::kXmlDeclaration;
using detail::XmlText;

// roads::Control values as the node_control bytes of the plain overload.
constexpr auto kControlNone = static_cast<std::uint8_t>(roads::Control::none);
constexpr auto kControlYield = static_cast<std::uint8_t>(roads::Control::yield);
constexpr auto kControlStop = static_cast<std::uint8_t>(roads::Control::stop);
constexpr auto kControlSignal = static_cast<std::uint8_t>(roads::Control::signal);

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
  const int lanes = back ? e.lanes_back() : e.lanes_forward();
  x.attr_int("numLanes", lanes);
  x.attr("speed", e.speed_limit_kmh / 3.6, where + ".speed_limit_kmh");
  if (e.lanes_back() == e.lanes_forward()) {
    x.attr("width", e.width_m / (2.0 * e.lanes_per_direction), where + ".width_m");
  } else {
    // Asymmetric or one-way (imported places): all lanes share the carriageway.
    x.attr("width", e.width_m / (e.lanes_forward() + e.lanes_back()), where + ".width_m");
  }
  x.attr("spreadType", "right");
  x.attr("shape", shape_text(e.points, back, where, x));
  x.raw("/>\n");
}

/// The nodes and edges files, shared by both overloads: nodes in id order, then two one-way
/// edges per road in edge order (forward first; none back on one-way roads).
Status nodes_and_edges(const layout::Output& city, const std::vector<std::uint8_t>& node_control,
                       SumoFiles& files) {
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

  // 3. Nodes, then edges.
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
    // One-way roads (imported places) have no lanes against their direction.
    if (city.network.edges[i].lanes_back() > 0) edge_xml(city.network.edges[i], i, true, edges);
  }
  edges.raw("</edges>\n");
  if (edges.error()) {
    return *edges.error();
  }
  files.edges = std::move(edges.str());
  return Ok{};
}

// --- Connections and signal programs from the roads stage. ---

/// A lane of a one-way SUMO edge: layout edge, direction and SUMO lane index (0 = right-most,
/// which is our curb lane, lane_index 0).
struct SumoLane {
  layout::EdgeId edge = 0;
  bool forward = true;
  int index = 0;
  auto key() const { return std::tuple(edge, forward, index); }
};

/// One lane-to-lane connection at a node, with the connector lanes it stands for (none for the
/// direct joins of bends and class changes without a junction surface).
struct Link {
  layout::NodeId node = 0;
  SumoLane from;
  SumoLane to;
  std::vector<roads::LaneId> connectors;
};

std::string lane_where(roads::LaneId id) { return "roads.lanes[" + std::to_string(id) + "]"; }

bool is_connector(const roads::Lane& l) {
  return (l.tags & roads::kVehicle) != 0U && (l.tags & roads::kIntersection) != 0U;
}

/// A driving lane of a section (not a connector, sidewalk or crosswalk).
bool is_section_lane(const roads::Lane& l) {
  return (l.tags & roads::kVehicle) != 0U && (l.tags & roads::kIntersection) == 0U &&
         l.section >= 0;
}

std::string sumo_edge_id(const SumoLane& l) {
  return prefixed_id('e', l.edge, l.forward ? "f" : "b");
}

/// Checks the lane graph against the layout: counts, ids, links, sections, lane indices,
/// junctions, signal plans. After this, every index the link builder follows is in range.
Status validate_roads(const layout::Output& city, const roads::Output& roads) {
  const auto& net = city.network;
  const auto& lanes = roads.lanes.lanes;
  if (roads.intersections.size() != net.nodes.size() || roads.sections.size() != net.edges.size()) {
    return Error::invalid_input(
        "roads", "expected one intersection per node and one section per edge (" +
                     std::to_string(net.nodes.size()) + " / " + std::to_string(net.edges.size()) +
                     "), got " + std::to_string(roads.intersections.size()) + " / " +
                     std::to_string(roads.sections.size()));
  }
  for (std::size_t i = 0; i < roads.sections.size(); ++i) {
    if (roads.sections[i].edge >= net.edges.size()) {
      return Error::invalid_input("roads.sections[" + std::to_string(i) + "].edge",
                                  "expected an edge id below " + std::to_string(net.edges.size()) +
                                      ", got " + std::to_string(roads.sections[i].edge));
    }
  }
  for (std::size_t i = 0; i < lanes.size(); ++i) {
    const roads::Lane& l = lanes[i];
    const std::string where = lane_where(static_cast<roads::LaneId>(i));
    for (const auto* links : {&l.successors, &l.predecessors}) {
      for (const roads::LaneId k : *links) {
        if (k >= lanes.size()) {
          return Error::invalid_input(where, "expected linked lane ids below " +
                                                 std::to_string(lanes.size()) + ", got " +
                                                 std::to_string(k));
        }
      }
    }
    if (is_section_lane(l)) {
      if (static_cast<std::size_t>(l.section) >= roads.sections.size()) {
        return Error::invalid_input(where + ".section", "expected a section below " +
                                                            std::to_string(roads.sections.size()) +
                                                            ", got " + std::to_string(l.section));
      }
      const layout::RoadEdge& edge = net.edges[roads.sections[l.section].edge];
      const int n = l.forward ? edge.lanes_forward() : edge.lanes_back();
      if (l.lane_index < 0 || l.lane_index >= n) {
        return Error::invalid_input(where + ".lane_index",
                                    "expected 0.." + std::to_string(n - 1) +
                                        " (lanes of its edge in its direction), got " +
                                        std::to_string(l.lane_index));
      }
    } else if (is_connector(l)) {
      if (l.intersection < 0 || static_cast<std::size_t>(l.intersection) >= net.nodes.size()) {
        return Error::invalid_input(where + ".intersection", "expected a junction below " +
                                                                 std::to_string(net.nodes.size()) +
                                                                 ", got " +
                                                                 std::to_string(l.intersection));
      }
      if (l.predecessors.size() != 1 || l.successors.size() != 1) {
        return Error::invalid_input(
            where, "expected a connector with one predecessor and one successor, got " +
                       std::to_string(l.predecessors.size()) + " and " +
                       std::to_string(l.successors.size()));
      }
    }
  }
  std::vector<bool> planned(net.nodes.size(), false);
  for (std::size_t s = 0; s < roads.lanes.signals.size(); ++s) {
    const roads::SignalPlan& plan = roads.lanes.signals[s];
    const std::string where = "roads.lanes.signals[" + std::to_string(s) + "]";
    if (plan.intersection >= net.nodes.size() || planned[plan.intersection]) {
      return Error::invalid_input(where + ".intersection", "expected one plan per junction below " +
                                                               std::to_string(net.nodes.size()) +
                                                               ", got " +
                                                               std::to_string(plan.intersection));
    }
    planned[plan.intersection] = true;
    const double cycle_s = plan.cycle_s();
    if (plan.phases.empty() || !(cycle_s > 0.0) || !std::isfinite(cycle_s)) {
      return Error::invalid_input(where + ".phases",
                                  "expected phases with a finite cycle > 0 s, got " +
                                      std::to_string(plan.phases.size()) + " phases of " +
                                      std::to_string(cycle_s) + " s");
    }
    for (std::size_t p = 0; p < plan.phases.size(); ++p) {
      const roads::Phase& ph = plan.phases[p];
      if (!(ph.green_s >= 0.0 && ph.yellow_s >= 0.0 && ph.all_red_s >= 0.0)) {
        return Error::invalid_input(where + ".phases[" + std::to_string(p) + "]",
                                    "expected durations >= 0 s");
      }
      for (const roads::LaneId g : ph.green) {
        if (g >= lanes.size() || !is_connector(lanes[g]) ||
            lanes[g].intersection != static_cast<std::int32_t>(plan.intersection)) {
          return Error::invalid_input(where + ".phases[" + std::to_string(p) + "].green",
                                      "expected vehicle connectors of junction " +
                                          std::to_string(plan.intersection) + ", got lane " +
                                          std::to_string(g));
        }
      }
    }
  }
  return Ok{};
}

SumoLane sumo_lane(const roads::Output& roads, const roads::Lane& l) {
  return {roads.sections[l.section].edge, l.forward, l.lane_index};
}

/// Every vehicle movement as a SUMO connection, grouped by node (node id order) and, within a
/// node, in the order of its first lane id: connectors (predecessor -> successor) and direct
/// section-to-section joins. Connectors joining the same two lanes share one link.
std::vector<Link> collect_links(const layout::Output& city, const roads::Output& roads) {
  const auto& lanes = roads.lanes.lanes;
  std::vector<Link> links;
  std::map<std::tuple<layout::NodeId, std::tuple<layout::EdgeId, bool, int>,
                      std::tuple<layout::EdgeId, bool, int>>,
           std::size_t>
      seen;
  const auto add = [&](layout::NodeId node, SumoLane from, SumoLane to, roads::LaneId connector,
                       bool is_conn) {
    const auto [it, fresh] = seen.try_emplace(std::tuple(node, from.key(), to.key()), links.size());
    if (fresh) {
      links.push_back({node, from, to, {}});
    }
    if (is_conn) {
      links[it->second].connectors.push_back(connector);
    }
  };
  for (const roads::Lane& l : lanes) {
    if (is_connector(l)) {
      const roads::Lane& in = lanes[l.predecessors[0]];
      const roads::Lane& out = lanes[l.successors[0]];
      // Freeway and ramp lanes have no SUMO edge yet.
      if (is_section_lane(in) && is_section_lane(out)) {
        add(static_cast<layout::NodeId>(l.intersection), sumo_lane(roads, in),
            sumo_lane(roads, out), l.id, true);
      }
    } else if (is_section_lane(l)) {
      const SumoLane from = sumo_lane(roads, l);
      const layout::RoadEdge& e = city.network.edges[from.edge];
      for (const roads::LaneId s : l.successors) {
        if (is_section_lane(lanes[s])) {
          add(from.forward ? e.to : e.from, from, sumo_lane(roads, lanes[s]), s, false);
        }
      }
    }
  }
  std::stable_sort(links.begin(), links.end(),
                   [](const Link& a, const Link& b) { return a.node < b.node; });
  return links;
}

void connection_xml(const Link& link, XmlText& x) {
  x.raw("  <connection");
  x.attr("from", sumo_edge_id(link.from));
  x.attr("to", sumo_edge_id(link.to));
  x.attr_int("fromLane", link.from.index);
  x.attr_int("toLane", link.to.index);
}

/// The SUMO signal state of each link of a junction in one phase: 'G' for a green connector
/// with right of way, 'g' for a green one that yields (kYield), 'r' otherwise.
std::string green_state(const std::vector<const Link*>& links, const roads::Phase& phase,
                        const std::vector<roads::Lane>& lanes) {
  std::string state(links.size(), 'r');
  for (std::size_t k = 0; k < links.size(); ++k) {
    for (const roads::LaneId c : links[k]->connectors) {
      if (!std::binary_search(phase.green.begin(), phase.green.end(), c)) {
        continue;
      }
      const bool yield = (lanes[c].tags & roads::kYield) != 0U;
      state[k] = !yield ? 'G' : (state[k] == 'G' ? 'G' : 'g');
    }
  }
  return state;
}

void phase_xml(double duration_s, const std::string& state, const std::string& where, XmlText& x) {
  if (duration_s <= 0.0) {
    return;
  }
  x.raw("    <phase");
  x.attr("duration", duration_s, where);
  x.attr("state", state);
  x.raw("/>\n");
}

/// The tll file: one static tlLogic per signal plan, each of our phases as green, yellow and
/// all-red SUMO phases (zero durations left out), then the link index of every connection of
/// the signalised junctions.
std::string tll_xml(const roads::Output& roads, const std::vector<Link>& links, XmlText& x) {
  const auto& lanes = roads.lanes.lanes;
  x.raw(kXmlDeclaration);
  x.raw("<tlLogics>\n");
  std::string pins;
  for (std::size_t s = 0; s < roads.lanes.signals.size(); ++s) {
    const roads::SignalPlan& plan = roads.lanes.signals[s];
    const std::string where = "roads.lanes.signals[" + std::to_string(s) + "]";
    std::vector<const Link*> at;
    for (const Link& l : links) {
      if (l.node == plan.intersection) {
        at.push_back(&l);
      }
    }
    x.raw("  <tlLogic");
    x.attr("id", node_id(plan.intersection));
    x.attr("type", "static");
    x.attr("programID", "0");
    x.attr("offset", plan.offset_s, where + ".offset_s");
    x.raw(">\n");
    for (std::size_t p = 0; p < plan.phases.size(); ++p) {
      const roads::Phase& ph = plan.phases[p];
      const std::string pw = where + ".phases[" + std::to_string(p) + "]";
      const std::string green = green_state(at, ph, lanes);
      std::string yellow = green;
      for (char& c : yellow) {
        c = c == 'r' ? 'r' : 'y';
      }
      phase_xml(ph.green_s, green, pw + ".green_s", x);
      phase_xml(ph.yellow_s, yellow, pw + ".yellow_s", x);
      phase_xml(ph.all_red_s, std::string(at.size(), 'r'), pw + ".all_red_s", x);
    }
    x.raw("  </tlLogic>\n");
    // Link indices go with the program: netconvert renumbers them in the connections file.
    XmlText pin;
    for (std::size_t k = 0; k < at.size(); ++k) {
      connection_xml(*at[k], pin);
      pin.attr("tl", node_id(plan.intersection));
      pin.attr_int("linkIndex", static_cast<long long>(k));
      pin.raw("/>\n");
    }
    pins += pin.str();
  }
  x.raw(pins);
  x.raw("</tlLogics>\n");
  return std::move(x.str());
}

}  // namespace

Result<SumoFiles> sumo_plain_xml(const layout::Output& city,
                                 const std::vector<std::uint8_t>& node_control) {
  SumoFiles files;
  if (Status ok = nodes_and_edges(city, node_control, files); !ok) {
    return ok.error();
  }
  // netconvert guesses connections and builds signal programs from the node types; the files
  // are written anyway so a user can add overrides in place.
  files.connections = std::string(kXmlDeclaration) + "<connections>\n</connections>\n";
  files.tll = std::string(kXmlDeclaration) + "<tlLogics>\n</tlLogics>\n";
  return files;
}

Result<SumoFiles> sumo_plain_xml(const layout::Output& city, const roads::Output& roads) {
  // 1. The lane graph must fit the layout before any index is followed.
  if (Status ok = validate_roads(city, roads); !ok) {
    return ok.error();
  }

  // 2. Node types from the junction controls; a signal without a plan (too few legs) is a
  // plain priority junction, since SUMO needs a program for every traffic_light node.
  std::vector<std::uint8_t> control(city.network.nodes.size(), kControlNone);
  for (std::size_t i = 0; i < control.size(); ++i) {
    const roads::Control c = roads.intersections[i].control;
    control[i] = c == roads::Control::signal ? kControlYield : static_cast<std::uint8_t>(c);
  }
  for (const roads::SignalPlan& plan : roads.lanes.signals) {
    control[plan.intersection] = kControlSignal;
  }
  SumoFiles files;
  if (Status ok = nodes_and_edges(city, control, files); !ok) {
    return ok.error();
  }

  // 3. One connection per movement, grouped by node.
  const std::vector<Link> links = collect_links(city, roads);
  XmlText con;
  con.raw(kXmlDeclaration);
  con.raw("<connections>\n");
  for (const Link& l : links) {
    connection_xml(l, con);
    con.raw("/>\n");
  }
  con.raw("</connections>\n");
  files.connections = std::move(con.str());

  // 4. Signal programs with pinned link indices.
  XmlText tll;
  files.tll = tll_xml(roads, links, tll);
  if (tll.error()) {
    return *tll.error();
  }
  return files;
}

}  // namespace cityforge::exporter
