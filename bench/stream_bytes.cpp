// SPDX-License-Identifier: Apache-2.0
// Size and speed of the live stream (traffic::StreamEncoder, docs/live.md) on a generated city:
// the traffic and the crowd built as `cityforge simulate` / `serve --live` build them
// (server::build_city_sim), one frame encoded per 0.1 s tick, every frame decoded again. Prints
// bytes per agent per frame (all frames, key frames, delta frames), encode and decode time per
// frame, and the same run's .cfrec recording for comparison. Two streams are encoded side by
// side: with the parked cars in every frame, and without them (what `serve --live` sends).
// Never asserts; exits non-zero only when the city cannot be built or a frame fails to decode.
//
//   stream_bytes CITY_DIR [--vehicles 5000] [--pedestrians 15000] [--seconds 60] [--seed 1]
//                [--key-every 10] [--step 0.02] [--dump FILE]
//
// --dump writes the parked-cars stream as the hello line, then u32 length + frame, for
// bench/stream_decode.mjs (the browser decoder's speed).
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "cityforge/server/city_sim.hpp"
#include "cityforge/traffic/recording.hpp"
#include "cityforge/traffic/stream.hpp"

namespace {

using namespace cityforge;
using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}
// This thread's CPU time: the machine may be shared, so means are CPU time, maxima wall time.
double cpu_ms() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
}

/// One encoded stream and its figures.
struct Stream {
  explicit Stream(const traffic::StreamConfig& c) : enc(c), dec(c) {}
  traffic::StreamEncoder enc;
  traffic::StreamDecoder dec;
  std::uint64_t frames[2] = {0, 0};  // delta, key
  std::uint64_t bytes[2] = {0, 0};
  std::uint64_t agents[2] = {0, 0};  // Agent samples (agents x frames).
  double encode_ms = 0;
  double encode_max_ms = 0;
  double decode_ms = 0;
  std::uint64_t errors = 0;
  std::uint64_t max_frame = 0;

