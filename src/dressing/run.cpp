// SPDX-License-Identifier: Apache-2.0
// The dressing stage: runs every generator in a fixed order, resolves overlapping props by
// priority, lays the decals and counts what it placed (seeds/000, minutes 16-23).

#include <algorithm>
#include <chrono>
#include <cmath>
#include <utility>

#include "dressing/detail.hpp"

namespace cityforge::dressing {
namespace {

Status check(const Config& c) {
  const auto positive = [](double v) { return std::isfinite(v) && v > 0.0; };
  const auto share = [](double v) { return std::isfinite(v) && v >= 0.0 && v <= 1.0; };
  struct Rule {
    bool ok;
    const char* key;
  };
  const Rule rules[] = {
      {positive(c.tile_m), "tile_m"},
      {c.tile_variants >= 1, "tile_variants"},
      {positive(c.ground_tile_m), "ground_tile_m"},
      {positive(c.light_spacing_m[0]) && positive(c.light_spacing_m[1]) &&
           positive(c.light_spacing_m[2]),
       "light_spacing_m"},
      {positive(c.tree_spacing_m), "tree_spacing_m"},
      {positive(c.park_tree_spacing_m), "park_tree_spacing_m"},
      {positive(c.hydrant_spacing_m), "hydrant_spacing_m"},
      {positive(c.bin_spacing_m), "bin_spacing_m"},
      {positive(c.bench_spacing_m), "bench_spacing_m"},
      {positive(c.bus_stop_spacing_m), "bus_stop_spacing_m"},
      {positive(c.parking_spot_m), "parking_spot_m"},
      {positive(c.audio_grid_m), "audio_grid_m"},
      {positive(c.audio_radius_m), "audio_radius_m"},
      {c.audio_rays >= 4, "audio_rays"},
      {positive(c.crack_spacing_m), "crack_spacing_m"},
  };
  for (const Rule& r : rules) {
    if (!r.ok) {
      return Error::invalid_input(std::string("dressing.") + r.key,
                                  "expected a positive value (counts >= 1, audio_rays >= 4)");
    }
  }
  const Rule shares[] = {
      {share(c.grime_share), "grime_share"},
      {share(c.tyre_mark_share), "tyre_mark_share"},
      {share(c.oil_share), "oil_share"},
  };
  for (const Rule& r : shares) {
    if (!r.ok) {
      return Error::invalid_input(std::string("dressing.") + r.key, "expected a share from 0 to 1");
    }
  }
  return Ok{};
}

}  // namespace

Result<Output> run(const Inputs& in, const std::vector<Biome>& biomes, const Config& config,
                   Seed seed) {
  if (Status s = check(config); !s) return s.error();
  Output out;
  auto mark = std::chrono::steady_clock::now();
  const auto step_done = [&](const char* name) {
    const auto now = std::chrono::steady_clock::now();
    out.step_seconds.emplace_back(name, std::chrono::duration<double>(now - mark).count());
    mark = now;
  };
  const std::vector<PropDef>& catalog = prop_catalog();
  // 1. Streets first: what stands on sidewalks and at junctions.
  std::vector<Item> street;
  detail::street_lights(in, config, seed, street);
  detail::furniture(in, config, seed, street);
  step_done("street");
  std::vector<Item> plants;
  detail::vegetation(in, config, seed, street, plants);
  step_done("vegetation");
  street.insert(street.end(), plants.begin(), plants.end());
  // Imported places: ground patches, plants scattered over them, and what is mapped (placed
  // where mapped, never dropped; generated props give way to it).
  std::vector<Item> fixed;
  if (in.mapped != nullptr) {
    out.ground = detail::mapped_ground(in);
    std::vector<Item> wild;
    detail::mapped_plants(in, config, seed, out.ground, wild);
    out.stats.mapped_plants = wild.size();
    street.insert(street.end(), wild.begin(), wild.end());
    detail::mapped_props(in, config, fixed);
    out.stats.mapped_props = fixed.size();
    detail::mapped_barriers(in, config, fixed, out.stats.barrier_pieces);
  }
  step_done("mapped");
  // 2. Leftover zones and rooftops filled with biomes.
  out.zones = detail::leftover_zones(in, config);
  if (in.mapped != nullptr) detail::drop_wild_zones(out.zones, out.ground);
  step_done("zones");
  std::vector<Item> scattered;
  // Imported places: their leftover ground is real ground (terrain and mapped patches), not
  // plazas to fill with biomes (the Hudson would become a plaza).
  if (in.mapped == nullptr) {
    detail::scatter_biomes(out.zones, biomes, in, config, seed, scattered, out.warnings);
  }
  step_done("biomes");
  // 3. Surfaces: sidewalk tiles and ground cover.
  std::vector<Item> surfaces;
  out.stats.furnished_sidewalk_km =
      detail::sidewalk_tiles(in, config, seed, surfaces, nullptr) / 1000.0;
  step_done("sidewalk_tiles");
  // Ground cover tiles belong to invented blocks; an imported place's ground is its terrain and
  // mapped patches (a tile grid over mountain blocks was millions of instances).
  if (in.mapped == nullptr) detail::ground_cover(in, config, seed, surfaces);
  step_done("ground_cover");
  // 4. One list: props by priority, then surfaces; overlapping discs are resolved.
  out.items = std::move(street);
  out.items.insert(out.items.end(), scattered.begin(), scattered.end());
  out.stats.removed_overlaps = detail::resolve_overlaps(out.items);
  if (in.mapped != nullptr) {
    out.stats.removed_overlaps += detail::drop_overlapping(out.items, fixed);
    out.stats.removed_overlaps += detail::drop_in_water(out.items, out.ground);
    out.items.insert(out.items.end(), fixed.begin(), fixed.end());
  }
  out.items.insert(out.items.end(), surfaces.begin(), surfaces.end());
  std::stable_sort(out.items.begin(), out.items.end(), [&](const Item& a, const Item& b) {
    return catalog[a.prop].category < catalog[b.prop].category;
  });
  step_done("overlaps");
  // 5. Parking spots keep clear of the hydrants that survived; the audio grid.
  out.parking = detail::parking_spots(in, config, out.items);
  step_done("parking");
  // Decals come last: they need the parking spots, and as Category::decal (the last category)
  // they keep the items sorted.
  detail::decals(in, config, seed, out.parking, out.items, out.stats.decals);
  step_done("decals");
  if (in.mapped == nullptr) {
    out.audio = detail::audio_grid(in, config);
  } else {
    // Imported places can be whole valleys: at most ~250,000 audio points.
    Config coarse = config;
    const Aabb2 b = in.ground.bounds();
    const double area = (b.max.x - b.min.x) * (b.max.y - b.min.y);
    coarse.audio_grid_m = std::max(config.audio_grid_m, std::sqrt(area / 2.5e5));
    out.audio = detail::audio_grid(in, coarse);
  }
  step_done("audio");
  // 6. Stats.
  Stats& st = out.stats;
  st.items_by_prop.assign(catalog.size(), 0);
  const std::int32_t light = find_prop("street_light");
  const std::int32_t lamp = find_prop("parking_lamp");
  for (const Item& it : out.items) {
    ++st.items_by_prop[it.prop];
    ++st.items_by_category[static_cast<std::size_t>(catalog[it.prop].category)];
    if (static_cast<std::int32_t>(it.prop) == light || static_cast<std::int32_t>(it.prop) == lamp) {
      ++st.lights;
    }
  }
  for (const LeftoverZone& z : out.zones) {
    ++st.zones_by_kind[static_cast<std::size_t>(z.kind)];
    st.biome_stamps += z.stamps;
  }
  st.parking_spots = out.parking.size();
  st.audio_points = out.audio.size();
  for (const GroundPatch& g : out.ground) {
    if (g.path) {
      ++st.path_patches;
    } else {
      ++st.patches_by_kind[static_cast<std::size_t>(g.kind)];
    }
  }
  // 7. The ground patches, drawable on the surfaces the props stand on (their meshes are made
  //    where they are drawn).
  if (Status s = check_ground_patches(out.ground); !s) return s.error();
  out.ground_raise_m = in.roads.block_raise_m;
  return out;
}

}  // namespace cityforge::dressing
