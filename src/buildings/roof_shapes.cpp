// SPDX-License-Identifier: Apache-2.0
// Pitched roofs of imported buildings (OSM roof:shape): gabled, hipped, pyramidal, skillion and
// dome over any footprint, closed against the walls: the eaves are the wall-top outline, and
// where the roof stands above a wall top (gable ends, the high side of a skillion) the wall is
// filled up to the roof.
//
// Hipped roofs come from the footprint's straight skeleton (straight_skeleton.cpp); a run that
// does not settle, or whose faces do not cover the footprint, falls back to a pyramid
// (star-shaped footprints) or a flat roof.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>
#include <vector>

#include "buildings/detail/gen_internal.hpp"

namespace cityforge::buildings::detail {
namespace {

using F3 = std::array<float, 3>;

F3 f3(Vec3 p) {
  return {static_cast<float>(p.x), static_cast<float>(p.y), static_cast<float>(p.z)};
}

// A triangle with a flat normal; wound counter-clockwise seen from `towards` (the side the
// normal must face). Degenerate triangles are dropped.
void add_triangle(Mesh& mesh, Vec3 a, Vec3 b, Vec3 c, Vec3 towards) {
  Vec3 n = cross(b - a, c - a);
  const double len = length(n);
  if (!(len > 1e-9)) {
    return;
  }
  if (dot(n, towards) < 0.0) {
    std::swap(b, c);
    n = n * -1.0;
  }
  n = n * (1.0 / len);
  const auto base = static_cast<std::uint32_t>(mesh.positions.size());
  for (const Vec3& p : {a, b, c}) {
    mesh.positions.push_back(f3(p));
    mesh.normals.push_back(f3(n));
  }
  for (std::uint32_t i = 0; i < 3; ++i) {
    mesh.indices.push_back(base + i);
  }
}

constexpr Vec3 kUp{0.0, 0.0, 1.0};

// Area of the skeleton's faces in plan: equals the footprint's when the faces tile it.
double quads_area(const std::vector<SkeletonQuad>& quads) {
  double area = 0.0;
  for (const SkeletonQuad& q : quads) {
    area += 0.5 * (cross(q.b0 - q.a0, q.b1 - q.a0) + cross(q.b1 - q.a0, q.a1 - q.a0));
  }
  return area;
}

bool star_shaped_around(const Polygon& poly, Vec2 c) {
  if (!poly.holes.empty() || !polygon_contains(poly, c)) {
    return false;
  }
  const Ring& r = poly.outer;
  for (std::size_t i = 0; i < r.size(); ++i) {
    if (cross(r[(i + 1) % r.size()] - r[i], c - r[i]) <= 1e-9) {
      return false;
    }
  }
  return true;
}

bool build_hipped(const Polygon& fp, double z0, double h, Mesh& roof) {
  // The simulation is cubic in the vertex count: very detailed outlines fall back.
  constexpr std::size_t kMaxVertices = 300;
  std::size_t n = fp.outer.size();
  for (const Ring& r : fp.holes) {
    n += r.size();
  }
  if (n > kMaxVertices) {
    return false;
  }
  std::vector<SkeletonQuad> quads;
  if (!skeleton_quads(fp, &quads)) {
    return false;
  }
  const double area = polygon_area(fp);
  if (std::abs(quads_area(quads) - area) > 0.01 * area + 0.01) {
    return false;
  }
  double t_max = 0.0;
  for (const SkeletonQuad& q : quads) {
    t_max = std::max(t_max, q.t1);
  }
  if (!(t_max > 1e-6)) {
    return false;
  }
  const double k = h / t_max;
  for (const SkeletonQuad& q : quads) {
    const Vec3 a0{q.a0.x, q.a0.y, z0 + k * q.t0};
    const Vec3 b0{q.b0.x, q.b0.y, z0 + k * q.t0};
    const Vec3 b1{q.b1.x, q.b1.y, z0 + k * q.t1};
    const Vec3 a1{q.a1.x, q.a1.y, z0 + k * q.t1};
    add_triangle(roof, a0, b0, b1, kUp);
    add_triangle(roof, a0, b1, a1, kUp);
  }
  return true;
}

bool build_pyramid(const Polygon& fp, double z0, double h, Mesh& roof) {
  const Vec2 c = ring_centroid(fp.outer);
  if (!star_shaped_around(fp, c)) {
    return false;
  }
  const Vec3 apex{c.x, c.y, z0 + h};
  const Ring& r = fp.outer;
  for (std::size_t i = 0; i < r.size(); ++i) {
    const Vec2 a = r[i];
    const Vec2 b = r[(i + 1) % r.size()];
    add_triangle(roof, {a.x, a.y, z0}, {b.x, b.y, z0}, apex, kUp);
  }
  return true;
}

bool build_dome(const Polygon& fp, double z0, double h, Mesh& roof) {
  const Vec2 c = ring_centroid(fp.outer);
  if (!star_shaped_around(fp, c)) {
    return false;
  }
  constexpr int kRings = 8;
  const Ring& r = fp.outer;
  auto point = [&](Vec2 p, int k) {
    const double th = (std::numbers::pi / 2.0) * k / kRings;
    const Vec2 q = c + (p - c) * std::cos(th);
    return Vec3{q.x, q.y, z0 + h * std::sin(th)};
  };
  for (int k = 0; k < kRings; ++k) {
    for (std::size_t i = 0; i < r.size(); ++i) {
      const Vec2 a = r[i];
      const Vec2 b = r[(i + 1) % r.size()];
      const Vec3 a0 = point(a, k);
      const Vec3 b0 = point(b, k);
      const Vec3 a1 = point(a, k + 1);
      const Vec3 b1 = point(b, k + 1);
      add_triangle(roof, a0, b0, b1, kUp);
      if (k + 1 < kRings) {
        add_triangle(roof, a0, b1, a1, kUp);
      }
    }
  }
  return true;
}

// The direction of the longer side of the footprint's smallest-area bounding box.
Vec2 longest_axis(const Polygon& fp) {
  const Ring hull = convex_hull(fp.outer);
  Vec2 best_dir{1.0, 0.0};
  double best_area = std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < hull.size(); ++i) {
    const Vec2 d = normalize(hull[(i + 1) % hull.size()] - hull[i]);
    if (length(d) < 0.5) {
      continue;
    }
    const Aabb2 box = ring_bounds_rotated(hull, std::atan2(d.y, d.x));
    const Vec2 s = box.size();
    if (s.x * s.y < best_area - 1e-9) {
      best_area = s.x * s.y;
      best_dir = s.x >= s.y ? d : perp(d);
    }
  }
  return best_dir;
}

// Triangulates `piece` as a plane: z = z0 + height(p).
template <class Height>
void add_planar(Mesh& roof, const Polygon& piece, double z0, const Height& height) {
  const Triangulation tri = triangulate(piece);
  for (std::size_t i = 0; i + 2 < tri.indices.size(); i += 3) {
    Vec3 v[3];
    for (int k = 0; k < 3; ++k) {
      const Vec2 p = tri.points[tri.indices[i + static_cast<std::size_t>(k)]];
      v[k] = {p.x, p.y, z0 + height(p)};
    }
    add_triangle(roof, v[0], v[1], v[2], kUp);
  }
}

// Walls from the wall top z0 up to the roof along every ring edge; `height` is the roof's
// rise over a point, `cut` the parameters along an edge where the roof creases.
template <class Height, class Cuts>
void fill_walls(Mesh& wall, const Polygon& fp, double z0, const Height& height, const Cuts& cuts) {
  auto ring_walls = [&](const Ring& r) {
    for (std::size_t i = 0; i < r.size(); ++i) {
      const Vec2 a = r[i];
      const Vec2 b = r[(i + 1) % r.size()];
      const Vec2 d = normalize(b - a);
      const Vec3 out{d.y, -d.x, 0.0};
      std::vector<double> ts{0.0};
      for (double t : cuts(a, b)) {
        if (t > 1e-6 && t < 1.0 - 1e-6) {
          ts.push_back(t);
        }
      }
      ts.push_back(1.0);
      std::sort(ts.begin(), ts.end());
      for (std::size_t k = 0; k + 1 < ts.size(); ++k) {
        const Vec2 p = lerp(a, b, ts[k]);
        const Vec2 q = lerp(a, b, ts[k + 1]);
        const double hp = height(p);
        const double hq = height(q);
        if (hp < 1e-4 && hq < 1e-4) {
          continue;
        }
        add_triangle(wall, {p.x, p.y, z0}, {q.x, q.y, z0}, {q.x, q.y, z0 + hq}, out);
        add_triangle(wall, {p.x, p.y, z0}, {q.x, q.y, z0 + hq}, {p.x, p.y, z0 + hp}, out);
      }
    }
  };
  ring_walls(fp.outer);
  for (const Ring& h : fp.holes) {
    ring_walls(h);
  }
}

// The half of the plane where dot(p, m) <= c (or >= c with `upper`), as a polygon around fp.
Polygon half_plane_box(const Polygon& fp, Vec2 m, double c, bool upper) {
  const Aabb2 b = ring_bounds(fp.outer);
  const double big = length(b.size()) + 10.0;
  const Vec2 centre = b.center();
  const Vec2 r = perp(m);
  const Vec2 on = centre + m * (c - dot(centre, m));  // On the line.
  const Vec2 side = upper ? m : m * -1.0;
  Polygon p;
  p.outer = {on - r * big, on + r * big, on + r * big + side * 2.0 * big,
             on - r * big + side * 2.0 * big};
  return polygon_canonical(p);
}

// Gabled roofs along the footprint's own wings (L, T, U...): the hipped skeleton whose
// triangular end faces, each at a ridge end where only three faces meet, are turned into gable
// walls by moving the ridge end onto the end wall. False when the skeleton fails or nothing
// would be gabled (a square or a ring stays hipped: the caller then uses one straight ridge).
void append(Mesh& to, const Mesh& from) {
  const auto base = static_cast<std::uint32_t>(to.positions.size());
  to.positions.insert(to.positions.end(), from.positions.begin(), from.positions.end());
  to.normals.insert(to.normals.end(), from.normals.begin(), from.normals.end());
  for (std::uint32_t i : from.indices) {
    to.indices.push_back(base + i);
  }
}

double plan_area(const Mesh& m) {
  double a = 0.0;
  for (std::size_t i = 0; i + 2 < m.indices.size(); i += 3) {
    const F3& p = m.positions[m.indices[i]];
    const F3& q = m.positions[m.indices[i + 1]];
    const F3& r = m.positions[m.indices[i + 2]];
    a += 0.5 *
         (double{q[0] - p[0]} * double{r[1] - p[1]} - double{q[1] - p[1]} * double{r[0] - p[0]});
  }
  return a;
}

bool build_skeleton_gabled(const Polygon& fp, double z0, double h, Mesh& roof_out, Mesh& wall_out) {
  Mesh roof;
  Mesh wall;
  std::vector<SkeletonQuad> quads;
  if (!skeleton_quads(fp, &quads)) {
    return false;
  }
  const double area = polygon_area(fp);
  if (std::abs(quads_area(quads) - area) > 0.01 * area + 0.01) {
    return false;
  }
  // The edges' lines (as skeleton_quads numbers them: outer ring, then holes, degenerate points
  // removed the same way).
  std::vector<std::pair<Vec2, Vec2>> lines;
  auto add_ring = [&](const Ring& raw) {
    const Ring r = ring_remove_degenerate(raw, 1e-3, 1e-3);
    if (r.size() < 3) {
      return;
    }
    for (std::size_t i = 0; i < r.size(); ++i) {
      lines.emplace_back(r[i], r[(i + 1) % r.size()]);
    }
  };
  add_ring(fp.outer);
  for (const Ring& r : fp.holes) {
    add_ring(r);
  }
  double t_max = 0.0;
  std::vector<double> top(lines.size(), 0.0);
  std::vector<std::uint32_t> face_quads(lines.size(), 0);
  for (const SkeletonQuad& q : quads) {
    if (q.edge >= lines.size()) {
      return false;
    }
    t_max = std::max(t_max, q.t1);
    top[q.edge] = std::max(top[q.edge], q.t1);
    ++face_quads[q.edge];
  }
  if (!(t_max > 1e-6)) {
    return false;
  }
  constexpr double kSame = 1e-6;
  auto same = [](Vec2 a, Vec2 b) { return distance(a, b) < kSame; };
  // Triangular faces: one quad whose top shrinks to a point.
  struct Move {  // The face's eave corners, its apex at time t and where the apex goes.
    Vec2 ca;
    Vec2 cb;
    Vec2 from;
    Vec2 to;
    double t;
  };
  std::vector<Move> moves;
  std::vector<std::uint8_t> gable(lines.size(), 0);
  for (const SkeletonQuad& q : quads) {
    if (face_quads[q.edge] != 1 || q.t0 > 0.0 || !same(q.a1, q.b1)) {
      continue;
    }
    const Vec2 apex = q.a1;
    std::vector<std::uint32_t> meeting;
    for (const SkeletonQuad& o : quads) {
      if (std::abs(o.t1 - q.t1) < 1e-9 && (same(o.a1, apex) || same(o.b1, apex)) &&
          std::find(meeting.begin(), meeting.end(), o.edge) == meeting.end()) {
        meeting.push_back(o.edge);
      }
      if (std::abs(o.t0 - q.t1) < 1e-9 && (same(o.a0, apex) || same(o.b0, apex)) &&
          std::find(meeting.begin(), meeting.end(), o.edge) == meeting.end()) {
        meeting.push_back(o.edge);
      }
    }
    if (meeting.size() != 3) {
      continue;
    }
    const auto [a, b] = lines[q.edge];
    const Vec2 d = b - a;
    const double t = dot(apex - a, d) / dot(d, d);
    if (t < 0.0 || t > 1.0) {
      continue;
    }
    gable[q.edge] = 1;
    moves.push_back(Move{q.a0, q.b0, apex, a + d * t, q.t1});
  }
  if (moves.empty()) {
    return false;
  }
  // The apex moves onto the end wall, and with it the hip lines from the eave corners to it
  // (split at every event on the way): a point at time t of a hip line keeps its share t / tA.
  auto moved = [&](Vec2 p, double t) {
    for (const Move& m : moves) {
      if (t <= 0.0 || t > m.t + 1e-9) {
        continue;
      }
      const double f = t / m.t;
      for (const Vec2 c : {m.ca, m.cb}) {
        if (same(p, lerp(c, m.from, f))) {
          return lerp(c, m.to, f);
        }
      }
    }
    return p;
  };
  const double k = h / t_max;
  for (const SkeletonQuad& q : quads) {
    const Vec2 a0 = moved(q.a0, q.t0);
    const Vec2 b0 = moved(q.b0, q.t0);
    const Vec2 b1 = moved(q.b1, q.t1);
    const Vec2 a1 = moved(q.a1, q.t1);
    const Vec3 pa0{a0.x, a0.y, z0 + k * q.t0};
    const Vec3 pb0{b0.x, b0.y, z0 + k * q.t0};
    const Vec3 pb1{b1.x, b1.y, z0 + k * q.t1};
    const Vec3 pa1{a1.x, a1.y, z0 + k * q.t1};
    if (gable[q.edge] != 0U) {
      const Vec2 d = normalize(lines[q.edge].second - lines[q.edge].first);
      const Vec3 out{d.y, -d.x, 0.0};
      add_triangle(wall, pa0, pb0, pb1, out);
      add_triangle(wall, pa0, pb1, pa1, out);
    } else {
      add_triangle(roof, pa0, pb0, pb1, kUp);
      add_triangle(roof, pa0, pb1, pa1, kUp);
    }
  }
  // Moved ridge ends that overlap or open other faces (wings meeting at odd angles): no.
  if (std::abs(plan_area(roof) - area) > 0.005 * area + 0.01) {
    return false;
  }
  append(roof_out, roof);
  append(wall_out, wall);
  return true;
}

void build_gabled(const Polygon& fp, double z0, double h, double ridge_rad, Mesh& roof,
                  Mesh& wall) {
  const Vec2 r =
      std::isfinite(ridge_rad) ? Vec2{std::cos(ridge_rad), std::sin(ridge_rad)} : longest_axis(fp);
  const Vec2 m = perp(r);
  double lo = std::numeric_limits<double>::infinity();
  double hi = -lo;
  for (const Vec2& p : fp.outer) {
    lo = std::min(lo, dot(p, m));
    hi = std::max(hi, dot(p, m));
  }
  const double c = 0.5 * (lo + hi);
  const double half = std::max(1e-6, 0.5 * (hi - lo));
  auto height = [&](Vec2 p) { return std::max(0.0, h * (1.0 - std::abs(dot(p, m) - c) / half)); };
  for (bool upper : {false, true}) {
    for (const Polygon& piece : polygon_intersection(fp, half_plane_box(fp, m, c, upper))) {
      add_planar(roof, piece, z0, height);
    }
  }
  fill_walls(wall, fp, z0, height, [&](Vec2 a, Vec2 b) {
    const double sa = dot(a, m) - c;
    const double sb = dot(b, m) - c;
    std::vector<double> t;
    if ((sa < 0.0) != (sb < 0.0) && std::abs(sa - sb) > 1e-12) {
      t.push_back(sa / (sa - sb));
    }
    return t;
  });
}

void build_skillion(const Polygon& fp, double z0, double h, double falls_rad, Mesh& roof,
                    Mesh& wall) {
  const Vec2 f = std::isfinite(falls_rad) ? Vec2{std::cos(falls_rad), std::sin(falls_rad)}
                                          : perp(longest_axis(fp));
  double lo = std::numeric_limits<double>::infinity();
  double hi = -lo;
  for (const Vec2& p : fp.outer) {
    lo = std::min(lo, dot(p, f));
    hi = std::max(hi, dot(p, f));
  }
  const double span = std::max(1e-6, hi - lo);
  auto height = [&](Vec2 p) { return std::clamp(h * (hi - dot(p, f)) / span, 0.0, h); };
  add_planar(roof, fp, z0, height);
  fill_walls(wall, fp, z0, height, [](Vec2, Vec2) { return std::vector<double>{}; });
}

}  // namespace

