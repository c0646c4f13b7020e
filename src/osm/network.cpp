// SPDX-License-Identifier: Apache-2.0
// build_network: OSM highway ways -> the planar road network the road processor takes.
// 1. Each highway way is classified (highways.cpp) and its tags read (network_tags.cpp):
//    vehicle classes go to the network, paths to NetworkBuild::paths, other values (proposed,
//    platform, corridor...) and area=yes squares are skipped with a count.
// 2. Ways meet at shared OSM nodes. Two ways sharing a node join there when they are on the
//    same level (effective layer: bridges 1, tunnels -1 unless tagged), or when the node is an
//    end of one of them that is off level 0: a bridge or tunnel joins others only at its ends,
//    and a road crossing under a bridge that happens to share a node stays apart.
// 3. Ways are split at their joined nodes, cut at the rectangle `area` (new end nodes where
//    they leave it), pieces under min_edge_m are contracted into their neighbours (dead-end
//    stubs dropped), degree-2 chains of one way with identical attributes are merged, and
//    closed loops are split in two so no edge starts and ends at one node. Edges carry one OSM
//    way each, so a node where two ways continue stays (a bend without junction surface for
//    the road processor when the widths match).
// 4. Controls: highway=traffic_signals on a junction (3+ legs), or on a leg within
//    signal_snap_m of one, signalises it (control_hint 4); highway=stop / give_way likewise
//    (3 / 2) where no signal is. Unmapped junctions of 3+ legs get what the road processor
//    would choose by classes, but never a signal (OSM maps signals): stop where a major road
//    (artery or main) or 4+ local legs meet, else yield. highway=crossing (not crossing=no)
//    within crossing_snap_m of a junction along a leg gives that leg end a crosswalk.
// 5. Blocks: faces of the surface network (level 0, not bridge, not tunnel) and the area
//    rectangle, minus road and sidewalk width, as the layout stage makes them.
#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <string>

#include "cityforge/core/planar_graph.hpp"
#include "osm/network_detail.hpp"

namespace cityforge::osm {

namespace {

using detail::WayAttributes;

struct VehicleWay {
  std::size_t way = 0;  // Index into extract.ways.
  WayAttributes attr;
  std::vector<Vec2> points;
  std::vector<std::int64_t> refs;
};

struct WNode {
  Vec2 pos;
  std::int64_t osm = 0;
  std::vector<std::uint32_t> pieces;
};

struct Piece {
  layout::RoadEdge edge;  // from / to are WNode indices.
  std::vector<std::int64_t> ids;
  bool alive = true;
};

std::size_t find_root(std::vector<std::size_t>& parent, std::size_t k) {
  while (parent[k] != k) {
    parent[k] = parent[parent[k]];
    k = parent[k];
  }
  return k;
}

double length_of(const Polyline& line) { return polyline_length(line); }

// Reverses an edge; false (and unchanged) for a one-way edge.
bool reverse_edge(Piece& p) {
  layout::RoadEdge& e = p.edge;
  if (e.lanes_backward == 0) return false;
  std::reverse(e.points.begin(), e.points.end());
  std::reverse(p.ids.begin(), p.ids.end());
  std::swap(e.from, e.to);
  if (e.lanes_backward > 0) std::swap(e.lanes_per_direction, e.lanes_backward);
  std::swap(e.turn_lanes_forward, e.turn_lanes_backward);
  e.crossings = static_cast<std::uint8_t>(((e.crossings & 1U) << 1U) | ((e.crossings >> 1U) & 1U));
  return true;
}

bool same_attributes(const layout::RoadEdge& a, const layout::RoadEdge& b) {
  return a.road_class == b.road_class && a.width_m == b.width_m &&
         a.lanes_per_direction == b.lanes_per_direction && a.lanes_backward == b.lanes_backward &&
         a.sidewalk_width_m == b.sidewalk_width_m && a.speed_limit_kmh == b.speed_limit_kmh &&
         a.layer == b.layer && a.bridge == b.bridge && a.tunnel == b.tunnel && a.lit == b.lit &&
         a.highway == b.highway && a.osm_way == b.osm_way &&
         a.turn_lanes_forward == b.turn_lanes_forward &&
         a.turn_lanes_backward == b.turn_lanes_backward;
}

class Graph {
 public:
  std::vector<WNode> nodes;
  std::vector<Piece> pieces;

