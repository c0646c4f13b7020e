// SPDX-License-Identifier: Apache-2.0
// Decals (issue 31; seeds/000: grime and tyre marks): transparent quads laid on the city's
// surfaces as instances. Grime at the foot of the base footprint's walls, tyre marks in the
// approach lanes before the stop lines of signal and stop junctions, oil stains in parking
// spots, cracks on sidewalks and carriageways. Every draw is keyed by the object it belongs to
// (building and wall, lane, parking spot, section), so the output is the same at any thread
// or rank count.
#include <tbb/parallel_for.h>

#include <algorithm>
#include <cmath>
#include <numbers>

#include "cityforge/core/polyline.hpp"
#include "dressing/detail.hpp"
#include "dressing/detail/exclusions.hpp"
#include "dressing/detail/prop_kit.hpp"

namespace cityforge::dressing {
namespace detail {
namespace {

// Random streams of the decal kinds (Rng's fourth key).
constexpr std::uint64_t kGrimeStream = 0xdeca1001;
constexpr std::uint64_t kTyreStream = 0xdeca1002;
constexpr std::uint64_t kOilStream = 0xdeca1003;
constexpr std::uint64_t kCrackStream = 0xdeca1004;
// Tyre marks end this far behind the stop line's back edge.
constexpr double kTyreGapM = 0.3;
// Cracks keep this far from a section's ends (crosswalks and stop lines lie there).
constexpr double kCrackEndClearM = 5.5;
// Grime pieces along a wall are about this long.
constexpr double kGrimePieceM = 2.5;

void quad(Mesh& m, const std::array<std::array<float, 3>, 4>& p, const std::array<float, 3>& n) {
  m.positions.assign(p.begin(), p.end());
  m.normals.assign(4, n);
  // Counter-clockwise from the front: u left to right, v down the picture.
  m.uvs = {{0.0f, 1.0f}, {1.0f, 1.0f}, {1.0f, 0.0f}, {0.0f, 0.0f}};
  m.indices = {0, 1, 2, 0, 2, 3};
}

void flat(PropMesh& out, PropMaterial m) {
  quad(part(out, m),
       {{{-0.5f, -0.5f, 0.0f}, {0.5f, -0.5f, 0.0f}, {0.5f, 0.5f, 0.0f}, {-0.5f, 0.5f, 0.0f}}},
       {0.0f, 0.0f, 1.0f});
}

std::uint32_t prop_id(const char* id) { return static_cast<std::uint32_t>(find_prop(id)); }

/// Arc length and signed offset (left of the line's direction positive) of p's nearest point
/// on `line`.
struct Station {
  double s_m = 0.0;
  double lateral_m = 0.0;
};
Station station(const Polyline& line, Vec2 p) {
  Station best;
  double best_d = 1e300;
  double run = 0.0;
  for (std::size_t k = 0; k + 1 < line.size(); ++k) {
    const Vec2 a = line[k];
    const Vec2 v = line[k + 1] - a;
    const double l2 = dot(v, v);
    const double t = l2 > 0.0 ? std::clamp(dot(p - a, v) / l2, 0.0, 1.0) : 0.0;
    const double d = length(p - (a + v * t));
    if (d < best_d) {
      best_d = d;
      best.s_m = run + t * std::sqrt(l2);
      best.lateral_m = cross(v, p - a) >= 0.0 ? d : -d;
    }
    run += std::sqrt(l2);
  }
  return best;
}

/// The four corners of a flat decal quad of item `it` (its frame scaled, turned, moved).
std::array<Vec2, 4> corners(const Item& it) {
  const double c = std::cos(it.yaw_rad), s = std::sin(it.yaw_rad);
  std::array<Vec2, 4> out;
  const double hx = 0.5 * it.scale_x, hy = 0.5 * it.scale_y;
  const std::array<Vec2, 4> local{{{-hx, -hy}, {hx, -hy}, {hx, hy}, {-hx, hy}}};
  for (std::size_t k = 0; k < 4; ++k) {
    out[k] = {it.position[0] + c * local[k].x - s * local[k].y,
              it.position[1] + s * local[k].x + c * local[k].y};
  }
  return out;
}

/// The road surface height of section `section` under p (roads::road_surface_z).
double road_z(const Inputs& in, std::uint32_t section, Vec2 p) {
  const Station st = station(in.roads.sections[section].centre, p);
  return roads::road_surface_z(in.city, in.roads, in.ground, in.roads.config, section, st.lateral_m,
                               st.s_m);
}

/// Lays a flat decal on a surface: its z the highest of `surface` at its centre and corners
/// plus kDecalLiftM, so no part of the (unpitched) quad sinks into a slope or a road's crown.
template <class SurfaceZ>
void lay(Item& it, SurfaceZ&& surface) {
  double z = surface(Vec2{it.position[0], it.position[1]});
  for (const Vec2 c : corners(it))
    z = std::max(z, surface(c));
  it.position[2] = static_cast<float>(z + kDecalLiftM);
}

Item make(std::uint32_t prop, Vec2 p, double yaw, double sx, double sy, std::uint32_t owner,
          Rng& rng) {
  Item it;
  it.prop = prop;
  it.position = {static_cast<float>(p.x), static_cast<float>(p.y), 0.0f};
  it.yaw_rad = static_cast<float>(yaw);
  it.scale_x = static_cast<float>(sx);
  it.scale_y = static_cast<float>(sy);
  it.owner = owner;
  it.variant = static_cast<std::uint8_t>(rng.below(4));
  return it;
}

/// Grime at the foot of one building's walls: each edge of its base footprint (outer ring and
/// courtyards) cut into pieces of about kGrimePieceM, a share of them with grime, none on a
/// wall another building stands against (party walls) and none in front of an entrance. From
/// the footprint and entrances alone, not the facade modules, so the same with and without
/// buildings::Config::keep_instances (--no-city-glb).
void grime(const Inputs& in, const Config& config, Seed seed, const Areas& areas, std::size_t b,
           const std::vector<Vec2>& doors, std::vector<Item>& out) {
  const buildings::Building& bld = in.buildings.buildings[b];
  if (bld.volumes.empty() || config.grime_share <= 0.0) return;
  const Polygon& foot = bld.volumes.front().footprint;
  const std::uint32_t prop = prop_id("decal_grime");
  std::vector<const Ring*> rings{&foot.outer};
  for (const Ring& h : foot.holes)
    rings.push_back(&h);
  for (std::uint64_t r = 0; r < rings.size(); ++r) {
    const Ring& ring = *rings[r];
    for (std::uint64_t k = 0; k < ring.size(); ++k) {
      const Vec2 a = ring[k];
      const Vec2 e = ring[(k + 1) % ring.size()];
      const double len = length(e - a);
      if (len < 1.0) continue;
      // Outer rings run counter-clockwise, holes clockwise: the outside is on the right.
      const Vec2 dir = (e - a) / len;
      const Vec2 out_of{dir.y, -dir.x};
      const auto pieces = static_cast<std::uint64_t>(std::max(1.0, std::round(len / kGrimePieceM)));
      const double w = len / static_cast<double>(pieces);
      for (std::uint64_t i = 0; i < pieces; ++i) {
        Rng rng{seed, Stage::dressing, hash_combine(hash_combine(bld.id, r), hash_combine(k, i)),
                kGrimeStream};
        if (!rng.chance(config.grime_share)) continue;
        const Vec2 mid = a + dir * ((static_cast<double>(i) + 0.5) * w);
        // A neighbour against this wall, or a door in front of it: no grime.
        if (areas.inside(mid + out_of * 0.5, kAreaBuilding)) continue;
        if (std::any_of(doors.begin(), doors.end(),
                        [&](Vec2 d) { return length(d - mid) < 0.5 * w + 1.0; }))
          continue;
        const Vec2 p = mid + out_of * kGrimeOffsetM;
        // The quad faces +y of its frame: its +x runs against the edge's direction.
        Item it =
            make(prop, p, std::atan2(-dir.y, -dir.x), w * rng.uniform(0.9, 1.1), 1.0, bld.id, rng);
        it.scale_z = static_cast<float>(rng.uniform(0.8, 2.2));
        // From the wall's foot, or from just under the sidewalk where the ground is higher (a
        // building on a slope stands on its lowest ground): the visible foot gets the grime.
        it.position[2] = static_cast<float>(std::max(bld.base_z_m, sidewalk_z(in, p) - 0.05));
        out.push_back(it);
      }
    }
  }
}

/// Tyre marks in the approach lanes of one section, behind its stop lines (the road markings'
/// own: roads::SectionMarkings), one per lane that a stop line spans, seeded by the lane.
void tyre_marks(const Inputs& in, const Config& config, Seed seed,
                const roads::SectionMarkings& markings, const std::vector<roads::LaneId>& lanes,
                std::uint32_t section, std::vector<Item>& out) {
  const roads::Section& sec = in.roads.sections[section];
  const layout::RoadEdge& edge = in.city.network.edges[sec.edge];
  if (edge.layer != 0 || edge.bridge || edge.tunnel || lanes.empty()) return;
  const double length = polyline_length(sec.centre);
  for (const roads::Decal& stop :
       markings.of(section, roads::marking_bit(roads::MarkingKind::stop_line))) {
    if (stop.kind != roads::MarkingKind::stop_line) continue;
    const Vec2 t{std::cos(stop.yaw_rad), std::sin(stop.yaw_rad)};  // the travel direction
    const Vec2 n = perp(t);
    const Vec2 c{stop.position.x, stop.position.y};
    for (const roads::LaneId id : lanes) {
      const roads::Lane& lane = in.roads.lanes.lanes[id];
      if (lane.points.size() < 2) continue;
      const Vec3& e = lane.points.back();
      const Vec3& f = lane.points[lane.points.size() - 2];
      const Vec2 end{e.x, e.y};
      if (dot(normalize(end - Vec2{f.x, f.y}), t) < 0.7) continue;  // the other direction
      const double across = dot(end - c, n);
      if (std::fabs(across) > 0.5 * stop.width_m + 0.2) continue;  // not under this line
      Rng rng{seed, Stage::dressing, lane.id, kTyreStream};
      if (!rng.chance(config.tyre_mark_share)) continue;
      // Markings of one end use at most half the section (roads::build_markings).
      const double len = std::min(rng.uniform(3.0, 6.0), 0.5 * length - 5.0);
      if (len < 2.0) continue;
      // Behind the line, then onto the lane's centre line (a lane bending near the junction
      // is not where the straight line across puts it).
      Vec2 p = c + n * across - t * (0.5 * stop.length_m + kTyreGapM + 0.5 * len);
      Polyline centre;
      for (const Vec3& q : lane.points)
        centre.push_back({q.x, q.y});
      const Station st = station(centre, p);
      p = polyline_point_at(centre, st.s_m);
      Item it = make(prop_id("decal_tyre_marks"), p, stop.yaw_rad, len,
                     std::min(lane.width_m * 0.95, 3.2), lane.id, rng);
      lay(it, [&](Vec2 q) { return road_z(in, section, q); });
      out.push_back(it);
    }
  }
}

/// An oil stain in a share of the parking spots, off the spot's centre.
void oil(const Inputs& in, const Config& config, Seed seed, const ParkingSpot& spot,
         std::uint32_t index, std::vector<Item>& out) {
  if (spot.edge >= in.roads.sections.size()) return;
  Rng rng{seed, Stage::dressing, index, kOilStream};
  if (!rng.chance(config.oil_share)) return;
  const Vec2 along{std::cos(spot.yaw_rad), std::sin(spot.yaw_rad)};
  const Vec2 across{-along.y, along.x};
  const double reach = std::max(0.0, 0.5 * spot.length_m - 1.2);
  const Vec2 p = Vec2{spot.position[0], spot.position[1]} + along * rng.uniform(-reach, reach) +
                 across * rng.uniform(-0.3, 0.3);
  const double size = rng.uniform(0.5, 1.2);
  Item it = make(prop_id("decal_oil"), p, rng.uniform(0.0, 2.0 * std::numbers::pi), size,
                 size * rng.uniform(0.75, 1.0), index, rng);
  lay(it, [&](Vec2 q) { return road_z(in, spot.edge, q); });
  out.push_back(it);
}

/// A seeded number of cracks in [0, length_m]: on average one per spacing.
std::uint32_t crack_count(Rng& rng, double length_m, double spacing_m) {
  const double mean = length_m / spacing_m;
  return static_cast<std::uint32_t>(std::floor(mean + rng.uniform01()));
}

/// Cracks on one section's carriageway and on the sidewalks beside it.
void cracks(const Inputs& in, const Config& config, Seed seed, const Areas& areas,
            std::uint32_t section, std::vector<Item>& out) {
  const roads::Section& sec = in.roads.sections[section];
  const layout::RoadEdge& edge = in.city.network.edges[sec.edge];
  if (edge.layer != 0 || edge.bridge || edge.tunnel || sec.centre.size() < 2) return;
  const double length = polyline_length(sec.centre);
  if (length < 2.0 * kCrackEndClearM + 1.0) return;
  const std::uint32_t prop = prop_id("decal_crack");
  const double half = edge.width_m * 0.5;
  Rng rng{seed, Stage::dressing, section, kCrackStream};
  // 1. Carriageway.
  for (std::uint32_t n = crack_count(rng, length, config.crack_spacing_m); n > 0; --n) {
    const double s = rng.uniform(kCrackEndClearM, length - kCrackEndClearM);
    const double lateral = rng.uniform(-0.7, 0.7) * std::max(0.0, half - 1.2);
    const Vec2 p = roads::section_point(in.roads, section, lateral, s);
    const double size = rng.uniform(1.0, 2.2);
    Item it = make(prop, p, rng.uniform(0.0, 2.0 * std::numbers::pi), size,
                   size * rng.uniform(0.7, 1.0), section, rng);
    lay(it, [&](Vec2 q) { return road_z(in, section, q); });
    out.push_back(it);
  }
  // 2. Sidewalks: on the tiles (kTileThicknessM above the curb top), inside the sidewalk.
  const double sw = edge.sidewalk_width_m;
  if (sw < 1.2) return;
  for (const int side : {1, -1}) {
    for (std::uint32_t n = crack_count(rng, length, config.crack_spacing_m); n > 0; --n) {
      const double s = rng.uniform(kCrackEndClearM, length - kCrackEndClearM);
      const double size = rng.uniform(0.6, std::min(1.4, sw - 0.4));
      const CurbFrame f =
          curb_frame(sec.centre, side, half, s, rng.uniform(0.5 * size + 0.2, sw - 0.5 * size));
      const double yaw = std::atan2(f.tangent.y, f.tangent.x) + rng.uniform(-0.4, 0.4);
      Item it = make(prop, f.p, yaw, size, size * rng.uniform(0.7, 1.0), section, rng);
      bool inside = true;
      for (const Vec2 c : corners(it))
        inside = inside && areas.inside(c, kAreaSidewalk) && !areas.inside(c, kAreaBuilding);
      if (!inside) continue;
      lay(it, [&](Vec2 q) { return sidewalk_z(in, q) + kTileThicknessM; });
      out.push_back(it);
    }
  }
}

/// Runs job(i, slot) for i in [0, n) in parallel and appends the slots in order.
template <class Job>
void in_order(std::size_t n, Job&& job, std::vector<Item>& out) {
  std::vector<std::vector<Item>> slots(n);
  tbb::parallel_for(std::size_t{0}, n, [&](std::size_t i) { job(i, slots[i]); });
  for (const auto& slot : slots)
    out.insert(out.end(), slot.begin(), slot.end());
}

}  // namespace

void build_decal_grime(PropMesh& out) {
  quad(part(out, PropMaterial::grime),
       {{{0.5f, 0.0f, 0.0f}, {-0.5f, 0.0f, 0.0f}, {-0.5f, 0.0f, 1.0f}, {0.5f, 0.0f, 1.0f}}},
       {0.0f, 1.0f, 0.0f});
}
void build_decal_tyre_marks(PropMesh& out) { flat(out, PropMaterial::tyre_marks); }
void build_decal_oil(PropMesh& out) { flat(out, PropMaterial::oil); }
void build_decal_crack(PropMesh& out) { flat(out, PropMaterial::crack); }

void decals(const Inputs& in, const Config& config, Seed seed,
            const std::vector<ParkingSpot>& parking, std::vector<Item>& out,
            std::array<std::size_t, 4>& counts) {
  std::size_t before = out.size();
  const auto count = [&](std::size_t kind) {
    counts[kind] = out.size() - before;
    before = out.size();
  };
  // 1. Grime, by building.
  const Areas areas(in, config);
  std::vector<std::vector<Vec2>> doors(in.buildings.buildings.size());
  for (const buildings::Entrance& e : in.buildings.entrances) {
    if (e.building < doors.size()) doors[e.building].push_back({e.position[0], e.position[1]});
  }
  in_order(
      in.buildings.buildings.size(),
      [&](std::size_t b, std::vector<Item>& slot) {
        grime(in, config, seed, areas, b, doors[b], slot);
      },
      out);
  count(0);
  // 2. Tyre marks, by section, behind the stop lines the markings paint (signal and stop
  //    junctions).
  const roads::SectionMarkings markings(in.city, in.roads, in.ground, in.roads.config);
  std::vector<std::vector<roads::LaneId>> by_section(in.roads.sections.size());
  for (const roads::Lane& lane : in.roads.lanes.lanes) {
    if ((lane.tags & roads::kVehicle) == 0U ||
        (lane.tags & (roads::kIntersection | roads::kFreeway | roads::kRamp | roads::kParking)) !=
            0U ||
        lane.section < 0 || static_cast<std::size_t>(lane.section) >= by_section.size())
      continue;
    by_section[static_cast<std::size_t>(lane.section)].push_back(lane.id);
  }
  in_order(
      markings.sections() == in.roads.sections.size() ? in.roads.sections.size() : 0,
      [&](std::size_t i, std::vector<Item>& slot) {
        tyre_marks(in, config, seed, markings, by_section[i], static_cast<std::uint32_t>(i), slot);
      },
      out);
  count(1);
  // 3. Oil, by parking spot.
  in_order(
      parking.size(),
      [&](std::size_t i, std::vector<Item>& slot) {
        oil(in, config, seed, parking[i], static_cast<std::uint32_t>(i), slot);
      },
      out);
  count(2);
  // 4. Cracks, by section.
  in_order(
      in.roads.sections.size(),
      [&](std::size_t i, std::vector<Item>& slot) {
        cracks(in, config, seed, areas, static_cast<std::uint32_t>(i), slot);
      },
      out);
  count(3);
}

}  // namespace detail
}  // namespace cityforge::dressing
