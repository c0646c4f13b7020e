// SPDX-License-Identifier: Apache-2.0
// Road surface meshes: crowned carriageway ribbons with skirts along the trimmed sections,
// sidewalks, junction surfaces, marking decals and the road bricks, plus the block surfaces;
// all draped on the terrain by one rule (road_surface_raise, cut along the terrain's creases).
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <utility>
#include <vector>

#include "cityforge/core/assert.hpp"
#include "cityforge/core/polyline.hpp"
#include "cityforge/roads/meshes.hpp"
#include "roads/detail/drape.hpp"

namespace cityforge::roads {
namespace {

using detail::add_triangle_up;
using detail::add_vertex;
using detail::Float3;
using detail::ground_normal;
using detail::split_at_terrain_edges;
using detail::to_float3;

/// Sidewalk strips (without a road stage) sit this far below the road_raise_m.
constexpr double kSidewalkBelowRoadM = 0.02;

/// The edge's centre line with long segments split to <= kDrapeSpacingM (corners kept), so
/// ribbons along it drape on the terrain.
Polyline drape_line(const Polyline& points) {
  const Polyline line = polyline_dedupe(points);
  if (line.size() < 2) {
    return {};
  }
  Polyline dense{line.front()};
  for (std::size_t i = 0; i + 1 < line.size(); ++i) {
    const Polyline seg = polyline_resample(Polyline{line[i], line[i + 1]}, kDrapeSpacingM);
    dense.insert(dense.end(), seg.begin() + 1, seg.end());
  }
  return polyline_dedupe(dense);
}

/// Distance along the line at each of its points (metres, 0 at the first).
std::vector<double> distances_along(const Polyline& line) {
  std::vector<double> d(line.size(), 0.0);
  for (std::size_t i = 1; i < line.size(); ++i)
    d[i] = d[i - 1] + length(line[i] - line[i - 1]);
  return d;
}

/// A strip between the lines offset left_m and right_m (left of travel positive) from the
/// centre line, draped on the ground and raised by raise_m. Texture coordinates in metres: u
/// the distance along the centre line, v the offset to the right of it.
void add_strip(Mesh& m, const Polyline& centre, double left_m, double right_m,
               const terrain::Heightfield& g, double raise_m, double left_lift_m = 0.0,
               double right_lift_m = 0.0) {
  const Polyline left = polyline_offset(centre, left_m);
  const Polyline right = polyline_offset(centre, right_m);
  CF_ASSERT(left.size() == centre.size() && right.size() == centre.size(),
            "polyline_offset must keep the point count");
  const std::size_t n = std::min(left.size(), right.size());
  if (n < 2) {
    return;
  }
  const auto base = static_cast<std::uint32_t>(m.positions.size());
  const std::vector<double> along = distances_along(centre);
  // 1. Vertices base+2i (left) and base+2i+1 (right), draped, normals from the terrain.
  for (std::size_t i = 0; i < n; ++i) {
    add_vertex(m, left[i], g.sample(left[i]) + raise_m + left_lift_m, ground_normal(g, left[i]));
    add_vertex(m, right[i], g.sample(right[i]) + raise_m + right_lift_m,
               ground_normal(g, right[i]));
    m.uvs.push_back({static_cast<float>(along[i]), static_cast<float>(-left_m)});
    m.uvs.push_back({static_cast<float>(along[i]), static_cast<float>(-right_m)});
  }
  // 2. One quad per segment. Mitred joins can fold the inner side at sharp turns; such
  // triangles are turned up here and zero-area ones dropped later.
  for (std::size_t i = 0; i + 1 < n; ++i) {
    const auto l0 = static_cast<std::uint32_t>(base + 2 * i);
    const std::uint32_t r0 = l0 + 1;
    const std::uint32_t l1 = l0 + 2;
    const std::uint32_t r1 = l0 + 3;
    add_triangle_up(m, r0, r1, l1);
    add_triangle_up(m, r0, l1, l0);
  }
}

/// A vertical skirt below the line offset offset_m from the centre, skirt_m deep, facing away
/// from the centre line. Texture coordinates continue the strip's (add_strip) down the skirt:
/// u along the centre line, v the offset plus the depth, outwards.
void add_skirt(Mesh& m, const Polyline& centre, double offset_m, const terrain::Heightfield& g,
               double raise_m, double skirt_m) {
  const Polyline offset = polyline_offset(centre, offset_m);
  const Polyline edge = split_at_terrain_edges(offset, g);
  if (edge.size() < 2) {
    return;
  }
  // u of an edge point: the centre line's distance at the offset line's points, interpolated
  // by the distance along the offset line (the split points lie on it).
  const std::vector<double> u_at = distances_along(centre);
  const std::vector<double> s_at = distances_along(offset);
  const std::vector<double> s_edge = distances_along(edge);
  const double outwards = offset_m > 0.0 ? -1.0 : 1.0;  // v grows to the right
  std::size_t seg = 0;
  const auto u_of = [&](double s_m) {
    while (seg + 2 < s_at.size() && s_m > s_at[seg + 1])
      ++seg;
    const double span = s_at[seg + 1] - s_at[seg];
    const double t = span > 0.0 ? std::clamp((s_m - s_at[seg]) / span, 0.0, 1.0) : 0.0;
    return u_at[seg] + t * (u_at[seg + 1] - u_at[seg]);
  };
  const auto base = static_cast<std::uint32_t>(m.positions.size());
  for (std::size_t i = 0; i < edge.size(); ++i) {
    const auto u = static_cast<float>(u_of(s_edge[i]));
    m.uvs.push_back({u, static_cast<float>(-offset_m)});
    m.uvs.push_back({u, static_cast<float>(-offset_m + outwards * skirt_m)});
    const Vec2 along = normalize(edge[std::min(i + 1, edge.size() - 1)] - edge[i > 0 ? i - 1 : 0]);
    const Vec2 out = offset_m > 0.0 ? perp(along) : -perp(along);
    const Float3 n = to_float3(out.x, out.y, 0.0);
    const double top = g.sample(edge[i]) + raise_m;
    add_vertex(m, edge[i], top, n);
    add_vertex(m, edge[i], top - skirt_m, n);
  }
  for (std::size_t i = 0; i + 1 < edge.size(); ++i) {
    const auto t0 = static_cast<std::uint32_t>(base + 2 * i);
    const std::uint32_t b0 = t0 + 1;
    const std::uint32_t t1 = t0 + 2;
    const std::uint32_t b1 = t0 + 3;
    if (offset_m > 0.0) {  // left side: outward is to the left of travel
      m.indices.insert(m.indices.end(), {t0, t1, b0, b0, t1, b1});
    } else {
      m.indices.insert(m.indices.end(), {t0, b0, t1, t1, b0, b1});
    }
  }
}

/// The centre line to dress: the section trimmed at its junctions when roads were built, else
/// the whole edge.
const Polyline& centre_of(const layout::RoadEdge& edge, const Polyline* trimmed) {
  return trimmed != nullptr && trimmed->size() >= 2 ? *trimmed : edge.points;
}

/// A crowned carriageway: curb, centre raised by crown_m, curb; skirts hang skirt_m below both
/// edges so neighbouring surfaces never show a gap.
void add_crowned_strip(Mesh& m, const Polyline& centre, double half_width_m,
                       const terrain::Heightfield& g, double raise_m, double crown_m,
                       double skirt_m) {
  add_strip(m, centre, half_width_m, 0.0, g, raise_m, 0.0, crown_m);
  add_strip(m, centre, 0.0, -half_width_m, g, raise_m, crown_m, 0.0);
  if (skirt_m > 0.0) {
    add_skirt(m, centre, half_width_m, g, raise_m, skirt_m);
    add_skirt(m, centre, -half_width_m, g, raise_m, skirt_m);
  }
}

/// The carriageway of an edge, its curbs raise_m above the ground.
Mesh road_ribbon(const layout::RoadEdge& edge, const Polyline* trimmed,
                 const terrain::Heightfield& g, double raise_m, double crown_m, double skirt_m) {
  Mesh m;
  if (edge.width_m > 0.0) {
    add_crowned_strip(m, drape_line(centre_of(edge, trimmed)), 0.5 * edge.width_m, g, raise_m,
                      crown_m, skirt_m);
  }
  return cut_along_terrain_edges(std::move(m), g);
}

/// The two sidewalks of an edge without a road stage: strips sidewalk_width_m wide outside the
/// curb lines, a little below the road.
Mesh sidewalk_strips(const layout::RoadEdge& edge, const terrain::Heightfield& g, double raise_m) {
  Mesh m;
  if (edge.sidewalk_width_m > 0.0 && edge.width_m > 0.0) {
    const Polyline centre = drape_line(edge.points);
    const double curb = 0.5 * edge.width_m;
    const double outer = curb + edge.sidewalk_width_m;
    const double z = std::max(0.0, raise_m - kSidewalkBelowRoadM);
    add_strip(m, centre, outer, curb, g, z);
    add_strip(m, centre, -curb, -outer, g, z);
  }
  return cut_along_terrain_edges(std::move(m), g);
}

/// Brick width per class: the width of the first edge of that class (edges in index order), or
/// the layout default when the city has none (then the brick is unused anyway).
double brick_width(const layout::Output& city, std::size_t road_class) {
  for (const layout::RoadEdge& e : city.network.edges) {
    if (static_cast<std::size_t>(e.road_class) == road_class && e.width_m > 0.0) return e.width_m;
  }
  return layout::Config{}.classes[road_class].width_m;
}

/// Runs make(i) for i in [0, n) in parallel, each into its own slot.
template <class T, class Make>
std::vector<T> mesh_items(std::size_t n, const Make& make) {
  std::vector<T> slots(n);
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, n),
                    [&](const tbb::blocked_range<std::size_t>& range) {
                      for (std::size_t i = range.begin(); i != range.end(); ++i) {
                        slots[i] = make(i);
                      }
                    });
  return slots;
}

}  // namespace

