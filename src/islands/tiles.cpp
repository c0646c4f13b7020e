// SPDX-License-Identifier: Apache-2.0
// The built-in island tile set (seeds/003, 12:05-19:40, docs/islands.md "Tiles"): base tiles
// defined by corner states and decorations, turned into variants, meshed procedurally, and
// matched by edge profiles hashed from the meshes' cross-sections on the cell faces.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "cityforge/core/assert.hpp"
#include "cityforge/core/format.hpp"
#include "cityforge/islands/island.hpp"
#include "cityforge/islands/kit.hpp"

namespace cityforge::islands {
namespace {

// Every tile samples the unit square on the same breakpoints, so the vertices on a shared side
// face coincide for any two tiles whose profiles match (no T-junctions when welding): the
// floor's inset ring (0.08), the path strip and the steps (0.3 .. 0.7) and the quadrants (0.5).
constexpr std::array<double, 7> kBreaks = {0.0, 0.08, 0.3, 0.5, 0.7, 0.92, 1.0};
constexpr double kSeabedW = -0.5;  // Beaches dip to here at a sea corner.
constexpr double kStripLo = 0.3;   // Path strip and stairs' steps span kStripLo .. kStripHi.
constexpr double kStripHi = 0.7;
constexpr double kInset = 0.08;  // Houses stand this far in from their free sides.
constexpr double kEavesW = 0.6;
constexpr double kRoofTopW = 0.95;
constexpr std::array<double, 4> kWallLevels = {0.0, 1.0 / 3.0, 2.0 / 3.0, 1.0};

// A base tile before turning, in its own frame.
struct Shape {
  std::string name;
  TileKind kind = TileKind::ground;
  bool ground_level = false;
  std::array<std::uint8_t, 4> corners{};
  std::uint8_t exits = 0;
  bool landing = false;  // The floor above a flight of stairs (its high side at slot 0).
  double weight = 1.0;
};

// Builds a UnitMesh with vertices deduplicated on a 1e-6 lattice.
class UnitBuilder {
 public:
  std::uint16_t vertex(double u, double v, double w) {
    const std::array<long long, 3> key = {std::llround(u * 1e6), std::llround(v * 1e6),
                                          std::llround(w * 1e6)};
    const auto [it, inserted] =
        m_index.try_emplace(key, static_cast<std::uint16_t>(m_mesh.vertices.size()));
    if (inserted) m_mesh.vertices.push_back({u, v, w});
    return it->second;
  }
  void tri(Vec3 a, Vec3 b, Vec3 c, Material m) {
    m_mesh.triangles.push_back(
        {{vertex(a.x, a.y, a.z), vertex(b.x, b.y, b.z), vertex(c.x, c.y, c.z)}, m});
  }
  // a, b, c, d counter-clockwise seen from outside.
  void quad(Vec3 a, Vec3 b, Vec3 c, Vec3 d, Material m) {
    tri(a, b, c, m);
    tri(a, c, d, m);
  }
  void hard(Vec3 a, Vec3 b) {
    std::uint16_t i = vertex(a.x, a.y, a.z), j = vertex(b.x, b.y, b.z);
    if (i > j) std::swap(i, j);
    m_mesh.hard_edges.push_back({i, j});
  }
  UnitMesh finish() {
    std::sort(m_mesh.hard_edges.begin(), m_mesh.hard_edges.end());
    m_mesh.hard_edges.erase(std::unique(m_mesh.hard_edges.begin(), m_mesh.hard_edges.end()),
                            m_mesh.hard_edges.end());
    return std::move(m_mesh);
  }

