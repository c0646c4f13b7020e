// SPDX-License-Identifier: Apache-2.0
// build_geometry: trims every edge at its junctions, builds the section surfaces (flat-ended
// buffers of the trimmed centre lines) and the junction surfaces, and makes sure no two
// surfaces overlap: first by lengthening trims where neighbouring sections still overlap
// (curved legs break the straight-leg model of trim.cpp), then, where the edges are too short
// for that, by cutting the later surface back.
#include <algorithm>
#include <array>
#include <cmath>

#include "cityforge/core/spatial_hash.hpp"
#include "roads/detail/geometry.hpp"

namespace cityforge::roads {

namespace {

using detail::NodeKind;
using detail::NodeLegs;

// Overlaps below this (m2) count as touching; the acceptance bound is 0.01 m2.
constexpr double kOverlapEps = 1e-4;
constexpr int kGrowRounds = 8;

// At a mitred bend the two sections meet on the bisector: each loses the part of its buffer
// on the other leg's side, within a square round the node big enough to hold the overlap of
// the two strips (so a section that curves far away is never cut).
Polygon mitre_cut(const layout::RoadNode& node, const NodeLegs& nl, std::size_t leg) {
  const Vec2 da = nl.legs[leg].direction;
  const Vec2 db = nl.legs[1 - leg].direction;
  const Vec2 n = normalize(da - db);
  if (length(n) == 0.0) return {};
  const double w = nl.half_w[leg];
  const double half_angle = 0.5 * std::acos(std::clamp(dot(da, db), -1.0, 1.0));
  const double r = std::min(500.0, w / std::max(std::sin(half_angle), 0.05) + 2.0 * w + 1.0);
  const Vec2 t = perp(n) * r;
  Polygon cut;
  cut.outer = {node.pos - t, node.pos - t - n * r, node.pos + t - n * r, node.pos + t};
  return polygon_canonical(std::move(cut));
}

// Radius of the rounding of a section's corners: the outermost lane border's offset plus this
// (Section::corner_radius_m).
constexpr double kCornerMarginM = 0.5;
// A corner whose rounding would loop a lane border is dropped where that moves the centre line
// by at most this (metres).
constexpr double kMaxCornerShiftM = 0.25;

double corner_radius(const layout::RoadEdge& e) {
  return 0.5 * e.width_m + e.sidewalk_width_m + kCornerMarginM;
}

struct Builder {
  const layout::Output& city;
  const Config& config;
  std::vector<NodeLegs> nodes;
  std::vector<std::array<double, 2>> trims;  // per edge: {from end, to end}
  std::vector<std::array<Polygon, 2>> cuts;  // mitre cuts per edge end
  std::vector<Section> sections;

  // The corners of edge e's line trimmed by the current trims, less those whose rounding would
  // loop a lane border and that can go without moving the line more than kMaxCornerShiftM.
  Polyline trimmed_corners(layout::EdgeId e) const {
    const layout::RoadEdge& edge = city.network.edges[e];
    const Polyline line = polyline_dedupe(edge.points);
    const double len = polyline_length(line);
    const double r = corner_radius(edge);
    return corners_for_rounding(
        polyline_corners(detail::polyline_slice(line, trims[e][0], len - trims[e][1])), r,
        r - kCornerMarginM, kMaxCornerShiftM);
  }

  // The rounding shared with the other section at a mitred bend, at edge e's start or end.
  CornerJoin join(layout::EdgeId e, const Polyline& corners, bool at_start) const {
    CornerJoin out;
    const layout::RoadEdge& edge = city.network.edges[e];
    const NodeLegs& nl = nodes[at_start ? edge.from : edge.to];
    if (nl.kind != NodeKind::mitre || nl.legs.size() != 2 || corners.size() < 2) return out;
    const Leg& other =
        (nl.legs[0].edge == e && nl.legs[0].at_edge_start == at_start) ? nl.legs[1] : nl.legs[0];
    if (other.edge == e) return out;
    const Polyline theirs = trimmed_corners(other.edge);
    if (theirs.size() < 2) return out;
    const Vec2 node = at_start ? corners.front() : corners.back();
    const Vec2 there = other.at_edge_start ? theirs.front() : theirs.back();
    if (distance(node, there) > 1e-3) return out;
    out.present = true;
    out.node = node;
    out.other = other.at_edge_start ? theirs[1] : theirs[theirs.size() - 2];
    out.radius_m = std::max(corner_radius(edge), corner_radius(city.network.edges[other.edge]));
    return out;
  }

