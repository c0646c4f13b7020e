// SPDX-License-Identifier: Apache-2.0
// Imported places (seeds/004): the mapped ground areas and paths as ground patches clipped off
// roads, sidewalks and buildings; trees and bushes scattered in parks, forests and scrub; street
// furniture and trees where they are mapped; barriers as chains of scaled segment props.
#include <tbb/parallel_for.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

#include "cityforge/core/polyline.hpp"
#include "cityforge/core/spatial_hash.hpp"
#include "dressing/detail.hpp"
#include "dressing/detail/exclusions.hpp"

namespace cityforge::dressing::detail {
namespace {

constexpr double kMinPatchM2 = 0.5;      // Smaller clipped pieces are dropped.
constexpr double kObstacleCellM = 32.0;  // Spatial hash cell of the clipping obstacles.
constexpr double kRoadSearchM = 60.0;    // Props face a road this close, else keep their yaw.
constexpr double kCurbSetbackM = 0.5;  // Props mapped on a carriageway move this far past the curb.
constexpr double kBarrierPieceM = 3.0;  // Longest barrier piece (each follows the ground).
constexpr double kPlantEdgeM = 1.0;     // Plants keep this far inside their patch.
constexpr double kClearOfPropsM = 2.0;  // ...and this far from mapped props.
constexpr std::size_t kMaxPlantsPerPatch = 4000;  // Wider spacing in huge forests.
constexpr std::uint32_t kVariants = 4;
constexpr double kOtherLevelM = 2.5;  // Heights further apart are different levels.

Aabb2 polygon_box(const Polygon& poly) { return ring_bounds(poly.outer); }

// A polygon's edges indexed for fast tests of many points (a forest outline can have thousands
// of vertices and gets thousands of candidate trees): containment by even-odd crossings of the
// edges in the point's horizontal band, nearness by a grid over the edges.
class EdgeIndex {
 public:
  EdgeIndex(const Polygon& poly, double cell_m) : m_hash(cell_m), m_band(cell_m) {
    const Aabb2 box = polygon_box(poly);
    m_y0 = box.min.y;
    m_bands.resize(static_cast<std::size_t>((box.max.y - box.min.y) / m_band) + 1);
    auto add_ring = [&](const Ring& r) {
      for (std::size_t i = 0; i < r.size(); ++i) {
        const Vec2 a = r[i];
        const Vec2 b = r[(i + 1) % r.size()];
        const auto id = static_cast<std::uint32_t>(m_edges.size());
        m_edges.push_back({a, b});
        m_hash.insert(id, Aabb2{{std::min(a.x, b.x), std::min(a.y, b.y)},
                                {std::max(a.x, b.x), std::max(a.y, b.y)}});
        for (std::size_t k = band(std::min(a.y, b.y)); k <= band(std::max(a.y, b.y)); ++k)
          m_bands[k].push_back(id);
      }
    };
    add_ring(poly.outer);
    for (const Ring& h : poly.holes)
      add_ring(h);
  }
  bool contains(Vec2 p) const {
    if (p.y < m_y0) return false;
    const std::size_t k = band(p.y);
    if (k >= m_bands.size()) return false;
    bool inside = false;
    for (std::uint32_t id : m_bands[k]) {
      const auto& [a, b] = m_edges[id];
      if ((a.y > p.y) != (b.y > p.y) && p.x < a.x + (p.y - a.y) * (b.x - a.x) / (b.y - a.y))
        inside = !inside;
    }
    return inside;
  }
  /// Whether an edge passes within r of p.
  bool near(Vec2 p, double r, std::vector<std::uint32_t>& ids) const {
    m_hash.query_radius(p, r, ids);
    return std::any_of(ids.begin(), ids.end(), [&](std::uint32_t id) {
      return segment_distance(m_edges[id].first, m_edges[id].second, p) < r;
    });
  }

