// SPDX-License-Identifier: Apache-2.0
// The traffic and crowd of a generated city, built from its folder: lanes.json, the parking
// spots and props written by `generate` (points/), the building footprints of layout.geojson
// and shepherds.json. Used by `cityforge simulate` (run_simulation) and `cityforge serve --live`.
#include "cityforge/server/city_sim.hpp"

#include <array>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string_view>

#include "cityforge/core/assert.hpp"
#include "cityforge/core/ranks.hpp"
#include "cityforge/dressing/dressing.hpp"
#include "cityforge/traffic/network.hpp"
#include "cityforge/traffic/partition.hpp"

namespace fs = std::filesystem;

namespace cityforge::server {
namespace {

/// Parking spots written by `generate` (points/parking_spots.ply): binary little endian,
/// float x y z yaw length_m, uint edge lane. Errors name the file and what was expected.
Result<std::vector<traffic::ParkedVehicle>> read_parking(const std::string& path, double share,
                                                         Seed seed) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return std::vector<traffic::ParkedVehicle>{};  // No dressing output: no parked cars.
  std::string line;
  std::size_t count = 0;
  std::vector<std::string> props;
  bool binary = false;
  while (std::getline(f, line)) {
    if (line == "end_header") break;
    if (line.rfind("format binary_little_endian", 0) == 0) binary = true;
    if (line.rfind("element vertex ", 0) == 0) count = std::stoul(line.substr(15));
    if (line.rfind("property ", 0) == 0) props.push_back(line.substr(9));
  }
  const std::vector<std::string> want = {"float x",        "float y",   "float z",  "float yaw",
                                         "float length_m", "uint edge", "uint lane"};
  if (!binary || props != want) {
    return Error::invalid_input(path,
                                "expected a binary little-endian PLY with float x y z yaw "
                                "length_m, uint edge lane (as `generate` writes it)");
  }
  std::vector<traffic::ParkedVehicle> out;
  for (std::size_t i = 0; i < count; ++i) {
    float v[5];
    std::uint32_t ids[2];
    if (!f.read(reinterpret_cast<char*>(v), sizeof v) ||
        !f.read(reinterpret_cast<char*>(ids), sizeof ids)) {
      return Error::invalid_input(path, "vertex " + std::to_string(i) + " of " +
                                            std::to_string(count) + ": file ends early");
    }
    Rng rng(seed, Stage::sim, i, 9);
    if (!rng.chance(share)) continue;
    traffic::ParkedVehicle p;
    p.position = Vec3{v[0], v[1], v[2]};
    p.heading_rad = v[3];
    p.type =
        v[4] >= 6.5f && rng.chance(0.15) ? traffic::VehicleType::van : traffic::VehicleType::car;
    out.push_back(p);
  }
  return out;
}

/// Street furniture the crowd walks round: props written by `generate` (points/props/*.ply),
/// each with its footprint radius from the prop catalogue (dressing::prop_catalog(), the one
/// source of truth). Missing files are skipped (a city without dressing).
Result<std::vector<crowd::Obstacle>> read_obstacles(const fs::path& dir) {
  static constexpr std::array<std::string_view, 14> kProps = {
      "street_tree", "street_light", "bench",    "bin",           "hydrant",
      "bus_stop",    "kiosk",        "planter",  "signal_pole",   "stop_sign",
      "yield_sign",  "parking_lamp", "fountain", "umbrella_table"};
  std::vector<crowd::Obstacle> out;
  for (const std::string_view name : kProps) {
    const std::int32_t kind = dressing::find_prop(name);
    CF_ASSERT(kind >= 0, "an obstacle prop missing from the catalogue");
    if (kind < 0) continue;
    const auto radius =
        static_cast<float>(dressing::prop_catalog()[static_cast<std::size_t>(kind)].radius_m);
    const fs::path path = dir / (std::string(name) + ".ply");
    std::ifstream f(path, std::ios::binary);
    if (!f) continue;
    std::string line;
    std::size_t count = 0;
    std::size_t stride = 0;
    std::ptrdiff_t ox = -1;
    std::ptrdiff_t oy = -1;
    bool binary = false;
    while (std::getline(f, line)) {
      if (line == "end_header") break;
      if (line.rfind("format binary_little_endian", 0) == 0) binary = true;
      if (line.rfind("element vertex ", 0) == 0) count = std::stoul(line.substr(15));
      if (line.rfind("property ", 0) == 0) {
        std::stringstream ss(line.substr(9));
        std::string type;
        std::string prop;
        ss >> type >> prop;
        const std::size_t size = type == "uchar" || type == "char"     ? 1
                                 : type == "ushort" || type == "short" ? 2
                                 : type == "double"                    ? 8
                                                                       : 4;
        if (prop == "x" && type == "float") ox = static_cast<std::ptrdiff_t>(stride);
        if (prop == "y" && type == "float") oy = static_cast<std::ptrdiff_t>(stride);
        stride += size;
      }
    }
    if (!binary || ox < 0 || oy < 0) {
      return Error::invalid_input(path.string(),
                                  "expected a binary little-endian PLY with float x and y");
    }
    std::vector<char> row(stride);
    for (std::size_t i = 0; i < count; ++i) {
      if (!f.read(row.data(), static_cast<std::streamsize>(stride))) {
        return Error::invalid_input(path.string(), "vertex " + std::to_string(i) + " of " +
                                                       std::to_string(count) + ": file ends early");
      }
      float x = 0;
      float y = 0;
      std::memcpy(&x, row.data() + ox, 4);
      std::memcpy(&y, row.data() + oy, 4);
      out.push_back({Vec2{x, y}, radius});
    }
  }
  return out;
}

}  // namespace

