// SPDX-License-Identifier: Apache-2.0
// The 17 footprint shapes of the Building DNA (seeds/000, 15:44): closed-form outlines in the
// building's local frame, the placed polygon and the shortest wall a style has to accept.
#include <algorithm>
#include <array>
#include <cmath>
#include <numbers>
#include <string>
#include <string_view>
#include <vector>

#include "cityforge/lots/lots.hpp"

namespace cityforge::lots {
namespace {

constexpr std::array<const char*, kFootprintShapeCount> kShapeNames{
    "rectangle", "l_shape", "u_shape", "t_shape",      "h_shape", "c_shape",
    "courtyard", "plus",    "z_shape", "chamfered",    "rounded", "wedge",
    "trapezoid", "stepped", "e_shape", "podium_tower", "cylinder"};

Ring box_ring(double x0, double y0, double x1, double y1) {
  return {{x0, y0}, {x1, y0}, {x1, y1}, {x0, y1}};
}

// Corner arcs of the rounded box: 4 segments per quarter circle.
void add_arc(Ring& ring, Vec2 centre, double r, double start_rad) {
  for (int k = 0; k <= 4; ++k) {
    const double a = start_rad + (std::numbers::pi / 2.0) * k / 4.0;
    ring.push_back({centre.x + r * std::cos(a), centre.y + r * std::sin(a)});
  }
}

}  // namespace

const char* to_string(FootprintShape s) {
  const auto i = static_cast<std::size_t>(s);
  return i < kShapeNames.size() ? kShapeNames[i] : "unknown";
}

bool footprint_shape_from_string(std::string_view name, FootprintShape* out) {
  for (std::size_t i = 0; i < kShapeNames.size(); ++i) {
    if (name == kShapeNames[i]) {
      if (out != nullptr) *out = static_cast<FootprintShape>(i);
      return true;
    }
  }
  return false;
}

const char* to_string(Massing m) {
  switch (m) {
    case Massing::plain:
      return "plain";
    case Massing::cubified:
      return "cubified";
    case Massing::staggered:
      return "staggered";
  }
  return "unknown";
}

namespace {

constexpr std::array<const char*, kRoofShapeCount> kRoofNames{"flat",      "gabled",   "hipped",
                                                              "pyramidal", "skillion", "dome"};

// OSM roof:shape values beyond the six: the nearest shape the generator draws.
struct RoofAlias {
  std::string_view name;
  RoofShape shape;
};
constexpr std::array<RoofAlias, 16> kRoofAliases{{
    {"pitched", RoofShape::gabled},
    {"gable", RoofShape::gabled},
    {"saltbox", RoofShape::gabled},
    {"gambrel", RoofShape::gabled},
    {"mansard", RoofShape::hipped},
    {"hip", RoofShape::hipped},
    {"half-hipped", RoofShape::hipped},
    {"half_hipped", RoofShape::hipped},
    {"side_hipped", RoofShape::hipped},
    {"side-hipped", RoofShape::hipped},
    {"pyramid", RoofShape::pyramidal},
    {"lean_to", RoofShape::skillion},
    {"shed", RoofShape::skillion},
    {"onion", RoofShape::dome},
    {"round", RoofShape::dome},
    {"cone", RoofShape::pyramidal},
}};

}  // namespace

const char* to_string(RoofShape s) {
  const auto i = static_cast<std::size_t>(s);
  return i < kRoofNames.size() ? kRoofNames[i] : "unknown";
}

bool roof_shape_from_string(std::string_view name, RoofShape* out) {
  // Case and surrounding blanks do not matter ("Gabled ", "HIPPED").
  while (!name.empty() && (name.front() == ' ' || name.front() == '\t'))
    name.remove_prefix(1);
  while (!name.empty() && (name.back() == ' ' || name.back() == '\t'))
    name.remove_suffix(1);
  std::string lower(name);
  for (char& c : lower)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  for (std::size_t i = 0; i < kRoofNames.size(); ++i) {
    if (lower == kRoofNames[i]) {
      if (out != nullptr) *out = static_cast<RoofShape>(i);
      return true;
    }
  }
  for (const RoofAlias& a : kRoofAliases) {
    if (lower == a.name) {
      if (out != nullptr) *out = a.shape;
      return true;
    }
  }
  return false;
}

const char* to_string(LotStatus s) {
  switch (s) {
    case LotStatus::buildable:
      return "buildable";
    case LotStatus::replaced:
      return "replaced";
    case LotStatus::sliver:
      return "sliver";
    case LotStatus::too_narrow:
      return "too_narrow";
    case LotStatus::bad_aspect:
      return "bad_aspect";
    case LotStatus::too_small:
      return "too_small";
  }
  return "unknown";
}

// Every proportion below is a share of the box driven by shape_param p in [0.2, 0.8]; within
// that range no edge degenerates, so the rings have no repeated or collinear points.
Polygon footprint_outline(FootprintShape shape, double size_x_m, double size_y_m,
                          double shape_param) {
  const double w = size_x_m;
  const double h = size_y_m;
  const double p = std::clamp(shape_param, 0.2, 0.8);
  const double x0 = -w / 2;
  const double x1 = w / 2;
  const double y0 = -h / 2;
  const double y1 = h / 2;
  const double ym = 0.0;
  Polygon out;
  switch (shape) {
    case FootprintShape::rectangle:
    case FootprintShape::podium_tower:
      out.outer = box_ring(x0, y0, x1, y1);
      break;
    case FootprintShape::l_shape: {  // back-right quadrant removed
      const double cx = x1 - p * w;
      const double cy = y1 - p * h;
      out.outer = {{x0, y0}, {x1, y0}, {x1, cy}, {cx, cy}, {cx, y1}, {x0, y1}};
      break;
    }
    case FootprintShape::u_shape: {  // notch p*w wide, half the depth, in the back side
      const double a = (w - p * w) / 2;
      const double ny = y1 - h / 2 * (0.5 + 0.5 * p);
      out.outer = {{x0, y0},     {x1, y0},     {x1, y1},     {x1 - a, y1},
                   {x1 - a, ny}, {x0 + a, ny}, {x0 + a, y1}, {x0, y1}};
      break;
    }
    case FootprintShape::t_shape: {  // front bar, stem p*w wide
      const double by = y0 + h * (0.3 + 0.3 * (1 - p));
      const double s = p * w / 2;
      out.outer = {{x0, y0}, {x1, y0}, {x1, by}, {s, by}, {s, y1}, {-s, y1}, {-s, by}, {x0, by}};
      break;
    }
    case FootprintShape::h_shape: {  // wings 0.3*w wide, notches 0.4*p*h deep
      const double a = 0.3 * w;
      const double n = 0.4 * p * h;
      out.outer = {{x0, y0},         {x0 + a, y0},     {x0 + a, y0 + n}, {x1 - a, y0 + n},
                   {x1 - a, y0},     {x1, y0},         {x1, y1},         {x1 - a, y1},
                   {x1 - a, y1 - n}, {x0 + a, y1 - n}, {x0 + a, y1},     {x0, y1}};
      break;
    }
    case FootprintShape::c_shape: {
      if (w >= h) {  // notch in the right (short) side, p*h long, half the width deep
        const double nx = x1 - w * 0.5 * (0.4 + 0.4 * p);
        const double a = (h - p * h) / 2;
        out.outer = {{x0, y0},     {x1, y0},     {x1, y0 + a}, {nx, y0 + a},
                     {nx, y1 - a}, {x1, y1 - a}, {x1, y1},     {x0, y1}};
      } else {  // the short side is the front: a forecourt open to the street
        const double a = (w - p * w) / 2;
        const double ny = y0 + h * 0.5 * (0.4 + 0.4 * p);
        out.outer = {{x0, y0},     {x0 + a, y0}, {x0 + a, ny}, {x1 - a, ny},
                     {x1 - a, y0}, {x1, y0},     {x1, y1},     {x0, y1}};
      }
      break;
    }
    case FootprintShape::courtyard: {  // hole p*w x p*h, clockwise
      out.outer = box_ring(x0, y0, x1, y1);
      const double hx = p * w / 2;
      const double hy = p * h / 2;
      out.holes.push_back({{-hx, -hy}, {-hx, hy}, {hx, hy}, {hx, -hy}});
      break;
    }
    case FootprintShape::plus: {  // arms p*w and p*h wide
      const double ax = p * w / 2;
      const double ay = p * h / 2;
      out.outer = {{-ax, y0}, {ax, y0},  {ax, -ay}, {x1, -ay}, {x1, ay},  {ax, ay},
                   {ax, y1},  {-ax, y1}, {-ax, ay}, {x0, ay},  {x0, -ay}, {-ax, -ay}};
      break;
    }
    case FootprintShape::z_shape: {  // bars (0.5 + 0.4 p) * w long, overlapping in the middle
      const double b = w * (0.5 + 0.4 * p);
      out.outer = {{x0, y0}, {x0 + b, y0}, {x0 + b, ym}, {x1, ym},
                   {x1, y1}, {x1 - b, y1}, {x1 - b, ym}, {x0, ym}};
      break;
    }
    case FootprintShape::chamfered: {
      const double c = 0.3 * p * std::min(w, h);
      out.outer = {{x0 + c, y0}, {x1 - c, y0}, {x1, y0 + c}, {x1, y1 - c},
                   {x1 - c, y1}, {x0 + c, y1}, {x0, y1 - c}, {x0, y0 + c}};
      break;
    }
    case FootprintShape::rounded: {
      const double r = 0.3 * p * std::min(w, h);
      const double pi = std::numbers::pi;
      add_arc(out.outer, {x1 - r, y0 + r}, r, -pi / 2);
      add_arc(out.outer, {x1 - r, y1 - r}, r, 0.0);
      add_arc(out.outer, {x0 + r, y1 - r}, r, pi / 2);
      add_arc(out.outer, {x0 + r, y0 + r}, r, pi);
      break;
    }
    case FootprintShape::wedge: {  // back wall (0.5 - 0.5 p) * w
      const double b = w * (0.5 - 0.5 * p) / 2;
      out.outer = {{x0, y0}, {x1, y0}, {b, y1}, {-b, y1}};
      break;
    }
    case FootprintShape::trapezoid: {  // back narrower by 0.5 p
      const double b = w * (1.0 - 0.5 * p) / 2;
      out.outer = {{x0, y0}, {x1, y0}, {b, y1}, {-b, y1}};
      break;
    }
    case FootprintShape::stepped: {  // back half steps in twice on the right, p*w/4 each
      const double s = p * w / 4;
      const double yq = y0 + 0.75 * h;
      out.outer = {{x0, y0},     {x1, y0},         {x1, ym},         {x1 - s, ym},
                   {x1 - s, yq}, {x1 - 2 * s, yq}, {x1 - 2 * s, y1}, {x0, y1}};
      break;
    }
    case FootprintShape::e_shape: {  // three wings (0.3 - 0.1 p) * w wide to the front
      const double a = w * (0.3 - 0.1 * p);
      const double g = (w - 3 * a) / 2;
      const double n = y0 + h * (0.3 + 0.4 * p);
      out.outer = {{x0, y0},
                   {x0 + a, y0},
                   {x0 + a, n},
                   {x0 + a + g, n},
                   {x0 + a + g, y0},
                   {x0 + 2 * a + g, y0},
                   {x0 + 2 * a + g, n},
                   {x1 - a, n},
                   {x1 - a, y0},
                   {x1, y0},
                   {x1, y1},
                   {x0, y1}};
      break;
    }
    case FootprintShape::cylinder: {  // flat front edge: first vertex just right of -90 deg
      const double pi = std::numbers::pi;
      for (int k = 0; k < 12; ++k) {
        const double a = -pi / 2 + pi / 12 + 2 * pi * k / 12;
        out.outer.push_back({w / 2 * std::cos(a), h / 2 * std::sin(a)});
      }
      break;
    }
  }
  return out;
}

Polygon mirrored_outline(Polygon outline) {
  // x -> -x turns every ring's winding; reversing the order turns it back.
  auto flip = [](Ring& ring) {
    for (Vec2& p : ring)
      p.x = -p.x;
    std::reverse(ring.begin(), ring.end());
  };
  flip(outline.outer);
  for (Ring& hole : outline.holes)
    flip(hole);
  return outline;
}

Polygon footprint_polygon(const BuildingDNA& dna) {
  // Imported buildings: the mapped outline. One volume is the footprint itself; several
  // (building:part) give the outline of their union, largest piece first.
  if (!dna.imported.empty()) {
    if (dna.imported.size() == 1) return dna.imported.front().footprint;
    std::vector<Polygon> parts;
    parts.reserve(dna.imported.size());
    for (const ImportedVolume& v : dna.imported)
      parts.push_back(v.footprint);
    std::vector<Polygon> joined = polygon_union(parts);
    if (joined.empty()) return dna.imported.front().footprint;
    std::size_t best = 0;
    for (std::size_t i = 1; i < joined.size(); ++i)
      if (polygon_area(joined[i]) > polygon_area(joined[best])) best = i;
    return joined[best];
  }
  Polygon poly = footprint_outline(dna.shape, dna.size_x_m, dna.size_y_m, dna.shape_param);
  if (dna.mirrored) poly = mirrored_outline(std::move(poly));
  const double c = std::cos(dna.angle_rad);
  const double s = std::sin(dna.angle_rad);
  auto place = [&](Ring& ring) {
    for (Vec2& p : ring)
      p = Vec2{c * p.x - s * p.y, s * p.x + c * p.y} + dna.centre;
  };
  place(poly.outer);
  for (Ring& hole : poly.holes)
    place(hole);
  return poly;
}

double shortest_wall_m(FootprintShape shape, double size_x_m, double size_y_m, double shape_param) {
  return shortest_wall_m(footprint_outline(shape, size_x_m, size_y_m, shape_param));
}

double shortest_wall_m(const Polygon& poly) {
  double best = INFINITY;
  auto scan = [&](const Ring& ring) {
    for (std::size_t i = 0; i < ring.size(); ++i)
      best = std::min(best, distance(ring[i], ring[(i + 1) % ring.size()]));
  };
  scan(poly.outer);
  for (const Ring& hole : poly.holes)
    scan(hole);
  return best;
}

}  // namespace cityforge::lots