Mesh road_brick(layout::RoadClass c, double length_m, double width_m, const Config& config) {
  Mesh m;
  const double half = 0.5 * width_m;
  const double top = road_surface_raise(config, c);
  const double crown = config.crown_m;
  if (!(length_m > 0.0) || !(half > 0.0)) return m;
  // 1. The two halves of the crowned top, each a flat quad with its own normal.
  for (const double side : {1.0, -1.0}) {
    const Vec3 n = normalize(Vec3{0.0, side * crown / half, 1.0});
    const Float3 nf = to_float3(n.x, n.y, n.z);
    const auto v = static_cast<std::uint32_t>(m.positions.size());
    add_vertex(m, {0.0, side * half}, top, nf);
    add_vertex(m, {length_m, side * half}, top, nf);
    add_vertex(m, {length_m, 0.0}, top + crown, nf);
    add_vertex(m, {0.0, 0.0}, top + crown, nf);
    const auto l = static_cast<float>(length_m);
    const auto w = static_cast<float>(-side * half);
    m.uvs.insert(m.uvs.end(), {{0.0f, w}, {l, w}, {l, 0.0f}, {0.0f, 0.0f}});
    add_triangle_up(m, v, v + 1, v + 2);
    add_triangle_up(m, v, v + 2, v + 3);
  }
  // 2. Skirts below both curbs, facing outwards (as add_skirt does on the ribbons).
  if (config.skirt_m > 0.0) {
    for (const double side : {1.0, -1.0}) {
      const Float3 n = to_float3(0.0, side, 0.0);
      const auto v = static_cast<std::uint32_t>(m.positions.size());
      add_vertex(m, {0.0, side * half}, top, n);
      add_vertex(m, {0.0, side * half}, top - config.skirt_m, n);
      add_vertex(m, {length_m, side * half}, top, n);
      add_vertex(m, {length_m, side * half}, top - config.skirt_m, n);
      const auto l = static_cast<float>(length_m);
      const auto w = static_cast<float>(-side * half);
      const auto d = static_cast<float>(-side * (half + config.skirt_m));
      m.uvs.insert(m.uvs.end(), {{0.0f, w}, {0.0f, d}, {l, w}, {l, d}});
      if (side > 0.0) {
        m.indices.insert(m.indices.end(), {v, v + 2, v + 1, v + 1, v + 2, v + 3});
      } else {
        m.indices.insert(m.indices.end(), {v, v + 1, v + 2, v + 2, v + 1, v + 3});
      }
    }
  }
  return m;
}