 private:
  std::size_t band(double y) const {
    return static_cast<std::size_t>(std::max(0.0, (y - m_y0) / m_band));
  }
  std::vector<std::pair<Vec2, Vec2>> m_edges;
  SpatialHash m_hash;
  double m_band;
  double m_y0 = 0.0;
  std::vector<std::vector<std::uint32_t>> m_bands;
};

// What ground patches are clipped off, indexed by box.
struct Obstacles {
  std::vector<Polygon> polys;
  std::vector<bool> water;
  SpatialHash hash{kObstacleCellM};
  void add(const Polygon& p, bool is_water) {
    if (p.outer.size() < 3) return;
    hash.insert(static_cast<std::uint32_t>(polys.size()), polygon_box(p));
    polys.push_back(p);
    water.push_back(is_water);
  }
  std::vector<Polygon> near(const Aabb2& box, bool with_water) const {
    std::vector<std::uint32_t> ids;
    hash.query(box, ids);
    std::vector<Polygon> out;
    for (std::uint32_t id : ids) {
      if (water[id] && !with_water) continue;
      const Aabb2 b = polygon_box(polys[id]);
      if (b.max.x < box.min.x || b.min.x > box.max.x || b.max.y < box.min.y || b.min.y > box.max.y)
        continue;
      out.push_back(polys[id]);
    }
    return out;
  }
};

Obstacles obstacles(const Inputs& in) {
  Obstacles o;
  const auto& edges = in.city.network.edges;
  for (const roads::Section& s : in.roads.sections) {
    // The ground goes on under bridges, and over tunnels.
    if (s.edge < edges.size() && (edges[s.edge].bridge || edges[s.edge].tunnel)) continue;
    o.add(s.surface, false);
  }
  for (const roads::Intersection& x : in.roads.intersections)
    o.add(x.surface, false);
  for (const Polygon& w : in.roads.sidewalks)
    o.add(w, false);
  for (const buildings::Building& b : in.buildings.buildings) {
    for (const buildings::Volume& v : b.volumes) {
      if (v.layer == 0) o.add(v.footprint, false);
    }
  }
  for (const GroundArea& a : in.mapped->areas) {
    if (a.kind == GroundKind::water) o.add(a.area, true);
  }
  return o;
}

// The lowest ground on the outline (vertices and edge midpoints).
double lowest_shore(const Polygon& poly, const terrain::Heightfield& g) {
  double z = std::numeric_limits<double>::infinity();
  const Ring& r = poly.outer;
  for (std::size_t i = 0; i < r.size(); ++i) {
    z = std::min(z, g.sample(r[i]));
    z = std::min(z, g.sample((r[i] + r[(i + 1) % r.size()]) * 0.5));
  }
  return std::isfinite(z) ? z : 0.0;
}

std::vector<GroundPatch> clip(const Polygon& poly, const Obstacles& obs, bool off_water) {
  std::vector<GroundPatch> out;
  const std::vector<Polygon> near = obs.near(polygon_box(poly), off_water);
  std::vector<Polygon> pieces;
  if (near.empty()) {
    pieces = polygon_union({poly});  // Repairs and canonicalises like the difference would.
  } else {
    pieces = polygon_difference(poly, near);
  }
  for (Polygon& p : pieces) {
    if (polygon_area(p) < kMinPatchM2) continue;
    GroundPatch g;
    g.area = std::move(p);
    out.push_back(std::move(g));
  }
  return out;
}

// The nearest point on a section's centre line within kRoadSearchM of p.
struct RoadHit {
  bool found = false;
  Vec2 point;
  std::size_t section = 0;
  double distance = 0.0;
};

class Roads {
 public:
  explicit Roads(const Inputs& in) : m_in(in) {
    const auto& secs = in.roads.sections;
    for (std::size_t i = 0; i < secs.size(); ++i) {
      if (secs[i].centre.size() < 2) continue;
      Aabb2 b{secs[i].centre.front(), secs[i].centre.front()};
      for (const Vec2& q : secs[i].centre) {
        b.min = {std::min(b.min.x, q.x), std::min(b.min.y, q.y)};
        b.max = {std::max(b.max.x, q.x), std::max(b.max.y, q.y)};
      }
      m_hash.insert(static_cast<std::uint32_t>(i), b);
    }
  }
  RoadHit nearest(Vec2 p) const {
    RoadHit best;
    std::vector<std::uint32_t> ids;
    m_hash.query_radius(p, kRoadSearchM, ids);
    for (std::uint32_t id : ids) {
      const Polyline& c = m_in.roads.sections[id].centre;
      const auto& edges = m_in.city.network.edges;
      const std::size_t e = m_in.roads.sections[id].edge;
      if (e < edges.size() && edges[e].tunnel) continue;
      for (std::size_t k = 0; k + 1 < c.size(); ++k) {
        const Vec2 d = c[k + 1] - c[k];
        const double len2 = dot(d, d);
        const double t = len2 > 0.0 ? std::clamp(dot(p - c[k], d) / len2, 0.0, 1.0) : 0.0;
        const Vec2 q = c[k] + d * t;
        const double dist = distance(p, q);
        if (dist <= kRoadSearchM && (!best.found || dist < best.distance)) {
          best = {true, q, id, dist};
        }
      }
    }
    return best;
  }

