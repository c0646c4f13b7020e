// SPDX-License-Identifier: Apache-2.0
// map.svg: a top-down map of the layout. The viewBox is in metres with y flipped (SVG y runs
// down, ours north), so north is up and road widths are true to scale.
// Based on: W3C, Scalable Vector Graphics (SVG) 1.1, paths and painting.

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <string>
#include <string_view>

#include "cityforge/core/format.hpp"
#include "cityforge/export/export.hpp"

namespace cityforge::exporter {

namespace {

constexpr std::array<const char*, layout::kRoadClassCount> kRoadColours{
    "#e0533d",  // artery: red
    "#f2a93b",  // main: orange
    "#8c8c8c",  // local: grey
};
constexpr std::array<const char*, layout::kZoneKindCount> kZoneColours{
    "#e7a3a8",  // downtown
    "#f5cf7a",  // commercial
    "#f0e3b8",  // residential
    "#c5bfd9",  // industrial
    "#9fd49a",  // park
};
constexpr const char* kBackground = "#f4f1ea";
constexpr const char* kBlockFill = "#d9d4cc";
constexpr const char* kBlockStroke = "#b0a99f";
constexpr const char* kInk = "#333333";
/// Longest side of the drawing in pixels (the viewBox stays in metres).
constexpr double kMaxPixels = 1600.0;

/// Maps engine metres to SVG user units: same scale, origin at the top-left, y flipped.
struct Frame {
  double left = 0.0;
  double top = 0.0;  ///< Largest y of the drawing.

