// SPDX-License-Identifier: Apache-2.0
// The audio metadata grid (seeds/000, minute 22): a point every audio_grid_m on a world-aligned
// grid (points at cell centres, (k + 0.5) * audio_grid_m) inside the city boundary, except
// inside buildings, with its surface and a reverb estimate.
//
// Surface, first match: road (a section or junction surface), sidewalk, park (a block zoned
// park), plaza (block ground in downtown or commercial zones), ground otherwise.
// Reverb: the share of audio_rays horizontal rays (fixed, evenly spaced angles) that hit a
// building base footprint within audio_radius_m. The footprints are rasterised on a 1 m bitmap
// (coarser for huge cities) with a chamfer distance transform, so each ray is sphere-traced in a
// few steps: a 2 x 2 km city takes well under a second. The bitmap is made a band of rows at a
// time, with the rows its rays reach and a margin that makes it exact (DistanceField).

#include <algorithm>
#include <array>
#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include "cityforge/core/polygon_bands.hpp"
#include "dressing/detail.hpp"

namespace cityforge::dressing::detail {
namespace {

/// Polygons binned in a dense grid of cells by bounding box: added, then build() lays the bins
/// out in one array (a valley's 16 m grid is millions of cells: a list per cell cost more than
/// the polygons).
struct PolygonGrid {
  Vec2 origin;
  double cell = 16.0;
  std::int64_t nx = 0, ny = 0;
  std::vector<std::uint32_t> first;  // Per cell, its ids at ids[first[c] .. first[c + 1]).
  std::vector<std::uint32_t> ids;
  std::vector<PolygonBands> polys;  // Asked per grid point: banded (rings of hundreds of points).
  std::vector<std::uint8_t> tags;
  std::vector<std::uint32_t> owners;  // Index of the polygon in its input list.
  std::vector<Aabb2> boxes;