 private:
  UnitMesh m_mesh;
  std::map<std::array<long long, 3>, std::uint16_t> m_index;
};

int quadrant_of(double u, double v) {
  if (v < 0.5) return u < 0.5 ? 0 : 1;
  return u < 0.5 ? 3 : 2;
}

// Beach height at a quadrant-square corner (u, v in {0, 0.5, 1}) of a ground-level tile.
double beach_point(const std::array<std::uint8_t, 4>& c, double u, double v) {
  const auto land = [&](int k) { return c[static_cast<std::size_t>(k & 3)] != kCornerEmpty; };
  const bool ue = u == 0.0 || u == 1.0, ve = v == 0.0 || v == 1.0;
  if (ue && ve) {
    const int k = v == 0.0 ? (u == 0.0 ? 0 : 1) : (u == 0.0 ? 3 : 2);
    return land(k) ? 0.0 : kSeabedW;
  }
  if (!ue && !ve) return land(0) || land(1) || land(2) || land(3) ? 0.0 : kSeabedW;
  const int side = v == 0.0 ? 0 : u == 1.0 ? 1 : v == 1.0 ? 2 : 3;
  return land(side) || land(side + 1) ? 0.0 : kSeabedW;
}

// Ground height at (u, v) inside quadrant q: 0 on floor, bilinear beach on a sea quadrant.
double ground_w(const std::array<std::uint8_t, 4>& c, int q, double u, double v) {
  if (c[static_cast<std::size_t>(q)] != kCornerEmpty) return 0.0;
  const double u0 = q == 0 || q == 3 ? 0.0 : 0.5, v0 = q < 2 ? 0.0 : 0.5;
  const double a = (u - u0) / 0.5, b = (v - v0) / 0.5;
  const double h00 = beach_point(c, u0, v0), h10 = beach_point(c, u0 + 0.5, v0);
  const double h11 = beach_point(c, u0 + 0.5, v0 + 0.5), h01 = beach_point(c, u0, v0 + 0.5);
  return (1 - a) * (1 - b) * h00 + a * (1 - b) * h10 + a * b * h11 + (1 - a) * b * h01;
}

bool in_strip(double x) { return x > kStripLo && x < kStripHi; }

// The path strips: the middle square and one strip per exit.
bool on_path(std::uint8_t exits, double u, double v) {
  if (in_strip(u) && in_strip(v)) return true;
  if ((exits & 1U) && in_strip(u) && v < kStripLo) return true;
  if ((exits & 2U) && in_strip(v) && u > kStripHi) return true;
  if ((exits & 4U) && in_strip(u) && v > kStripHi) return true;
  if ((exits & 8U) && in_strip(v) && u < kStripLo) return true;
  return false;
}

// A vertical wall through the unit points p0 -> p1, split at `levels`, facing the right of
// p0 -> p1 turned towards `toward`.
void wall(UnitBuilder& b, Vec2 p0, Vec2 p1, Vec2 toward, const std::vector<double>& levels,
          Material m, bool hard_top, bool hard_bottom) {
  const Vec2 d = p1 - p0;
  const Vec2 right{d.y, -d.x};
  if (dot(right, toward - p0) < 0) std::swap(p0, p1);
  for (std::size_t i = 0; i + 1 < levels.size(); ++i) {
    const double w0 = levels[i], w1 = levels[i + 1];
    b.quad({p0.x, p0.y, w0}, {p1.x, p1.y, w0}, {p1.x, p1.y, w1}, {p0.x, p0.y, w1}, m);
  }
  if (hard_top) b.hard({p0.x, p0.y, levels.back()}, {p1.x, p1.y, levels.back()});
  if (hard_bottom) b.hard({p0.x, p0.y, levels.front()}, {p1.x, p1.y, levels.front()});
}

// Breakpoints strictly between a and b (either order), with a and b, from a to b.
std::vector<double> breaks_between(double a, double b) {
  std::vector<double> out = {a};
  for (const double x : kBreaks) {
    if (x > std::min(a, b) + 1e-9 && x < std::max(a, b) - 1e-9) out.push_back(x);
  }
  if (a > b) std::reverse(out.begin() + 1, out.end());
  out.push_back(b);
  return out;
}

// Corner states with all four cells of the (base-frame) shape, meshed: floor over floor
// quadrants (sand beaches sloping to the sea bed on sea quadrants at ground level), cliff walls
// between solid and open quadrants, and the decorations of stairs, paths, landings and houses.
UnitMesh mesh_shape(const Shape& s) {
  UnitBuilder b;
  const auto& c = s.corners;
  const Material floor_mat = s.ground_level ? Material::sand : Material::grass;
  const bool stairs = s.kind == TileKind::stairs;
  const bool house = s.kind == TileKind::house;
  // House footprint: flush on joined sides, inset on free ones.
  const double hu0 = (s.exits & 8U) ? 0.0 : kInset, hu1 = (s.exits & 2U) ? 1.0 : 1.0 - kInset;
  const double hv0 = (s.exits & 1U) ? 0.0 : kInset, hv1 = (s.exits & 4U) ? 1.0 : 1.0 - kInset;
  const auto in_house = [&](double u, double v) {
    return house && u > hu0 && u < hu1 && v > hv0 && v < hv1;
  };
  // 1. Floor quads on the breakpoint lattice.
  for (std::size_t i = 0; i + 1 < kBreaks.size(); ++i) {
    for (std::size_t j = 0; j + 1 < kBreaks.size(); ++j) {
      const double u0 = kBreaks[i], u1 = kBreaks[i + 1], v0 = kBreaks[j], v1 = kBreaks[j + 1];
      const double uc = (u0 + u1) / 2, vc = (v0 + v1) / 2;
      const int q = quadrant_of(uc, vc);
      const std::uint8_t st = c[static_cast<std::size_t>(q)];
      if (st == kCornerSolid) continue;
      if (st == kCornerEmpty && !s.ground_level) continue;
      if (in_house(uc, vc)) continue;
      if (stairs && in_strip(uc) && vc > 0.5 && vc < 1.0 - kInset) continue;  // Steps.
      const double w00 = ground_w(c, q, u0, v0), w10 = ground_w(c, q, u1, v0);
      const double w11 = ground_w(c, q, u1, v1), w01 = ground_w(c, q, u0, v1);
      if (std::max({w00, w10, w11, w01}) <= kSeabedW + 1e-9) continue;  // Sea bed under the water.
      Material m = floor_mat;
      if (s.kind == TileKind::path && on_path(s.exits, uc, vc)) m = Material::path;
      if (stairs && in_strip(uc)) m = Material::path;
      if (s.landing && in_strip(uc)) m = Material::path;
      b.quad({u0, v0, w00}, {u1, v0, w10}, {u1, v1, w11}, {u0, v1, w01}, m);
    }
  }
  // 2. Cliff walls on the half-segments (side midpoint -> centre) between a solid quadrant
  // and an open one, facing the open one; hard at the rim and foot, and where walls turn.
  const std::array<Vec2, 4> corner_at = {Vec2{0, 0}, Vec2{1, 0}, Vec2{1, 1}, Vec2{0, 1}};
  bool along_u = false, along_v = false;
  for (std::size_t k = 0; k < 4; ++k) {
    const std::size_t k1 = (k + 1) & 3U;
    if ((c[k] == kCornerSolid) == (c[k1] == kCornerSolid)) continue;
    const Vec2 mid = (corner_at[k] + corner_at[k1]) * 0.5;
    const Vec2 open = c[k] == kCornerSolid ? corner_at[k1] : corner_at[k];
    (k % 2 == 0 ? along_v : along_u) = true;
    const bool horizontal = mid.y == 0.5;  // The segment runs along u.
    const std::vector<double> xs = breaks_between(horizontal ? mid.x : mid.y, 0.5);
    for (std::size_t i = 0; i + 1 < xs.size(); ++i) {
      const Vec2 p0 = horizontal ? Vec2{xs[i], 0.5} : Vec2{0.5, xs[i]};
      const Vec2 p1 = horizontal ? Vec2{xs[i + 1], 0.5} : Vec2{0.5, xs[i + 1]};
      std::vector<double> levels(kWallLevels.begin(), kWallLevels.end());
      // Stairs lean on the cliff: only the top riser shows above the last step.
      const bool behind_steps = stairs && in_strip((p0.x + p1.x) / 2);
      if (behind_steps) levels = {2.0 / 3.0, 1.0};
      wall(b, p0, p1, open, levels, Material::rock, true, !behind_steps);
    }
  }
  if (along_u && along_v) {
    for (std::size_t i = 0; i + 1 < kWallLevels.size(); ++i)
      b.hard({0.5, 0.5, kWallLevels[i]}, {0.5, 0.5, kWallLevels[i + 1]});
  }
  // 3. Stairs (high side at slot 0): three steps from the low side up to the cliff's rim.
  if (stairs) {
    const double t1 = 1.0 / 3.0, t2 = 2.0 / 3.0;
    for (const auto& [u0, u1] : {std::pair{kStripLo, 0.5}, std::pair{0.5, kStripHi}}) {
      b.quad({u0, 0.7, t1}, {u1, 0.7, t1}, {u1, 0.92, t1}, {u0, 0.92, t1}, Material::path);
      b.quad({u0, 0.5, t2}, {u1, 0.5, t2}, {u1, 0.7, t2}, {u0, 0.7, t2}, Material::path);
      wall(b, {u0, 0.92}, {u1, 0.92}, {0.5, 1.0}, {0.0, t1}, Material::path, false, false);
      wall(b, {u0, 0.7}, {u1, 0.7}, {0.5, 1.0}, {t1, t2}, Material::path, false, false);
    }
    for (const auto& [x, out] : {std::pair{kStripLo, 0.0}, std::pair{kStripHi, 1.0}}) {
      wall(b, {x, 0.5}, {x, 0.7}, {out, 0.6}, {0.0, t1, t2}, Material::rock, false, false);
      wall(b, {x, 0.7}, {x, 0.92}, {out, 0.8}, {0.0, t1}, Material::rock, false, false);
    }
  }
  // 4. Houses: walls on free sides up to the eaves, a hipped roof that runs on across joins.
  if (house) {
    const double k_slope = (kRoofTopW - kEavesW) / (0.5 - kInset);
    const auto roof_w = [&](double u, double v) {
      double d = 1e9;
      if (!(s.exits & 8U)) d = std::min(d, u - hu0);
      if (!(s.exits & 2U)) d = std::min(d, hu1 - u);
      if (!(s.exits & 1U)) d = std::min(d, v - hv0);
      if (!(s.exits & 4U)) d = std::min(d, hv1 - v);
      return std::min(kRoofTopW, kEavesW + k_slope * d);
    };
    const std::vector<double> us = breaks_between(hu0, hu1), vs = breaks_between(hv0, hv1);
    for (std::size_t i = 0; i + 1 < us.size(); ++i) {
      for (std::size_t j = 0; j + 1 < vs.size(); ++j) {
        const std::array<Vec2, 4> p = {Vec2{us[i], vs[j]}, Vec2{us[i + 1], vs[j]},
                                       Vec2{us[i + 1], vs[j + 1]}, Vec2{us[i], vs[j + 1]}};
        const Vec2 m = (p[0] + p[2]) * 0.5;
        const Vec3 mid{m.x, m.y, roof_w(m.x, m.y)};
        for (std::size_t e = 0; e < 4; ++e) {
          const Vec2 a = p[e], q = p[(e + 1) & 3U];
          b.tri({a.x, a.y, roof_w(a.x, a.y)}, {q.x, q.y, roof_w(q.x, q.y)}, mid, Material::roof);
        }
      }
    }
    const std::array<Vec2, 4> fp = {Vec2{hu0, hv0}, Vec2{hu1, hv0}, Vec2{hu1, hv1}, Vec2{hu0, hv1}};
    for (std::size_t k = 0; k < 4; ++k) {
      if (s.exits & (1U << k)) continue;
      const Vec2 a = fp[k], q = fp[(k + 1) & 3U];
      const Vec2 outward = (a + q) * 0.5 + Vec2{(q - a).y, -(q - a).x};
      const bool along = a.y == q.y;
      const std::vector<double> xs = breaks_between(along ? a.x : a.y, along ? q.x : q.y);
      for (std::size_t i = 0; i + 1 < xs.size(); ++i) {
        const Vec2 p0 = along ? Vec2{xs[i], a.y} : Vec2{a.x, xs[i]};
        const Vec2 p1 = along ? Vec2{xs[i + 1], a.y} : Vec2{a.x, xs[i + 1]};
        wall(b, p0, p1, outward, {0.0, kEavesW}, Material::wall, true, false);
      }
      // A wall corner where this free side meets the next free one.
      if (!(s.exits & (1U << ((k + 1) & 3U)))) b.hard({q.x, q.y, 0.0}, {q.x, q.y, kEavesW});
    }
  }
  return b.finish();
}

// Turns a unit point r quarter turns counter-clockwise about the cell's centre: the base
// tile's corner k lands on slot corner k + r, so slot k reads the base side k - r.
Vec3 turn(Vec3 p, std::uint32_t r) {
  for (std::uint32_t i = 0; i < r; ++i)
    p = {1.0 - p.y, p.x, p.z};
  return p;
}

// Face coordinate of a unit point on side face k (s from corner k to corner k + 1).
bool on_face(const Vec3& p, std::uint32_t k, double& s) {
  constexpr double kEps = 1e-9;
  switch (k) {
    case 0:
      s = p.x;
      return std::abs(p.y) < kEps;
    case 1:
      s = p.y;
      return std::abs(p.x - 1.0) < kEps;
    case 2:
      s = 1.0 - p.x;
      return std::abs(p.y - 1.0) < kEps;
    default:
      s = 1.0 - p.y;
      return std::abs(p.x) < kEps;
  }
}

// One piece of a face's cross-section on a 1e-3 lattice: a mesh edge lying in the face, with
// the material of its triangle (kind 0), or the solid rectangle of a solid quadrant (kind 1).
using Token = std::array<std::int64_t, 6>;  // s0, w0, s1, w1, material, kind.

std::int64_t milli(double x) { return std::llround(x * 1000.0); }

Token ordered(Token t) {
  if (t[5] == 1) {  // A rectangle: (min corner, max corner).
    const auto s0 = std::min(t[0], t[2]), s1 = std::max(t[0], t[2]);
    const auto w0 = std::min(t[1], t[3]), w1 = std::max(t[1], t[3]);
    return {s0, w0, s1, w1, t[4], t[5]};
  }
  if (std::tie(t[2], t[3]) < std::tie(t[0], t[1])) {
    std::swap(t[0], t[2]);
    std::swap(t[1], t[3]);
  }
  return t;
}

// The cross-section of a tile on side face k: its mesh edges in the face (sea-bed edges left
// out: the sea is open there, as on the water tile's faces) and its solid quadrant halves.
std::vector<Token> face_tokens(const UnitMesh& mesh, const std::array<std::uint8_t, 4>& corners,
                               std::uint32_t k) {
  std::vector<Token> out;
  for (const UnitMesh::Triangle& t : mesh.triangles) {
    for (std::size_t e = 0; e < 3; ++e) {
      const Vec3& a = mesh.vertices[t.v[e]];
      const Vec3& b = mesh.vertices[t.v[(e + 1) % 3]];
      double sa = 0, sb = 0;
      if (!on_face(a, k, sa) || !on_face(b, k, sb)) continue;
      if (a.z <= kSeabedW + 1e-9 && b.z <= kSeabedW + 1e-9) continue;
      out.push_back(ordered({milli(sa), milli(a.z), milli(sb), milli(b.z),
                             static_cast<std::int64_t>(t.material), 0}));
    }
  }
  if (corners[k] == kCornerSolid) out.push_back({0, 0, 500, 1000, 0, 1});
  if (corners[(k + 1) & 3U] == kCornerSolid) out.push_back({500, 0, 1000, 1000, 0, 1});
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::vector<Token> mirrored(std::vector<Token> tokens) {
  for (Token& t : tokens) {
    t[0] = 1000 - t[0];
    t[2] = 1000 - t[2];
    t = ordered(t);
  }
  std::sort(tokens.begin(), tokens.end());
  return tokens;
}

std::uint64_t hash_tokens(const std::vector<Token>& tokens) {
  std::uint64_t h = hash_string("islands.face");
  for (const Token& t : tokens) {
    for (const std::int64_t x : t)
      h = hash_combine(h, static_cast<std::uint64_t>(x));
  }
  return h;
}

// Top or bottom face: which quadrants show ground there, and the stairs' landing mark.
std::uint64_t layer_face(std::uint32_t quadrant_bits, std::uint32_t mark) {
  return hash_combine(hash_combine(hash_string("islands.layer_face"), quadrant_bits), mark);
}
std::uint64_t seabed_face() { return hash_string("islands.seabed"); }
std::uint64_t empty_tile_face() { return hash_string("islands.empty_tile"); }

// Default weights (docs/islands.md), per variant: flat land far the most common (a land mass
// in WFC starts as a lone corner of ground and only grows when its neighbours prefer to go on
// flat rather than fall back to sea), solid rock and open sea or air common, straight cliffs
// and inner corners rare, lone outer corners, three-state corners and saddles rarer still.
double ground_weight(const std::array<std::uint8_t, 4>& c) {
  std::uint32_t changes = 0;
  std::set<std::uint8_t> states(c.begin(), c.end());
  for (std::size_t k = 0; k < 4; ++k)
    changes += c[k] != c[(k + 1) & 3U] ? 1U : 0U;
  if (changes == 0) return c[0] == kCornerSolid ? 30.0 : 300.0;
  if (changes == 4 && states.size() == 2) return 0.02;  // Saddle.
  if (states.size() == 3) return 0.08;
  const auto high = static_cast<std::size_t>(
      std::count(c.begin(), c.end(), *std::max_element(c.begin(), c.end())));
  if (high == 1) return 0.4;  // Outer corner.
  if (high == 3) return 4.0;  // Inner corner.
  return 3.0;                 // Straight edge.
}

std::vector<Shape> base_shapes() {
  std::vector<Shape> out;
  out.push_back({.name = "water", .kind = TileKind::water, .ground_level = true, .weight = 20.0});
  out.push_back({.name = "air", .kind = TileKind::air, .weight = 20.0});
  for (const bool level0 : {true, false}) {
    for (std::uint32_t code = 1; code < 81; ++code) {
      std::array<std::uint8_t, 4> c{};
      for (std::uint32_t k = 0, x = code; k < 4; ++k, x /= 3)
        c[k] = static_cast<std::uint8_t>(x % 3);
      // One base per class of turns: the turn with the smallest code.
      bool smallest = true;
      for (std::uint32_t r = 1; r < 4; ++r) {
        std::uint32_t rc = 0;
        for (std::uint32_t k = 4; k-- > 0;)
          rc = rc * 3 + c[(k - r) & 3U];
        smallest = smallest && rc >= code;
      }
      if (!smallest) continue;
      // Two solid quadrants touching only at the centre would share their wall edges four
      // ways (a non-manifold mesh): such diagonal solid saddles are left out of the set.
      const auto solid = [&](std::size_t k) { return c[k] == kCornerSolid; };
      // Above layer 0 the same goes for diagonal ground: it could only stand on such a saddle.
      const auto ground = [&](std::size_t k) { return c[k] != kCornerEmpty; };
      const auto diagonal = [](auto&& f) { return f(0) == f(2) && f(1) == f(3) && f(0) != f(1); };
      if (diagonal(solid) && (solid(0) ? !solid(1) : !solid(0))) continue;
      if (!level0 && diagonal(ground)) continue;
      std::string name = level0 ? "ground0_" : "ground_";
      for (const std::uint8_t s : c)
        name += static_cast<char>('0' + s);
      out.push_back({.name = name,
                     .kind = TileKind::ground,
                     .ground_level = level0,
                     .corners = c,
                     .weight = ground_weight(c)});
    }
  }
  for (const bool level0 : {true, false}) {
    out.push_back({.name = level0 ? "stairs0" : "stairs",
                   .kind = TileKind::stairs,
                   .ground_level = level0,
                   .corners = {2, 2, 1, 1},
                   .exits = 0b0101,
                   .weight = 1.0});
  }
  out.push_back({.name = "landing",
                 .kind = TileKind::ground,
                 .corners = {1, 1, 0, 0},
                 .exits = 0b0001,
                 .landing = true,
                 .weight = 1.0});
  const std::array<std::pair<const char*, std::uint8_t>, 6> masks = {
      std::pair{"0", 0b0000}, {"1", 0b0001}, {"2a", 0b0011},
      {"2o", 0b0101},         {"3", 0b0111}, {"4", 0b1111}};
  for (const bool level0 : {true, false}) {
    for (std::size_t i = 1; i < masks.size(); ++i) {
      out.push_back({.name = std::string(level0 ? "path0_" : "path_") + masks[i].first,
                     .kind = TileKind::path,
                     .ground_level = level0,
                     .corners = {1, 1, 1, 1},
                     .exits = masks[i].second,
                     .weight = 1.0});
    }
  }
  for (const auto& [suffix, mask] : masks) {
    out.push_back({.name = std::string("house_") + suffix,
                   .kind = TileKind::house,
                   .corners = {1, 1, 1, 1},
                   .exits = mask,
                   .weight = 1.0});
  }
  return out;
}

std::uint8_t turn_bits(std::uint8_t bits, std::uint32_t r) {
  return static_cast<std::uint8_t>(((bits << r) | (bits >> (4 - r))) & 0xFU);
}

// The probe points of the corner checks: 0.04 in from each corner (inside a floor's inset ring).
constexpr std::array<Vec2, 4> kCornerProbe = {Vec2{0.04, 0.04}, Vec2{0.96, 0.04}, Vec2{0.96, 0.96},
                                              Vec2{0.04, 0.96}};

// Heights w of the up-facing triangles of `mesh` over the unit point p.
std::vector<double> up_hits(const UnitMesh& mesh, Vec2 p) {
  std::vector<double> out;
  for (const UnitMesh::Triangle& t : mesh.triangles) {
    const Vec3& a = mesh.vertices[t.v[0]];
    const Vec3& b = mesh.vertices[t.v[1]];
    const Vec3& c = mesh.vertices[t.v[2]];
    const double det = (b.x - a.x) * (c.y - a.y) - (c.x - a.x) * (b.y - a.y);
    if (det <= 1e-12) continue;  // Faces down or stands vertical.
    const double l1 = ((p.x - a.x) * (c.y - a.y) - (c.x - a.x) * (p.y - a.y)) / det;
    const double l2 = ((b.x - a.x) * (p.y - a.y) - (p.x - a.x) * (b.y - a.y)) / det;
    if (l1 < -1e-9 || l2 < -1e-9 || l1 + l2 > 1 + 1e-9) continue;
    out.push_back(a.z + l1 * (b.z - a.z) + l2 * (c.z - a.z));
  }
  // A probe on an edge meets both triangles: one height per surface.
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end(), [](double x, double y) { return y - x < 1e-6; }),
            out.end());
  return out;
}

const char* corner_state_name(std::uint8_t s) {
  return s == kCornerEmpty ? "empty" : s == kCornerFloor ? "floor" : "solid";
}

// What the mesh shows over corner k, against what the tile declares there; "" when they agree.
std::string corner_problem(const KitTile& t, std::uint32_t k) {
  const Vec2 p = kCornerProbe[k];
  const std::vector<double> hits = up_hits(t.mesh, p);
  const std::uint8_t st = t.corners[k];
  std::string seen = "no ground";
  if (!hits.empty()) {
    seen = "ground at w =";
    for (const double w : hits)
      append_printf(seen, " %.3f", w);
  }
  bool ok = true;
  for (const double w : hits) {
    if (st == kCornerSolid) ok = ok && w >= 1.0 - 1e-3;
    if (st == kCornerEmpty) ok = ok && t.ground_level && w < -1e-3;
  }
  if (st == kCornerFloor) {
    ok = std::any_of(hits.begin(), hits.end(), [](double w) { return w >= -1e-3 && w < 1.0; });
  }
  if (ok) return {};
  std::string out;
  append_printf(out,
                "tile '%s' corner %u: declared %s, but the mesh shows %s over (u %.2f, v %.2f)",
                t.name.c_str(), k, corner_state_name(st), seen.c_str(), p.x, p.y);
  return out;
}

// A face's cross-section in words, for reports: "edge s 0.300-0.500 at w 0.000-0.000 grass".
std::string describe_tokens(const std::vector<Token>& tokens) {
  if (tokens.empty()) return "nothing (open)";
  std::string out;
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    if (i == 10) {
      append_printf(out, "; ... %zu more", tokens.size() - i);
      break;
    }
    const Token& t = tokens[i];
    if (i > 0) out += "; ";
    if (t[5] == 1) {
      append_printf(out, "solid s %.3f-%.3f", static_cast<double>(t[0]) / 1000.0,
                    static_cast<double>(t[2]) / 1000.0);
    } else {
      append_printf(out, "edge (s %.3f, w %.3f)-(s %.3f, w %.3f) %s",
                    static_cast<double>(t[0]) / 1000.0, static_cast<double>(t[1]) / 1000.0,
                    static_cast<double>(t[2]) / 1000.0, static_cast<double>(t[3]) / 1000.0,
                    material_name(static_cast<Material>(t[4])));
    }
  }
  return out;
}