  std::uint32_t add_node(Vec2 pos, std::int64_t osm) {
    nodes.push_back(WNode{pos, osm, {}});
    return static_cast<std::uint32_t>(nodes.size() - 1);
  }
  void add_piece(Piece p) {
    const auto id = static_cast<std::uint32_t>(pieces.size());
    nodes[p.edge.from].pieces.push_back(id);
    if (p.edge.to != p.edge.from) nodes[p.edge.to].pieces.push_back(id);
    pieces.push_back(std::move(p));
  }
  void kill(std::uint32_t id) {
    Piece& p = pieces[id];
    if (!p.alive) return;
    p.alive = false;
    std::erase(nodes[p.edge.from].pieces, id);
    std::erase(nodes[p.edge.to].pieces, id);
  }
  std::size_t degree(std::uint32_t v) const { return nodes[v].pieces.size(); }

  // 1. Pieces under min_m: dead-end stubs go, others are contracted (the `to` node merges into
  //    the `from` node, whose position stays). Repeats until none is left.
  std::size_t contract_short(double min_m) {
    std::size_t dropped = 0;
    for (bool changed = true; changed;) {
      changed = false;
      for (std::uint32_t id = 0; id < pieces.size(); ++id) {
        Piece& p = pieces[id];
        if (!p.alive || length_of(p.edge.points) >= min_m) continue;
        const std::uint32_t a = p.edge.from;
        const std::uint32_t b = p.edge.to;
        kill(id);
        ++dropped;
        changed = true;
        if (a == b || degree(a) == 0 || degree(b) == 0) continue;
        // Merge b into a.
        const std::vector<std::uint32_t> moved = nodes[b].pieces;
        nodes[b].pieces.clear();
        for (std::uint32_t q : moved) {
          Piece& o = pieces[q];
          if (o.edge.from == b) {
            o.edge.from = a;
            o.edge.points.front() = nodes[a].pos;
          }
          if (o.edge.to == b) {
            o.edge.to = a;
            o.edge.points.back() = nodes[a].pos;
          }
          auto& list = nodes[a].pieces;
          if (std::find(list.begin(), list.end(), q) == list.end()) list.push_back(q);
        }
        if (nodes[a].osm == 0) nodes[a].osm = nodes[b].osm;
      }
    }
    return dropped;
  }

  // 2. Degree-2 nodes between two pieces of one way with identical attributes are merged.
  void merge_chains() {
    for (std::uint32_t v = 0; v < nodes.size(); ++v) {
      while (degree(v) == 2) {
        const std::uint32_t pi = nodes[v].pieces[0];
        const std::uint32_t qi = nodes[v].pieces[1];
        if (!try_merge(v, pi, qi) && !try_merge(v, qi, pi)) break;
      }
    }
  }