  double x(double engine_x) const { return engine_x - left; }
  double y(double engine_y) const { return top - engine_y; }
};

std::string num(double v) { return format_g9(v); }

bool finite(const Polyline& line) {
  return std::all_of(line.begin(), line.end(),
                     [](Vec2 p) { return std::isfinite(p.x) && std::isfinite(p.y); });
}

bool finite(const Polygon& poly) {
  return finite(poly.outer) &&
         std::all_of(poly.holes.begin(), poly.holes.end(), [](const Ring& r) { return finite(r); });
}

/// Path data of a polyline ("M x y L x y ..."), closed with Z for rings.
std::string path_data(const Frame& f, const Polyline& line, bool closed) {
  std::string d;
  for (std::size_t i = 0; i < line.size(); ++i) {
    d += (i == 0 ? "M" : " L");
    d += num(f.x(line[i].x)) + " " + num(f.y(line[i].y));
  }
  if (closed && !line.empty()) {
    d += " Z";
  }
  return d;
}

std::string polygon_path(const Frame& f, const Polygon& poly, std::string_view attrs) {
  std::string d = path_data(f, poly.outer, true);
  for (const Ring& hole : poly.holes) {
    d.append(" ").append(path_data(f, hole, true));
  }
  std::string s = "<path d=\"";
  s.append(d).append("\" ").append(attrs).append("/>\n");
  return s;
}

/// Bounds of everything drawn (the boundary, roads, blocks, zones), ignoring non-finite points.
Aabb2 drawing_bounds(const layout::Output& city) {
  Aabb2 box;
  const auto add = [&](const Polyline& line) {
    for (const Vec2 p : line) {
      if (std::isfinite(p.x) && std::isfinite(p.y)) {
        box.add(p);
      }
    }
  };
  add(city.boundary.outer);
  for (const auto& e : city.network.edges) {
    add(e.points);
  }
  for (const auto& b : city.blocks) {
    add(b.area.outer);
  }
  for (const auto& z : city.zones) {
    add(z.area.outer);
  }
  if (box.empty()) {
    box.add({0.0, 0.0});
    box.add({100.0, 100.0});
  }
  return box;
}

/// The largest 1, 2 or 5 times a power of ten that is at most `limit`.
double nice_length(double limit) {
  const double decade = std::pow(10.0, std::floor(std::log10(limit)));
  for (const double step : {5.0, 2.0, 1.0}) {
    if (step * decade <= limit) {
      return step * decade;
    }
  }
  return decade;
}

std::string scale_bar(const Frame& f, const Aabb2& box, double margin, double text_size) {
  const double length = nice_length(box.size().x / 5.0);
  const double x0 = f.x(box.min.x);
  const double y0 = f.y(box.min.y) + 0.6 * margin;
  std::string s = "<g id=\"scale-bar\">\n";
  s += "<rect x=\"" + num(x0) + "\" y=\"" + num(y0 - text_size * 0.3) + "\" width=\"" +
       num(length) + "\" height=\"" + num(text_size * 0.3) + "\" fill=\"" + kInk + "\"/>\n";
  s += "<text x=\"" + num(x0 + length + text_size * 0.4) + "\" y=\"" + num(y0) + "\" font-size=\"" +
       num(text_size) + "\" fill=\"" + kInk + "\">" +
       (length >= 1000.0 ? num(length / 1000.0) + " km" : num(length) + " m") + "</text>\n";
  return s + "</g>\n";
}

std::string legend(const Frame& f, const Aabb2& box, double margin, double text_size) {
  const double x0 = f.x(box.max.x) + 0.5 * margin;
  double y = f.y(box.max.y) + text_size;
  const double swatch = text_size;
  std::string s = "<g id=\"legend\" font-size=\"" + num(text_size) + "\" fill=\"" + kInk + "\">\n";
  const auto entry = [&](const std::string& label, const std::string& swatch_svg) {
    s += swatch_svg;
    s += "<text x=\"" + num(x0 + swatch * 1.5) + "\" y=\"" + num(y + swatch * 0.8) + "\">" + label +
         "</text>\n";
    y += swatch * 1.6;
  };
  for (std::size_t c = 0; c < layout::kRoadClassCount; ++c) {
    const char* name = layout::to_string(static_cast<layout::RoadClass>(c));
    entry(std::string(name) + " road",
          "<line x1=\"" + num(x0) + "\" y1=\"" + num(y + swatch * 0.5) + "\" x2=\"" +
              num(x0 + swatch) + "\" y2=\"" + num(y + swatch * 0.5) + "\" stroke=\"" +
              kRoadColours[c] + "\" stroke-width=\"" + num(swatch * 0.4) + "\"/>\n");
  }
  for (std::size_t k = 0; k < layout::kZoneKindCount; ++k) {
    entry(layout::to_string(static_cast<layout::ZoneKind>(k)),
          "<rect x=\"" + num(x0) + "\" y=\"" + num(y) + "\" width=\"" + num(swatch) +
              "\" height=\"" + num(swatch) + "\" fill=\"" + kZoneColours[k] + "\"/>\n");
  }
  entry("block", "<rect x=\"" + num(x0) + "\" y=\"" + num(y) + "\" width=\"" + num(swatch) +
                     "\" height=\"" + num(swatch) + "\" fill=\"" + kBlockFill + "\" stroke=\"" +
                     kBlockStroke + "\"/>\n");
  y += swatch * 0.6;
  s += "<text x=\"" + num(x0) + "\" y=\"" + num(y + swatch) + "\">N &#8593;</text>\n";
  return s + "</g>\n";
}

}  // namespace

std::string map_svg(const layout::Output& city, const buildings::Output* buildings) {
  // 1. Frame: the drawing plus a margin, with room on the right for the legend.
  const Aabb2 box = drawing_bounds(city);
  const double extent = std::max({box.size().x, box.size().y, 1.0});
  const double margin = 0.05 * extent;
  const double text_size = 0.02 * extent;
  const double legend_w = 12.0 * text_size;
  const Frame f{box.min.x - margin, box.max.y + margin};
  const double view_w = box.size().x + 3.0 * margin + legend_w;
  // The legend has 9 entries and the north mark; never let it run off a wide, flat city.
  const double view_h = std::max(box.size().y, 17.0 * text_size) + 2.0 * margin;
  const double px = kMaxPixels / std::max(view_w, view_h);

  std::string s = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  s += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + num(std::round(view_w * px)) +
       "\" height=\"" + num(std::round(view_h * px)) + "\" viewBox=\"0 0 " + num(view_w) + " " +
       num(view_h) + "\">\n<title>cityforge map</title>\n";
  s += "<rect width=\"100%\" height=\"100%\" fill=\"" + std::string(kBackground) + "\"/>\n";

  // 2. Zones, tinted by kind; then blocks. Items with non-finite points are left out.
  s += "<g id=\"zones\" fill-opacity=\"0.6\" fill-rule=\"evenodd\">\n";
  for (const auto& z : city.zones) {
    if (finite(z.area)) {
      s += polygon_path(
          f, z.area,
          "fill=\"" + std::string(kZoneColours[static_cast<std::size_t>(z.kind)]) + "\"");
    }
  }
  s += "</g>\n<g id=\"blocks\" fill=\"" + std::string(kBlockFill) +
       "\" fill-opacity=\"0.55\" stroke=\"" + kBlockStroke + "\" stroke-width=\"" +
       num(0.002 * extent) + "\" fill-rule=\"evenodd\">\n";
  for (const auto& b : city.blocks) {
    if (finite(b.area)) {
      s += polygon_path(f, b.area, "");
    }
  }
  s += "</g>\n";
  // Building footprints (their base tier), darker than the blocks: the map reads as a city plan.
  if (buildings != nullptr) {
    s += "<g id=\"buildings\" fill=\"#8d8478\" stroke=\"#5e574e\" stroke-width=\"" +
         num(0.0008 * extent) + "\" fill-rule=\"evenodd\">\n";
    for (const auto& b : buildings->buildings) {
      if (!b.volumes.empty() && finite(b.volumes.front().footprint)) {
        s += polygon_path(f, b.volumes.front().footprint, "");
      }
    }
    s += "</g>\n";
  }

  // 3. Roads at their width: local first so arteries are drawn on top.
  s += "<g id=\"roads\" fill=\"none\" stroke-linecap=\"round\" stroke-linejoin=\"round\">\n";
  for (std::size_t c = layout::kRoadClassCount; c-- > 0;) {
    const char* name = layout::to_string(static_cast<layout::RoadClass>(c));
    s += "<g class=\"road-" + std::string(name) + "\" stroke=\"" + kRoadColours[c] + "\">\n";
    for (const auto& e : city.network.edges) {
      if (static_cast<std::size_t>(e.road_class) == c && finite(e.points) &&
          std::isfinite(e.width_m)) {
        s += "<path d=\"" + path_data(f, e.points, false) + "\" stroke-width=\"" +
             num(std::max(e.width_m, 0.0)) + "\"/>\n";
      }
    }
    s += "</g>\n";
  }
  s += "</g>\n";

  // 4. Boundary, scale bar, legend.
  if (!city.boundary.outer.empty() && finite(city.boundary.outer)) {
    s += "<path id=\"boundary\" d=\"" + path_data(f, city.boundary.outer, true) +
         "\" fill=\"none\" stroke=\"" + kInk + "\" stroke-width=\"" + num(0.003 * extent) +
         "\" stroke-dasharray=\"" + num(0.02 * extent) + " " + num(0.01 * extent) + "\"/>\n";
  }
  s += scale_bar(f, box, margin, text_size);
  s += legend(f, box, margin, text_size);
  s += "</svg>\n";
  return s;
}

}  // namespace cityforge::exporter