Mesh decal_mesh(const roads::Decal& d) {
  Mesh m;
  if (d.outline.size() < 3) return m;
  for (const Vec3& p : d.outline) {
    add_vertex(m, {p.x, p.y}, p.z, Float3{0.0f, 0.0f, 1.0f});
  }
  for (std::uint32_t i = 1; i + 1 < d.outline.size(); ++i) {
    add_triangle_up(m, 0, i, i + 1);
  }
  return m;
}

Status check_surface_source(const SurfaceSource& source) {
  CF_ASSERT(source.city != nullptr && source.ground != nullptr && source.config != nullptr,
            "a surface source needs its city, ground and config");
  return detail::check_mesh_inputs(*source.city, *source.ground, *source.config);
}

namespace {

/// With roads built (one section per edge), carriageways and sidewalks stop at the junction
/// mouths, carriageways are crowned with skirts, and junction surfaces fill the gaps. Until
/// then ribbons of different roads overlap at junctions; the class raise lets the wider road
/// win cleanly.
bool built(const SurfaceSource& s) {
  return s.roads != nullptr && s.roads->sections.size() == s.city->network.edges.size();
}

}  // namespace

std::size_t surface_count(const SurfaceSource& s, SurfaceKind kind) {
  const bool with_roads = built(s);
  switch (kind) {
    case SurfaceKind::carriageway:
      return s.city->network.edges.size();
    case SurfaceKind::sidewalk:
      return with_roads ? s.roads->sidewalks.size() : s.city->network.edges.size();
    case SurfaceKind::junction:
      return with_roads ? s.roads->intersections.size() : 0;
    case SurfaceKind::block:
      return s.city->blocks.size();
    case SurfaceKind::marking:
      return with_roads && s.markings != nullptr ? s.markings->sections() : 0;
  }
  return 0;
}

