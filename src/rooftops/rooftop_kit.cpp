// SPDX-License-Identifier: Apache-2.0
// The rooftop kit (seeds/000, 43:10: "only 33 tileable meshes"): a procedural mesh for every
// base tile of data/wfc/rooftop.json and for the post-solve wall props, so the default city
// needs no external art. Tiles are designed in a nominal 3 x 3 x 3 m cell and scaled to the
// configured cell, so neighbouring tiles meet at the cell faces (rails, walls, copings and
// pipes run to x, y = +-cell/2 where they continue into the next cell).

#include <cmath>
#include <functional>
#include <map>
#include <numbers>

#include "cityforge/core/mesh_build.hpp"
#include "cityforge/rooftops/rooftops.hpp"

namespace cityforge::rooftops {
namespace {

using buildings::Material;
using Parts = std::array<Mesh, buildings::kMaterialCount>;

constexpr double kHalf = 1.5;  // Nominal half cell.
constexpr double kTop = 3.0;   // Nominal level height.
constexpr int kRound = 12;     // Segments of round parts.

// Builds in nominal metres, scaling x and y by cell_m / 3 and z by level_m / 3. Every solid
// it emits is closed on its own, so the union of solids is closed (edges pair up).
class Kit {
 public:
  Kit(double cell_m, double level_m) : m_sx(cell_m / 3.0), m_sz(level_m / 3.0) {}

  [[nodiscard]] Vec3 at(Vec3 p) const { return {p.x * m_sx, p.y * m_sx, p.z * m_sz}; }
  Mesh& part(Material m) { return m_parts[static_cast<std::size_t>(m)]; }

  void box(Material m, Vec3 lo, Vec3 hi) { meshing::add_box(part(m), at(lo), at(hi)); }

  // A closed round prism from a to b (any axis) with `n` sides.
  void cylinder(Material m, Vec3 a, Vec3 b, double r, int n = kRound) { cone(m, a, b, r, r, n); }

  // A closed frustum from a (radius ra) to b (radius rb); rb = 0 gives a cone.
  void cone(Material m, Vec3 a, Vec3 b, double ra, double rb, int n = kRound) {
    const Vec3 axis = normalize(b - a);
    Vec3 e1 = cross(axis, Vec3{0.0, 0.0, 1.0});
    if (length(e1) < 0.1) {
      e1 = Vec3{1.0, 0.0, 0.0};
    }
    e1 = normalize(e1);
    const Vec3 e2 = cross(axis, e1);  // (e1, e2, axis) right-handed.
    std::vector<Vec3> ring_a;
    std::vector<Vec3> ring_b;
    for (int i = 0; i < n; ++i) {
      const double t = 2.0 * std::numbers::pi * i / n;
      const Vec3 dir = e1 * std::cos(t) + e2 * std::sin(t);
      ring_a.push_back(at(a + dir * ra));
      ring_b.push_back(at(b + dir * rb));
    }
    Mesh& mesh = part(m);
    const Vec3 ca = at(a);
    const Vec3 cb = at(b);
    for (int i = 0; i < n; ++i) {
      const int j = (i + 1) % n;
      if (rb > 0.0) {
        meshing::add_quad(mesh, ring_a[i], ring_a[j], ring_b[j], ring_b[i]);
        meshing::add_tri(mesh, cb, ring_b[i], ring_b[j]);
      } else {
        meshing::add_tri(mesh, ring_a[i], ring_a[j], cb);
      }
      meshing::add_tri(mesh, ca, ring_a[j], ring_a[i]);
    }
  }

  // A closed prism over the triangle (p0, p1, p2) given counter-clockwise seen from +x,
  // extruded along x from x0 to x1 (the ridge of a skylight, a sloped shed roof).
  void prism_x(Material m, double x0, double x1, std::array<std::array<double, 2>, 3> yz) {
    Mesh& mesh = part(m);
    std::array<Vec3, 3> a;
    std::array<Vec3, 3> b;
    for (int i = 0; i < 3; ++i) {
      a[i] = at({x0, yz[i][0], yz[i][1]});
      b[i] = at({x1, yz[i][0], yz[i][1]});
    }
    meshing::add_tri(mesh, b[0], b[1], b[2]);
    meshing::add_tri(mesh, a[0], a[2], a[1]);
    for (int i = 0; i < 3; ++i) {
      const int j = (i + 1) % 3;
      meshing::add_quad(mesh, a[i], a[j], b[j], b[i]);
    }
  }