 private:
  const Inputs& m_in;
  SpatialHash m_hash{kObstacleCellM};
};

Item make_item(std::uint32_t prop, Vec2 p, double z, double yaw, std::uint32_t owner) {
  Item item;
  item.prop = prop;
  item.position = {static_cast<float>(p.x), static_cast<float>(p.y), static_cast<float>(z)};
  item.yaw_rad = static_cast<float>(yaw);
  item.owner = owner;
  return item;
}

double item_radius(const Item& it) {
  const PropDef& d = prop_catalog()[it.prop];
  if (d.radius_m <= 0.0 || d.category == Category::sidewalk || d.category == Category::ground)
    return 0.0;
  return d.radius_m * std::max(std::abs(it.scale_x), std::abs(it.scale_y));
}

}  // namespace

std::vector<GroundPatch> mapped_ground(const Inputs& in) {
  const Mapped& m = *in.mapped;
  const Obstacles obs = obstacles(in);
  const std::size_t na = m.areas.size();
  const std::size_t np = m.paths.size();
  const auto patches = [&](std::size_t i) {
    std::vector<GroundPatch> slot;
    if (i < na) {
      const GroundArea& a = m.areas[i];
      if (a.area.outer.size() < 3) return slot;
      const bool water = a.kind == GroundKind::water;
      slot = clip(a.area, obs, !water);
      const double z = water ? lowest_shore(a.area, in.ground) : 0.0;
      for (GroundPatch& g : slot) {
        g.kind = a.kind;
        g.z_m = z;
      }
      return slot;
    }
    const MappedPath& path = m.paths[i - na];
    const Polyline line = polyline_dedupe(path.points, 1e-6);
    if (line.size() < 2 || !(path.width_m > 0.0)) return slot;
    for (const Polygon& strip : polyline_buffer(line, path.width_m * 0.5)) {
      for (GroundPatch& g : clip(strip, obs, false)) {
        g.kind = GroundKind::pavement;
        g.path = true;
        slot.push_back(std::move(g));
      }
    }
    return slot;
  };
  // Shared between the ranks (clipping the roads and buildings out of every mapped area),
  // costed by the outline's points and the obstacles near it.
  std::vector<std::vector<GroundPatch>> slots = shared_jobs<std::vector<GroundPatch>>(
      in, na + np, "ground patches from another rank",
      [&](std::size_t i) {
        if (i >= na) return 1.0 + static_cast<double>(m.paths[i - na].points.size());
        std::vector<std::uint32_t> ids;
        obs.hash.query(polygon_box(m.areas[i].area), ids);
        return 1.0 + static_cast<double>(m.areas[i].area.outer.size() + 8 * ids.size());
      },
      patches,
      [](ByteWriter& w, const std::vector<GroundPatch>& slot) {
        w.put<std::uint64_t>(slot.size());
        for (const GroundPatch& g : slot) {
          w.put(g.kind);
          w.put(g.path);
          put_polygon(w, g.area);
          w.put(g.z_m);
        }
      },
      [](ByteReader& r, std::vector<GroundPatch>& slot) -> Status {
        std::uint64_t n = 0;
        Status st = r.get(n);
        for (std::uint64_t k = 0; st && k < n; ++k) {
          GroundPatch g;
          st = r.get(g.kind);
          if (st) st = r.get(g.path);
          if (st) st = get_polygon(r, g.area);
          if (st) st = r.get(g.z_m);
          slot.push_back(std::move(g));
        }
        return st;
      });
  std::vector<GroundPatch> out;
  for (auto& slot : slots)
    for (GroundPatch& g : slot)
      out.push_back(std::move(g));
  return out;
}

void mapped_plants(const Inputs& in, const Config& config, Seed seed,
                   const std::vector<GroundPatch>& patches, std::vector<Item>& out) {
  const std::int32_t tree = find_prop("park_tree");
  const std::int32_t bush = find_prop("bush");
  if (tree < 0 || bush < 0) return;
  const auto& catalog = prop_catalog();
  SpatialHash props_hash{8.0};
  for (std::size_t i = 0; i < in.mapped->props.size(); ++i)
    props_hash.insert(static_cast<std::uint32_t>(i), in.mapped->props[i].position);
  std::vector<std::vector<Item>> slots(patches.size());
  tbb::parallel_for(std::size_t{0}, patches.size(), [&](std::size_t i) {
    const GroundPatch& g = patches[i];
    if (g.path) return;
    std::int32_t prop = tree;
    double spacing = 0.0;
    switch (g.kind) {
      case GroundKind::park:
        spacing = config.park_tree_spacing_m * 2.0;  // Sparse: lawns between the trees.
        break;
      case GroundKind::forest:
        spacing = config.park_tree_spacing_m * 0.7;
        break;
      case GroundKind::scrub:
        prop = bush;
        spacing = config.park_tree_spacing_m * 0.4;
        break;
      default:
        return;
    }
    const double area = polygon_area(g.area);
    // Poisson disks hold about 0.7 / r^2 points per m2: widen r so a huge forest stays bounded.
    spacing = std::max(spacing, std::sqrt(0.7 * area / static_cast<double>(kMaxPlantsPerPatch)));
    const double radius = catalog[static_cast<std::size_t>(prop)].radius_m;
    const double edge = std::max(kPlantEdgeM, radius);
    Rng rng{seed, Stage::dressing, i, 16};
    std::vector<std::uint32_t> ids;
    const EdgeIndex outline(g.area, std::max(4.0, spacing));
    const std::vector<Vec2> pts = poisson_points(g.area, spacing, rng, [&](Vec2 p) {
      if (!outline.contains(p) || outline.near(p, edge, ids)) return false;
      props_hash.query_radius(p, kClearOfPropsM, ids);
      for (std::uint32_t id : ids) {
        if (distance(in.mapped->props[id].position, p) < kClearOfPropsM) return false;
      }
      return true;
    });
    for (const Vec2& p : pts) {
      Item it = make_item(static_cast<std::uint32_t>(prop), p, sidewalk_z(in, p),
                          rng.uniform(0.0, 2.0 * std::numbers::pi), static_cast<std::uint32_t>(i));
      it.variant = static_cast<std::uint8_t>(rng.next_u32() % kVariants);
      slots[i].push_back(it);
    }
  });
  for (const auto& slot : slots)
    out.insert(out.end(), slot.begin(), slot.end());
}

void mapped_props(const Inputs& in, const Config& config, std::vector<Item>& out) {
  const Areas areas(in, config);
  const Roads roads(in);
  const auto& catalog = prop_catalog();
  const auto& props = in.mapped->props;
  const auto& edges = in.city.network.edges;
  for (std::size_t i = 0; i < props.size(); ++i) {
    const MappedProp& mp = props[i];
    if (mp.prop >= catalog.size() || !std::isfinite(mp.position.x) || !std::isfinite(mp.position.y))
      continue;
    Vec2 p = mp.position;
    const RoadHit road = roads.nearest(p);
    const bool tree = catalog[mp.prop].category == Category::vegetation;
    // Bus stops, lamps, hydrants are often mapped on the way itself: stand them on the curb side.
    if (!tree && road.found && areas.inside(p, kAreaCarriageway | kAreaJunction)) {
      const std::size_t e = in.roads.sections[road.section].edge;
      const double half = e < edges.size() ? edges[e].width_m * 0.5 : 3.0;
      const double sw = e < edges.size() ? edges[e].sidewalk_width_m : 0.0;
      Vec2 away = p - road.point;
      if (length(away) < 1e-6) {
        const Polyline& c = in.roads.sections[road.section].centre;
        away = perp(normalize(c.back() - c.front())) * -1.0;  // The right-hand side.
      }
      p = road.point + normalize(away) * (half + std::min(kCurbSetbackM, sw * 0.5));
    }
    double yaw = mp.yaw_rad;
    if (mp.face_road && road.found) {
      const RoadHit r = roads.nearest(p);
      const Vec2 to = r.point - p;
      if (length(to) > 1e-6) yaw = std::atan2(to.y, to.x);
    }
    Item it = make_item(mp.prop, p, sidewalk_z(in, p), yaw, static_cast<std::uint32_t>(i));
    if (catalog[mp.prop].id == "street_light") it.state = 1;
    out.push_back(it);
  }
}

void mapped_barriers(const Inputs& in, const Config& config, std::vector<Item>& out,
                     std::array<std::size_t, kBarrierKindCount>& pieces) {
  static constexpr const char* kProps[kBarrierKindCount] = {
      "barrier_wall", "barrier_fence", "barrier_hedge", "guard_rail", "kerb_stone"};
  const Areas areas(in, config);
  const auto& catalog = prop_catalog();
  const auto& barriers = in.mapped->barriers;
  for (std::size_t i = 0; i < barriers.size(); ++i) {
    const Barrier& b = barriers[i];
    const auto kind = static_cast<std::size_t>(b.kind);
    if (kind >= kBarrierKindCount) continue;
    const std::int32_t prop = find_prop(kProps[kind]);
    if (prop < 0) continue;
    const PropDef& def = catalog[static_cast<std::size_t>(prop)];
    const double scale_z =
        std::isfinite(b.height_m) && b.height_m > 0.0 ? b.height_m / def.height_m : 1.0;
    for (std::size_t k = 0; k + 1 < b.points.size(); ++k) {
      const Vec2 a = b.points[k];
      const Vec2 c = b.points[k + 1];
      const double len = distance(a, c);
      if (!std::isfinite(len) || len < 1e-3) continue;
      const int n = std::max(1, static_cast<int>(std::ceil(len / kBarrierPieceM)));
      const double piece = len / n;
      const double yaw = std::atan2(c.y - a.y, c.x - a.x);
      for (int j = 0; j < n; ++j) {
        const Vec2 mid = a + (c - a) * ((j + 0.5) / n);
        if (b.kind != BarrierKind::kerb && areas.inside(mid, kAreaCarriageway | kAreaJunction))
          continue;
        Item it = make_item(static_cast<std::uint32_t>(prop), mid, sidewalk_z(in, mid), yaw,
                            static_cast<std::uint32_t>(i));
        it.scale_x = static_cast<float>(piece / def.length_m);
        it.scale_z = static_cast<float>(scale_z);
        out.push_back(it);
        ++pieces[kind];
      }
    }
  }
}

std::size_t drop_overlapping(std::vector<Item>& items, const std::vector<Item>& fixed) {
  SpatialHash hash{8.0};
  double max_r = 0.0;
  for (std::size_t i = 0; i < fixed.size(); ++i) {
    const double r = item_radius(fixed[i]);
    if (r <= 0.0) continue;
    max_r = std::max(max_r, r);
    hash.insert(static_cast<std::uint32_t>(i), Vec2{fixed[i].position[0], fixed[i].position[1]});
  }
  std::vector<std::uint32_t> ids;
  std::size_t dropped = 0;
  std::vector<Item> kept;
  kept.reserve(items.size());
  for (const Item& it : items) {
    const double r = item_radius(it);
    bool hit = false;
    if (r > 0.0) {
      const Vec2 p{it.position[0], it.position[1]};
      hash.query_radius(p, r + max_r, ids);
      for (std::uint32_t id : ids) {
        const Item& f = fixed[id];
        if (std::abs(f.position[2] - it.position[2]) > kOtherLevelM) continue;
        if (distance(Vec2{f.position[0], f.position[1]}, p) < r + item_radius(f)) {
          hit = true;
          break;
        }
      }
    }
    if (hit) {
      ++dropped;
    } else {
      kept.push_back(it);
    }
  }
  items = std::move(kept);
  return dropped;
}

std::size_t drop_in_water(std::vector<Item>& items, const std::vector<GroundPatch>& patches) {
  SpatialHash hash{kObstacleCellM};
  std::vector<std::uint32_t> water;
  for (std::size_t i = 0; i < patches.size(); ++i) {
    if (patches[i].path || patches[i].kind != GroundKind::water) continue;
    hash.insert(static_cast<std::uint32_t>(i), polygon_box(patches[i].area));
    water.push_back(static_cast<std::uint32_t>(i));
  }
  if (water.empty()) return 0;
  std::vector<std::uint32_t> ids;
  const std::size_t before = items.size();
  std::erase_if(items, [&](const Item& it) {
    if (item_radius(it) <= 0.0) return false;
    const Vec2 p{it.position[0], it.position[1]};
    hash.query(Aabb2{p, p}, ids);
    return std::any_of(ids.begin(), ids.end(),
                       [&](std::uint32_t id) { return polygon_contains(patches[id].area, p); });
  });
  return before - items.size();
}

void drop_wild_zones(std::vector<LeftoverZone>& zones, const std::vector<GroundPatch>& patches) {
  SpatialHash hash{kObstacleCellM};
  for (std::size_t i = 0; i < patches.size(); ++i) {
    if (patches[i].path || patches[i].kind == GroundKind::pavement) continue;
    hash.insert(static_cast<std::uint32_t>(i), polygon_box(patches[i].area));
  }
  std::vector<std::uint32_t> ids;
  std::erase_if(zones, [&](const LeftoverZone& z) {
    if (z.kind == ZoneKind::rooftop) return false;
    if (polygon_area(z.area) > kMaxMappedZoneM2) return true;
    const Vec2 c = ring_centroid(z.area.outer);
    hash.query(Aabb2{c, c}, ids);
    return std::any_of(ids.begin(), ids.end(),
                       [&](std::uint32_t id) { return polygon_contains(patches[id].area, c); });
  });
}

}  // namespace cityforge::dressing::detail
