// SPDX-License-Identifier: Apache-2.0
// WFC rooftops (seeds/000, 43:01-44:07): every flat roof a tier leaves exposed becomes a grid of
// 3 m cells aligned with the roof's longest edge (the talk derives grids from point clouds; we
// derive them from the roof polygon), the stair bulkhead is pre-placed over the building's core,
// the rooftop model fills the rest, and the neighbour rules add wall props and colours.

#include "cityforge/rooftops/rooftops.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <numbers>
#include <string>

#include "rooftops/detail/rooftop_internal.hpp"

namespace cityforge::rooftops {
namespace {

using wfc::CellId;
using wfc::CompiledModel;
using wfc::Fixed;
using wfc::Grid;
using wfc::kBoundary;
using wfc::kNegX;
using wfc::kNegY;
using wfc::kNegZ;
using wfc::kNoTile;
using wfc::kPosX;
using wfc::kPosY;
using wfc::kPosZ;
using wfc::Label;
using wfc::Model;
using wfc::Solution;
using wfc::SolveOptions;
using wfc::TileId;
using wfc::TileVariant;

using buildings::Building;
using buildings::Volume;

constexpr double kEps = 1e-6;

// One flat tier to roof: what the parallel pass works on.
struct RoofJob {
  std::size_t building = 0;  // Index in Output::buildings.
  std::uint32_t volume = 0;
};

// A roof's cells in its own frame: x along the longest edge, y to its left (inwards).
struct RoofFrame {
  Vec2 u{1.0, 0.0};
  Vec2 v{0.0, 1.0};
  double angle_rad = 0.0;
  [[nodiscard]] Vec2 to_world(Vec2 q) const { return u * q.x + v * q.y; }
};

// Whether segment a-b meets the open box (Liang-Barsky clipping).
bool segment_crosses_box(Vec2 a, Vec2 b, Vec2 lo, Vec2 hi) {
  double t0 = 0.0;
  double t1 = 1.0;
  const Vec2 d = b - a;
  const std::array<double, 4> p = {-d.x, d.x, -d.y, d.y};
  const std::array<double, 4> q = {a.x - lo.x, hi.x - a.x, a.y - lo.y, hi.y - a.y};
  for (std::size_t i = 0; i < 4; ++i) {
    if (std::abs(p[i]) < 1e-15) {
      if (q[i] <= 0.0) {
        return false;
      }
      continue;
    }
    const double t = q[i] / p[i];
    if (p[i] < 0.0) {
      t0 = std::max(t0, t);
    } else {
      t1 = std::min(t1, t);
    }
    if (t0 >= t1) {
      return false;
    }
  }
  return true;
}

double point_box_distance2(Vec2 p, Vec2 lo, Vec2 hi) {
  const double dx = std::max({lo.x - p.x, 0.0, p.x - hi.x});
  const double dy = std::max({lo.y - p.y, 0.0, p.y - hi.y});
  return dx * dx + dy * dy;
}

double point_segment_distance2(Vec2 p, Vec2 a, Vec2 b) {
  const Vec2 d = b - a;
  const double l2 = dot(d, d);
  const double t = l2 > 0.0 ? std::clamp(dot(p - a, d) / l2, 0.0, 1.0) : 0.0;
  const Vec2 e = p - (a + d * t);
  return dot(e, e);
}

// Whether segment a-b comes closer than `clear_m` to the box (or passes through it). Two
// convex sets that do not meet are closest at a vertex of one of them. Squared distances and
// a bounding-box reject first: this runs for every edge of every candidate cell.
bool segment_near_box(Vec2 a, Vec2 b, Vec2 lo, Vec2 hi, double clear_m) {
  if (std::max(a.x, b.x) <= lo.x - clear_m || std::min(a.x, b.x) >= hi.x + clear_m ||
      std::max(a.y, b.y) <= lo.y - clear_m || std::min(a.y, b.y) >= hi.y + clear_m) {
    return false;
  }
  if (segment_crosses_box(a, b, lo, hi)) {
    return true;
  }
  const double c2 = clear_m * clear_m;
  if (point_box_distance2(a, lo, hi) < c2 || point_box_distance2(b, lo, hi) < c2) {
    return true;
  }
  for (const Vec2 c : {lo, hi, Vec2{lo.x, hi.y}, Vec2{hi.x, lo.y}}) {
    if (point_segment_distance2(c, a, b) < c2) {
      return true;
    }
  }
  return false;
}

// Whether every ring edge keeps at least `clear_m` from the box (and none passes through it).
bool rings_clear_of_box(const Polygon& poly, Vec2 lo, Vec2 hi, double clear_m) {
  const auto ring_clear = [&](const Ring& r) {
    for (std::size_t i = 0; i < r.size(); ++i) {
      if (segment_near_box(r[i], r[i + 1 < r.size() ? i + 1 : 0], lo, hi, clear_m)) {
        return false;
      }
    }
    return true;
  };
  if (!ring_clear(poly.outer)) {
    return false;
  }
  return std::all_of(poly.holes.begin(), poly.holes.end(), ring_clear);
}

// A tier's roof in the grid frame: its footprint and the footprints standing on it or passing
// through its height (the tiers above), whose walls the cells keep clear of.
struct RoofShape {
  Polygon roof;
  std::vector<Polygon> above;
  double exposed_area_m2 = 0.0;
};

// The cell square [lo, hi] lies inside the roof polygon inset by `inset_m` (the parapet; a
// rounded inset: every point of the square at least inset_m from the roof's outline) and keeps
// as far from every tier above.
bool square_on_roof(const RoofShape& shape, Vec2 lo, Vec2 hi, double inset_m) {
  const Vec2 c = (lo + hi) * 0.5;
  // A hair inside, so squares flush with an edge at inset 0 count as inside.
  const Vec2 slo = lo + Vec2{1e-6, 1e-6};
  const Vec2 shi = hi - Vec2{1e-6, 1e-6};
  if (!polygon_contains(shape.roof, c) || !rings_clear_of_box(shape.roof, slo, shi, inset_m)) {
    return false;
  }
  for (const Polygon& a : shape.above) {
    if (polygon_contains(a, c) || !rings_clear_of_box(a, slo, shi, inset_m)) {
      return false;
    }
  }
  return true;
}

Polygon to_frame(const Polygon& p, Vec2 u, Vec2 v) {
  Polygon q = p;
  for (Vec2& pt : q.outer) {
    pt = {dot(pt, u), dot(pt, v)};
  }
  for (Ring& h : q.holes) {
    for (Vec2& pt : h) {
      pt = {dot(pt, u), dot(pt, v)};
    }
  }
  return q;
}

// The tier's roof: its footprint less every other tier standing on it or passing through its
// roof height. The exposed area subtracts their areas (they stand inside the tier in generated
// buildings; overlaps of imported parts make it an estimate).
RoofShape roof_shape(const Building& b, std::uint32_t v, Vec2 u, Vec2 w) {
  const Volume& vol = b.volumes[v];
  RoofShape shape;
  shape.roof = to_frame(vol.footprint, u, w);
  shape.exposed_area_m2 = polygon_area(vol.footprint);
  for (std::size_t k = 0; k < b.volumes.size(); ++k) {
    const Volume& o = b.volumes[k];
    if (k != v && o.z0_m <= vol.z1_m + kEps && o.z1_m > vol.z1_m + kEps) {
      shape.above.push_back(to_frame(o.footprint, u, w));
      shape.exposed_area_m2 -= polygon_area(o.footprint);
    }
  }
  return shape;
}

bool is_flat(const Volume& vol) {
  return vol.roof == lots::RoofShape::flat || !(vol.roof_height_m > 1e-3);
}

// The building's core: the centroid of its highest tier, where the stairs come up.
Vec2 building_core(const Building& b) {
  std::size_t top = 0;
  for (std::size_t w = 1; w < b.volumes.size(); ++w) {
    if (b.volumes[w].z1_m > b.volumes[top].z1_m) {
      top = w;
    }
  }
  return ring_centroid(b.volumes[top].footprint.outer);
}

std::uint64_t roof_object_id(buildings::BuildingId building, std::uint32_t volume) {
  // Tiers past the eighth (imported multi-part buildings) get ids above every building*8+tier.
  return volume < 8 ? std::uint64_t{building} * 8U + volume
                    : (std::uint64_t{1} << 40U) + std::uint64_t{building} * 4096U + volume;
}

// The grid of one roof: cells inside the inset roof, `levels` layers.
struct RoofGrid {
  Grid grid;
  std::vector<std::uint32_t> cell_x, cell_y, cell_z;
  std::uint32_t nx = 0, ny = 0;
  Vec2 origin_frame;  ///< Frame coordinates of cell (0,0)'s corner.
};

RoofGrid derive_grid(const RoofShape& shape, double cell_m, double inset_m, std::uint32_t levels) {
  RoofGrid rg;
  Aabb2 box;
  for (const Vec2& q : shape.roof.outer) {
    box.add(q);
  }
  box.min += Vec2{inset_m, inset_m};
  box.max -= Vec2{inset_m, inset_m};
  if (box.empty()) {
    return rg;
  }
  const Vec2 ext = box.size();
  const auto nx = static_cast<std::uint32_t>(std::floor(ext.x / cell_m + 1e-9));
  const auto ny = static_cast<std::uint32_t>(std::floor(ext.y / cell_m + 1e-9));
  if (nx == 0 || ny == 0 || static_cast<std::uint64_t>(nx) * ny > 1U << 20U) {
    return rg;
  }
  // 1. Fit: cells hug the longest edge (y from the bottom) or sit centred, and sit centred or
  //    flush along x; keep the placement with the most cells (first on ties).
  const double spare_x = ext.x - nx * cell_m;
  const double spare_y = ext.y - ny * cell_m;
  std::vector<std::uint8_t> best_inside;
  std::size_t best_count = 0;
  Vec2 best_origin;
  for (const double fy : {0.0, 0.5}) {
    for (const double fx : {0.5, 0.0}) {
      const Vec2 o{box.min.x + spare_x * fx, box.min.y + spare_y * fy};
      std::vector<std::uint8_t> inside(static_cast<std::size_t>(nx) * ny, 0);
      std::size_t count = 0;
      for (std::uint32_t j = 0; j < ny; ++j) {
        for (std::uint32_t i = 0; i < nx; ++i) {
          const Vec2 lo{o.x + i * cell_m, o.y + j * cell_m};
          if (square_on_roof(shape, lo, lo + Vec2{cell_m, cell_m}, inset_m)) {
            inside[i + nx * j] = 1;
            ++count;
          }
        }
      }
      if (count > best_count) {
        best_count = count;
        best_inside = std::move(inside);
        best_origin = o;
      }
    }
  }
  if (best_count == 0) {
    return rg;
  }
  rg.nx = nx;
  rg.ny = ny;
  rg.origin_frame = best_origin;
  // 2. Number the cells (x fastest, then y, then level) and link them; sides off the roof,
  //    below the first level and above the last are boundary (Empty). With one level the top
  //    has no side at all, so the tall tiles' lower halves may stand there alone.
  const std::size_t plane = static_cast<std::size_t>(nx) * ny;
  std::vector<CellId> id(plane * levels, kBoundary);
  CellId next = 0;
  for (std::uint32_t z = 0; z < levels; ++z) {
    for (std::uint32_t j = 0; j < ny; ++j) {
      for (std::uint32_t i = 0; i < nx; ++i) {
        if (best_inside[i + nx * j] != 0) {
          id[i + nx * j + plane * z] = next++;
          rg.cell_x.push_back(i);
          rg.cell_y.push_back(j);
          rg.cell_z.push_back(z);
        }
      }
    }
  }
  Grid& g = rg.grid;
  g.cell_count = next;
  g.label_count = 6;
  g.opposite = {kNegX, kPosX, kNegY, kPosY, kNegZ, kPosZ};
  g.offsets.reserve(next + 1);
  g.sides.reserve(static_cast<std::size_t>(next) * 6);
  const auto at = [&](std::int64_t i, std::int64_t j, std::int64_t z) -> CellId {
    if (i < 0 || j < 0 || z < 0 || i >= nx || j >= ny || z >= levels) {
      return kBoundary;
    }
    return id[static_cast<std::size_t>(i + nx * j) + plane * static_cast<std::size_t>(z)];
  };
  for (CellId c = 0; c < next; ++c) {
    const std::int64_t i = rg.cell_x[c];
    const std::int64_t j = rg.cell_y[c];
    const std::int64_t z = rg.cell_z[c];
    g.offsets.push_back(static_cast<std::uint32_t>(g.sides.size()));
    g.sides.push_back({at(i + 1, j, z), kPosX});
    g.sides.push_back({at(i - 1, j, z), kNegX});
    g.sides.push_back({at(i, j + 1, z), kPosY});
    g.sides.push_back({at(i, j - 1, z), kNegY});
    if (levels > 1) {
      g.sides.push_back({at(i, j, z + 1), kPosZ});
    }
    g.sides.push_back({at(i, j, z - 1), kNegZ});
  }
  g.offsets.push_back(static_cast<std::uint32_t>(g.sides.size()));
  return rg;
}

// Where a T tile's -y side points after `turns` quarter turns.
Label turned_neg_y(std::uint32_t turns) {
  static constexpr std::array<Label, 4> kSide = {kNegY, kPosX, kPosY, kNegX};
  return kSide[turns % 4];
}

struct RoofResult {
  bool skipped = true;
  Rooftop roof;
  std::vector<RooftopInstance> instances;
  std::size_t props = 0;
  std::uint64_t backtracks = 0;
  std::uint64_t contradictions = 0;
};

struct Shared {
  const Model* model = nullptr;
  CompiledModel compiled;  // Compiled once: compiling costs about one small roof's solve.
  const RooftopConfig* config = nullptr;
  Seed seed = 0;
  std::uint32_t air_base = 0xFFFFFFFFU;
  std::array<TileId, 4> bulkhead{};  // Variants by turns.
};

RoofResult build_one(const Building& b, std::uint32_t v, const Shared& sh) {
  RoofResult out;
  const RooftopConfig& cfg = *sh.config;
  const Volume& vol = b.volumes[v];
  // 1. The roof's longest edge (the grid's x axis) and its exposed part.
  if (vol.footprint.outer.size() < 3) {
    return out;
  }
  double longest = 0.0;
  RoofFrame frame;
  const Ring& outer = vol.footprint.outer;
  for (std::size_t i = 0; i < outer.size(); ++i) {
    const Vec2 d = outer[(i + 1) % outer.size()] - outer[i];
    if (length(d) > longest + 1e-9) {
      longest = length(d);
      frame.angle_rad = std::atan2(d.y, d.x);
    }
  }
  frame.u = {std::cos(frame.angle_rad), std::sin(frame.angle_rad)};
  frame.v = perp(frame.u);
  const RoofShape shape = roof_shape(b, v, frame.u, frame.v);
  const double area = shape.exposed_area_m2;
  if (!(area >= cfg.min_area_m2) || !(area > 0.0) || !std::isfinite(area)) {
    return out;
  }
  // 2. The grid.
  RoofGrid rg = derive_grid(shape, cfg.cell_m, cfg.inset_m, cfg.levels);
  if (rg.grid.cell_count < 2 * cfg.levels) {
    return out;  // Too small for a bulkhead and the deck in front of its door.
  }
  out.skipped = false;
  Rooftop& roof = out.roof;
  roof.building = b.id;
  roof.volume = v;
  roof.origin = {frame.to_world(rg.origin_frame).x, frame.to_world(rg.origin_frame).y};
  roof.angle_rad = frame.angle_rad;
  roof.z_m = b.base_z_m + vol.z1_m;
  roof.size_x = rg.nx;
  roof.size_y = rg.ny;
  roof.size_z = cfg.levels;
  roof.cells = rg.grid.cell_count;
  const Vec2 origin_world{roof.origin[0], roof.origin[1]};
  const auto cell_centre = [&](CellId c) {
    return origin_world + frame.u * ((rg.cell_x[c] + 0.5) * cfg.cell_m) +
           frame.v * ((rg.cell_y[c] + 0.5) * cfg.cell_m);
  };
  // 3. The bulkhead: the level-0 cell nearest the core that has a roof cell beside it for its
  //    door; a roof of lone cells has none and gets no rooftop.
  const auto has_level_neighbour = [&](CellId c) {
    for (std::uint32_t s = rg.grid.offsets[c]; s < rg.grid.offsets[c + 1]; ++s) {
      if (rg.grid.sides[s].label < kPosZ && rg.grid.sides[s].cell != kBoundary) {
        return true;
      }
    }
    return false;
  };
  Vec2 core = building_core(b);
  if (!std::isfinite(core.x) || !std::isfinite(core.y)) {
    core = ring_centroid(vol.footprint.outer);  // A degenerate top tier.
  }
  CellId bulk = kBoundary;
  double best_d2 = 1e300;
  for (CellId c = 0; c < rg.grid.cell_count && rg.cell_z[c] == 0; ++c) {
    const Vec2 d = cell_centre(c) - core;
    if (dot(d, d) < best_d2 - 1e-9 && has_level_neighbour(c)) {
      best_d2 = dot(d, d);
      bulk = c;
    }
  }
  if (bulk == kBoundary) {
    out.skipped = true;
    return out;
  }
  const auto box_index = [&](CellId c) {
    return rg.cell_x[c] + rg.nx * (rg.cell_y[c] + rg.ny * rg.cell_z[c]);
  };
  roof.bulkhead = box_index(bulk);
  // 4. Solve, trying the door's four directions from a seeded start.
  const std::uint64_t object_id = roof_object_id(b.id, v);
  SolveOptions opt;
  opt.seed = sh.seed;
  opt.object_id = object_id;
  opt.backtrack_budget = cfg.backtrack_budget;
  opt.max_restarts = cfg.max_restarts;
  Rng pick{sh.seed, Stage::wfc, object_id, 0x300};
  const std::uint32_t start = pick.below(4);
  Result<Solution> solved =
      Error::invalid_input("rooftop", "no door direction leads onto the roof");
  for (std::uint32_t k = 0; k < 4; ++k) {
    const std::uint32_t turns = (start + k) % 4;
    const Label door = turned_neg_y(turns);
    CellId front = kBoundary;
    for (std::uint32_t s = rg.grid.offsets[bulk]; s < rg.grid.offsets[bulk + 1]; ++s) {
      if (rg.grid.sides[s].label == door) {
        front = rg.grid.sides[s].cell;
      }
    }
    if (front == kBoundary || sh.bulkhead[turns] == kNoTile) {
      continue;
    }
    solved = solve(sh.compiled, rg.grid, {Fixed{bulk, sh.bulkhead[turns]}}, opt);
    if (solved.ok()) {
      break;
    }
  }
  if (!solved.ok()) {
    return out;  // Stays bare; counted as failed.
  }
  const Solution& sol = solved.value();
  out.backtracks = sol.stats.backtracks;
  out.contradictions = sol.stats.contradictions;
  roof.solved = true;
  if (cfg.keep_cells) {
    roof.tiles.assign(static_cast<std::size_t>(rg.nx) * rg.ny * cfg.levels, kNoTile);
    for (CellId c = 0; c < rg.grid.cell_count; ++c) {
      roof.tiles[box_index(c)] = sol.tiles[c];
    }
  }
  // 5. Neighbour rules, then instances in cell order, props after the tiles.
  detail::SolvedRoof sr;
  sr.model = sh.model;
  sr.grid = &rg.grid;
  sr.tiles = &sol.tiles;
  sr.cell_x = rg.cell_x;
  sr.cell_y = rg.cell_y;
  sr.cell_z = rg.cell_z;
  sr.seed = sh.seed;
  sr.object_id = object_id;
  const detail::RoofRules rules = detail::apply_rooftop_rules(sr);
  const Model& model = *sh.model;
  const auto place = [&](CellId c, std::uint32_t turns, bool reflected) {
    RooftopInstance inst;
    const Vec2 p = cell_centre(c);
    inst.position = {static_cast<float>(p.x), static_cast<float>(p.y),
                     static_cast<float>(roof.z_m + rg.cell_z[c] * cfg.level_m)};
    inst.yaw_rad = static_cast<float>(
        std::remainder(frame.angle_rad + turns * 0.5 * std::numbers::pi, 2.0 * std::numbers::pi));
    inst.reflected = reflected;
    inst.building = b.id;
    return inst;
  };
  for (CellId c = 0; c < rg.grid.cell_count; ++c) {
    const TileId t = sol.tiles[c];
    if (t == model.empty || t >= model.tiles.size() || model.tiles[t].base == sh.air_base) {
      continue;
    }
    const TileVariant& tv = model.tiles[t];
    RooftopInstance inst = place(c, tv.rotation, tv.reflected);
    inst.tile = tv.base;
    inst.colour = rules.colour[c];
    out.instances.push_back(inst);
  }
  for (const detail::RoofRules::Prop& p : rules.props) {
    RooftopInstance inst = place(p.cell, p.turns, false);
    inst.tile = static_cast<std::uint32_t>(model.base_names.size()) + p.prop;
    inst.colour = p.colour;
    inst.prop = true;
    out.instances.push_back(inst);
    ++out.props;
  }
  return out;
}

Status check_config(const RooftopConfig& c, const Model& model) {
  const std::string where = "rooftops";
  const auto bad = [&](const std::string& what) { return Error::invalid_input(where, what); };
  if (!(c.cell_m >= 1.5 && c.cell_m <= 10.0)) {
    return bad("cell_m must be 1.5 .. 10, got " + std::to_string(c.cell_m));
  }
  if (!(c.level_m >= 1.5 && c.level_m <= 10.0)) {
    return bad("level_m must be 1.5 .. 10, got " + std::to_string(c.level_m));
  }
  if (c.levels < 1 || c.levels > 4) {
    return bad("levels must be 1 .. 4, got " + std::to_string(c.levels));
  }
  if (!(c.inset_m >= 0.0 && c.inset_m < 50.0) || !(c.min_area_m2 >= 0.0)) {
    return bad("inset_m must be 0 .. 50 and min_area_m2 >= 0, got " + std::to_string(c.inset_m) +
               " and " + std::to_string(c.min_area_m2));
  }
  if (model.label_count != 6 || model.opposite.size() != 6) {
    return bad("model \"" + model.name + "\" must be a 3D model (6 labels), got " +
               std::to_string(model.label_count) + " labels");
  }
  if (model.empty == kNoTile) {
    return bad("model \"" + model.name + "\" has no Empty tile; the roof's outside needs one");
  }
  if (model.find("bulkhead") == kNoTile) {
    return bad("model \"" + model.name + R"(" has no "bulkhead" tile to pre-place)");
  }
  return Ok{};
}

/// One roof's result for the other ranks (share_results), field by field.
void put_roof(ByteWriter& w, const RoofResult& r) {
  w.put(r.skipped);
  const Rooftop& f = r.roof;
  w.put(f.building);
  w.put(f.volume);
  w.put(f.origin);
  w.put(f.angle_rad);
  w.put(f.z_m);
  w.put(f.size_x);
  w.put(f.size_y);
  w.put(f.size_z);
  w.put(f.cells);
  w.put(f.bulkhead);
  w.put(f.solved);
  w.put_vector(f.tiles);
  w.put_vector(r.instances);
  w.put<std::uint64_t>(r.props);
  w.put(r.backtracks);
  w.put(r.contradictions);
}

Status read_roof(ByteReader& in, RoofResult& r) {
  Rooftop& f = r.roof;
  std::uint64_t props = 0;
  for (const Status& s : {in.get(r.skipped), in.get(f.building), in.get(f.volume), in.get(f.origin),
                          in.get(f.angle_rad), in.get(f.z_m), in.get(f.size_x), in.get(f.size_y),
                          in.get(f.size_z), in.get(f.cells), in.get(f.bulkhead), in.get(f.solved),
                          in.get_vector(f.tiles), in.get_vector(r.instances), in.get(props),
                          in.get(r.backtracks), in.get(r.contradictions)}) {
    if (!s) return s;
  }
  r.props = props;
  return Ok{};
}

}  // namespace

Result<RooftopOutput> build_rooftops(const buildings::Output& buildings, const Model& model,
                                     const RooftopConfig& config, Seed seed, const Ranks& ranks) {
  if (Status st = check_config(config, model); !st.ok()) {
    return st.error();
  }
  RooftopOutput out;
  out.cell_m = config.cell_m;
  out.level_m = config.level_m;
  out.tile_names = model.base_names;
  for (const std::string& p : detail::rooftop_prop_names()) {
    out.tile_names.push_back(p);
  }
  out.stats.base_tiles = model.base_names.size();
  out.stats.variants = model.tiles.size();
  out.stats.constraints = model.constraints.size();
  if (!config.enabled) {
    return out;
  }
  Shared sh;
  sh.model = &model;
  Result<CompiledModel> compiled = compile_model(model);
  if (!compiled.ok()) {
    return compiled.error();
  }
  sh.compiled = std::move(compiled).value();
  sh.config = &config;
  sh.seed = seed;
  for (std::uint32_t i = 0; i < model.base_names.size(); ++i) {
    if (model.base_names[i] == "air") {
      sh.air_base = i;
    }
  }
  for (std::uint32_t r = 0; r < 4; ++r) {
    sh.bulkhead[r] =
        model.find(r == 0 ? std::string("bulkhead") : "bulkhead#r" + std::to_string(r));
  }
  // 1. Jobs: every flat tier top not wholly covered, by building then tier.
  std::vector<RoofJob> jobs;
  for (std::size_t i = 0; i < buildings.buildings.size(); ++i) {
    const Building& b = buildings.buildings[i];
    for (std::uint32_t v = 0; v < b.volumes.size(); ++v) {
      if (is_flat(b.volumes[v])) {
        jobs.push_back({i, v});
      }
    }
  }
  // 2. Each roof on its own, slot i per job: shared out by roof area (a solve's cost grows with
  //    its cells); every rank gets them all.
  Result<std::vector<RoofResult>> solved = share_results<RoofResult>(
      ranks, jobs.size(), "rooftops from another rank",
      [&](std::size_t i) {
        return polygon_area(
            buildings.buildings[jobs[i].building].volumes[jobs[i].volume].footprint);
      },
      [&](std::size_t i) {
        return build_one(buildings.buildings[jobs[i].building], jobs[i].volume, sh);
      },
      put_roof, read_roof);
  if (!solved) return solved.error();
  std::vector<RoofResult> results = std::move(*solved);
  // 3. Gather in job order.
  out.stats.roofs_considered = jobs.size();
  for (RoofResult& r : results) {
    if (r.skipped) {
      continue;
    }
    r.roof.first_instance = static_cast<std::uint32_t>(out.instances.size());
    r.roof.instance_count = static_cast<std::uint32_t>(r.instances.size());
    out.stats.cells += r.roof.cells;
    out.stats.backtracks += r.backtracks;
    out.stats.contradictions += r.contradictions;
    if (r.roof.solved) {
      ++out.stats.rooftops;
      out.stats.instances += r.instances.size() - r.props;
      out.stats.props += r.props;
    } else {
      ++out.stats.failed;
    }
    out.instances.insert(out.instances.end(), r.instances.begin(), r.instances.end());
    out.rooftops.push_back(r.roof);
  }
  return out;
}

}  // namespace cityforge::rooftops