// The checks that need no profiles: names, kinds, coordinates, corner states. False when some
// tile's vertices lie outside its cell, so that no profile can be sampled from it.
bool check_tiles(const std::vector<KitTile>& kit, std::vector<std::string>& problems) {
  bool sampled = true;
  std::set<std::string> names;
  bool water = false, air = false;
  for (const KitTile& t : kit) {
    if (t.name.empty()) problems.push_back("a tile has no name");
    if (!names.insert(t.name).second) problems.push_back("tile '" + t.name + "' is named twice");
    if (t.kind == TileKind::empty) {
      problems.push_back("tile '" + t.name + "': kind empty is implied, not a kit tile");
    }
    water = water || (t.kind == TileKind::water && t.ground_level);
    air = air || (t.kind == TileKind::air && !t.ground_level);
    if (!(t.weight > 0.0) || !std::isfinite(t.weight)) {
      problems.push_back("tile '" + t.name + "': its weight must be a number > 0");
    }
    if (t.kind == TileKind::stairs && t.corners != std::array<std::uint8_t, 4>{2, 2, 1, 1}) {
      problems.push_back("tile '" + t.name +
                         "': stairs climb to side 0, so their corners must be 2211");
    }
    bool inside = true;
    for (const Vec3& v : t.mesh.vertices) {
      const bool in = v.x >= -1e-4 && v.x <= 1 + 1e-4 && v.y >= -1e-4 && v.y <= 1 + 1e-4 &&
                      v.z >= -1.0 && v.z <= 2.0;
      if (!in && inside) {
        std::string m;
        append_printf(m,
                      "tile '%s': vertex (u %.4f, v %.4f, w %.4f) lies outside its cell "
                      "(u, v in 0..1, w in -1..2; were the object's transforms applied?)",
                      t.name.c_str(), v.x, v.y, v.z);
        problems.push_back(m);
      }
      inside = inside && in;
    }
    sampled = sampled && inside;
    if (!inside) continue;
    const bool open = t.kind == TileKind::water || t.kind == TileKind::air;
    for (std::uint32_t k = 0; k < 4 && !open; ++k) {
      if (std::string m = corner_problem(t, k); !m.empty()) problems.push_back(m);
    }
  }
  if (!water) problems.push_back("the kit has no ground-level water tile (open sea)");
  if (!air) problems.push_back("the kit has no air tile above ground level");
  return sampled;
}

