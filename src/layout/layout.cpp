// SPDX-License-Identifier: Apache-2.0
// The City Layout tool (seeds/000, minutes 7-10): a boundary and a few artery curves in, an
// American grid city out. Arteries are routed over the terrain, the regions between them get
// their best-fitting grid, everything is noded into one planar network, and blocks and zoning
// fields are derived from it.
#include <tbb/parallel_for.h>

#include <algorithm>
#include <numeric>

#include "layout/detail.hpp"

namespace cityforge::layout {
namespace {

// Points closer than this are the same point when noding (rounding, not design).
constexpr double kNodingTolerance_m = 0.05;

// Keeps only the road edges of the connected road component with the most length: isolated
// grid pieces (cut off by a concave city limit or water) would be unreachable streets.
std::size_t keep_main_component(PlanarGraph& g) {
  std::vector<std::uint32_t> parent(g.nodes.size());
  std::iota(parent.begin(), parent.end(), 0U);
  auto find = [&](std::uint32_t v) {
    while (parent[v] != v)
      v = parent[v] = parent[parent[v]];
    return v;
  };
  for (const PlanarGraph::Edge& e : g.edges) {
    if (e.tag == detail::kTagBoundary) continue;
    const std::uint32_t a = find(e.a);
    const std::uint32_t b = find(e.b);
    if (a != b) parent[std::max(a, b)] = std::min(a, b);
  }
  std::vector<double> length(g.nodes.size(), 0.0);
  for (const PlanarGraph::Edge& e : g.edges) {
    if (e.tag != detail::kTagBoundary) length[find(e.a)] += distance(g.nodes[e.a], g.nodes[e.b]);
  }
  std::uint32_t best = 0;
  for (std::uint32_t v = 0; v < length.size(); ++v) {
    if (length[v] > length[best]) best = v;
  }
  const std::size_t before = g.edges.size();
  std::erase_if(g.edges, [&](const PlanarGraph::Edge& e) {
    return e.tag != detail::kTagBoundary && find(e.a) != best;
  });
  return before - g.edges.size();
}

// Arteries are the roads that bring traffic into the city: an end drawn near the city limit is
// carried on to it (along its heading, up to reach_m), so the artery splits the city into
// regions instead of leaving a strip of grid between its tip and the limit.
void extend_to_limit(Polyline& path, const Ring& limit, double reach_m) {
  for (int end = 0; end < 2; ++end) {
    const Vec2 tip = end == 0 ? path.front() : path.back();
    const Vec2 inner = end == 0 ? path[1] : path[path.size() - 2];
    const Vec2 far = tip + normalize(tip - inner) * reach_m;
    double best = 1e300;
    Vec2 hit;
    for (std::size_t i = 0; i < limit.size(); ++i) {
      Vec2 x;
      if (segment_intersection(tip, far, limit[i], limit[(i + 1) % limit.size()], &x) &&
          distance(tip, x) < best) {
        best = distance(tip, x);
        hit = x;
      }
    }
    if (best < 1e300 && best > 0.01) {
      if (end == 0) {
        path.insert(path.begin(), hit);
      } else {
        path.push_back(hit);
      }
    }
  }
}

// Merges the end nodes of edges shorter than merge_m (junctions a few metres apart become one,
// at the position of an artery node if there is one, else of the lowest-numbered node), then nodes
// the result again so it stays planar. Clusters never grow wider than merge_m: merging transitively
// along a row of close T junctions would pull a whole row of streets into one point. Shortest edges
// merge first.
PlanarGraph merge_close_nodes(const PlanarGraph& g, double merge_m) {
  std::vector<std::uint32_t> parent(g.nodes.size());
  std::iota(parent.begin(), parent.end(), 0U);
  std::vector<double> radius(g.nodes.size(), 0.0);  // of each cluster, around its root
  auto find = [&](std::uint32_t v) {
    while (parent[v] != v)
      v = parent[v] = parent[parent[v]];
    return v;
  };
  // Arteries keep their line: a cluster with an artery node keeps that node's position.
  std::vector<char> on_artery(g.nodes.size(), 0);
  for (const PlanarGraph::Edge& e : g.edges) {
    if (e.tag != detail::kTagBoundary && detail::tag_class(e.tag) == RoadClass::artery) {
      on_artery[e.a] = on_artery[e.b] = 1;
    }
  }
  std::vector<std::pair<double, std::uint32_t>> short_edges;
  for (std::uint32_t e = 0; e < g.edges.size(); ++e) {
    const double len = distance(g.nodes[g.edges[e].a], g.nodes[g.edges[e].b]);
    if (len < merge_m) short_edges.emplace_back(len, e);
  }
  std::sort(short_edges.begin(), short_edges.end());
  for (const auto& [len, e] : short_edges) {
    const std::uint32_t a = find(g.edges[e].a);
    const std::uint32_t b = find(g.edges[e].b);
    if (a == b) continue;
    const bool a_first = on_artery[a] != on_artery[b] ? on_artery[a] != 0 : a < b;
    const std::uint32_t keep = a_first ? a : b;
    const std::uint32_t gone = a_first ? b : a;
    const double grown = distance(g.nodes[keep], g.nodes[gone]) + radius[gone];
    if (std::max(grown, radius[keep]) > merge_m) continue;
    parent[gone] = keep;
    radius[keep] = std::max(grown, radius[keep]);
  }
  std::vector<TaggedSegment> segs;
  for (const PlanarGraph::Edge& e : g.edges) {
    const Vec2 a = g.nodes[find(e.a)];
    const Vec2 b = g.nodes[find(e.b)];
    if (a != b) segs.push_back({a, b, e.tag});
  }
  return build_planar_graph(segs, kNodingTolerance_m);
}

void add_polyline(std::vector<TaggedSegment>& segs, const Polyline& line, std::uint32_t tag) {
  for (std::size_t i = 0; i + 1 < line.size(); ++i)
    segs.push_back({line[i], line[i + 1], tag});
}

}  // namespace

Result<Zoning> build_zoning(const Inputs& in, const Config& config, Seed seed) {
  if (Status s = validate(in, config); !s) return s.error();
  Zoning z;
  detail::build_zoning_fields(in, config, seed, z.height, z.density);
  return z;
}

Result<Output> run(const Inputs& in, const terrain::Heightfield& ground, const Config& config,
                   Seed seed) {
  Result<Zoning> zoning = build_zoning(in, config, seed);
  if (!zoning) return zoning.error();
  return run(in, ground, *zoning, config, seed);
}

Result<Output> run(const Inputs& in, const terrain::Heightfield& ground, const Zoning& zoning,
                   const Config& config, Seed seed) {
  if (Status s = validate(in, config); !s) return s.error();
  Output out;
  out.boundary = polygon_canonical(in.boundary);
  out.zones = in.zones;
  const RoadClassSpec& artery = config.classes[static_cast<std::size_t>(RoadClass::artery)];
  const double artery_reach = artery.width_m / 2 + artery.sidewalk_width_m;

  // 1. Route the arteries over the terrain, in parallel (each into its own slot).
  std::vector<Result<Polyline>> routed(in.arteries.size(), Polyline{});
  tbb::parallel_for(std::size_t{0}, in.arteries.size(), [&](std::size_t a) {
    routed[a] = detail::route_artery(in.arteries[a], a, in, ground, config);
  });
  for (auto& r : routed) {
    if (!r) return r.error();
    extend_to_limit(*r, out.boundary.outer, config.artery_to_limit_m);
    out.routed_arteries.push_back(std::move(*r));
  }

  // 2. Regions: the city minus water minus the arteries' corridors.
  std::vector<Polygon> cut = in.water;
  for (const Polyline& a : out.routed_arteries) {
    for (Polygon& p : polyline_buffer(a, artery_reach))
      cut.push_back(std::move(p));
  }
  for (Polygon& p : polygon_difference(out.boundary, cut)) {
    if (polygon_area(p) >= config.min_block_area_m2) out.regions.push_back(Region{std::move(p)});
  }

  // 3. The best-fitting grid per region. Lines may reach three corridor widths past the region
  //    to meet an artery's centre line even at a slant.
  const double extend_m = 3.0 * artery_reach + 10.0;
  const double city_angle = detail::dominant_angle(out.boundary.outer);
  std::vector<std::vector<detail::GridLine>> lines(out.regions.size());
  tbb::parallel_for(std::size_t{0}, out.regions.size(), [&](std::size_t r) {
    lines[r] = detail::fit_grid(out.regions[r], out.routed_arteries, city_angle, extend_m, config,
                                seed, r);
  });

  // 4. One planar graph: arteries, grid lines and the city limit (for faces), noded.
  std::vector<TaggedSegment> segs;
  for (std::size_t a = 0; a < out.routed_arteries.size(); ++a) {
    add_polyline(segs, out.routed_arteries[a],
                 detail::road_tag(RoadClass::artery, static_cast<std::int32_t>(a)));
  }
  for (const auto& list : lines) {
    for (const detail::GridLine& l : list)
      add_polyline(segs, l.points, detail::road_tag(l.road_class, -1));
  }
  Ring limit = out.boundary.outer;
  limit.push_back(limit.front());
  add_polyline(segs, limit, detail::kTagBoundary);
  PlanarGraph g =
      merge_close_nodes(build_planar_graph(segs, kNodingTolerance_m), config.merge_distance_m);

  // 5. Clean up: short dead ends, then isolated pieces.
  std::vector<std::uint32_t> keep{detail::kTagBoundary};
  for (std::size_t a = 0; a < in.arteries.size(); ++a) {
    keep.push_back(detail::road_tag(RoadClass::artery, static_cast<std::int32_t>(a)));
  }
  prune_dangling(g, config.min_dangling_m, keep);
  keep_main_component(g);

  // 6. The road network with its attributes, and the blocks.
  out.height_field = zoning.height;
  out.density_field = zoning.density;
  std::vector<EdgeId> graph_to_road;
  out.network = detail::chain_network(g, config, out.density_field, graph_to_road);
  out.blocks = detail::build_blocks(g, graph_to_road, out.network, in, config, out.height_field,
                                    out.density_field);
  return out;
}

}  // namespace cityforge::layout
