// SPDX-License-Identifier: Apache-2.0
// The built-in prop kit: street furniture and signals (see prop_kit.cpp).
#include <array>
#include <numbers>

#include "cityforge/dressing/dressing.hpp"
#include "dressing/detail/prop_geometry.hpp"
#include "dressing/detail/prop_kit.hpp"

namespace cityforge::dressing::detail {
namespace {

// A vertical post of four faces (no caps) from z0 to z1.
void post(Mesh& mesh, double x, double y, double half, double z0, double z1) {
  add_box(mesh, {x - half, y - half, z0}, {x + half, y + half, z1}, kNegX | kPosX | kNegY | kPosY);
}

// A sign post with a flat plate facing +x: its sides and back in metal, its face in sign. The
// post ends behind the plate, above its centre.
void sign_plate(PropMesh& out, double zc, double radius, std::uint32_t sides, double phase_rad) {
  Mesh& metal = part(out, PropMaterial::metal);
  add_frustum(metal, {0, 0, 0}, {0, 0, zc + 0.15}, 0.035, 0.035, 6, kCapEnd);
  add_frustum(metal, {0.04, 0, zc}, {0.06, 0, zc}, radius, radius, sides, kCapStart, phase_rad);
  add_ngon(part(out, PropMaterial::sign), {0.06, 0, zc}, {1, 0, 0}, radius, sides, phase_rad);
}

}  // namespace

void build_bench(PropMesh& out) {
  // Faces +x: seat slats along y, the back at -x, a metal frame at each end.
  Mesh& metal = part(out, PropMaterial::metal);
  Mesh& wood = part(out, PropMaterial::wood);
  for (const double y : {-0.65, 0.65}) {
    add_box(metal, {-0.2, y - 0.03, 0.0}, {0.24, y + 0.03, 0.05}, kNoBottom);
    post(metal, 0.2, y, 0.03, 0.05, 0.42);
    post(metal, -0.18, y, 0.03, 0.05, 0.42);
    add_beam(metal, {-0.18, y, 0.4}, {-0.28, y, 0.85}, 0.03, 0.025);
    add_box(metal, {-0.22, y - 0.03, 0.38}, {0.24, y + 0.03, 0.42}, kAllFaces);
  }
  for (const double x : {-0.18, 0.0, 0.18}) {
    add_box(wood, {x - 0.08, -0.8, 0.42}, {x + 0.08, 0.8, 0.46}, kAllFaces);
  }
  for (const double z : {0.58, 0.76}) {
    const double x = -0.21 - (z - 0.4) * 0.22;
    add_box(wood, {x - 0.05, -0.8, z - 0.06}, {x, 0.8, z + 0.06}, kAllFaces);
  }
}

void build_bin(PropMesh& out) {
  Mesh& metal = part(out, PropMaterial::metal);
  add_frustum(metal, {0, 0, 0}, {0, 0, 0.85}, 0.26, 0.29, 8, 0);
  add_tube(metal, 0, 0, 0.85, 0.95, 0.24, 0.3, 8);
  add_ngon(metal, {0, 0, 0.6}, {0, 0, 1}, 0.26, 8);
}

void build_hydrant(PropMesh& out) {
  Mesh& paint = part(out, PropMaterial::paint);
  Mesh& metal = part(out, PropMaterial::metal);
  add_frustum(paint, {0, 0, 0}, {0, 0, 0.07}, 0.17, 0.16, 8, kCapEnd);
  add_frustum(paint, {0, 0, 0.07}, {0, 0, 0.6}, 0.12, 0.12, 8, 0);
  add_frustum(paint, {0, 0, 0.6}, {0, 0, 0.64}, 0.145, 0.145, 8, kCapStart | kCapEnd);
  add_frustum(paint, {0, 0, 0.64}, {0, 0, 0.74}, 0.12, 0.05, 8, kCapEnd);
  add_frustum(metal, {0, 0, 0.74}, {0, 0, 0.8}, 0.03, 0.03, 5, kCapEnd);
  // The pumper nozzle toward +x, hose nozzles to the sides.
  add_frustum(paint, {0.1, 0, 0.42}, {0.2, 0, 0.42}, 0.06, 0.06, 8, kCapEnd);
  add_frustum(paint, {0, 0.1, 0.45}, {0, 0.19, 0.45}, 0.04, 0.04, 6, kCapEnd);
  add_frustum(paint, {0, -0.1, 0.45}, {0, -0.19, 0.45}, 0.04, 0.04, 6, kCapEnd);
}

void build_bus_stop(PropMesh& out) {
  // Open toward +x: a glass back at -x, an advertising panel and a glass side, a bench.
  Mesh& metal = part(out, PropMaterial::metal);
  Mesh& glass = part(out, PropMaterial::glass);
  for (const double x : {-0.65, 0.65}) {
    for (const double y : {-1.5, 1.5}) {
      post(metal, x, y, 0.04, 0.0, 2.45);
    }
  }
  // The roof slopes down toward the back.
  add_hex(metal, {{{-0.8, -1.6, 2.4},
                   {0.8, -1.6, 2.5},
                   {-0.8, 1.6, 2.4},
                   {0.8, 1.6, 2.5},
                   {-0.8, -1.6, 2.5},
                   {0.8, -1.6, 2.6},
                   {-0.8, 1.6, 2.5},
                   {0.8, 1.6, 2.6}}});
  add_box(glass, {-0.67, -1.46, 0.15}, {-0.63, 1.46, 2.35});
  add_box(glass, {-0.61, -1.52, 0.15}, {0.3, -1.48, 2.35});
  add_box(part(out, PropMaterial::sign), {-0.61, 1.47, 0.3}, {0.3, 1.53, 2.2});
  add_box(part(out, PropMaterial::wood), {-0.6, -1.1, 0.44}, {-0.22, 1.1, 0.5});
  for (const double y : {-0.9, 0.9}) {
    post(metal, -0.4, y, 0.03, 0.0, 0.44);
  }
}

void build_bollard(PropMesh& out) {
  Mesh& metal = part(out, PropMaterial::metal);
  add_frustum(metal, {0, 0, 0}, {0, 0, 0.68}, 0.11, 0.1, 8, 0);
  add_frustum(part(out, PropMaterial::paint), {0, 0, 0.68}, {0, 0, 0.76}, 0.1, 0.1, 8, 0);
  add_frustum(metal, {0, 0, 0.76}, {0, 0, 0.84}, 0.1, 0.1, 8, 0);
  add_frustum(metal, {0, 0, 0.84}, {0, 0, 0.9}, 0.1, 0.05, 8, kCapEnd);
}

void build_bike_rack(PropMesh& out) {
  // Three inverted-U hoops along y, joined by two rails on the ground.
  Mesh& metal = part(out, PropMaterial::metal);
  for (const double y : {-0.6, 0.0, 0.6}) {
    post(metal, -0.3, y, 0.025, 0.0, 0.7);
    post(metal, 0.3, y, 0.025, 0.0, 0.7);
    add_beam(metal, {-0.325, y, 0.7}, {-0.2, y, 0.8}, 0.025, 0.025);
    add_beam(metal, {-0.22, y, 0.8}, {0.22, y, 0.8}, 0.025, 0.025);
    add_beam(metal, {0.2, y, 0.8}, {0.325, y, 0.7}, 0.025, 0.025);
  }
  for (const double x : {-0.3, 0.3}) {
    add_box(metal, {x - 0.03, -0.65, 0.0}, {x + 0.03, 0.65, 0.04}, kNoBottom);
  }
}

void build_picnic_table(PropMesh& out) {
  Mesh& metal = part(out, PropMaterial::metal);
  Mesh& wood = part(out, PropMaterial::wood);
  add_box(wood, {-0.4, -0.9, 0.7}, {0.4, 0.9, 0.75});
  for (const double x : {-0.8, 0.55}) {
    add_box(wood, {x, -0.9, 0.42}, {x + 0.25, 0.9, 0.46});
  }
  for (const double y : {-0.65, 0.65}) {
    add_beam(metal, {-0.7, y, 0.035}, {-0.05, y, 0.7}, 0.03, 0.03);
    add_beam(metal, {0.7, y, 0.035}, {0.05, y, 0.7}, 0.03, 0.03);
    add_box(metal, {-0.8, y - 0.03, 0.38}, {0.8, y + 0.03, 0.42});
  }
}

void build_signal_pole(PropMesh& out) {
  Mesh& metal = part(out, PropMaterial::metal);
  add_frustum(metal, {0, 0, 0}, {0, 0, 0.5}, 0.25, 0.2, 8, kCapEnd);
  add_frustum(metal, {0, 0, 0.5}, {0, 0, 6.5}, 0.14, 0.1, 8, kCapEnd);
  // The mast arm with its underside at kSignalArmHeightM, braced from above.
  const double z = kSignalArmHeightM + 0.06;
  add_frustum(metal, {0.05, 0, z + 0.02}, {kSignalArmReachM + 0.3, 0, z}, 0.08, 0.06, 6, kCapEnd,
              0.5);
  add_beam(metal, {0.05, 0, 6.35}, {1.8, 0, z + 0.04}, 0.025, 0.025);
}

void build_signal_head(PropMesh& out) {
  // A housing with a back plate, three lenses with visors facing +x, a hanger on top.
  Mesh& metal = part(out, PropMaterial::metal);
  add_box(metal, {-0.12, -0.16, 0.0}, {0.12, 0.16, 0.95});
  add_box(metal, {-0.15, -0.22, 0.02}, {-0.12, 0.22, 0.93});
  add_frustum(metal, {0, 0, 0.95}, {0, 0, 1.0}, 0.035, 0.035, 6, kCapEnd);
  for (const double z : {0.17, 0.475, 0.78}) {
    add_frustum(part(out, PropMaterial::light), {0.12, 0, z}, {0.14, 0, z}, 0.11, 0.11, 8, kCapEnd,
                std::numbers::pi / 8.0);
    add_box(metal, {0.12, -0.12, z + 0.115}, {0.3, 0.12, z + 0.135});
  }
}

void build_stop_sign(PropMesh& out) { sign_plate(out, 2.15, 0.38, 8, std::numbers::pi / 8.0); }

void build_yield_sign(PropMesh& out) {
  // Point down: one corner at -z (the frame's -v for an axis along +x).
  sign_plate(out, 2.1, 0.52, 3, -std::numbers::pi / 2.0);
}

}  // namespace cityforge::dressing::detail