  // 3. Loops (from == to) are split at their middle.
  void split_loops(double min_m) {
    const std::size_t n = pieces.size();
    for (std::uint32_t id = 0; id < n; ++id) {
      if (!pieces[id].alive || pieces[id].edge.from != pieces[id].edge.to) continue;
      Piece p = pieces[id];
      kill(id);
      const double len = length_of(p.edge.points);
      if (len < 3.0 * min_m) continue;
      // Insert the middle point, cut there.
      double acc = 0.0;
      std::size_t k = 0;
      for (; k + 1 < p.edge.points.size(); ++k) {
        const double seg = distance(p.edge.points[k], p.edge.points[k + 1]);
        if (acc + seg >= 0.5 * len) break;
        acc += seg;
      }
      const Vec2 mid = polyline_point_at(p.edge.points, 0.5 * len);
      const std::uint32_t m = add_node(mid, 0);
      Piece a = p;
      Piece b = p;
      a.edge.points.assign(p.edge.points.begin(), p.edge.points.begin() + k + 1);
      a.ids.assign(p.ids.begin(), p.ids.begin() + k + 1);
      a.edge.points.push_back(mid);
      a.ids.push_back(0);
      b.edge.points.assign(p.edge.points.begin() + k + 1, p.edge.points.end());
      b.ids.assign(p.ids.begin() + k + 1, p.ids.end());
      b.edge.points.insert(b.edge.points.begin(), mid);
      b.ids.insert(b.ids.begin(), 0);
      a.edge.to = m;
      b.edge.from = m;
      a.edge.crossings = 0;
      b.edge.crossings = 0;
      add_piece(std::move(a));
      add_piece(std::move(b));
    }
  }