  // A hexahedron from nominal corners (bit 0 u, bit 1 v, bit 2 w; right-handed).
  void hex(Material m, std::array<Vec3, 8> c) {
    for (Vec3& p : c) {
      p = at(p);
    }
    meshing::add_hex(part(m), c);
  }

  // A beam of square section from a to b.
  void beam(Material m, Vec3 a, Vec3 b, double half) {
    meshing::add_beam(part(m), at(a), at(b), half, half);
  }

  Parts take() { return std::move(m_parts); }

 private:
  double m_sx;
  double m_sz;
  Parts m_parts;
};

// ---- Shared pieces (nominal frame: x, y in [-1.5, 1.5], z in [0, 3]) ------------------------

// Four paving slabs with joints: the open deck.
void deck(Kit& k) {
  for (const double x0 : {-kHalf, 0.0}) {
    for (const double y0 : {-kHalf, 0.0}) {
      k.box(Material::roof, {x0 + 0.02, y0 + 0.02, 0.0},
            {x0 + kHalf - 0.02, y0 + kHalf - 0.02, 0.05});
    }
  }
}

// A guard rail along y = -1.35 from x0 to x1: posts, top and middle rails.
void rail_along_x(Kit& k, double x0, double x1) {
  const double y = -1.35;
  k.box(Material::metal, {x0, y - 0.03, 1.0}, {x1, y + 0.03, 1.06});
  k.box(Material::metal, {x0, y - 0.02, 0.5}, {x1, y + 0.02, 0.54});
  for (const double x : {-1.2, 0.0, 1.2}) {
    if (x >= x0 - 1e-9 && x <= x1 + 1e-9) {
      k.box(Material::metal, {x - 0.03, y - 0.03, 0.05}, {x + 0.03, y + 0.03, 1.0});
    }
  }
}

void rail_along_y(Kit& k, double y0, double y1) {
  const double x = -1.35;
  k.box(Material::metal, {x - 0.03, y0, 1.0}, {x + 0.03, y1, 1.06});
  k.box(Material::metal, {x - 0.02, y0, 0.5}, {x + 0.02, y1, 0.54});
  for (const double y : {-1.2, 0.0, 1.2}) {
    if (y >= y0 - 1e-9 && y <= y1 + 1e-9) {
      k.box(Material::metal, {x - 0.03, y - 0.03, 0.05}, {x + 0.03, y + 0.03, 1.0});
    }
  }
}

// Structure walls: full-height slabs on the cell's sides, their outer face on the cell face.
enum Side : unsigned { kWallNegX = 1, kWallPosX = 2, kWallNegY = 4, kWallPosY = 8 };
constexpr double kWallT = 0.25;

void structure_floor(Kit& k) { k.box(Material::roof, {-kHalf, -kHalf, 0.0}, {kHalf, kHalf, 0.05}); }

void plain_walls(Kit& k, unsigned sides) {
  if ((sides & kWallNegY) != 0) {
    k.box(Material::wall, {-kHalf, -kHalf, 0.0}, {kHalf, -kHalf + kWallT, kTop});
  }
  if ((sides & kWallPosY) != 0) {
    k.box(Material::wall, {-kHalf, kHalf - kWallT, 0.0}, {kHalf, kHalf, kTop});
  }
  const double lo_y = (sides & kWallNegY) != 0 ? -kHalf + kWallT : -kHalf;
  const double hi_y = (sides & kWallPosY) != 0 ? kHalf - kWallT : kHalf;
  if ((sides & kWallNegX) != 0) {
    k.box(Material::wall, {-kHalf, lo_y, 0.0}, {-kHalf + kWallT, hi_y, kTop});
  }
  if ((sides & kWallPosX) != 0) {
    k.box(Material::wall, {kHalf - kWallT, lo_y, 0.0}, {kHalf, hi_y, kTop});
  }
}

// A -y wall with an opening [ox0, ox1] x [oz0, oz1]: four wall pieces around it, a frame.
void wall_with_opening(Kit& k, double ox0, double ox1, double oz0, double oz1) {
  const double y0 = -kHalf;
  const double y1 = -kHalf + kWallT;
  k.box(Material::wall, {-kHalf, y0, 0.0}, {ox0, y1, kTop});
  k.box(Material::wall, {ox1, y0, 0.0}, {kHalf, y1, kTop});
  if (oz0 > 0.0) {
    k.box(Material::wall, {ox0, y0, 0.0}, {ox1, y1, oz0});
  }
  k.box(Material::wall, {ox0, y0, oz1}, {ox1, y1, kTop});
  // Frame: jambs and head proud of the wall by 4 cm.
  k.box(Material::frame, {ox0 - 0.08, y0 - 0.04, oz0}, {ox0, y0 + 0.05, oz1 + 0.08});
  k.box(Material::frame, {ox1, y0 - 0.04, oz0}, {ox1 + 0.08, y0 + 0.05, oz1 + 0.08});
  k.box(Material::frame, {ox0, y0 - 0.04, oz1}, {ox1, y0 + 0.05, oz1 + 0.08});
}

// ---- Tiles --------------------------------------------------------------------------------

void tile_railing(Kit& k) {
  deck(k);
  rail_along_x(k, -kHalf, kHalf);
}

void tile_railing_corner(Kit& k) {
  deck(k);
  rail_along_x(k, -1.38, kHalf);
  rail_along_y(k, -1.32, kHalf);
}

void tile_hatch(Kit& k) {
  deck(k);
  k.box(Material::trim, {-0.5, -0.5, 0.05}, {0.5, 0.5, 0.45});
  k.box(Material::metal, {-0.56, -0.56, 0.45}, {0.56, 0.56, 0.52});
}

void tile_vent(Kit& k) {
  deck(k);
  for (const double x : {-0.6, 0.6}) {
    k.cylinder(Material::metal, {x, 0.2, 0.05}, {x, 0.2, 0.95}, 0.14);
    k.cone(Material::metal, {x, 0.2, 0.95}, {x, 0.2, 1.25}, 0.32, 0.05);
  }
  k.box(Material::metal, {-0.25, -0.9, 0.05}, {0.25, -0.4, 0.6});
}

void tile_skylight(Kit& k) {
  deck(k);
  k.box(Material::trim, {-1.2, -0.7, 0.05}, {1.2, 0.7, 0.35});
  k.prism_x(Material::glass, -1.15, 1.15, {{{-0.65, 0.35}, {0.65, 0.35}, {0.0, 0.85}}});
}

void tile_ac_unit(Kit& k) {
  deck(k);
  k.box(Material::metal, {-0.9, -0.55, 0.05}, {-0.75, 0.55, 0.12});
  k.box(Material::metal, {0.75, -0.55, 0.05}, {0.9, 0.55, 0.12});
  k.box(Material::metal, {-0.85, -0.5, 0.12}, {0.85, 0.5, 1.05});
  k.box(Material::frame, {-0.75, -0.54, 0.2}, {0.75, -0.5, 0.95});  // Coil grille, -y face.
  k.cylinder(Material::frame, {0.0, 0.0, 1.05}, {0.0, 0.0, 1.1}, 0.38);
  k.cylinder(Material::metal, {0.0, 0.0, 1.1}, {0.0, 0.0, 1.14}, 0.08);
}

void tile_solar_panel(Kit& k) {
  deck(k);
  // Panel rising from the -y edge (low) to +y (high), 6 cm thick.
  const double y_lo = -1.15;
  const double y_hi = 1.05;
  const double z_lo = 0.35;
  const double z_hi = 1.25;
  const double t = 0.06;
  k.hex(Material::glass, {{{-1.4, y_lo, z_lo},
                           {1.4, y_lo, z_lo},
                           {-1.4, y_hi, z_hi},
                           {1.4, y_hi, z_hi},
                           {-1.4, y_lo - t * 0.38, z_lo + t * 0.93},
                           {1.4, y_lo - t * 0.38, z_lo + t * 0.93},
                           {-1.4, y_hi - t * 0.38, z_hi + t * 0.93},
                           {1.4, y_hi - t * 0.38, z_hi + t * 0.93}}});
  for (const double x : {-1.2, 1.2}) {
    k.box(Material::metal, {x - 0.04, y_lo + 0.1, 0.05}, {x + 0.04, y_lo + 0.18, z_lo + 0.04});
    k.box(Material::metal, {x - 0.04, y_hi - 0.18, 0.05}, {x + 0.04, y_hi - 0.1, z_hi - 0.02});
  }
}

void pipe_support(Kit& k, double x, double y) {
  k.box(Material::metal, {x - 0.15, y - 0.15, 0.05}, {x + 0.15, y + 0.15, 0.38});
}

void tile_pipe(Kit& k) {
  deck(k);
  k.cylinder(Material::metal, {-kHalf, 0.0, 0.5}, {kHalf, 0.0, 0.5}, 0.12);
  k.cylinder(Material::metal, {-kHalf, 0.45, 0.5}, {kHalf, 0.45, 0.5}, 0.07);
  pipe_support(k, -0.75, 0.2);
  pipe_support(k, 0.75, 0.2);
}

void tile_pipe_corner(Kit& k) {
  deck(k);
  k.cylinder(Material::metal, {-kHalf, 0.0, 0.5}, {0.12, 0.0, 0.5}, 0.12);
  k.cylinder(Material::metal, {0.0, -kHalf, 0.5}, {0.0, 0.12, 0.5}, 0.12);
  k.cylinder(Material::metal, {-kHalf, 0.45, 0.5}, {0.45, 0.45, 0.5}, 0.07);
  k.cylinder(Material::metal, {0.45, -kHalf, 0.5}, {0.45, 0.52, 0.5}, 0.07);
  k.box(Material::metal, {-0.2, -0.2, 0.3}, {0.2, 0.2, 0.7});
  pipe_support(k, -0.75, 0.2);
  pipe_support(k, 0.2, -0.75);
}

void tile_duct(Kit& k) {
  deck(k);
  k.box(Material::metal, {-kHalf, -0.55, 0.4}, {kHalf, 0.55, 1.3});
  for (const double x : {-1.0, 1.0}) {
    k.box(Material::metal, {x - 0.06, -0.6, 0.05}, {x + 0.06, -0.48, 0.4});
    k.box(Material::metal, {x - 0.06, 0.48, 0.05}, {x + 0.06, 0.6, 0.4});
    k.box(Material::trim, {x - 0.05, -0.6, 0.38}, {x + 0.05, 0.6, 1.35});  // Flange.
  }
}

void tile_tank_legs(Kit& k) {
  for (const double x : {-1.0, 1.0}) {
    for (const double y : {-1.0, 1.0}) {
      k.box(Material::metal, {x - 0.08, y - 0.08, 0.0}, {x + 0.08, y + 0.08, 2.85});
    }
  }
  for (const double z : {1.0, 2.0}) {
    k.box(Material::metal, {-0.92, -1.04, z}, {0.92, -0.96, z + 0.08});
    k.box(Material::metal, {-0.92, 0.96, z}, {0.92, 1.04, z + 0.08});
    k.box(Material::metal, {-1.04, -0.92, z}, {-0.96, 0.92, z + 0.08});
    k.box(Material::metal, {0.96, -0.92, z}, {1.04, 0.92, z + 0.08});
  }
  k.box(Material::trim, {-1.35, -1.35, 2.85}, {1.35, 1.35, kTop});  // Platform.
  k.box(Material::metal, {1.08, -0.1, 0.0}, {1.14, 0.1, 2.85});     // Ladder rail.
}

void tile_tank(Kit& k) {
  k.cylinder(Material::wall, {0.0, 0.0, 0.0}, {0.0, 0.0, 2.1}, 1.25, 16);
  for (const double z : {0.4, 1.0, 1.6}) {
    k.cylinder(Material::metal, {0.0, 0.0, z}, {0.0, 0.0, z + 0.06}, 1.29, 16);
  }
  k.cone(Material::roof, {0.0, 0.0, 2.1}, {0.0, 0.0, 2.75}, 1.32, 0.0, 16);
  k.cylinder(Material::metal, {0.0, 0.0, 2.7}, {0.0, 0.0, 2.9}, 0.1);
}

void mast(Kit& k, double z0, double z1) {
  for (const double x : {-0.18, 0.18}) {
    for (const double y : {-0.18, 0.18}) {
      k.box(Material::metal, {x - 0.03, y - 0.03, z0}, {x + 0.03, y + 0.03, z1});
    }
  }
  for (int i = 0; z0 + 0.5 + 0.75 * i < z1 - 0.1; ++i) {
    const double z = z0 + 0.5 + 0.75 * i;
    k.box(Material::metal, {-0.2, -0.2, z}, {0.2, 0.2, z + 0.04});
  }
}

void tile_antenna(Kit& k) {
  deck(k);
  k.box(Material::trim, {-0.45, -0.45, 0.05}, {0.45, 0.45, 0.25});
  mast(k, 0.25, kTop);
}

void tile_antenna_top(Kit& k) {
  mast(k, 0.0, 1.6);
  k.box(Material::metal, {-0.22, -0.22, 1.6}, {0.22, 0.22, 1.66});
  k.cylinder(Material::metal, {0.0, 0.0, 1.66}, {0.0, 0.0, 2.9}, 0.05);
  k.cone(Material::frame, {0.0, 0.25, 1.2}, {0.0, 0.05, 1.2}, 0.45, 0.12);  // Dish, facing -y.
  k.cylinder(Material::sign, {0.0, 0.0, 2.9}, {0.0, 0.0, 2.98}, 0.08);      // Warning light.
}

void tile_bulkhead(Kit& k) {
  k.box(Material::wall, {-1.3, -1.25, 0.0}, {1.3, 1.3, 2.7});
  k.box(Material::roof, {-1.4, -1.4, 2.7}, {1.4, 1.4, 2.85});
  k.box(Material::door, {-0.45, -1.3, 0.05}, {0.45, -1.25, 2.1});
  k.box(Material::frame, {-0.55, -1.33, 0.0}, {-0.45, -1.25, 2.2});
  k.box(Material::frame, {0.45, -1.33, 0.0}, {0.55, -1.25, 2.2});
  k.box(Material::frame, {-0.45, -1.33, 2.1}, {0.45, -1.25, 2.2});
  k.box(Material::metal, {-0.1, -1.4, 2.3}, {0.1, -1.25, 2.45});  // Lamp over the door.
}

void tile_shed(Kit& k) {
  deck(k);
  k.box(Material::wall, {-1.1, -0.9, 0.05}, {1.1, 1.1, 2.0});
  // Skillion roof rising to the back.
  k.prism_x(Material::wall, -1.1, 1.1, {{{-0.9, 2.0}, {1.1, 2.0}, {1.1, 2.35}}});
  k.hex(Material::roof, {{{-1.2, -1.0, 1.98},
                          {1.2, -1.0, 1.98},
                          {-1.2, 1.2, 2.36},
                          {1.2, 1.2, 2.36},
                          {-1.2, -1.0, 2.06},
                          {1.2, -1.0, 2.06},
                          {-1.2, 1.2, 2.44},
                          {1.2, 1.2, 2.44}}});
  k.box(Material::door, {-0.4, -0.95, 0.05}, {0.4, -0.9, 1.85});
}

void tile_struct_wall(Kit& k) {
  structure_floor(k);
  plain_walls(k, kWallNegY);
}

void tile_struct_window(Kit& k) {
  structure_floor(k);
  wall_with_opening(k, -0.7, 0.7, 1.0, 2.2);
  k.box(Material::glass, {-0.7, -kHalf + 0.1, 1.0}, {0.7, -kHalf + 0.14, 2.2});
  k.box(Material::trim, {-0.8, -kHalf - 0.06, 0.94}, {0.8, -kHalf + 0.05, 1.0});  // Sill.
}

void tile_struct_door(Kit& k) {
  structure_floor(k);
  wall_with_opening(k, -0.5, 0.5, 0.0, 2.2);
  k.box(Material::door, {-0.5, -kHalf + 0.12, 0.05}, {0.5, -kHalf + 0.17, 2.2});
}

void tile_struct_corner(Kit& k) {
  structure_floor(k);
  plain_walls(k, kWallNegX | kWallNegY);
}

void tile_struct_end(Kit& k) {
  structure_floor(k);
  plain_walls(k, kWallNegX | kWallPosX | kWallNegY);
}

void tile_struct_corridor(Kit& k) {
  structure_floor(k);
  plain_walls(k, kWallNegY | kWallPosY);
}

void tile_struct_inside(Kit& k) { structure_floor(k); }

void structure_roof(Kit& k) { k.box(Material::roof, {-kHalf, -kHalf, 0.0}, {kHalf, kHalf, 0.2}); }

void tile_roof_edge(Kit& k) {
  structure_roof(k);
  k.box(Material::trim, {-kHalf, -kHalf, 0.2}, {kHalf, -kHalf + 0.3, 0.6});
}

void tile_roof_corner(Kit& k) {
  structure_roof(k);
  k.box(Material::trim, {-kHalf, -kHalf, 0.2}, {kHalf, -kHalf + 0.3, 0.6});
  k.box(Material::trim, {-kHalf, -kHalf + 0.3, 0.2}, {-kHalf + 0.3, kHalf, 0.6});
}

// ---- Post-solve wall props: they hang on the -y face of the cell they stand in, i.e. on the
// ---- wall of the structure cell across that side (the prop's cell is open deck).

void prop_wall_ac(Kit& k) {
  k.box(Material::metal, {-0.45, -kHalf + 0.02, 1.2}, {0.45, -kHalf + 0.55, 1.8});
  k.box(Material::frame, {-0.35, -kHalf + 0.55, 1.28}, {0.35, -kHalf + 0.58, 1.72});
  k.box(Material::metal, {-0.4, -kHalf + 0.02, 1.1}, {-0.34, -kHalf + 0.5, 1.2});
  k.box(Material::metal, {0.34, -kHalf + 0.02, 1.1}, {0.4, -kHalf + 0.5, 1.2});
}

void prop_wall_pipe(Kit& k) {
  k.cylinder(Material::metal, {0.9, -kHalf + 0.18, 0.05}, {0.9, -kHalf + 0.18, 2.9}, 0.09);
  k.cylinder(Material::metal, {-0.3, -kHalf + 0.18, 2.4}, {0.9, -kHalf + 0.18, 2.4}, 0.07);
  for (const double z : {0.8, 1.8}) {
    k.box(Material::metal, {0.84, -kHalf, z}, {0.96, -kHalf + 0.1, z + 0.06});
  }
}

void prop_wall_sign(Kit& k) {
  k.box(Material::sign, {-1.0, -kHalf + 0.02, 1.6}, {1.0, -kHalf + 0.1, 2.5});
  k.box(Material::frame, {-1.05, -kHalf + 0.01, 1.55}, {1.05, -kHalf + 0.03, 2.55});
}

void prop_wall_light(Kit& k) {
  k.box(Material::metal, {-0.08, -kHalf + 0.02, 2.3}, {0.08, -kHalf + 0.3, 2.38});
  k.box(Material::sign, {-0.15, -kHalf + 0.2, 2.2}, {0.15, -kHalf + 0.35, 2.3});
}

const std::map<std::string, std::function<void(Kit&)>, std::less<>>& tile_builders() {
  static const std::map<std::string, std::function<void(Kit&)>, std::less<>> builders = {
      {"deck", deck},
      {"railing", tile_railing},
      {"railing_corner", tile_railing_corner},
      {"hatch", tile_hatch},
      {"vent", tile_vent},
      {"skylight", tile_skylight},
      {"ac_unit", tile_ac_unit},
      {"solar_panel", tile_solar_panel},
      {"pipe", tile_pipe},
      {"pipe_corner", tile_pipe_corner},
      {"duct", tile_duct},
      {"tank_legs", tile_tank_legs},
      {"tank", tile_tank},
      {"antenna", tile_antenna},
      {"antenna_top", tile_antenna_top},
      {"bulkhead", tile_bulkhead},
      {"shed", tile_shed},
      {"struct_wall", tile_struct_wall},
      {"struct_window", tile_struct_window},
      {"struct_door", tile_struct_door},
      {"struct_corner", tile_struct_corner},
      {"struct_end", tile_struct_end},
      {"struct_corridor", tile_struct_corridor},
      {"struct_inside", tile_struct_inside},
      {"roof_flat", structure_roof},
      {"roof_edge", tile_roof_edge},
      {"roof_corner", tile_roof_corner},
      {"prop_wall_ac", prop_wall_ac},
      {"prop_wall_pipe", prop_wall_pipe},
      {"prop_wall_sign", prop_wall_sign},
      {"prop_wall_light", prop_wall_light},
  };
  return builders;
}

}  // namespace

std::array<Mesh, buildings::kMaterialCount> rooftop_tile_mesh(const std::string& name,
                                                              double cell_m, double level_m) {
  const auto& builders = tile_builders();
  const auto it = builders.find(name);
  if (it == builders.end() || !(cell_m > 0.0) || !(level_m > 0.0) || !std::isfinite(cell_m) ||
      !std::isfinite(level_m)) {
    return {};
  }
  Kit kit(cell_m, level_m);
  it->second(kit);
  return kit.take();
}

}  // namespace cityforge::rooftops