  Section make_section(layout::EdgeId e) const {
    const layout::RoadEdge& edge = city.network.edges[e];
    Section s;
    s.edge = e;
    s.trim_start_m = trims[e][0];
    s.trim_end_m = trims[e][1];
    s.corners = trimmed_corners(e);
    s.corner_radius_m = corner_radius(edge);
    s.joins = {join(e, s.corners, true), join(e, s.corners, false)};
    s.centre = round_corners(s.corners, s.corner_radius_m, s.joins[0], s.joins[1]);
    if (polyline_length(s.centre) <= 1e-6) return s;
    s.surface = detail::largest_piece(polyline_buffer(s.centre, 0.5 * edge.width_m));
    for (const Polygon& cut : cuts[e]) {
      if (cut.outer.empty() || detail::overlap_area(s.surface, cut) <= 0.0) continue;
      s.surface = detail::largest_piece(polygon_difference(s.surface, {cut}));
    }
    return s;
  }

  // The sections to rebuild after the trims of `changed` (sorted) changed: those and the
  // sections that share a rounded bend with one of them.
  std::vector<layout::EdgeId> with_bend_neighbours(std::vector<layout::EdgeId> changed) const {
    const std::size_t n = changed.size();
    for (std::size_t i = 0; i < n; ++i) {
      const layout::RoadEdge& edge = city.network.edges[changed[i]];
      for (const layout::NodeId node : {edge.from, edge.to}) {
        if (nodes[node].kind != NodeKind::mitre) continue;
        for (const Leg& leg : nodes[node].legs)
          changed.push_back(leg.edge);
      }
    }
    std::sort(changed.begin(), changed.end());
    changed.erase(std::unique(changed.begin(), changed.end()), changed.end());
    return changed;
  }