 private:
  // Merges `first` (ending at v) and `second` (starting at v), reversing two-way pieces where
  // needed; false when they do not continue each other.
  bool try_merge(std::uint32_t v, std::uint32_t fi, std::uint32_t si) {
    if (fi == si) return false;
    Piece f = pieces[fi];
    Piece s = pieces[si];
    if (f.edge.from == f.edge.to || s.edge.from == s.edge.to) return false;
    if (f.edge.to != v && !reverse_edge(f)) return false;
    if (s.edge.from != v && !reverse_edge(s)) return false;
    if (f.edge.to != v || s.edge.from != v || !same_attributes(f.edge, s.edge)) return false;
    kill(fi);
    kill(si);
    f.edge.points.insert(f.edge.points.end(), s.edge.points.begin() + 1, s.edge.points.end());
    f.ids.insert(f.ids.end(), s.ids.begin() + 1, s.ids.end());
    f.edge.to = s.edge.to;
    add_piece(std::move(f));
    return true;
  }
};

// Arc length from the start of `line` to each of its points.
std::vector<double> arc_lengths(const Polyline& line) {
  std::vector<double> s(line.size(), 0.0);
  for (std::size_t i = 1; i < line.size(); ++i)
    s[i] = s[i - 1] + distance(line[i - 1], line[i]);
  return s;
}

Polygon rectangle(const Aabb2& area) {
  Polygon p;
  p.outer = {area.min, {area.max.x, area.min.y}, area.max, {area.min.x, area.max.y}};
  return p;
}

std::string examples(const std::map<std::string, std::size_t>& counts) {
  std::string out;
  std::size_t shown = 0;
  for (const auto& [name, n] : counts) {
    if (shown++ == 6) {
      out += ", ...";
      break;
    }
    out += (out.empty() ? "" : ", ") + name + " x" + std::to_string(n);
  }
  return out;
}

}  // namespace

Result<NetworkBuild> build_network(const Extract& extract, const Aabb2& area,
                                   const NetworkConfig& config) {
  if (area.empty() || !std::isfinite(area.min.x) || !std::isfinite(area.min.y) ||
      !std::isfinite(area.max.x) || !std::isfinite(area.max.y) || area.size().x <= 0.0 ||
      area.size().y <= 0.0) {
    return Error::invalid_input(extract.source + ": roads",
                                "expected a non-empty finite area to build the network in");
  }
  NetworkBuild out;
  RoadCensus& census = out.census;
  std::map<std::string, std::size_t> unknown;
  std::size_t areas_skipped = 0;

  // 1. Classify the highway ways inside the area.
  std::vector<VehicleWay> vways;
  for (std::size_t w = 0; w < extract.ways.size(); ++w) {
    const Way& way = extract.ways[w];
    const std::string_view highway = tag(way.tags, "highway");
    if (highway.empty() || way.points.size() < 2 || way.points.size() != way.refs.size()) {
      continue;
    }
    const std::vector<detail::ClippedPiece> inside =
        detail::clip_to_box(way.points, way.refs, area);
    if (inside.empty()) continue;
    ++census.highway_ways;
    WayAttributes attr = detail::way_attributes(way);
    if (attr.highway < 0) {
      ++unknown[std::string(highway)];
      continue;
    }
    if (attr.area) {
      ++areas_skipped;
      continue;
    }
    if (!attr.vehicles) {
      ++census.path_ways;
      for (const detail::ClippedPiece& piece : inside) {
        PathWay path;
        path.osm_way = way.id;
        path.highway = attr.highway;
        path.points = piece.points;
        path.width_m = attr.edge.width_m;
        path.layer = attr.edge.layer;
        path.bridge = attr.edge.bridge;
        path.tunnel = attr.edge.tunnel;
        out.paths.push_back(std::move(path));
      }
      continue;
    }
    VehicleWay vw;
    vw.way = w;
    vw.points = way.points;
    vw.refs = way.refs;
    if (attr.reversed) {
      std::reverse(vw.points.begin(), vw.points.end());
      std::reverse(vw.refs.begin(), vw.refs.end());
    }
    vw.attr = std::move(attr);
    vways.push_back(std::move(vw));
  }

  // 2. Join occurrences of shared nodes (see the header for the level rule).
  struct Occ {
    std::int64_t node;
    std::uint32_t way;
    std::uint32_t pos;
  };
  std::vector<Occ> occs;
  std::vector<std::size_t> first_occ(vways.size() + 1, 0);
  for (std::uint32_t w = 0; w < vways.size(); ++w) {
    first_occ[w] = occs.size();
    for (std::uint32_t i = 0; i < vways[w].refs.size(); ++i)
      occs.push_back({vways[w].refs[i], w, i});
  }
  first_occ[vways.size()] = occs.size();
  std::vector<std::size_t> parent(occs.size());
  std::iota(parent.begin(), parent.end(), std::size_t{0});
  std::vector<std::size_t> by_node(occs.size());
  std::iota(by_node.begin(), by_node.end(), std::size_t{0});
  std::sort(by_node.begin(), by_node.end(), [&](std::size_t a, std::size_t b) {
    return occs[a].node != occs[b].node ? occs[a].node < occs[b].node : a < b;
  });
  auto is_end = [&](const Occ& o) { return o.pos == 0 || o.pos + 1 == vways[o.way].refs.size(); };
  auto level = [&](const Occ& o) { return vways[o.way].attr.edge.layer; };
  for (std::size_t i = 0; i < by_node.size();) {
    std::size_t j = i;
    while (j < by_node.size() && occs[by_node[j]].node == occs[by_node[i]].node)
      ++j;
    for (std::size_t a = i; a < j; ++a) {
      for (std::size_t b = a + 1; b < j; ++b) {
        const Occ& oa = occs[by_node[a]];
        const Occ& ob = occs[by_node[b]];
        const bool join = level(oa) == level(ob) || (is_end(oa) && level(oa) != 0) ||
                          (is_end(ob) && level(ob) != 0);
        if (!join) continue;
        const std::size_t ra = find_root(parent, by_node[a]);
        const std::size_t rb = find_root(parent, by_node[b]);
        parent[std::max(ra, rb)] = std::min(ra, rb);
      }
    }
    i = j;
  }
  std::vector<std::uint32_t> group_size(occs.size(), 0);
  for (std::size_t k = 0; k < occs.size(); ++k)
    ++group_size[find_root(parent, k)];

  // 3. Split at joined nodes and ends, cut at the area.
  Graph g;
  std::vector<std::int64_t> group_node(occs.size(), -1);
  auto node_of = [&](std::size_t occ) {
    const std::size_t r = find_root(parent, occ);
    if (group_node[r] < 0) {
      const Occ& o = occs[r];
      group_node[r] = g.add_node(vways[o.way].points[o.pos], o.node);
    }
    return static_cast<std::uint32_t>(group_node[r]);
  };
  for (std::uint32_t w = 0; w < vways.size(); ++w) {
    const VehicleWay& vw = vways[w];
    const std::size_t n = vw.refs.size();
    std::size_t start = 0;
    for (std::size_t i = 1; i < n; ++i) {
      const std::size_t occ = first_occ[w] + i;
      if (i + 1 != n && group_size[find_root(parent, occ)] < 2) continue;
      const std::vector<Vec2> pts(vw.points.begin() + static_cast<std::ptrdiff_t>(start),
                                  vw.points.begin() + static_cast<std::ptrdiff_t>(i + 1));
      const std::vector<std::int64_t> ids(vw.refs.begin() + static_cast<std::ptrdiff_t>(start),
                                          vw.refs.begin() + static_cast<std::ptrdiff_t>(i + 1));
      for (detail::ClippedPiece& c : detail::clip_to_box(pts, ids, area)) {
        Piece p;
        p.edge = vw.attr.edge;
        p.edge.from = c.starts_at_first ? node_of(first_occ[w] + start)
                                        : g.add_node(c.points.front(), c.ids.front());
        p.edge.to = c.ends_at_last ? node_of(occ) : g.add_node(c.points.back(), c.ids.back());
        // Dedupe repeated positions (two nodes mapped on one spot).
        Polyline line;
        std::vector<std::int64_t> line_ids;
        for (std::size_t k = 0; k < c.points.size(); ++k) {
          if (!line.empty() && distance(line.back(), c.points[k]) < 1e-6) {
            if (k + 1 == c.points.size()) {
              line.back() = c.points[k];
              line_ids.back() = c.ids[k];
            }
            continue;
          }
          line.push_back(c.points[k]);
          line_ids.push_back(c.ids[k]);
        }
        if (line.size() < 2) {
          line = {c.points.front(), c.points.back()};
          line_ids = {c.ids.front(), c.ids.back()};
        }
        p.edge.points = std::move(line);
        p.ids = std::move(line_ids);
        g.add_piece(std::move(p));
      }
      start = i;
    }
  }

  // 4. Short pieces, chains, loops.
  const std::size_t dropped = g.contract_short(config.min_edge_m);
  g.merge_chains();
  g.split_loops(config.min_edge_m);

  // 5. The network: nodes with pieces in creation order, edges in piece order.
  layout::Output& lay = out.layout;
  layout::RoadNetwork& net = lay.network;
  net.mapped_crossings = true;
  std::vector<std::int64_t> node_index(g.nodes.size(), -1);
  for (std::uint32_t v = 0; v < g.nodes.size(); ++v) {
    if (g.degree(v) == 0) continue;
    node_index[v] = static_cast<std::int64_t>(net.nodes.size());
    layout::RoadNode node;
    node.id = static_cast<layout::NodeId>(net.nodes.size());
    node.pos = g.nodes[v].pos;
    node.osm_node = g.nodes[v].osm;
    net.nodes.push_back(node);
  }
  std::vector<std::vector<std::int64_t>> edge_ids;
  std::vector<std::int64_t> ways_used;
  for (Piece& p : g.pieces) {
    if (!p.alive) continue;
    layout::RoadEdge e = std::move(p.edge);
    e.id = static_cast<layout::EdgeId>(net.edges.size());
    e.from = static_cast<layout::NodeId>(node_index[e.from]);
    e.to = static_cast<layout::NodeId>(node_index[e.to]);
    e.points.front() = net.nodes[e.from].pos;
    e.points.back() = net.nodes[e.to].pos;
    // Contracted neighbours may have moved an end onto the next point: drop repeats (the ends
    // stay), keeping the node ids beside their points.
    Polyline pts;
    std::vector<std::int64_t> ids;
    for (std::size_t k = 0; k < e.points.size(); ++k) {
      const bool last = k + 1 == e.points.size();
      if (!pts.empty() && distance(pts.back(), e.points[k]) < 1e-9) {
        if (!last || pts.size() == 1) continue;
        pts.pop_back();
        ids.pop_back();
      }
      pts.push_back(e.points[k]);
      ids.push_back(p.ids[k]);
    }
    if (pts.size() < 2) {
      pts = {e.points.front(), e.points.back()};
      ids = {p.ids.front(), p.ids.back()};
    }
    e.points = std::move(pts);
    p.ids = std::move(ids);
    e.length_m = polyline_length(e.points);
    ways_used.push_back(e.osm_way);
    net.edges.push_back(std::move(e));
    edge_ids.push_back(std::move(p.ids));
  }
  for (const layout::RoadEdge& e : net.edges) {
    net.nodes[e.from].edges.push_back(e.id);
    if (e.to != e.from) net.nodes[e.to].edges.push_back(e.id);
  }
  for (layout::RoadNode& node : net.nodes) {
    auto leaving = [&](layout::EdgeId id) {
      const layout::RoadEdge& e = net.edges[id];
      const Vec2 d = e.from == node.id ? e.points[1] - e.points[0]
                                       : e.points[e.points.size() - 2] - e.points.back();
      return std::atan2(d.y, d.x);
    };
    std::sort(node.edges.begin(), node.edges.end(), [&](layout::EdgeId a, layout::EdgeId b) {
      const double aa = leaving(a);
      const double ab = leaving(b);
      return aa != ab ? aa < ab : a < b;
    });
  }
  std::sort(ways_used.begin(), ways_used.end());
  ways_used.erase(std::unique(ways_used.begin(), ways_used.end()), ways_used.end());
  census.vehicle_ways = ways_used.size();
  for (std::int64_t id : ways_used) {
    for (const VehicleWay& vw : vways) {
      if (vw.attr.edge.osm_way == id && vw.attr.edge.tunnel) ++census.tunnel_ways;
    }
  }
  census.edges = net.edges.size();
  census.skipped_ways = census.highway_ways - census.vehicle_ways - census.path_ways;

  // 6. Signals, stop / give way signs and crossings, snapped along legs to junctions.
  struct At {
    std::int64_t osm;
    std::uint32_t edge;
    double s_from;  // Arc length from the edge's from end.
  };
  std::vector<At> at;
  for (std::uint32_t e = 0; e < net.edges.size(); ++e) {
    const std::vector<double> s = arc_lengths(net.edges[e].points);
    for (std::size_t i = 0; i < edge_ids[e].size(); ++i) {
      if (edge_ids[e][i] != 0) at.push_back({edge_ids[e][i], e, s[i]});
    }
  }
  std::sort(at.begin(), at.end(), [](const At& a, const At& b) {
    return a.osm != b.osm     ? a.osm < b.osm
           : a.edge != b.edge ? a.edge < b.edge
                              : a.s_from < b.s_from;
  });
  struct Candidate {
    double dist;
    layout::EdgeId edge;
    int end;  // 0 = from, 1 = to
  };
  // Junction ends (3+ legs) within snap_m of an OSM node along the edges through it.
  auto candidates = [&](std::int64_t osm, double snap_m) {
    std::vector<Candidate> list;
    auto it = std::lower_bound(at.begin(), at.end(), osm,
                               [](const At& a, std::int64_t id) { return a.osm < id; });
    for (; it != at.end() && it->osm == osm; ++it) {
      const layout::RoadEdge& e = net.edges[it->edge];
      const double d[2] = {it->s_from, e.length_m - it->s_from};
      const layout::NodeId ends[2] = {e.from, e.to};
      for (int k = 0; k < 2; ++k) {
        if (net.nodes[ends[k]].edges.size() >= 3 && d[k] <= snap_m + 1e-9) {
          list.push_back({std::max(0.0, d[k]), it->edge, k});
        }
      }
    }
    std::sort(list.begin(), list.end(), [](const Candidate& a, const Candidate& b) {
      return a.dist != b.dist   ? a.dist < b.dist
             : a.edge != b.edge ? a.edge < b.edge
                                : a.end < b.end;
    });
    return list;
  };
  auto end_node = [&](const Candidate& c) {
    return c.end == 0 ? net.edges[c.edge].from : net.edges[c.edge].to;
  };
  std::vector<std::uint8_t> mapped(net.nodes.size(), 0);
  for (const Node& node : extract.nodes) {
    const std::string_view hw = tag(node.tags, "highway");
    std::uint8_t hint = 0;
    if (hw == "traffic_signals") {
      ++census.signal_nodes;
      hint = 4;
    } else if (hw == "stop") {
      hint = 3;
    } else if (hw == "give_way") {
      hint = 2;
    } else if (hw == "crossing") {
      if (tag(node.tags, "crossing") == "no") continue;
      ++census.crossing_nodes;
      const std::vector<Candidate> list = candidates(node.id, config.crossing_snap_m);
      for (const Candidate& c : list) {
        if (c.dist > list.front().dist + 1e-9) break;
        net.edges[c.edge].crossings |= static_cast<std::uint8_t>(1U << c.end);
      }
      continue;
    } else {
      continue;
    }
    const std::vector<Candidate> list = candidates(node.id, config.signal_snap_m);
    if (list.empty()) continue;
    const layout::NodeId j = end_node(list.front());
    mapped[j] = std::max(mapped[j], hint);
  }
  for (const layout::RoadEdge& e : net.edges) {
    census.crossings_mapped += (e.crossings & 1U) + ((e.crossings >> 1U) & 1U);
  }
  for (layout::RoadNode& node : net.nodes) {
    if (node.edges.size() < 3) continue;
    if (mapped[node.id] != 0) {
      node.control_hint = mapped[node.id];
      if (mapped[node.id] == 4) ++census.signals_mapped;
      continue;
    }
    int major = 0;
    for (layout::EdgeId id : node.edges) {
      if (net.edges[id].road_class != layout::RoadClass::local) ++major;
    }
    node.control_hint = major > 0 || node.edges.size() >= 4 ? 3 : 2;
  }

  // 7. Blocks from the faces of the surface network.
  lay.boundary = rectangle(area);
  std::vector<TaggedSegment> segs;
  for (const layout::RoadEdge& e : net.edges) {
    if (e.layer != 0 || e.bridge || e.tunnel) continue;
    for (std::size_t i = 0; i + 1 < e.points.size(); ++i)
      segs.push_back({e.points[i], e.points[i + 1], e.id});
  }
  layout::Inputs in;
  in.boundary = lay.boundary;
  const layout::Config lconfig;
  auto constant = [&](double v) {
    layout::Field f;
    f.origin = area.min;
    f.cell_m = std::max(area.size().x, area.size().y);
    f.nx = 1;
    f.ny = 1;
    f.values = {static_cast<float>(v)};
    return f;
  };
  lay.height_field = constant(lconfig.default_height_m);
  lay.density_field = constant(0.5);
  lay.blocks = layout::network_blocks(segs, net, in, lconfig, lay.height_field, lay.density_field);

  // 8. Warnings.
  if (!unknown.empty()) {
    std::size_t n = 0;
    for (const auto& [name, k] : unknown)
      n += k;
    out.warnings.push_back("roads: skipped " + std::to_string(n) +
                           " highway ways of classes not imported (" + examples(unknown) + ")");
  }
  if (areas_skipped > 0) {
    out.warnings.push_back("roads: skipped " + std::to_string(areas_skipped) +
                           " highway areas (area=yes): not lines");
  }
  if (dropped > 0) {
    out.warnings.push_back("roads: merged " + std::to_string(dropped) + " pieces shorter than " +
                           std::to_string(config.min_edge_m) + " m into their neighbours");
  }
  return out;
}

}  // namespace cityforge::osm
