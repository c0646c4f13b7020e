// SPDX-License-Identifier: Apache-2.0
// The lots stage: blocks -> cleaned, subdivided lots (parallel per block), then filtering,
// parcels and Building DNA (parallel per lot). Slots are pre-sized and concatenated in block
// order, so the output is identical at any thread count.
#include <tbb/parallel_for.h>

#include <algorithm>
#include <cmath>

#include "cityforge/core/format.hpp"
#include "lots/detail.hpp"

namespace cityforge::lots {
namespace {

using detail::LotPiece;
using detail::StreetSide;

// Smallest distance of a building from its lot's edges (half the gap between lots).

// Position along the block: angle of the lot's centroid around the block's centroid.
void sort_along_block(std::vector<LotPiece>& pieces, Vec2 centre) {
  struct Key {
    double angle;
    double area;
    Vec2 first;
  };
  std::vector<std::pair<Key, std::size_t>> keys;
  for (std::size_t i = 0; i < pieces.size(); ++i) {
    const Vec2 d = ring_centroid(pieces[i].area.outer) - centre;
    keys.push_back(
        {{std::atan2(d.y, d.x), polygon_area(pieces[i].area), pieces[i].area.outer.front()}, i});
  }
  std::sort(keys.begin(), keys.end(), [](const auto& a, const auto& b) {
    if (a.first.angle != b.first.angle) return a.first.angle < b.first.angle;
    if (a.first.area != b.first.area) return a.first.area < b.first.area;
    if (a.first.first.x != b.first.first.x) return a.first.first.x < b.first.first.x;
    return a.first.first.y < b.first.first.y;
  });
  std::vector<LotPiece> sorted;
  sorted.reserve(pieces.size());
  for (const auto& k : keys)
    sorted.push_back(std::move(pieces[k.second]));
  pieces = std::move(sorted);
}

// Filters one lot and fills its parcels and DNA.
void build_lot(Lot& lot, const StreetSide& side, const std::vector<StyleRule>& styles,
               const Config& config, Seed seed) {
  const std::vector<std::uint32_t> eligible =
      detail::eligible_styles(styles, lot.zone, lot.target_height_m);
  double min_wall = INFINITY;
  for (std::uint32_t i : eligible)
    min_wall = std::min(min_wall, styles[i].min_wall_m);
  if (eligible.empty()) {
    for (const StyleRule& s : styles)
      min_wall = std::min(min_wall, s.min_wall_m);
  }
  lot.status = detail::classify(lot.area, min_wall, config);
  if (lot.status == LotStatus::too_small) return;

  detail::DnaRequest req;
  req.target_height_m = lot.target_height_m;
  req.zone = lot.zone;
  if (lot.status != LotStatus::buildable) {
    // Unsuitable shape: fit one library footprint of a sensible lot size and shape inside.
    Parcel p;
    p.area = lot.area;
    p.frontage = side.frontage(p.area.outer);
    req.parcel = &p.area;
    req.frontage = &p.frontage;
    req.min_box_area_m2 = config.min_lot_area_m2;
    std::vector<Polygon> fit =
        polygon_offset(lot.area, -std::max(config.building_gap_m, 0.5 * config.lot_gap_m));
    if (fit.empty()) return;
    std::stable_sort(fit.begin(), fit.end(), [](const Polygon& a, const Polygon& b) {
      return polygon_area(a) > polygon_area(b);
    });
    req.fit = &fit.front();
    req.max_box_aspect = config.max_aspect;
    Rng rng{seed, Stage::lots, lot.id, 2};
    if (detail::make_dna(req, styles, eligible, config, rng, &p.dna)) {
      lot.status = LotStatus::replaced;
      lot.parcels.push_back(std::move(p));
    }
    return;
  }

  // Every lot loses half of lot_gap_m (or building_gap_m) along its edges; with no gap the
  // buildings of neighbouring lots may share party walls, as street walls do. New York parcels
  // of one lot share full-width walls.
  std::vector<Polygon> inner =
      polygon_offset(lot.area, -std::max(config.building_gap_m, 0.5 * config.lot_gap_m));
  std::stable_sort(inner.begin(), inner.end(), [](const Polygon& a, const Polygon& b) {
    return polygon_area(a) > polygon_area(b);
  });
  if (inner.empty()) return;
  std::vector<Polygon> areas;
  // Only a share of the low lots become rows: a whole low-rise city of 8 m parcels would be
  // tens of thousands of buildings (the source city had ~7,000 on 4x5 km).
  if (lot.target_height_m < config.narrow_height_m &&
      Rng{seed, Stage::lots, lot.id, 0x6e79}.chance(config.narrow_share)) {
    Rng rng{seed, Stage::lots, lot.id, 1};
    areas = detail::narrow_parcels(lot.area, side, config, rng);
    lot.narrow = areas.size() >= 2;
    if (!lot.narrow) areas.clear();
  }
  if (areas.empty()) areas.push_back(lot.area);
  lot.parcels.resize(areas.size());
  for (std::size_t k = 0; k < areas.size(); ++k) {
    Parcel& p = lot.parcels[k];
    p.area = std::move(areas[k]);
    p.frontage = side.frontage(p.area.outer);
    Rng rng{seed, Stage::lots, lot.id, 2 + k};
    req.parcel = &p.area;
    req.frontage = &p.frontage;
    std::vector<Polygon> fit = lot.narrow ? polygon_intersection(p.area, inner.front())
                                          : std::vector<Polygon>{inner.front()};
    std::stable_sort(fit.begin(), fit.end(), [](const Polygon& a, const Polygon& b) {
      return polygon_area(a) > polygon_area(b);
    });
    if (fit.empty()) {
      p.has_building = false;
      continue;
    }
    req.fit = &fit.front();
    // Alternating building depths: the rear lines of a New York row stagger.
    req.depth_share =
        lot.narrow ? (k % 2 == 0 ? rng.uniform(0.7, 0.8) : rng.uniform(0.5, 0.6)) : 1.0;
    p.has_building = detail::make_dna(req, styles, eligible, config, rng, &p.dna);
  }
}

}  // namespace

Result<Output> run(const layout::Output& city, const std::vector<Polygon>& keep_out,
                   const std::vector<StyleRule>& styles, const Config& config, Seed seed) {
  if (Status s = validate(config, styles); !s.ok()) return s.error();

  // 1. Clean and subdivide every block.
  const std::size_t nb = city.blocks.size();
  std::vector<std::vector<LotPiece>> pieces(nb);
  std::vector<StreetSide> sides(nb);
  tbb::parallel_for(std::size_t{0}, nb, [&](std::size_t b) {
    const layout::Block& block = city.blocks[b];
    sides[b] = detail::street_side(city, block, keep_out, config.frontage_tolerance_m);
    pieces[b] = detail::subdivide_block(city, block, keep_out, sides[b], config, seed);
    sort_along_block(pieces[b], ring_centroid(block.area.outer));
  });

  // 2. Concatenate in block order; ids are indices.
  Output out;
  std::vector<std::size_t> lot_block;
  for (std::size_t b = 0; b < nb; ++b) {
    for (LotPiece& piece : pieces[b]) {
      Lot lot;
      lot.id = static_cast<LotId>(out.lots.size());
      lot.block = city.blocks[b].id;
      lot.area = std::move(piece.area);
      lot.zone = city.blocks[b].zone;
      lot.target_height_m = piece.target_height_m;
      lot.density = piece.density;
      out.lots.push_back(std::move(lot));
      lot_block.push_back(b);
    }
  }

  // 3. A style whose minimum wall is longer than the narrow side of the largest lot can never
  // be built anywhere in this city.
  if (!out.lots.empty()) {
    std::size_t largest = 0;
    for (std::size_t i = 1; i < out.lots.size(); ++i) {
      if (polygon_area(out.lots[i].area) > polygon_area(out.lots[largest].area)) largest = i;
    }
    const double short_m = detail::oriented_box(out.lots[largest].area.outer).short_m;
    for (const StyleRule& s : styles) {
      if (s.min_wall_m > short_m) {
        return Error::invalid_input(
            s.source, "style '" + s.name + "' needs walls of at least " + format_g9(s.min_wall_m) +
                          " m, but the largest lot of the city (" +
                          format_g9(polygon_area(out.lots[largest].area)) + " m2) is only " +
                          format_g9(short_m) + " m across; lower min_wall_m or enlarge the lots");
      }
    }
  }

  // 4. Filter, parcels and DNA per lot.
  tbb::parallel_for(std::size_t{0}, out.lots.size(), [&](std::size_t i) {
    build_lot(out.lots[i], sides[lot_block[i]], styles, config, seed);
  });

  // 5. Stats.
  Stats& st = out.stats;
  st.lots = out.lots.size();
  for (const Lot& lot : out.lots) {
    ++st.lots_by_status[static_cast<std::size_t>(lot.status)];
    if (lot.narrow) ++st.narrow_lots;
    st.parcels += lot.parcels.size();
    for (const Parcel& p : lot.parcels) {
      if (!p.has_building) continue;
      ++st.buildings;
      ++st.footprints_by_shape[static_cast<std::size_t>(p.dna.shape)];
    }
  }
  return out;
}

}  // namespace cityforge::lots