  // Lengthens the trims at junctions whose sections still overlap; returns legs grown.
  std::uint32_t grow_trims() {
    std::uint32_t grown = 0;
    for (int round = 0; round < kGrowRounds; ++round) {
      std::vector<layout::EdgeId> changed;
      for (NodeLegs& nl : nodes) {
        if (nl.kind != NodeKind::junction) continue;
        const std::size_t k = nl.legs.size();
        std::vector<bool> grow(k, false);
        for (std::size_t i = 0; i < k; ++i) {
          for (std::size_t j = i + 1; j < k; ++j) {
            const Polygon& a = sections[nl.legs[i].edge].surface;
            const Polygon& b = sections[nl.legs[j].edge].surface;
            if (nl.legs[i].edge != nl.legs[j].edge && detail::overlap_area(a, b) > kOverlapEps) {
              grow[i] = grow[j] = true;
            }
          }
        }
        for (std::size_t i = 0; i < k; ++i) {
          if (!grow[i]) continue;
          const Leg& leg = nl.legs[i];
          const double len = polyline_length(city.network.edges[leg.edge].points);
          double& mine = trims[leg.edge][leg.at_edge_start ? 0 : 1];
          const double other = trims[leg.edge][leg.at_edge_start ? 1 : 0];
          const double next =
              std::min(mine + std::max(0.5, 0.25 * mine), config.max_trim_share * len - other);
          if (next > mine + 1e-9) {
            mine = next;
            ++grown;
            changed.push_back(leg.edge);
          }
        }
      }
      if (changed.empty()) break;
      for (layout::EdgeId e : with_bend_neighbours(std::move(changed)))
        sections[e] = make_section(e);
    }
    return grown;
  }
};

// The levels a surface lies on, as a bit set over layers -5..5 (bit layer + 5): a section's
// edge layer, a junction's legs' layers (a bridge end joins two). Tunnels are underground
// (bit 11) apart from everything drawn. Generated cities: every surface on layer 0.
std::uint32_t level_bits(const layout::RoadEdge& e) {
  if (e.tunnel) return 1U << 11U;
  const int layer = std::clamp(static_cast<int>(e.layer), -5, 5);
  return 1U << static_cast<std::uint32_t>(layer + 5);
}

// Cuts each surface back by the overlapping surfaces before it (index order, so the result
// does not depend on the visit order) that share a level with it (a bridge over a road without
// a junction keeps both). Returns the number of surfaces cut.
std::uint32_t separate(std::vector<Polygon*>& surfaces, const std::vector<std::uint32_t>& levels) {
  std::uint32_t clipped = 0;
  SpatialHash hash(50.0);
  for (std::size_t i = 0; i < surfaces.size(); ++i) {
    if (surfaces[i]->outer.size() >= 3) {
      hash.insert(static_cast<std::uint32_t>(i), ring_bounds(surfaces[i]->outer));
    }
  }
  std::vector<std::uint32_t> near;
  for (std::size_t i = 0; i < surfaces.size(); ++i) {
    Polygon& s = *surfaces[i];
    if (s.outer.size() < 3) continue;
    hash.query(ring_bounds(s.outer), near);
    std::vector<Polygon> before;
    for (std::uint32_t j : near) {
      if (j < i && (levels[i] & levels[j]) != 0U &&
          detail::overlap_area(s, *surfaces[j]) > kOverlapEps)
        before.push_back(*surfaces[j]);
    }
    if (before.empty()) continue;
    s = detail::largest_piece(polygon_difference(s, before));
    ++clipped;
  }
  return clipped;
}

}  // namespace

/// Controls: signal where two or more legs are arteries or main roads (node with 3+ legs);
/// stop where four or more legs are local roads; yield at every other junction of 3+ legs;
/// none at dead ends, bends and width changes.
Result<Output> build_geometry(const layout::Output& city, const terrain::Heightfield& /*ground*/,
                              const Config& config) {
  const auto& net = city.network;
  if (config.max_trim_share <= 0.0 || config.max_trim_share >= 1.0) {
    return Error::invalid_input("roads.max_trim_share", "expected a share in (0, 1), got " +
                                                            std::to_string(config.max_trim_share));
  }
  for (const layout::RoadEdge& e : net.edges) {
    if (e.from >= net.nodes.size() || e.to >= net.nodes.size() || e.points.size() < 2 ||
        !(e.width_m > 0.0)) {
      return Error::invalid_input("roads: edge " + std::to_string(e.id),
                                  "expected valid end nodes, >= 2 points and width > 0");
    }
  }
  Builder b{city, config, detail::compute_legs(city, config), {}, {}, {}};
  Output out;
  // 1. Trims from the corners, capped per edge.
  b.trims.assign(net.edges.size(), {0.0, 0.0});
  b.cuts.assign(net.edges.size(), {});
  for (std::size_t n = 0; n < b.nodes.size(); ++n) {
    const NodeLegs& nl = b.nodes[n];
    for (std::size_t i = 0; i < nl.legs.size(); ++i) {
      const Leg& leg = nl.legs[i];
      const int end = leg.at_edge_start ? 0 : 1;
      b.trims[leg.edge][end] = leg.trim_m;
      if (nl.kind == NodeKind::mitre) b.cuts[leg.edge][end] = mitre_cut(net.nodes[n], nl, i);
    }
  }
  out.geometry_stats.trims_shrunk = detail::cap_trims(city, config, b.trims);
  // 2. Sections, then longer trims where neighbouring sections still overlap.
  b.sections.resize(net.edges.size());
  for (std::size_t e = 0; e < net.edges.size(); ++e) {
    b.sections[e] = b.make_section(static_cast<layout::EdgeId>(e));
  }
  out.geometry_stats.trims_grown = b.grow_trims();
  // 3. Junction surfaces on the final trims.
  out.intersections.resize(net.nodes.size());
  for (std::size_t n = 0; n < b.nodes.size(); ++n) {
    NodeLegs& nl = b.nodes[n];
    for (Leg& leg : nl.legs)
      leg.trim_m = b.trims[leg.edge][leg.at_edge_start ? 0 : 1];
    Intersection& x = out.intersections[n];
    x.node = static_cast<layout::NodeId>(n);
    x.legs = nl.legs;
    x.control = detail::junction_control(city, nl);
    // A mapped control (imported places) overrides the classes' choice at junctions of 3+
    // legs; bends and dead ends keep none.
    const std::uint8_t hint = net.nodes[n].control_hint;
    if (hint != 0) {
      if (nl.kind == NodeKind::junction && nl.legs.size() >= 3 &&
          hint <= static_cast<std::uint8_t>(Control::signal) + 1U) {
        x.control = static_cast<Control>(hint - 1U);
      } else {
        ++out.geometry_stats.hints_ignored;
      }
    }
    x.surface = detail::junction_surface(city, net.nodes[n], nl);
    if (!x.surface.outer.empty()) ++out.geometry_stats.junctions;
  }
  // 4. Whatever still overlaps: sections first (index order), then junctions.
  std::vector<Polygon*> surfaces;
  std::vector<std::uint32_t> levels;
  for (Section& s : b.sections) {
    surfaces.push_back(&s.surface);
    levels.push_back(level_bits(net.edges[s.edge]));
  }
  for (Intersection& x : out.intersections) {
    surfaces.push_back(&x.surface);
    std::uint32_t bits = 0;
    for (const Leg& leg : x.legs)
      bits |= level_bits(net.edges[leg.edge]);
    levels.push_back(bits);
  }
  out.geometry_stats.surfaces_clipped = separate(surfaces, levels);
  out.sections = std::move(b.sections);
  return out;
}

}  // namespace cityforge::roads