  void init(const Aabb2& box, double cell_m) {
    origin = box.min;
    cell = cell_m;
    nx = std::max<std::int64_t>(
        1, static_cast<std::int64_t>(std::ceil((box.max.x - box.min.x) / cell)));
    ny = std::max<std::int64_t>(
        1, static_cast<std::int64_t>(std::ceil((box.max.y - box.min.y) / cell)));
  }
  void add(const Polygon& p, std::uint8_t tag, std::uint32_t owner) {
    if (p.outer.size() < 3) return;
    polys.emplace_back(p);
    tags.push_back(tag);
    owners.push_back(owner);
    boxes.push_back(ring_bounds(p.outer));
  }
  /// The cells a polygon's box covers: x0, x1, y0, y1.
  std::array<std::int64_t, 4> span(const Aabb2& b) const {
    const auto at = [](double v, double o, double c, std::int64_t n) {
      return std::clamp<std::int64_t>(static_cast<std::int64_t>(std::floor((v - o) / c)), 0, n - 1);
    };
    return {at(b.min.x, origin.x, cell, nx), at(b.max.x, origin.x, cell, nx),
            at(b.min.y, origin.y, cell, ny), at(b.max.y, origin.y, cell, ny)};
  }
  /// Bins every added polygon, each cell's in the order they were added.
  void build() {
    first.assign(static_cast<std::size_t>(nx * ny) + 1, 0);
    for (const Aabb2& b : boxes) {
      const auto [x0, x1, y0, y1] = span(b);
      for (std::int64_t y = y0; y <= y1; ++y)
        for (std::int64_t x = x0; x <= x1; ++x)
          ++first[static_cast<std::size_t>(y * nx + x) + 1];
    }
    for (std::size_t c = 1; c < first.size(); ++c)
      first[c] += first[c - 1];
    ids.resize(first.back());
    std::vector<std::uint32_t> fill(first.begin(), first.end() - 1);
    for (std::uint32_t id = 0; id < boxes.size(); ++id) {
      const auto [x0, x1, y0, y1] = span(boxes[id]);
      for (std::int64_t y = y0; y <= y1; ++y)
        for (std::int64_t x = x0; x <= x1; ++x)
          ids[fill[static_cast<std::size_t>(y * nx + x)]++] = id;
    }
  }
  /// Lowest tag among the polygons containing p (tags are priorities), or 255.
  std::uint8_t lookup(Vec2 p, std::uint32_t* which = nullptr) const {
    const auto cx = static_cast<std::int64_t>(std::floor((p.x - origin.x) / cell));
    const auto cy = static_cast<std::int64_t>(std::floor((p.y - origin.y) / cell));
    if (cx < 0 || cy < 0 || cx >= nx || cy >= ny) return 255;
    std::uint8_t best = 255;
    const auto c = static_cast<std::size_t>(cy * nx + cx);
    for (std::uint32_t k = first[c]; k < first[c + 1]; ++k) {
      const std::uint32_t id = ids[k];
      if (tags[id] >= best || !boxes[id].contains(p)) continue;
      if (polys[id].contains(p)) {
        best = tags[id];
        if (which != nullptr) *which = owners[id];
      }
    }
    return best;
  }
};

/// The building bitmap's cells over the whole field box: their size and numbering, the same for
/// every band of it a job computes.
struct FieldFrame {
  Vec2 origin;
  double res = 1.0;
  std::int64_t nx = 0, ny = 0;
};

FieldFrame field_frame(const Aabb2& box) {
  FieldFrame f;
  const double w = box.max.x - box.min.x;
  const double h = box.max.y - box.min.y;
  f.res = std::max(1.0, std::sqrt(w * h / 3.2e7));  // At most ~32 M cells.
  f.origin = box.min;
  f.nx = std::max<std::int64_t>(1, static_cast<std::int64_t>(std::ceil(w / f.res)));
  f.ny = std::max<std::int64_t>(1, static_cast<std::int64_t>(std::ceil(h / f.res)));
  return f;
}

/// Distances saturate at `saturation` cells (at most 255: the rays' steps are bytes). A ray
/// reaches `reach` cells, so a saturation above reach + 2 changes no ray: a cell at least that
/// far from every building ends a ray's march in one step and passes the "no building within
/// the radius" test, at its true distance or saturated. A cell's distance is the same in a band
/// of rows as over the whole field when every building within `saturation` rows of it lies in
/// the band: a nearer one decides it, a farther one saturates it either way. (The saturation
/// was 255 whatever the radius: bands of 512 rows were computed with 2 x 298 rows of margin.)
std::int64_t saturation_cells(double reach_cells) {
  return std::min<std::int64_t>(255, static_cast<std::int64_t>(std::ceil(reach_cells)) + 3);
}

/// Rows [y0, y0 + rows) of the bitmap of building cells, with the chamfer distance to the
/// nearest one (in cells, saturated: compact for the rays).
struct DistanceField {
  FieldFrame frame;
  std::int64_t y0 = 0, rows = 0;
  std::vector<std::uint8_t> cells;