crowd::Config crowd_config(const CitySimOptions& options) {
  crowd::Config c;
  c.dt_s = static_cast<float>(options.dt_s);
  c.pedestrians = options.pedestrians;
  c.lod.enabled = options.lod;
  return c;
}

Result<CitySim> build_city_sim(const CitySimOptions& opt) {
  CitySim out;
  // 1. The city: lanes and parking spots.
  const std::string lanes_path = (fs::path(opt.dir) / "lanes.json").string();
  if (!fs::exists(lanes_path)) {
    return Error::io(lanes_path,
                     "no lanes.json here: run `cityforge generate -o " + opt.dir + "` first");
  }
  Result<traffic::LanesFile> file = traffic::load_lanes_json(lanes_path);
  if (!file) return file.error();
  Result<traffic::Network> net = traffic::build_network(file->graph, file->controls);
  if (!net)
    return Error{net.error().code, lanes_path + ": " + net.error().where, net.error().message};
  *file = traffic::LanesFile{};  // Its lanes are in the network now: their memory is given back.
  Result<std::vector<traffic::ParkedVehicle>> parked = read_parking(
      (fs::path(opt.dir) / "points" / "parking_spots.ply").string(), opt.parked_share, opt.seed);
  if (!parked) return parked.error();

  // 2. The traffic.
  traffic::Config& cfg = out.traffic_config;
  cfg.dt_s = static_cast<float>(opt.dt_s);
  cfg.vehicles = opt.vehicles;
  cfg.trip_share = static_cast<float>(opt.trip_share);
  cfg.trip_reach_m = static_cast<float>(opt.trip_reach_m);
  cfg.record_interval_s = static_cast<float>(1.0 / opt.record_hz);
  cfg.off_step_s = static_cast<float>(opt.off_step_s);
  cfg.route_trips_later = opt.route_trips_later;
  Result<std::unique_ptr<traffic::Simulation>> made =
      traffic::Simulation::create(std::move(*net), cfg, std::move(*parked), opt.seed);
  if (!made) return made.error();
  out.traffic = std::move(*made);

  // 3. The crowd on the same network.
  out.crowd_config = crowd_config(opt);
  if (opt.pedestrians == 0 && !fs::exists(fs::path(opt.dir) / "shepherds.json")) return out;
  Result<std::vector<crowd::Obstacle>> obstacles =
      read_obstacles(fs::path(opt.dir) / "points" / "props");
  if (!obstacles) return obstacles.error();
  crowd::Inputs inputs;
  inputs.obstacles = std::move(*obstacles);
  const fs::path layout = fs::path(opt.dir) / "layout.geojson";
  if (fs::exists(layout)) {  // Sidewalk bands are kept clear of the buildings.
    Result<std::vector<crowd::Footprint>> b = crowd::load_building_footprints(layout.string());
    if (!b) return b.error();
    inputs.buildings = std::move(*b);
  }
  const fs::path shepherds = fs::path(opt.dir) / "shepherds.json";
  if (fs::exists(shepherds)) {  // Written by generate from the config's crowd section.
    const crowd::WalkNetwork walk =
        crowd::build_walk_network(out.traffic->network(), inputs.buildings);
    Result<crowd::ShepherdsFile> f = crowd::load_shepherds_json(shepherds.string(), walk);
    if (!f) return f.error();
    inputs.shepherds = std::move(*f);
  }
  Result<std::unique_ptr<crowd::Crowd>> c =
      crowd::Crowd::create(out.traffic->network(), out.crowd_config, opt.seed, std::move(inputs));
  if (!c) return c.error();
  out.crowd = std::move(*c);
  return out;
}

