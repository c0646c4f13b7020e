// SPDX-License-Identifier: Apache-2.0
// Built-in kit generators for modules with openings: window, door, storefront, curtain wall
// and balcony. Wall panels with reveals back to the glass (or door leaf) at y = -inset, frames
// slightly proud of the glass, glazing bars, sills, lintels and canopies.
#include <algorithm>
#include <cmath>

#include "buildings/detail/kit_modules.hpp"

namespace cityforge::buildings::detail {
namespace {

constexpr double kFrameProud = 0.04;  // Frames stand this far in front of the glass.
constexpr double kBarProud = 0.03;    // Glazing bars likewise.

// A glass pane covering `o` at y = -inset, facing the street.
void add_glass(Mesh& glass, const Opening& o, double inset) {
  if (!o.valid()) {
    return;
  }
  const double y = -inset;
  add_quad(glass, {o.x0, y, o.z0}, {o.x0, y, o.z1}, {o.x1, y, o.z1}, {o.x1, y, o.z0});
}

Opening shrink(const Opening& o, double by) { return {o.x0 + by, o.x1 - by, o.z0 + by, o.z1 - by}; }

// Glass, frame ring and glazing bars filling `o`; returns the frame bar width used.
double add_glazing(ModuleMesh& out, const KitParams& k, const Opening& o, bool bottom_frame) {
  const double bar = std::min(k.frame, 0.25 * std::min(o.x1 - o.x0, o.z1 - o.z0));
  add_glass(part(out, Material::glass), o, k.inset);
  add_frame_ring(part(out, Material::frame), o, bar, -k.inset, -k.inset + kFrameProud,
                 bottom_frame);
  const Opening inner = shrink(o, bar);
  add_glazing_bars(part(out, Material::frame), inner, k.mullions_x, k.mullions_y, 0.6 * bar,
                   -k.inset, -k.inset + kBarProud);
  return bar;
}

// A door leaf filling `o` (whose bottom is the ground) at y = -inset, with two raised panels
// and a lever handle.
void add_door_leaf(ModuleMesh& out, const KitParams& k, const Opening& o) {
  if (!o.valid()) {
    return;
  }
  Mesh& door = part(out, Material::door);
  const double back = -std::min(k.depth, k.inset + 0.05);
  add_box(door, {o.x0, back, o.z0}, {o.x1, -k.inset, o.z1}, kNoBack);
  const double lw = o.x1 - o.x0;
  const double lh = o.z1 - o.z0;
  const double px = 0.15 * lw;
  const double y1 = -k.inset + 0.015;
  add_box(door, {o.x0 + px, -k.inset, o.z0 + 0.12 * lh}, {o.x1 - px, y1, o.z0 + 0.44 * lh},
          kNoBack);
  add_box(door, {o.x0 + px, -k.inset, o.z0 + 0.56 * lh}, {o.x1 - px, y1, o.z0 + 0.9 * lh}, kNoBack);
  const double hz = o.z0 + 0.48 * lh;
  add_box(part(out, Material::metal), {o.x1 - 0.3 * lw, -k.inset, hz},
          {o.x1 - 0.08 * lw, -k.inset + 0.06, hz + std::min(0.03, 0.03 * lh)}, kNoBack);
}

// The sill (below, projecting) and lintel (above, flat) of a window opening.
void add_sill_and_lintel(ModuleMesh& out, const KitParams& k, const Opening& o) {
  Mesh& trim = part(out, Material::trim);
  const double x0 = std::max(0.0, o.x0 - 0.05);
  const double x1 = std::min(k.w, o.x1 + 0.05);
  const double sill_t = std::min(0.05, o.z0);
  add_box(trim, {x0, -k.inset, o.z0 - sill_t}, {x1, std::min(0.06, k.reach), o.z0}, kNoBack);
  const double lintel_t = std::min(0.15, k.h - o.z1);
  add_box(trim, {x0, 0.0, o.z1}, {x1, std::min(0.03, k.reach), o.z1 + lintel_t}, kNoBack);
}

}  // namespace

void build_window(const KitParams& k, ModuleMesh& out) {
  const Opening o = window_opening(k);
  if (!o.valid()) {
    build_wall(k, out);
    return;
  }
  // The sill covers the bottom reveal when there is wall below the opening to carry it.
  const bool sill = o.z0 >= kMinExtent;
  add_panel(part(out, Material::wall), k.w, k.h, k.depth, o, k.inset, !sill);
  add_glazing(out, k, o, true);
  add_sill_and_lintel(out, k, o);
}

void build_door(const KitParams& k, ModuleMesh& out) {
  // 1. A door-sized opening to the ground, centred.
  const double ow = k.opening_w * k.w;
  const double top = std::min(std::max(k.opening_h * k.h, std::min(2.2, 0.75 * k.h)), 0.85 * k.h);
  const Opening o{0.5 * (k.w - ow), 0.5 * (k.w + ow), 0.0, top};
  add_panel(part(out, Material::wall), k.w, k.h, k.depth, o, k.inset, false);
  // 2. Frame (no threshold bar) and the recessed leaf.
  const double bar = std::min(k.frame, 0.2 * ow);
  add_frame_ring(part(out, Material::frame), o, bar, -k.inset, -k.inset + kFrameProud + 0.01,
                 false);
  add_door_leaf(out, k, {o.x0 + bar, o.x1 - bar, 0.0, o.z1 - bar});
  // 3. Canopy slab above, hung from two tie rods.
  const double ct = 0.08;
  const double cz = std::min(o.z1 + 0.12, k.h - ct);
  if (cz < o.z1) {
    return;
  }
  Mesh& metal = part(out, Material::metal);
  const double cx0 = std::max(0.0, o.x0 - 0.25);
  const double cx1 = std::min(k.w, o.x1 + 0.25);
  add_box(metal, {cx0, 0.0, cz}, {cx1, k.reach, cz + ct}, kNoBack);
  const double rod_top = std::min(k.h - 0.03, cz + ct + 0.6);
  if (k.reach > 0.2 && rod_top > cz + ct + 0.1 && cx1 - cx0 > 0.3) {
    for (const double x : {cx0 + 0.1, cx1 - 0.1}) {
      add_beam(metal, {x, 0.0, rod_top}, {x, k.reach - 0.05, cz + ct + 0.015}, 0.012, 0.012);
    }
  }
}

void build_storefront(const KitParams& k, ModuleMesh& out) {
  // 1. One big opening between narrow piers, up to 75% of the height.
  const double m = std::min(0.3, 0.08 * k.w);
  const Opening o{m, k.w - m, 0.0, 0.75 * k.h};
  add_panel(part(out, Material::wall), k.w, k.h, k.depth, o, k.inset, false);
  const double ow = o.x1 - o.x0;
  const double dw = ow >= 1.6 ? std::min(1.0, 0.35 * ow) : 0.0;
  const double gx1 = o.x1 - dw;
  // 2. Shop window: bulkhead below, glass with frame and bars above.
  const double bz = std::min(0.35, 0.15 * o.z1);
  add_box(part(out, Material::trim), {o.x0, -std::min(k.depth, k.inset + 0.1), 0.0},
          {gx1, -k.inset + 0.03, bz}, kNoBack);
  add_glazing(out, k, {o.x0, gx1, bz, o.z1}, true);
  // 3. Door section: frame, leaf, transom light above a tall door.
  if (dw > 0.0) {
    const Opening d{gx1, o.x1, 0.0, o.z1};
    const double bar = std::min(k.frame, 0.2 * dw);
    Mesh& frame = part(out, Material::frame);
    add_frame_ring(frame, d, bar, -k.inset, -k.inset + kFrameProud, false);
    const double door_top = std::min(o.z1 - bar, 2.3);
    if (o.z1 - bar - door_top > 0.3) {
      add_box(frame, {d.x0 + bar, -k.inset, door_top},
              {d.x1 - bar, -k.inset + kFrameProud, door_top + bar}, kNoBack);
      add_glass(part(out, Material::glass), {d.x0 + bar, d.x1 - bar, door_top + bar, o.z1 - bar},
                k.inset);
    }
    add_door_leaf(out, k, {d.x0 + bar, d.x1 - bar, 0.0, door_top});
  }
  // 4. Sign band on the wall above.
  const double band = k.h - o.z1;
  add_box(part(out, Material::sign), {m, 0.0, o.z1 + 0.15 * band},
          {k.w - m, std::min(0.08, k.reach), k.h - 0.15 * band}, kNoBack);
}

void build_curtain_wall(const KitParams& k, ModuleMesh& out) {
  // 1. Spandrel band at the floor line, glass above it, both in the glass plane.
  const double sp = std::min(0.9, 0.28 * k.h);
  add_box(part(out, Material::metal), {0.0, -k.depth, 0.0}, {k.w, -k.inset, sp}, kNoBack);
  add_glass(part(out, Material::glass), {0.0, k.w, sp, k.h}, k.inset);
  // 2. Mullions: half bars on both edges (neighbours complete them), then the inner ones;
  // transoms at the floor line and the module edges a little behind the mullions.
  Mesh& frame = part(out, Material::frame);
  const double bar = std::min(k.frame, 0.2 * k.w);
  const double y0 = -k.inset;
  const double yv = -k.inset + 0.1;
  const double yh = -k.inset + 0.075;
  add_box(frame, {0.0, y0, 0.0}, {0.5 * bar, yv, k.h}, kNoBack);
  add_box(frame, {k.w - 0.5 * bar, y0, 0.0}, {k.w, yv, k.h}, kNoBack);
  add_glazing_bars(frame, {0.0, k.w, 0.0, k.h}, k.mullions_x, 0, bar, y0, yv);
  const double hb = std::min(bar, 0.2 * sp);
  add_box(frame, {0.0, y0, 0.0}, {k.w, yh, 0.5 * hb}, kNoBack);
  add_box(frame, {0.0, y0, sp - 0.5 * hb}, {k.w, yh, sp + 0.5 * hb}, kNoBack);
  add_box(frame, {0.0, y0, k.h - 0.5 * hb}, {k.w, yh, k.h}, kNoBack);
  add_glazing_bars(frame, {0.0, k.w, sp, k.h}, 0, k.mullions_y, hb, y0, yv);
}

void build_balcony(const KitParams& k, ModuleMesh& out) {
  build_window(k, out);
  // 1. Slab at floor level.
  const double st = std::min(0.15, 0.1 * k.h);
  add_box(part(out, Material::trim), {0.0, 0.0, 0.0}, {k.w, k.reach, st}, kNoBack);
  // 2. Railing: top rails on the front and both sides, balusters between slab and rail.
  Mesh& metal = part(out, Material::metal);
  const double rt = 0.04;
  const double top = std::min(st + 1.0, 0.95 * k.h);
  const double r = k.reach;
  add_box(metal, {0.0, r - rt, top - rt}, {k.w, r, top});
  add_box(metal, {0.0, 0.0, top - rt}, {rt, r - rt, top}, kNoBack);
  add_box(metal, {k.w - rt, 0.0, top - rt}, {k.w, r - rt, top}, kNoBack);
  const std::uint32_t sides = ~(kNegZ | kPosZ);
  const double bw = 0.01;
  const auto nf = static_cast<std::uint32_t>(std::clamp(std::ceil(k.w / 0.12), 2.0, 24.0));
  for (std::uint32_t i = 0; i < nf; ++i) {
    const double x = 0.02 + (k.w - 0.04) * static_cast<double>(i) / static_cast<double>(nf - 1);
    add_box(metal, {x - bw, r - 0.5 * rt - bw, st}, {x + bw, r - 0.5 * rt + bw, top - rt},
            kAllFaces & sides);
  }
  const auto ns = static_cast<std::uint32_t>(std::clamp(std::floor((r - rt) / 0.12), 0.0, 12.0));
  for (std::uint32_t i = 1; i <= ns; ++i) {
    const double y = (r - rt) * static_cast<double>(i) / static_cast<double>(ns + 1);
    for (const double x : {0.5 * rt, k.w - 0.5 * rt}) {
      add_box(metal, {x - bw, y - bw, st}, {x + bw, y + bw, top - rt}, kAllFaces & sides);
    }
  }
}

}  // namespace cityforge::buildings::detail
