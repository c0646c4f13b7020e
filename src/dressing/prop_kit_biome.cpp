// SPDX-License-Identifier: Apache-2.0
// The built-in prop kit: props of the biomes (see prop_kit.cpp).
#include <array>
#include <numbers>

#include "cityforge/dressing/dressing.hpp"
#include "dressing/detail/prop_geometry.hpp"
#include "dressing/detail/prop_kit.hpp"

namespace cityforge::dressing::detail {
namespace {

// A chair at (x, y) facing `dir_x` / `dir_y` (a unit axis), seat 0.42 x 0.42 m.
void chair(PropMesh& out, double x, double y, int dir_x, int dir_y) {
  Mesh& metal = part(out, PropMaterial::metal);
  const double h = 0.21;
  for (const double dx : {-h + 0.02, h - 0.02}) {
    for (const double dy : {-h + 0.02, h - 0.02}) {
      add_box(metal, {x + dx - 0.02, y + dy - 0.02, 0.0}, {x + dx + 0.02, y + dy + 0.02, 0.42},
              kNegX | kPosX | kNegY | kPosY);
    }
  }
  add_box(metal, {x - h, y - h, 0.42}, {x + h, y + h, 0.46});
  // The back on the side away from the facing direction.
  const double bx = x - dir_x * (h - 0.02);
  const double by = y - dir_y * (h - 0.02);
  const double hx = dir_x != 0 ? 0.02 : h;
  const double hy = dir_y != 0 ? 0.02 : h;
  add_box(metal, {bx - hx, by - hy, 0.46}, {bx + hx, by + hy, 0.85});
}

}  // namespace

void build_car(PropMesh& out) {
  // +x forward: a body with a sloped bonnet, a glass cabin with a painted roof, four wheels.
  Mesh& paint = part(out, PropMaterial::paint);
  Mesh& glass = part(out, PropMaterial::glass);
  add_hex(paint, {{{-2.2, -0.9, 0.3},
                   {2.15, -0.9, 0.3},
                   {-2.2, 0.9, 0.3},
                   {2.15, 0.9, 0.3},
                   {-2.25, -0.9, 0.95},
                   {2.25, -0.9, 0.8},
                   {-2.25, 0.9, 0.95},
                   {2.25, 0.9, 0.8}}});
  const std::array<Vec3, 8> cabin = {{{-1.55, -0.82, 0.95},
                                      {1.0, -0.82, 0.9},
                                      {-1.55, 0.82, 0.95},
                                      {1.0, 0.82, 0.9},
                                      {-1.3, -0.7, 1.5},
                                      {0.2, -0.7, 1.5},
                                      {-1.3, 0.7, 1.5},
                                      {0.2, 0.7, 1.5}}};
  add_hex(glass, cabin, kAllFaces & ~(kNegZ | kPosZ));
  add_hex(paint, cabin, kPosZ);
  for (const double x : {-1.45, 1.4}) {
    for (const double y : {-1.0, 1.0}) {
      add_frustum(part(out, PropMaterial::rubber), {x, y * 0.62, 0.33}, {x, y * 0.9, 0.33}, 0.33,
                  0.33, 8, kCapEnd, std::numbers::pi / 8.0);
    }
  }
  for (const double y : {-0.62, 0.62}) {
    add_box(part(out, PropMaterial::light), {2.2, y - 0.17, 0.66}, {2.26, y + 0.17, 0.76},
            kPosX | kNegY | kPosY | kPosZ);
  }
}

void build_parking_line(PropMesh& out) {
  // White road paint: the `sign` material (light), as `paint` is the red of hydrants and cars.
  const std::array<Vec2, 4> ring = {{{-2.5, -0.06}, {2.5, -0.06}, {2.5, 0.06}, {-2.5, 0.06}}};
  add_slab(part(out, PropMaterial::sign), ring.data(), ring.size(), 0.0, 0.01, false);
}

void build_hvac_unit(PropMesh& out) {
  Mesh& metal = part(out, PropMaterial::metal);
  for (const double y : {-0.5, 0.5}) {
    add_box(metal, {-0.9, y - 0.06, 0.0}, {0.9, y + 0.06, 0.1}, kNoBottom);
  }
  add_box(metal, {-0.85, -0.6, 0.1}, {0.85, 0.6, 1.1}, kNoBottom);
  // Louvres on the front, two fans on top.
  for (int i = 0; i < 4; ++i) {
    const double z = 0.3 + 0.18 * i;
    add_box(part(out, PropMaterial::rubber), {0.85, -0.5, z}, {0.9, 0.5, z + 0.06}, kNoBottom);
  }
  for (const double x : {-0.42, 0.42}) {
    add_tube(metal, x, 0, 1.1, 1.2, 0.3, 0.36, 8);
    add_box(part(out, PropMaterial::rubber), {x - 0.3, -0.03, 1.1}, {x + 0.3, 0.03, 1.15},
            kNoBottom);
    add_box(part(out, PropMaterial::rubber), {x - 0.03, -0.3, 1.1}, {x + 0.03, 0.3, 1.15},
            kNoBottom);
  }
}

void build_water_tank(PropMesh& out) {
  Mesh& metal = part(out, PropMaterial::metal);
  Mesh& wood = part(out, PropMaterial::wood);
  for (const double x : {-1.0, 1.0}) {
    for (const double y : {-1.0, 1.0}) {
      add_beam(metal, {x * 1.1, y * 1.1, 0.07}, {x * 0.9, y * 0.9, 2.0}, 0.07, 0.07, kAllFaces);
    }
  }
  add_box(metal, {-1.2, -1.2, 1.95}, {1.2, 1.2, 2.05});
  add_frustum(wood, {0, 0, 2.05}, {0, 0, 4.2}, 1.5, 1.5, 12, 0);
  add_frustum(metal, {0, 0, 4.2}, {0, 0, 5.0}, 1.6, 0.05, 12, kCapStart);
  for (const double z : {2.5, 3.5}) {
    add_frustum(metal, {0, 0, z}, {0, 0, z + 0.08}, 1.53, 1.53, 12, 0);
  }
}

void build_roof_vent(PropMesh& out) {
  Mesh& metal = part(out, PropMaterial::metal);
  add_box(metal, {-0.25, -0.25, 0.0}, {0.25, 0.25, 0.1}, kNoBottom);
  add_frustum(metal, {0, 0, 0.1}, {0, 0, 0.6}, 0.14, 0.14, 8, 0);
  add_frustum(metal, {0, 0, 0.6}, {0, 0, 0.8}, 0.28, 0.05, 8, kCapStart | kCapEnd);
}

void build_solar_panel(PropMesh& out) {
  // Tilted 27 degrees so its glass faces up and toward +x, on a rack of four legs.
  Mesh& metal = part(out, PropMaterial::metal);
  const double x0 = -0.5;
  const double x1 = 0.5;
  const double z0 = 0.8;   // Back edge (-x), bottom of the panel.
  const double z1 = 0.29;  // Front edge (+x).
  const double t = 0.04;
  const std::array<Vec3, 8> panel = {{{x0, -1.0, z0},
                                      {x1, -1.0, z1},
                                      {x0, 1.0, z0},
                                      {x1, 1.0, z1},
                                      {x0, -1.0, z0 + t},
                                      {x1, -1.0, z1 + t},
                                      {x0, 1.0, z0 + t},
                                      {x1, 1.0, z1 + t}}};
  add_hex(metal, panel);
  // The glass lies 4 mm over the frame's top face, inset from its edges.
  const double lift = t + 0.004;
  add_quad(part(out, PropMaterial::glass), {x0 + 0.03, -0.97, z0 + lift - 0.015},
           {x1 - 0.03, -0.97, z1 + lift + 0.015}, {x1 - 0.03, 0.97, z1 + lift + 0.015},
           {x0 + 0.03, 0.97, z0 + lift - 0.015});
  for (const double y : {-0.85, 0.85}) {
    add_box(metal, {x0 + 0.05, y - 0.03, 0.0}, {x0 + 0.1, y + 0.03, z0 - 0.04},
            kAllFaces & ~(kNegZ | kPosZ));
    add_box(metal, {x1 - 0.1, y - 0.03, 0.0}, {x1 - 0.05, y + 0.03, z1 + 0.06},
            kAllFaces & ~(kNegZ | kPosZ));
    add_box(metal, {x0, y - 0.03, 0.0}, {x1, y + 0.03, 0.05}, kNoBottom);
  }
}

void build_jersey_barrier(PropMesh& out) {
  const std::array<Vec2, 8> profile = {{{-0.3, 0.0},
                                        {0.3, 0.0},
                                        {0.3, 0.08},
                                        {0.2, 0.25},
                                        {0.08, 0.8},
                                        {-0.08, 0.8},
                                        {-0.2, 0.25},
                                        {-0.3, 0.08}}};
  add_extrusion_x(part(out, PropMaterial::concrete), profile.data(), profile.size(), -1.5, 1.5);
}

void build_fountain(PropMesh& out) {
  Mesh& concrete = part(out, PropMaterial::concrete);
  Mesh& water = part(out, PropMaterial::glass);
  add_tube(concrete, 0, 0, 0.0, 0.5, 1.7, 2.0, 12);
  add_ngon(water, {0, 0, 0.38}, {0, 0, 1}, 1.72, 12);
  add_frustum(concrete, {0, 0, 0.38}, {0, 0, 1.3}, 0.22, 0.16, 8, 0);
  add_frustum(concrete, {0, 0, 1.3}, {0, 0, 1.55}, 0.25, 0.75, 8, kCapStart);
  add_ngon(water, {0, 0, 1.55}, {0, 0, 1}, 0.75, 8);
  add_frustum(water, {0, 0, 1.55}, {0, 0, 1.9}, 0.07, 0.03, 6, kCapEnd);
}

void build_kiosk(PropMesh& out) {
  // Serves toward +x: a window and counter at the front, a sign board over the roof's edge.
  add_box(part(out, PropMaterial::paint), {-1.0, -0.9, 0.0}, {1.0, 0.9, 2.4}, kNoBottom);
  add_box(part(out, PropMaterial::glass), {1.0, -0.7, 1.0}, {1.02, 0.7, 1.95}, kNoBottom);
  add_box(part(out, PropMaterial::wood), {1.0, -0.8, 0.95}, {1.25, 0.8, 1.0});
  add_box(part(out, PropMaterial::metal), {-1.15, -1.0, 2.4}, {1.2, 1.0, 2.55});
  add_box(part(out, PropMaterial::sign), {0.95, -0.8, 2.55}, {1.05, 0.8, 2.85}, kNoBottom);
}

void build_umbrella_table(PropMesh& out) {
  Mesh& metal = part(out, PropMaterial::metal);
  add_frustum(metal, {0, 0, 0}, {0, 0, 0.03}, 0.25, 0.25, 8, kCapEnd);
  add_frustum(metal, {0, 0, 0.03}, {0, 0, 0.72}, 0.04, 0.04, 6, 0);
  add_frustum(part(out, PropMaterial::wood), {0, 0, 0.72}, {0, 0, 0.76}, 0.45, 0.45, 8);
  add_frustum(metal, {0, 0, 0.76}, {0, 0, 2.0}, 0.025, 0.025, 6, 0);
  add_frustum(part(out, PropMaterial::paint), {0, 0, 1.95}, {0, 0, 2.35}, 1.2, 0.0, 8, kCapStart);
  chair(out, 0.8, 0.0, -1, 0);
  chair(out, -0.8, 0.0, 1, 0);
  chair(out, 0.0, 0.8, 0, -1);
  chair(out, 0.0, -0.8, 0, 1);
}

}  // namespace cityforge::dressing::detail