ClassMesh surface_mesh(const SurfaceSource& s, SurfaceKind kind, std::size_t i) {
  const layout::Output& city = *s.city;
  const terrain::Heightfield& ground = *s.ground;
  const Config& config = *s.config;
  const bool with_roads = built(s);
  ClassMesh c;
  switch (kind) {
    // Underground roads of imported places (tunnel=yes) are in the lane graph, not drawn.
    case SurfaceKind::carriageway: {
      const layout::RoadEdge& e = city.network.edges[i];
      c.road_class = e.road_class;
      if (!e.tunnel) {
        c.mesh = road_ribbon(e, with_roads ? &s.roads->sections[i].centre : nullptr, ground,
                             road_surface_raise(config, e.road_class),
                             with_roads ? config.crown_m : 0.0, with_roads ? config.skirt_m : 0.0);
      }
      break;
    }
    // The road stage's areas (corners solved) at curb height like the blocks, or strips along
    // every edge.
    case SurfaceKind::sidewalk:
      c.mesh = with_roads ? detail::sidewalk_mesh(s.roads->sidewalks[i], ground, config)
                          : sidewalk_strips(city.network.edges[i], ground, config.road_raise_m);
      break;
    // At the height of the widest leg's class.
    case SurfaceKind::junction: {
      const Intersection& x = s.roads->intersections[i];
      c.road_class = junction_class(x, city);
      if (x.surface.outer.size() >= 3) {
        c.mesh = cut_along_terrain_edges(
            draped_surface(x.surface, ground, road_surface_raise(config, c.road_class)), ground);
      }
      break;
    }
    // Not cut: blocks lie off the roads the terrain was conditioned for.
    case SurfaceKind::block:
      c.mesh = draped_surface(city.blocks[i].area, ground, config.block_raise_m);
      break;
    case SurfaceKind::marking:
      for (const Decal& d : s.markings->of(static_cast<std::uint32_t>(i)))
        c.mesh.append(decal_mesh(d));
      break;
  }
  return c;
}

std::array<Brick, kBrickCount> road_bricks(const SurfaceSource& s) {
  std::array<Brick, kBrickCount> bricks;
  for (std::size_t b = 0; b < kBrickCount; ++b) {
    Brick& brick = bricks[b];
    brick.length_m = s.config->module_lengths_m[b % 3];
    brick.width_m = brick_width(*s.city, b / 3);
    brick.mesh =
        road_brick(static_cast<layout::RoadClass>(b / 3), brick.length_m, brick.width_m, *s.config);
  }
  return bricks;
}

Result<SurfaceMeshes> build_surface_meshes(const layout::Output& city,
                                           const terrain::Heightfield& ground, const Output* roads,
                                           const Config& config) {
  std::optional<SectionMarkings> markings;
  if (roads != nullptr) markings.emplace(city, *roads, ground, config);
  const SurfaceSource source{.city = &city,
                             .ground = &ground,
                             .roads = roads,
                             .config = &config,
                             .markings = markings ? &*markings : nullptr};
  if (Status s = check_surface_source(source); !s) return s.error();
  const auto items = [&](SurfaceKind kind) {
    return mesh_items<ClassMesh>(surface_count(source, kind),
                                 [&](std::size_t i) { return surface_mesh(source, kind, i); });
  };
  const auto meshes_of = [&](SurfaceKind kind) {
    std::vector<ClassMesh> made = items(kind);
    std::vector<Mesh> out;
    out.reserve(made.size());
    for (ClassMesh& c : made)
      out.push_back(std::move(c.mesh));
    return out;
  };
  SurfaceMeshes out;
  out.carriageways = items(SurfaceKind::carriageway);
  out.sidewalks = meshes_of(SurfaceKind::sidewalk);
  out.junctions = items(SurfaceKind::junction);
  out.blocks = meshes_of(SurfaceKind::block);
  out.markings = meshes_of(SurfaceKind::marking);
  out.bricks = road_bricks(source);
  return out;
}

}  // namespace cityforge::roads