  void add(std::uint64_t tick, double time_s, std::span<const traffic::VehicleSample> a,
           std::span<const traffic::LightState> l, std::span<const traffic::WalkState> w,
           std::ofstream* dump) {
    const auto t0 = Clock::now();
    const double c0 = cpu_ms();
    const std::vector<std::uint8_t> b = enc.encode(tick, time_s, 10.0f, a, l, w);
    encode_ms += cpu_ms() - c0;
    encode_max_ms = std::max(encode_max_ms, ms_since(t0));
    const int k = enc.last_was_key() ? 1 : 0;
    ++frames[k];
    bytes[k] += b.size();
    agents[k] += a.size();
    max_frame = std::max<std::uint64_t>(max_frame, b.size());
    const double c1 = cpu_ms();
    Result<traffic::StreamFrame> f = dec.decode(b);
    decode_ms += cpu_ms() - c1;
    if (!f.ok() || f->agents.size() != a.size()) {
      if (errors++ == 0) {
        std::fprintf(stderr, "stream_bytes: frame %" PRIu64 " did not decode: %s\n",
                     frames[0] + frames[1] - 1, f.ok() ? "agent count" : f.error().message.c_str());
      }
    }
    if (dump) {
      const auto n = static_cast<std::uint32_t>(b.size());
      dump->write(reinterpret_cast<const char*>(&n), 4);
      dump->write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(n));
    }
  }

  void print(const char* name) const {
    const auto per = [](std::uint64_t b, std::uint64_t a) {
      return a ? static_cast<double>(b) / static_cast<double>(a) : 0.0;
    };
    const std::uint64_t n = frames[0] + frames[1];
    std::printf("%s: %" PRIu64 " frames (%" PRIu64
                " key), %.0f agents/frame, %.1f kB/frame mean, "
                "%.1f kB max, %.2f MB/s at 10 frames/s\n",
                name, n, frames[1], per(agents[0] + agents[1], n),
                per(bytes[0] + bytes[1], n) / 1e3, static_cast<double>(max_frame) / 1e3,
                per(bytes[0] + bytes[1], n) * 10 / 1e6);
    std::printf("  bytes per agent per frame: %.3f mean, %.3f key frames, %.3f delta frames\n",
                per(bytes[0] + bytes[1], agents[0] + agents[1]), per(bytes[1], agents[1]),
                per(bytes[0], agents[0]));
    std::printf(
        "  encode %.3f ms CPU/frame mean (%.3f wall max), decode (C++) %.3f ms CPU/frame; %" PRIu64
        " decode errors\n",
        encode_ms / static_cast<double>(std::max<std::uint64_t>(n, 1)), encode_max_ms,
        decode_ms / static_cast<double>(std::max<std::uint64_t>(n, 1)), errors);
  }
};

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"stream_bytes: size and speed of the live stream on a generated city"};
  server::CitySimOptions opt;
  opt.vehicles = 5000;
  opt.pedestrians = 15000;
  double seconds = 60;
  std::uint32_t key_every = 10;
  float step_m = 0.02f;
  std::string dump_path;
  app.add_option("city", opt.dir, "a `cityforge generate` output folder")->required();
  app.add_option("--vehicles", opt.vehicles, "moving vehicles");
  app.add_option("--pedestrians", opt.pedestrians, "pedestrians");
  app.add_option("--seconds", seconds, "simulated seconds")->check(CLI::PositiveNumber);
  app.add_option("--seed", opt.seed, "seed");
  app.add_option("--key-every", key_every, "key frame interval")->check(CLI::PositiveNumber);
  app.add_option("--step", step_m, "position step, metres")->check(CLI::PositiveNumber);
  app.add_option("--dump", dump_path, "write the parked-cars stream here (hello line + frames)");
  CLI11_PARSE(app, argc, argv);

  // 1. The city, as serve --live builds it; the viewer stands at the origin as in simulate.
  const auto t_setup = Clock::now();
  Result<server::CitySim> city = server::build_city_sim(opt);
  if (!city) {
    std::fprintf(stderr, "stream_bytes: %s\n", city.error().to_string().c_str());
    return 1;
  }
  traffic::Simulation& sim = *city->traffic;
  crowd::Crowd* people = city->crowd.get();
  const crowd::Viewer viewer;
  if (people) people->set_viewer(viewer);
  server::VehicleLod vehicle_lod(opt.lod);
  const traffic::RecordingInfo info = sim.recording_info(opt.seed);
  traffic::StreamConfig sc;
  sc.origin = info.origin;
  sc.step_m = step_m;
  sc.key_every = key_every;
  Stream with_parked(sc);
  Stream without_parked(sc);
  std::ofstream dump;
  if (!dump_path.empty()) {
    dump.open(dump_path, std::ios::binary);
    dump << traffic::stream_hello_json(sc, opt.dt_s, 10, info.signal_lanes, info.crosswalk_lanes,
                                       4096, 30)
         << "\n";
  }
  // The .cfrec of the same frames (parked cars once, in the header), as simulate writes it.
  const std::string rec_path =
      (std::filesystem::temp_directory_path() /
       ("stream_bytes_" + std::to_string(opt.seed) + "_" + std::to_string(::getpid()) + ".cfrec"))
          .string();
  Result<traffic::RecordingWriter> rec = traffic::RecordingWriter::open(rec_path, info);
  if (!rec) {
    std::fprintf(stderr, "stream_bytes: %s\n", rec.error().to_string().c_str());
    return 1;
  }
  std::printf("city %s: %u moving vehicles, %zu parked, %u pedestrians; setup %.1f s\n",
              opt.dir.c_str(), sim.stats().vehicles_moving, info.parked.size(),
              people ? people->size() : 0U, ms_since(t_setup) / 1e3);

  // 2. Tick, encode, decode.
  std::vector<traffic::LightState> lights;
  std::vector<traffic::WalkState> walks;
  std::vector<traffic::VehicleSample> agents;
  std::vector<traffic::VehicleSample> parked;
  std::uint64_t recorded = 0;
  double tick_ms = 0;
  double next_lod_s = 0;
  const auto ticks = static_cast<std::uint64_t>(std::llround(seconds / opt.dt_s));
  for (std::uint64_t t = 0; t <= ticks; ++t) {
    if (t > 0) {
      const auto t0 = Clock::now();
      sim.tick();
      if (people) people->tick(&sim);
      tick_ms += ms_since(t0);
    }
    agents = sim.samples(false);
    if (sim.time_s() + 1e-9 >= next_lod_s) {
      vehicle_lod.update(sim, viewer);
      next_lod_s = sim.time_s() + 0.25;
    }
    for (traffic::VehicleSample& v : agents)
      v.lod = vehicle_lod.level(v.id);
    if (people) {
      const std::vector<traffic::VehicleSample> peds = people->samples();
      agents.insert(agents.end(), peds.begin(), peds.end());
    }
    sim.lights(info.signal_lanes, lights);
    sim.walks(info.crosswalk_lanes, walks);
    if (Status s = rec->write_frame(sim.stats().ticks, sim.time_s(), agents, lights, walks); !s) {
      std::fprintf(stderr, "stream_bytes: %s\n", s.error().to_string().c_str());
      return 1;
    }
    recorded += agents.size();
    without_parked.add(sim.stats().ticks, sim.time_s(), agents, lights, walks, nullptr);
    parked = agents;
    parked.insert(parked.end(), info.parked.begin(), info.parked.end());
    with_parked.add(sim.stats().ticks, sim.time_s(), parked, lights, walks,
                    dump.is_open() ? &dump : nullptr);
  }
  const std::uint32_t rec_frames = rec->frames_written();
  if (Status s = rec->close(); !s) {
    std::fprintf(stderr, "stream_bytes: %s\n", s.error().to_string().c_str());
    return 1;
  }
  const std::uint64_t rec_bytes = std::filesystem::file_size(rec_path);
  std::filesystem::remove(rec_path);

  // 3. Figures.
  const std::uint64_t frames = ticks + 1;
  std::printf(
      "simulated %.0f s at %.1f ticks/s wall (traffic + crowd), %u signal lanes, %u "
      "crosswalk lanes\n",
      sim.time_s(), static_cast<double>(ticks) / std::max(tick_ms / 1e3, 1e-9),
      static_cast<unsigned>(info.signal_lanes.size()),
      static_cast<unsigned>(info.crosswalk_lanes.size()));
  with_parked.print("stream with parked cars");
  without_parked.print("stream without parked cars (serve --live)");
  const double all_samples = static_cast<double>(recorded + info.parked.size() * frames);
  std::printf(
      ".cfrec of the same frames: %.1f MB, %u frames; %.2f bytes per moving agent per "
      "frame, %.2f per agent per frame counting the parked cars (stored once)\n",
      static_cast<double>(rec_bytes) / 1e6, rec_frames,
      static_cast<double>(rec_bytes) / static_cast<double>(std::max<std::uint64_t>(recorded, 1)),
      static_cast<double>(rec_bytes) / std::max(all_samples, 1.0));
  return with_parked.errors + without_parked.errors == 0 ? 0 : 1;
}