void build_plinth(const Polygon& footprint, double bottom_z, double top_z, Mesh& trim) {
  constexpr double kProudM = 0.1;  // Stands this far out of the facade plane.
  if (!(top_z > bottom_z) || footprint.outer.size() < 3) {
    return;
  }
  const std::vector<Polygon> grown = polygon_offset(Polygon{footprint.outer, {}}, kProudM);
  for (const Polygon& g : grown) {
    const Ring& r = g.outer;
    for (std::size_t i = 0; i < r.size(); ++i) {
      const Vec2 a = r[i];
      const Vec2 b = r[(i + 1) % r.size()];
      const Vec2 d = normalize(b - a);
      const Vec3 out{d.y, -d.x, 0.0};
      add_triangle(trim, {a.x, a.y, bottom_z}, {b.x, b.y, bottom_z}, {b.x, b.y, top_z}, out);
      add_triangle(trim, {a.x, a.y, bottom_z}, {b.x, b.y, top_z}, {a.x, a.y, top_z}, out);
    }
    for (const Polygon& band : polygon_difference(g, {Polygon{footprint.outer, {}}})) {
      add_planar(trim, band, top_z, [](Vec2) { return 0.0; });
    }
  }
}

bool build_shaped_roof(const Volume& vol, std::array<Mesh, kMaterialCount>& parts) {
  Mesh& roof = parts[static_cast<std::size_t>(Material::roof)];
  Mesh& wall = parts[static_cast<std::size_t>(Material::wall)];
  const double z0 = vol.z1_m;
  const double h = vol.roof_height_m;
  const Polygon& fp = vol.footprint;
  if (fp.outer.size() < 3 || !(h > 1e-3)) {
    return false;
  }
  switch (vol.roof) {
    case lots::RoofShape::gabled:
      // Along the wings without a mapped direction; one straight ridge otherwise.
      if (std::isfinite(vol.roof_direction_rad) || fp.outer.size() + fp.holes.size() * 4 > 300 ||
          !build_skeleton_gabled(fp, z0, h, roof, wall)) {
        build_gabled(fp, z0, h, vol.roof_direction_rad, roof, wall);
      }
      return true;
    case lots::RoofShape::skillion:
      build_skillion(fp, z0, h, vol.roof_direction_rad, roof, wall);
      return true;
    case lots::RoofShape::pyramidal:
      if (build_pyramid(fp, z0, h, roof)) {
        return true;
      }
      break;
    case lots::RoofShape::dome:
      if (build_dome(fp, z0, h, roof)) {
        return true;
      }
      break;
    case lots::RoofShape::hipped:
    case lots::RoofShape::flat:
      break;
  }
  // Hipped, and pyramids and domes over footprints that are not star-shaped.
  if (build_hipped(fp, z0, h, roof)) {
    return true;
  }
  return build_pyramid(fp, z0, h, roof);
}

}  // namespace cityforge::buildings::detail
