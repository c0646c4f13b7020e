// SPDX-License-Identifier: Apache-2.0
// Built-in kit generators for solid modules and props: plain wall, corner column, pilaster,
// cornice, louvre cladding, fire escape and blade sign with awning.
#include <algorithm>
#include <cmath>

#include "buildings/detail/kit_modules.hpp"

namespace cityforge::buildings::detail {
namespace {

// Base plinth and capital band heights of columns.
double base_height(const KitParams& k) { return std::min(0.3, 0.1 * k.h); }
double cap_height(const KitParams& k) { return std::min(0.2, 0.07 * k.h); }

}  // namespace

void build_wall(const KitParams& k, ModuleMesh& out) {
  add_box(part(out, Material::wall), {0.0, -k.depth, 0.0}, {k.w, 0.0, k.h}, kNoBack);
}

void build_corner(const KitParams& k, ModuleMesh& out) {
  // A rusticated column: the shaft stands 80% of the projection proud (and wide); plinth, cap
  // and alternate quoin blocks use the full projection, so two pieces meeting at a convex
  // corner overlap and close it.
  const double p = k.projection;
  const double s = 0.8 * p;
  const double bh = base_height(k);
  const double ch = cap_height(k);
  add_box(part(out, Material::wall), {-s, -k.depth, bh}, {k.w + s, s, k.h - ch}, kNoBack);
  Mesh& trim = part(out, Material::trim);
  add_box(trim, {-p, -k.depth, 0.0}, {k.w + p, p, bh}, kNoBack);
  add_box(trim, {-p, -k.depth, k.h - ch}, {k.w + p, p, k.h}, kNoBack);
  if (p < 0.01) {
    return;
  }
  const double span = k.h - bh - ch;
  const auto n = static_cast<std::uint32_t>(std::clamp(std::floor(span / 0.35), 0.0, 13.0));
  for (std::uint32_t i = 1; i < n; i += 2) {
    const double z0 = bh + span * static_cast<double>(i) / static_cast<double>(n);
    const double z1 = bh + span * static_cast<double>(i + 1) / static_cast<double>(n);
    add_box(trim, {-p, -k.depth, z0}, {k.w + p, p, z1}, kNoBack);
  }
}

void build_pilaster(const KitParams& k, ModuleMesh& out) {
  // Shaft over the full module width; base and capital a little wider and prouder.
  Mesh& trim = part(out, Material::trim);
  const double e = std::min(k.projection, 0.04);
  const double r = k.reach;
  const double bh = base_height(k);
  const double ch = cap_height(k);
  add_box(trim, {0.0, -k.depth, bh}, {k.w, 0.6 * r, k.h - ch}, kNoBack);
  add_box(trim, {-e, -k.depth, 0.0}, {k.w + e, r, bh}, kNoBack);
  add_box(trim, {-e, -k.depth, k.h - ch}, {k.w + e, r, k.h}, kNoBack);
}

void build_cornice(const KitParams& k, ModuleMesh& out) {
  // 1. Wall panel up to the moulding.
  const double b = std::min(0.12, k.h / 8.0);
  const double m0 = k.h - 3.0 * b;
  add_box(part(out, Material::wall), {0.0, -k.depth, 0.0}, {k.w, 0.0, m0}, kNoBack);
  // 2. Three stacked bands, each projecting further, the full module width.
  Mesh& trim = part(out, Material::trim);
  for (int i = 0; i < 3; ++i) {
    const double z0 = m0 + b * i;
    const double y1 = k.reach * (i + 1) / 3.0;
    add_box(trim, {0.0, -k.depth, z0}, {k.w, y1, z0 + b}, kNoBack);
  }
  // 3. A row of dentils under the lowest band.
  const double dy = k.reach / 3.0;
  const double dh = std::min(0.08, 0.5 * b);
  const auto n = static_cast<std::uint32_t>(std::clamp(std::floor(k.w / 0.25), 0.0, 16.0));
  for (std::uint32_t i = 0; i < n; ++i) {
    const double c = k.w * (static_cast<double>(i) + 0.5) / static_cast<double>(n);
    add_box(trim, {c - 0.05, 0.0, m0 - dh}, {c + 0.05, 0.8 * dy, m0}, kNoBack & ~kPosZ);
  }
}

void build_louvre(const KitParams& k, ModuleMesh& out) {
  add_box(part(out, Material::wall), {0.0, -k.depth, 0.0}, {k.w, 0.0, k.h}, kNoBack);
  // Trim bands top and bottom, proud horizontal ribs between: ribbed cladding.
  Mesh& trim = part(out, Material::trim);
  const double b = std::min(0.1, 0.05 * k.h);
  add_box(trim, {0.0, 0.0, 0.0}, {k.w, 0.05, b}, kNoBack);
  add_box(trim, {0.0, 0.0, k.h - b}, {k.w, 0.05, k.h}, kNoBack);
  const double span = k.h - 2.0 * b;
  const auto n = static_cast<std::uint32_t>(std::clamp(std::floor(span / 0.3), 1.0, 16.0));
  const double pitch = span / static_cast<double>(n);
  Mesh& metal = part(out, Material::metal);
  for (std::uint32_t i = 0; i < n; ++i) {
    const double z0 = b + pitch * (static_cast<double>(i) + 0.25);
    add_box(metal, {0.0, 0.0, z0}, {k.w, 0.035, z0 + 0.5 * pitch}, kNoBack);
  }
}

void build_fire_escape(const KitParams& k, ModuleMesh& out) {
  Mesh& metal = part(out, Material::metal);
  const double r = k.reach;
  const double pt = 0.05;
  // 1. Platform at floor level, a hand's width off the wall.
  add_box(metal, {0.0, 0.05, 0.0}, {k.w, r, pt});
  // 2. Railing: top and mid rails on the front and sides, posts along the front.
  const double rt = 0.04;
  const double top = std::min(1.05, 0.9 * k.h);
  for (const double z : {top, 0.5 * (top + pt) + 0.5 * rt}) {
    add_box(metal, {0.0, r - rt, z - rt}, {k.w, r, z});
    add_box(metal, {0.0, 0.05, z - rt}, {rt, r - rt, z});
    add_box(metal, {k.w - rt, 0.05, z - rt}, {k.w, r - rt, z});
  }
  const auto np = static_cast<std::uint32_t>(std::clamp(std::ceil(k.w / 1.5) + 1.0, 2.0, 8.0));
  for (std::uint32_t i = 0; i < np; ++i) {
    const double x = 0.5 * rt + (k.w - rt) * static_cast<double>(i) / static_cast<double>(np - 1);
    // Posts sit just inside the rails' outline so no faces coincide.
    add_box(metal, {x - 0.5 * rt + 0.005, r - rt + 0.005, pt},
            {x + 0.5 * rt - 0.005, r - 0.005, top - rt}, kAllFaces & ~(kNegZ | kPosZ));
  }
  // 3. Stair (a ladder when the module is narrow) from this platform up to the next one.
  const double ys0 = std::max(0.1, r - 0.7);
  const double ys1 = r - 0.1;
  const double hh = 0.05;
  const double m = 0.06;
  const double run = std::max(0.0, std::min({0.7 * k.w, 0.85 * k.h, k.w - 0.12}));
  const double xa = 0.5 * (k.w - run);
  const double za = pt + m;
  const double zb = k.h - m;
  for (const double y : {ys0 + 0.02, ys1 - 0.02}) {
    add_beam(metal, {xa, y, za}, {xa + run, y, zb}, 0.015, hh);
  }
  const auto nt = static_cast<std::uint32_t>(std::clamp(std::floor((k.h - 0.1) / 0.25), 2.0, 14.0));
  const double td = std::clamp(run / static_cast<double>(nt + 1), 0.03, 0.25);
  for (std::uint32_t i = 0; i < nt; ++i) {
    const double t = static_cast<double>(i + 1) / static_cast<double>(nt + 1);
    const double cx = xa + t * run;
    const double cz = za + t * (zb - za);
    add_box(metal, {std::max(0.0, cx - 0.5 * td), ys0 + 0.035, cz - 0.02},
            {std::min(k.w, cx + 0.5 * td), ys1 - 0.035, cz + 0.02});
  }
}

void build_sign(const KitParams& k, ModuleMesh& out) {
  Mesh& sign = part(out, Material::sign);
  Mesh& metal = part(out, Material::metal);
  // 1. Awning over the module: a thin slab sloping down and out, with a valance at its front.
  const double r = k.reach;
  const double aw = std::min(r, 1.0);
  const double zt = 0.74 * k.h;
  const double zl = zt - 0.35 * aw;
  const double t = 0.03;
  std::array<Vec3, 8> c;
  for (std::size_t i = 0; i < 8; ++i) {
    const double x = (i & 1U) != 0 ? k.w : 0.0;
    const bool outer = (i & 2U) != 0;
    const double z = (outer ? zl : zt) - ((i & 4U) != 0 ? 0.0 : t);
    c[i] = {x, outer ? aw : 0.0, z};
  }
  add_hex(sign, c, kNoBack);
  const double vh = std::min(0.2, 0.5 * zl);
  add_box(sign, {0.0, aw - 0.02, zl - t - vh}, {k.w, aw, zl - t}, kAllFaces & ~kPosZ);
  // 2. Blade sign hung from a bracket, perpendicular to the facade, above the awning.
  const double xc = 0.5 * k.w;
  const double bracket = std::min(k.h - 0.05, 0.97 * k.h);
  const double bh = std::min(0.9, 0.17 * k.h);
  const double st = 0.5 * std::min(0.06, 0.5 * k.w);
  add_box(metal, {xc - 0.015, 0.0, bracket - 0.04}, {xc + 0.015, r, bracket}, kNoBack);
  add_box(metal, {xc - 0.06, 0.0, bracket - 0.15}, {xc + 0.06, 0.02, std::min(k.h, bracket + 0.03)},
          kNoBack);
  const double sz1 = bracket - 0.08;
  add_box(sign, {xc - st, 0.12, sz1 - bh}, {xc + st, r - 0.04, sz1});
  for (const double y : {0.2, r - 0.12}) {
    add_box(metal, {xc - 0.008, y - 0.008, sz1}, {xc + 0.008, y + 0.008, bracket - 0.04},
            kAllFaces & ~(kNegZ | kPosZ));
  }
}

}  // namespace cityforge::buildings::detail