Result<traffic::Partition> share_city_sim(CitySim& city, const Ranks& ranks, std::uint64_t seed) {
  traffic::Simulation& sim = *city.traffic;
  // Rank 0 cuts, the others take its partition (ranks may run different METIS builds); a
  // failure there (METIS) reaches every rank.
  traffic::Partition partition;
  std::string cut_bytes;
  Status cut_status = Ok{};
  if (ranks.rank() == 0) {
    Result<traffic::Partition> cut =
        traffic::partition_network(sim.network(), static_cast<std::uint32_t>(ranks.size()), seed);
    if (cut) {
      ByteWriter w;
      w.put(cut->parts);
      w.put_vector(cut->lane_part);
      w.put_vector(cut->part_weight);
      w.put_vector(cut->part_pedestrians);
      w.put(cut->units);
      w.put(cut->cut_links);
      w.put(cut->cut_lanes);
      cut_bytes = w.take();
    } else {
      cut_status = cut.error();
    }
  }
  if (ranks.size() > 1) cut_bytes = ranks.broadcast(cut_bytes);
  if (cut_status) {
    ByteReader r(cut_bytes, "partition");
    if (cut_bytes.empty() || !r.get(partition.parts) || !r.get_vector(partition.lane_part) ||
        !r.get_vector(partition.part_weight) || !r.get_vector(partition.part_pedestrians) ||
        !r.get(partition.units) || !r.get(partition.cut_links) || !r.get(partition.cut_lanes)) {
      cut_status = Error::internal("partition", "rank 0 sent no partition of the lane graph");
    }
  }
  if (Status st = agree(ranks, cut_status); !st) return st.error();
  if (Status st = sim.share(ranks, partition); !st) return st.error();
  // The crowd's full-fidelity agents are dealt out too (docs/crowd.md).
  if (city.crowd != nullptr && ranks.size() > 1) city.crowd->share(ranks, partition.lane_part);
  return partition;
}

VehicleLod::VehicleLod(bool enabled)
    : m_assigner([enabled] {
        crowd::LodConfig c = crowd::vehicle_lod();
        c.enabled = enabled;
        return c;
      }()) {}

void VehicleLod::update(traffic::Simulation& sim, const crowd::Viewer& viewer) {
  if (!config().enabled) {
    m_per_lod = {};
    m_per_lod[static_cast<std::size_t>(crowd::Lod::high)] = sim.stats().vehicles_moving;
    for (std::size_t k = 0; k < crowd::kLods; ++k)
      m_per_lod_max[k] = std::max(m_per_lod_max[k], m_per_lod[k]);
    return;
  }
  // The vehicles within reach only (every other one is off, whatever the assigner would say,
  // so the levels are those of assigning them all): the work of those, not of every vehicle.
  const std::vector<traffic::VehicleSample> vs = sim.positions(viewer.position, reach_m());
  m_pos.resize(vs.size());
  m_lv.resize(vs.size());
  for (std::size_t i = 0; i < vs.size(); ++i) {
    m_pos[i] = vs[i].position;
    if (m_levels.size() <= vs[i].id) m_levels.resize(vs[i].id + 1, crowd::Lod::off);
    m_lv[i] = m_levels[vs[i].id];
  }
  m_assigner.assign(m_pos, viewer, m_lv);
  for (const std::uint32_t id : m_ids)  // Near last time: off unless near now.
    m_levels[id] = crowd::Lod::off;
  m_ids.resize(vs.size());
  m_bytes.resize(vs.size());
  for (std::size_t i = 0; i < vs.size(); ++i) {
    m_levels[vs[i].id] = m_lv[i];
    m_ids[i] = vs[i].id;
    m_bytes[i] = static_cast<std::uint8_t>(m_lv[i]);
  }
  sim.set_lod_near(m_ids, m_bytes);
  std::copy_n(m_assigner.counts(), crowd::kLods, m_per_lod.begin());
  const std::uint32_t moving = sim.stats().vehicles_moving;
  m_per_lod[static_cast<std::size_t>(crowd::Lod::off)] +=
      moving - std::min<std::uint32_t>(moving, static_cast<std::uint32_t>(vs.size()));
  for (std::size_t k = 0; k < crowd::kLods; ++k)
    m_per_lod_max[k] = std::max(m_per_lod_max[k], m_per_lod[k]);
}

}  // namespace cityforge::server