  /// The distance in cells at whole-field cell coordinates (x, y) (255 outside the field, and
  /// outside the band, which the rays never reach: its margin).
  std::uint8_t cells_at(double x, double y) const {
    if (!(x >= 0.0 && y >= 0.0)) return 255;
    const auto ix = static_cast<std::int64_t>(x);  // x >= 0: truncation is floor.
    const auto iy = static_cast<std::int64_t>(y);
    if (ix >= frame.nx || iy < y0 || iy >= y0 + rows) return 255;
    return cells[static_cast<std::size_t>((iy - y0) * frame.nx + ix)];
  }
};

/// The field's rows [y_first, y_last] (clamped to the field): a band, so a valley's field is
/// never held whole (32 M cells were 160 MB at the set dressing's peak).
DistanceField building_field(const std::vector<const Polygon*>& footprints, const FieldFrame& frame,
                             std::int64_t y_first, std::int64_t y_last, std::int64_t saturation) {
  DistanceField f;
  f.frame = frame;
  f.y0 = std::max<std::int64_t>(0, y_first);
  f.rows = std::max<std::int64_t>(0, std::min(frame.ny - 1, y_last) - f.y0 + 1);
  const std::int64_t nx = frame.nx;
  const double res = frame.res;
  constexpr float kFar = 1e9f;
  std::vector<float> dist(static_cast<std::size_t>(nx * f.rows), kFar);
  // 1. Rasterise: cells whose centre lies inside a footprint (scanlines over its rings).
  std::vector<double> xs;
  for (const Polygon* poly : footprints) {
    const Aabb2 b = ring_bounds(poly->outer);
    const auto y0 = std::max<std::int64_t>(
        f.y0, static_cast<std::int64_t>(std::floor((b.min.y - frame.origin.y) / res)));
    const auto y1 = std::min<std::int64_t>(
        f.y0 + f.rows - 1, static_cast<std::int64_t>(std::floor((b.max.y - frame.origin.y) / res)));
    for (std::int64_t y = y0; y <= y1; ++y) {
      const double cy = frame.origin.y + (static_cast<double>(y) + 0.5) * res;
      xs.clear();
      auto crossings = [&](const Ring& r) {
        for (std::size_t i = 0; i < r.size(); ++i) {
          const Vec2 a = r[i];
          const Vec2 c = r[(i + 1) % r.size()];
          if ((a.y <= cy) != (c.y <= cy))
            xs.push_back(a.x + (cy - a.y) / (c.y - a.y) * (c.x - a.x));
        }
      };
      crossings(poly->outer);
      for (const Ring& hole : poly->holes)
        crossings(hole);
      std::sort(xs.begin(), xs.end());
      for (std::size_t k = 0; k + 1 < xs.size(); k += 2) {
        const auto x0 = std::max<std::int64_t>(
            0, static_cast<std::int64_t>(std::ceil((xs[k] - frame.origin.x) / res - 0.5)));
        const auto x1 = std::min<std::int64_t>(
            nx - 1,
            static_cast<std::int64_t>(std::floor((xs[k + 1] - frame.origin.x) / res - 0.5)));
        for (std::int64_t x = x0; x <= x1; ++x)
          dist[static_cast<std::size_t>((y - f.y0) * nx + x)] = 0.0f;
      }
    }
  }
  // 2. Two-pass chamfer distance (1, sqrt 2), in metres. Each row takes the row before it
  //    (final already: a loop over the row that vectorises), then runs along itself; the
  //    minimum of the same sums as a cell-by-cell sweep, so the same distances.
  const auto d1 = static_cast<float>(res);
  const auto d2 = static_cast<float>(res * std::numbers::sqrt2);
  const std::int64_t ny = f.rows;
  const auto row_from = [nx, d1, d2](float* d, const float* before) {
    d[0] = std::min(d[0], before[0] + d1);
    if (nx > 1) d[0] = std::min(d[0], before[1] + d2);
    for (std::int64_t x = 1; x + 1 < nx; ++x)
      d[x] = std::min(std::min(d[x], before[x] + d1),
                      std::min(before[x - 1] + d2, before[x + 1] + d2));
    if (nx > 1) d[nx - 1] = std::min(std::min(d[nx - 1], before[nx - 1] + d1), before[nx - 2] + d2);
  };
  for (std::int64_t y = 0; y < ny; ++y) {
    float* d = dist.data() + y * nx;
    if (y > 0) row_from(d, d - nx);
    for (std::int64_t x = 1; x < nx; ++x)
      d[x] = std::min(d[x], d[x - 1] + d1);
  }
  for (std::int64_t y = ny - 1; y >= 0; --y) {
    float* d = dist.data() + y * nx;
    if (y + 1 < ny) row_from(d, d + nx);
    for (std::int64_t x = nx - 2; x >= 0; --x)
      d[x] = std::min(d[x], d[x + 1] + d1);
  }
  f.cells.resize(dist.size());
  for (std::size_t i = 0; i < dist.size(); ++i)
    f.cells[i] = static_cast<std::uint8_t>(
        std::min(static_cast<double>(saturation), std::floor(dist[i] / res)));
  return f;
}

/// A point's rays while they march: how far each has gone, and those still marching.
struct RayScratch {
  struct Ray {
    double t, dx, dy;
  };
  std::vector<Ray> live;
};

enum Tag : std::uint8_t { kBuilding = 0, kRoad = 1, kSidewalk = 2, kBlock = 3 };

}  // namespace

std::vector<AudioPoint> audio_grid(const Inputs& in, const Config& config) {
  std::vector<AudioPoint> out;
  if (!(config.audio_grid_m > 0.0)) return out;
  const Polygon& boundary = in.city.boundary;
  if (boundary.outer.size() < 3) return out;
  const PolygonBands inside_city{boundary};
  const double g = config.audio_grid_m;
  const double radius = std::max(0.0, config.audio_radius_m);
  const std::uint32_t rays = std::max<std::uint32_t>(1, config.audio_rays);
  const Aabb2 box = ring_bounds(boundary.outer);

  // 1. Surfaces, binned: buildings, roads, sidewalks, blocks (lower tag wins).
  PolygonGrid grid;
  grid.init(box, 16.0);
  std::vector<const Polygon*> footprints;
  for (const buildings::Building& b : in.buildings.buildings) {
    if (b.volumes.empty()) continue;
    grid.add(b.volumes[0].footprint, kBuilding, 0);
    footprints.push_back(&b.volumes[0].footprint);
  }
  for (const roads::Section& s : in.roads.sections)
    grid.add(s.surface, kRoad, 0);
  for (const roads::Intersection& j : in.roads.intersections)
    grid.add(j.surface, kRoad, 0);
  for (const Polygon& s : in.roads.sidewalks)
    grid.add(s, kSidewalk, 0);
  for (std::size_t b = 0; b < in.city.blocks.size(); ++b)
    grid.add(in.city.blocks[b].area, kBlock, static_cast<std::uint32_t>(b));

  grid.build();

  // 2. The building distance field's frame for the rays (reaching radius beyond the boundary).
  Aabb2 field_box = box;
  field_box.min = field_box.min - Vec2{radius + 1.0, radius + 1.0};
  field_box.max = field_box.max + Vec2{radius + 1.0, radius + 1.0};
  const FieldFrame frame = field_frame(field_box);
  std::vector<Vec2> dirs(rays);
  for (std::uint32_t k = 0; k < rays; ++k) {
    const double a = 2.0 * std::numbers::pi * (k + 0.5) / rays;
    dirs[k] = {std::cos(a), std::sin(a)};
  }

  // 3. Rows of points, a band of rows per job, each band with the field's rows its rays reach
  //    and a margin (the saturation) that makes them what the whole field would give.
  const auto k0 = static_cast<std::int64_t>(std::floor(box.min.x / g - 0.5));
  const auto k1 = static_cast<std::int64_t>(std::ceil(box.max.x / g));
  const auto j0 = static_cast<std::int64_t>(std::floor(box.min.y / g - 0.5));
  const auto j1 = static_cast<std::int64_t>(std::ceil(box.max.y / g));
  const std::size_t rows = static_cast<std::size_t>(std::max<std::int64_t>(0, j1 - j0 + 1));
  const auto row_y = [&](std::size_t r) {
    return (static_cast<double>(j0 + static_cast<std::int64_t>(r)) + 0.5) * g;
  };
  const auto row = [&](std::size_t r, const DistanceField& field, RayScratch& scratch,
                       std::vector<AudioPoint>& slot) {
    const double y = row_y(r);
    for (std::int64_t k = k0; k <= k1; ++k) {
      const Vec2 p{(static_cast<double>(k) + 0.5) * g, y};
      if (!box.contains(p) || !inside_city.contains(p)) continue;
      std::uint32_t which = 0;
      const std::uint8_t tag = grid.lookup(p, &which);
      if (tag == kBuilding) continue;
      AudioPoint pt;
      pt.position = {static_cast<float>(p.x), static_cast<float>(p.y),
                     static_cast<float>(in.ground.sample(p))};
      if (tag == kRoad) {
        pt.surface = Surface::road;
      } else if (tag == kSidewalk) {
        pt.surface = Surface::sidewalk;
      } else if (tag == kBlock) {
        const layout::ZoneKind z = in.city.blocks[which].zone;
        if (z == layout::ZoneKind::park) {
          pt.surface = Surface::park;
        } else if (z == layout::ZoneKind::downtown || z == layout::ZoneKind::commercial) {
          pt.surface = Surface::plaza;
        } else {
          pt.surface = Surface::ground;
        }
      }
      // Sphere-trace each ray through the distance field, in cell units.
      std::uint32_t hits = 0;
      const double cx = (p.x - frame.origin.x) / frame.res;
      const double cy = (p.y - frame.origin.y) / frame.res;
      const double reach = radius / frame.res;
      // No building cell within the radius: every ray misses.
      if (static_cast<double>(field.cells_at(cx, cy)) <= reach + 2.0) {
        // All rays march together, one step each per pass over the live ones: their steps are
        // independent, so the processor overlaps them (one ray at a time was a chain of
        // dependent loads and conversions, and a mispredicted exit per ray). Each ray takes
        // exactly the steps it took alone.
        std::vector<RayScratch::Ray>& live = scratch.live;
        live.clear();
        for (const Vec2& d : dirs)
          live.push_back({0.0, d.x, d.y});
        std::size_t n = live.size();
        while (n > 0) {
          std::size_t kept = 0;
          for (std::size_t i = 0; i < n; ++i) {
            RayScratch::Ray ray = live[i];
            if (!(ray.t <= reach)) continue;  // Out of reach: a miss.
            const std::uint8_t step = field.cells_at(cx + ray.dx * ray.t, cy + ray.dy * ray.t);
            if (step == 0) {
              ++hits;
              continue;
            }
            ray.t += std::max(0.5, static_cast<double>(step) - 1.0);
            live[kept++] = ray;
          }
          n = kept;
        }
      }
      pt.reverb = static_cast<float>(hits) / static_cast<float>(rays);
      slot.push_back(pt);
    }
  };
  // Bands of about kBandCells field rows. The bands (most of the set dressing's time in a big
  // generated city) are shared between the ranks.
  constexpr double kBandCells = 512.0;
  const std::size_t band_rows =
      std::max<std::size_t>(1, static_cast<std::size_t>(kBandCells * frame.res / g));
  const std::size_t bands = (rows + band_rows - 1) / band_rows;
  const std::int64_t saturation = saturation_cells(radius / frame.res);
  const auto margin = static_cast<std::int64_t>(std::ceil(radius / frame.res)) + saturation + 2;
  const auto field_row = [&](double y) {
    return static_cast<std::int64_t>(std::floor((y - frame.origin.y) / frame.res));
  };
  const auto band = [&](std::size_t b) {
    const std::size_t r0 = b * band_rows;
    const std::size_t r1 = std::min(rows, r0 + band_rows);
    const DistanceField field = building_field(footprints, frame, field_row(row_y(r0)) - margin,
                                               field_row(row_y(r1 - 1)) + margin, saturation);
    std::vector<AudioPoint> slot;
    RayScratch scratch;
    for (std::size_t r = r0; r < r1; ++r)
      row(r, field, scratch, slot);
    return slot;
  };
  const std::vector<std::vector<AudioPoint>> slots = shared_jobs<std::vector<AudioPoint>>(
      in, bands, "audio grid band from another rank", [](std::size_t) { return 1.0; }, band,
      [](ByteWriter& w, const std::vector<AudioPoint>& slot) { w.put_vector(slot); },
      [](ByteReader& r, std::vector<AudioPoint>& slot) { return r.get_vector(slot); });
  for (const auto& s : slots)
    out.insert(out.end(), s.begin(), s.end());
  return out;
}

}  // namespace cityforge::dressing::detail