// Sorted, rounded vertices: a turn whose mesh lands on the same points changes nothing.
std::vector<std::array<std::int64_t, 3>> vertex_set(const UnitMesh& mesh) {
  std::vector<std::array<std::int64_t, 3>> out;
  out.reserve(mesh.vertices.size());
  for (const Vec3& p : mesh.vertices)
    out.push_back({std::llround(p.x * 1e4), std::llround(p.y * 1e4), std::llround(p.z * 1e4)});
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

std::vector<KitTile> builtin_kit() {
  std::vector<KitTile> kit;
  for (const Shape& s : base_shapes()) {
    kit.push_back({.name = s.name,
                   .kind = s.kind,
                   .ground_level = s.ground_level,
                   .corners = s.corners,
                   .exits = s.exits,
                   .landing = s.landing,
                   .weight = s.weight,
                   .mesh = mesh_shape(s)});
  }
  return kit;
}

Result<TileSet> build_tile_set() {
  // The built-in kit goes through the same sampling and checks as a kit read from a file;
  // tests show that its glb (write_kit_glb, `cityforge island --write-kit`) reads back to the
  // same tile set. Going through the glb on every run would cost ~10 ms and round the tiles'
  // coordinates to float32 for nothing.
  return tile_set_from_kit(builtin_kit(), "built-in kit");
}

Result<TileSet> tile_set_from_kit(const std::vector<KitTile>& kit, const std::string& file) {
  const std::string& where = file;
  std::vector<std::string> problems;
  const auto report = [&]() {
    std::string msg = std::to_string(problems.size()) +
                      (problems.size() == 1 ? " problem" : " problems") + " in the tile kit:";
    for (std::size_t i = 0; i < problems.size() && i < 40; ++i)
      msg += "\n  " + problems[i];
    if (problems.size() > 40) msg += "\n  ...";
    return Error::invalid_input(where, msg);
  };
  if (!check_tiles(kit, problems)) return report();
  TileSet set;
  wfc::Model& model = set.model;
  model.name = "islands";
  model.label_count = kGridLabelCount;
  model.opposite = grid_opposite_labels();
  // 1. Variants: Empty (implied: outside the grid), then every kit tile in its distinct
  // turns, meshed and profiled.
  {
    TileInfo info;
    info.name = "empty";
    info.kind = TileKind::empty;
    info.side_profile.fill(empty_tile_face());
    info.side_profile_mirrored.fill(empty_tile_face());
    info.up_profile = info.down_profile = empty_tile_face();
    model.base_names.push_back(info.name);
    model.empty = 0;
    model.tiles.push_back({.name = info.name, .base = 0, .rotation = 0, .weight = 1.0});
    set.info.push_back(std::move(info));
    set.meshes.emplace_back();
  }
  set.base_count = static_cast<std::uint32_t>(kit.size()) + 1;
  std::vector<std::array<std::vector<Token>, 4>> tokens_of(1);  // Per variant, for reports.
  for (std::uint32_t i = 0; i < kit.size(); ++i) {
    const KitTile& s = kit[i];
    const auto base = i + 1;
    model.base_names.push_back(s.name);
    using TurnKey = std::tuple<std::array<std::uint8_t, 4>, std::uint8_t, std::uint8_t,
                               std::vector<std::array<std::int64_t, 3>>>;
    std::set<TurnKey> seen;
    const bool turned_high = s.kind == TileKind::stairs || s.landing;
    for (std::uint32_t r = 0; r < 4; ++r) {
      TileInfo info;
      info.name = r == 0 ? s.name : s.name + "#r" + std::to_string(r);
      info.base = base;
      info.kind = s.kind;
      info.rotation = static_cast<std::uint8_t>(r);
      info.ground_level = s.ground_level;
      for (std::uint32_t k = 0; k < 4; ++k)
        info.corners[k] = s.corners[(k - r) & 3U];
      info.exits = turn_bits(s.exits, r);
      info.stair_high_slot = turned_high ? static_cast<std::uint8_t>(r) : 0;
      UnitMesh mesh = s.mesh;
      for (Vec3& p : mesh.vertices)
        p = turn(p, r);
      if (!seen.insert({info.corners, info.exits, info.stair_high_slot, vertex_set(mesh)}).second) {
        continue;
      }
      const bool flat = std::all_of(info.corners.begin(), info.corners.end(),
                                    [](std::uint8_t x) { return x == kCornerFloor; });
      info.navigable = s.kind == TileKind::stairs ||
                       (flat && (s.kind == TileKind::ground || s.kind == TileKind::path));
      // Profiles: side faces from the cross-sections, top and bottom from the quadrants.
      std::array<std::vector<Token>, 4> tokens;
      for (std::uint32_t k = 0; k < 4; ++k) {
        tokens[k] = face_tokens(mesh, info.corners, k);
        info.side_profile[k] = hash_tokens(tokens[k]);
        info.side_profile_mirrored[k] = hash_tokens(mirrored(tokens[k]));
      }
      std::uint32_t solid = 0, ground = 0;
      for (std::uint32_t k = 0; k < 4; ++k) {
        if (info.corners[k] == kCornerSolid) solid |= 1U << k;
        if (info.corners[k] != kCornerEmpty) ground |= 1U << k;
      }
      // A house's roof stays below the ceiling, so its top face is open.
      info.up_profile = layer_face(solid, s.kind == TileKind::stairs ? 1U + r : 0U);
      info.down_profile =
          s.ground_level ? seabed_face() : layer_face(ground, s.landing ? 1U + r : 0U);
      wfc::TileVariant v;
      v.name = info.name;
      v.base = base;
      v.rotation = static_cast<std::uint8_t>(r);
      v.weight = s.weight;
      model.tiles.push_back(std::move(v));
      set.info.push_back(std::move(info));
      set.meshes.push_back(std::move(mesh));
      tokens_of.push_back(std::move(tokens));
    }
  }
  // A side that no side of any tile can face would rule its tile out wherever that side is
  // inside the grid: the kit's shapes do not meet there (a wall or floor off by a little).
  {
    std::set<std::uint64_t> facing;
    for (const TileInfo& t : set.info) {
      facing.insert(t.side_profile_mirrored.begin(), t.side_profile_mirrored.end());
    }
    std::set<std::pair<std::uint32_t, std::uint32_t>> reported;  // (base, base side)
    for (std::size_t t = 1; t < set.info.size(); ++t) {
      const TileInfo& ti = set.info[t];
      for (std::uint32_t k = 0; k < 4; ++k) {
        if (facing.contains(ti.side_profile[k])) continue;
        const std::uint32_t base_side = (k - ti.rotation) & 3U;
        if (!reported.insert({ti.base, base_side}).second) continue;
        problems.push_back(
            "tile '" + kit[ti.base - 1].name + "' side " + std::to_string(base_side) +
            ": no tile's side can face it; sampled profile (s from corner " +
            std::to_string(base_side) + " to corner " + std::to_string((base_side + 1) & 3U) +
            "): " + describe_tokens(tokens_of[t][k]));
      }
    }
  }
  if (!problems.empty()) return report();
  // 2. Constraints, generated in sorted order (key, label, adjacent) so finalizing is cheap:
  // equal profiles between tiles; Empty (outside the grid, tile 0) by explicit rules: beside
  // water and air (their side faces are empty), above tiles with an open top (it sits over the top
  // layer), below ground-level tiles (under layer 0), and next to itself on every label.
  const auto n = static_cast<wfc::TileId>(set.info.size());
  const wfc::TileId e = model.empty;
  CF_ASSERT(e == 0, "Empty is the first tile");
  const std::uint64_t open_top = layer_face(0, 0);
  // Only open sea and sky touch the outline, so an island never reaches the grid's rim.
  const auto open_kind = [](const TileInfo& t) {
    return t.kind == TileKind::water || t.kind == TileKind::air;
  };
  std::set<std::uint64_t> profiles;
  std::map<std::pair<std::uint32_t, std::uint64_t>, std::vector<wfc::TileId>> by_mirrored;
  std::map<std::uint64_t, std::vector<wfc::TileId>> by_down, by_up;
  std::array<std::vector<wfc::TileId>, 4> open_side;
  std::vector<wfc::TileId> ground_level, open_topped;
  for (wfc::TileId b = 1; b < n; ++b) {
    const TileInfo& ib = set.info[b];
    for (std::uint32_t j = 0; j < 4; ++j) {
      by_mirrored[{j, ib.side_profile_mirrored[j]}].push_back(b);
      profiles.insert(ib.side_profile[j]);
      if (open_kind(ib)) open_side[j].push_back(b);
    }
    by_down[ib.down_profile].push_back(b);
    by_up[ib.up_profile].push_back(b);
    if (ib.down_profile == seabed_face()) ground_level.push_back(b);
    if (ib.up_profile == open_top) open_topped.push_back(b);
  }
  set.profile_count = static_cast<std::uint32_t>(profiles.size());
  auto& cs = model.constraints;
  const auto add = [&](wfc::TileId a, wfc::Label d, bool with_empty, const auto& map,
                       const auto& key) {
    if (with_empty) cs.push_back({a, d, e});
    if (const auto it = map.find(key); it != map.end()) {
      for (const wfc::TileId b : it->second)
        cs.push_back({a, d, b});
    }
  };
  const auto add_list = [&](wfc::Label d, const std::vector<wfc::TileId>& list) {
    cs.push_back({e, d, e});
    for (const wfc::TileId b : list)
      cs.push_back({e, d, b});
  };
  for (std::uint32_t k = 0; k < 4; ++k) {
    for (std::uint32_t j = 0; j < 4; ++j)
      add_list(side_label(k, j), open_side[j]);
  }
  add_list(kUpLabel, ground_level);
  add_list(kDownLabel, open_topped);
  for (wfc::TileId a = 1; a < n; ++a) {
    const TileInfo& ia = set.info[a];
    for (std::uint32_t k = 0; k < 4; ++k) {
      for (std::uint32_t j = 0; j < 4; ++j) {
        add(a, side_label(k, j), open_kind(ia), by_mirrored, std::pair{j, ia.side_profile[k]});
      }
    }
    add(a, kUpLabel, ia.up_profile == open_top, by_down, ia.up_profile);
    add(a, kDownLabel, ia.down_profile == seabed_face(), by_up, ia.down_profile);
  }
  if (auto st = wfc::finalize_model(model, where); !st) return st.error();
  return set;
}

}  // namespace cityforge::islands
