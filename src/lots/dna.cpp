// SPDX-License-Identifier: Apache-2.0
// Building DNA per parcel (seeds/000, 15:35-17:20): style, frame from the street edge, the
// largest box that fits, a footprint shape by the wanted mix among those the style can build
// (minimum wall length), three height layers and the massing of tall buildings.
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "cityforge/core/polyline.hpp"
#include "lots/detail.hpp"

namespace cityforge::lots::detail {
namespace {

// Index drawn by weight; weights all zero gives -1.
int draw_weighted(const std::vector<double>& w, Rng& rng) {
  double total = 0.0;
  for (double x : w)
    total += x;
  if (!(total > 0.0)) return -1;
  double r = rng.uniform01() * total;
  for (std::size_t i = 0; i < w.size(); ++i) {
    if (w[i] <= 0.0) continue;
    if (r < w[i]) return static_cast<int>(i);
    r -= w[i];
  }
  for (std::size_t i = w.size(); i-- > 0;) {
    if (w[i] > 0.0) return static_cast<int>(i);
  }
  return -1;
}

// Base, shaft and crown as whole floors; a podium of 2-3 floors for podium towers.
void set_heights(BuildingDNA& dna, const StyleRule& style, double height_m, Rng& rng) {
  const double floor_m = style.floor_m > 0.0 ? style.floor_m : 3.2;
  const double ground_m = style.ground_floor_m > 0.0 ? style.ground_floor_m : floor_m;
  const double h = std::max(height_m, ground_m);
  const int podium_floors = dna.shape == FootprintShape::podium_tower ? 2 + rng.below(2) : 1;
  dna.base_m = ground_m + (podium_floors - 1) * floor_m;
  const int upper = std::max(0, static_cast<int>(std::lround((h - dna.base_m) / floor_m)));
  int crown = 0;
  if (h >= 20.0 && upper >= 2) {
    crown = std::max(1, static_cast<int>(std::lround(rng.uniform(0.10, 0.15) * h / floor_m)));
    crown = std::min(crown, upper - 1);
  }
  dna.shaft_m = (upper - crown) * floor_m;
  dna.crown_m = crown * floor_m;
}

// Cubified or staggered for tall buildings, when the inset tiers stay buildable.
void set_massing(BuildingDNA& dna, const StyleRule& style, Rng& rng) {
  dna.massing = Massing::plain;
  dna.setback_steps = 0;
  dna.setback_m = 0.0;
  if (dna.height_m() <= 30.0) return;
  const double r = rng.uniform01();
  Massing m = Massing::plain;
  if (r < style.cubified_share) {
    m = Massing::cubified;
  } else if (r < style.cubified_share + style.staggered_share) {
    m = Massing::staggered;
  }
  std::uint32_t steps = 2 + rng.below(3);
  double setback = rng.uniform(2.0, 4.0);
  if (m == Massing::plain) return;
  const double narrow = std::min(dna.size_x_m, dna.size_y_m);
  while (steps > 2 && narrow - 2.0 * steps * setback < style.min_wall_m)
    --steps;
  if (narrow - 2.0 * steps * setback < style.min_wall_m) setback = 2.0;
  if (narrow - 2.0 * steps * setback < style.min_wall_m) return;
  dna.massing = m;
  dna.setback_steps = steps;
  dna.setback_m = setback;
}

// How far from a box side the parcel's edge may lie for the side to count as on it (a
// street frame a degree off the side lot lines leaves the box short of them by a metre or two).
constexpr double kPartyReachM = 2.0;

// Whether the box side with its midpoint at local (x, y) lies on a lot line shared with
// another parcel: the parcel edge nearest that point is within reach and not on a street.
bool party_side(const Polygon& parcel, const std::vector<std::uint8_t>& frontage, Vec2 origin,
                Vec2 u, Vec2 v, double x, double y) {
  const Vec2 mid = origin + u * x + v * y;
  const Ring& ring = parcel.outer;
  double best = std::numeric_limits<double>::infinity();
  std::size_t edge = 0;
  for (std::size_t i = 0; i < ring.size(); ++i) {
    const double d = segment_distance(ring[i], ring[(i + 1) % ring.size()], mid);
    if (d < best) {
      best = d;
      edge = i;
    }
  }
  return best <= kPartyReachM && (edge >= frontage.size() || frontage[edge] == 0);
}

// Whether the outline keeps one whole wall, size_y long, on the box side x = `x`.
bool side_whole(const Polygon& outline, double x, double size_y) {
  constexpr double kEps = 1e-6;
  double along = 0.0;
  const Ring& ring = outline.outer;
  for (std::size_t i = 0; i < ring.size(); ++i) {
    const Vec2 a = ring[i];
    const Vec2 b = ring[(i + 1) % ring.size()];
    if (std::fabs(a.x - x) < kEps && std::fabs(b.x - x) < kEps) along += std::fabs(b.y - a.y);
  }
  return along >= size_y - kEps;
}

}  // namespace

bool make_dna(const DnaRequest& req, const std::vector<StyleRule>& styles,
              const std::vector<std::uint32_t>& eligible, const Config& config, Rng& rng,
              BuildingDNA* out) {
  if (eligible.empty()) return false;
  const Polygon& parcel = *req.parcel;
  // 1. Style by weight among the eligible ones.
  std::vector<double> weights;
  for (std::uint32_t i : eligible)
    weights.push_back(std::max(0.0, styles[i].weight));
  const int pick = draw_weighted(weights, rng);
  if (pick < 0) return false;
  BuildingDNA dna;
  dna.style = eligible[static_cast<std::size_t>(pick)];
  const StyleRule& style = styles[dna.style];

  // 2. Frame from the main street edge: +x along it, +y into the parcel.
  const std::size_t e = main_edge(parcel.outer, *req.frontage);
  const Vec2 origin = parcel.outer[e];
  const Vec2 u = normalize(parcel.outer[(e + 1) % parcel.outer.size()] - origin);
  const Vec2 v = perp(u);
  dna.angle_rad = std::atan2(u.y, u.x);

  // 3. The largest box in that frame, inside the parcel shrunk by the gap.
  const Polygon* fit = req.fit != nullptr ? req.fit : &parcel;
  LocalBox box;
  if (!largest_box(*fit, origin, u, &box)) return false;
  if (req.depth_share < 1.0) box.y1 = box.y0 + box.h() * req.depth_share;
  // Party walls (seeds/000, 29:14-30:30): a side of the box on a lot line another parcel
  // shares keeps its wall whole and in place, so the neighbour's wall hides it. Only without
  // gaps between lots: with them no two buildings touch.
  const bool touching = config.building_gap_m <= 0.0 && config.lot_gap_m <= 0.0;
  const double ym = 0.5 * (box.y0 + box.y1);
  const bool party_left = touching && party_side(parcel, *req.frontage, origin, u, v, box.x0, ym);
  const bool party_right = touching && party_side(parcel, *req.frontage, origin, u, v, box.x1, ym);
  // Where the box is cut narrower it stays against its one party side.
  auto x_anchor = [&](double width) {
    if (party_left && !party_right) return box.x0 + width / 2;
    if (party_right && !party_left) return box.x1 - width / 2;
    return (box.x0 + box.x1) / 2;
  };
  if (box.w() > req.max_box_aspect * box.h()) {
    const double cx = x_anchor(req.max_box_aspect * box.h());
    box.x0 = cx - req.max_box_aspect * box.h() / 2;
    box.x1 = cx + req.max_box_aspect * box.h() / 2;
  } else if (box.h() > req.max_box_aspect * box.w()) {
    box.y1 = box.y0 + req.max_box_aspect * box.w();
  }
  if (box.w() * box.h() < req.min_box_area_m2) return false;

  // 4. Heights first (podium towers only make sense tall), then the shape.
  const double height = req.target_height_m * (1.0 + config.height_jitter * rng.uniform(-1.0, 1.0));
  dna.shape_param = rng.uniform(0.2, 0.8);
  const double shape_roll = rng.uniform01();
  for (int attempt = 0; attempt < 6; ++attempt) {
    const double shrink = 1.0 - 0.04 * attempt;
    dna.size_x_m = box.w() * shrink;
    dna.size_y_m = box.h() * shrink;
    if (std::min(dna.size_x_m, dna.size_y_m) < style.min_wall_m) return false;
    std::vector<double> mix(kFootprintShapeCount, 0.0);
    std::array<bool, kFootprintShapeCount> mirror{};
    for (std::size_t s = 0; s < kFootprintShapeCount; ++s) {
      const auto shape = static_cast<FootprintShape>(s);
      if ((style.shape_mask & (1U << s)) == 0) continue;
      if (shape == FootprintShape::podium_tower && height <= 30.0) continue;
      const double w = dna.size_x_m;
      const double h = dna.size_y_m;
      const Polygon outline = footprint_outline(shape, w, h, dna.shape_param);
      if (shortest_wall_m(outline) < style.min_wall_m) continue;
      if (party_left || party_right) {
        // A shape whose notch, step or slant cuts a party side opens a gap to the neighbour;
        // mirrored, its whole side may face it instead. Notches at the back stay: behind a
        // building lie yards and light wells, not a party wall.
        const bool left = side_whole(outline, -w / 2, h);
        const bool right = side_whole(outline, w / 2, h);
        if ((!party_left || left) && (!party_right || right)) {
          mirror[s] = false;
        } else if ((!party_left || right) && (!party_right || left)) {
          mirror[s] = true;
        } else {
          continue;
        }
      }
      mix[s] = std::max(0.0, config.footprint_mix[s]);
    }
    double total = 0.0;
    for (double m : mix)
      total += m;
    dna.shape = FootprintShape::rectangle;  // last resort
    if (total > 0.0) {
      double r = shape_roll * total;
      for (std::size_t s = 0; s < kFootprintShapeCount; ++s) {
        if (mix[s] <= 0.0) continue;
        dna.shape = static_cast<FootprintShape>(s);
        if (r < mix[s]) break;
        r -= mix[s];
      }
    }
    dna.mirrored = mirror[static_cast<std::size_t>(dna.shape)];
    // Front edge stays on the street; shrinking pulls the back and the sides in, a party
    // side excepted.
    const double cx = x_anchor(dna.size_x_m);
    const double cy = box.y0 + dna.size_y_m / 2;
    dna.centre = origin + u * cx + v * cy;
    // 5. Verify: the placed footprint lies inside the parcel.
    if (outside_area(footprint_polygon(dna), parcel) < 0.01) {
      set_heights(dna, style, height, rng);
      set_massing(dna, style, rng);
      *out = dna;
      return true;
    }
  }
  return false;
}

}  // namespace cityforge::lots::detail
