// SPDX-License-Identifier: Apache-2.0
#include "cityforge/traffic/stream.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <numbers>
#include <string>
#include <vector>

#include "cityforge/core/rng.hpp"

namespace cityforge::traffic {
namespace {

namespace fs = std::filesystem;

StreamConfig config() {
  StreamConfig c;
  c.origin = {-500, -400, -10};
  c.step_m = 0.02f;
  c.key_every = 10;
  return c;
}

VehicleSample agent(std::uint32_t id, EntityKind kind, Vec3 p, double heading = 0,
                    double speed = 0) {
  VehicleSample v;
  v.id = id;
  v.kind = kind;
  v.position = p;
  v.heading_rad = heading;
  v.speed_mps = speed;
  return v;
}

/// A small scene at frame t: moving cars (one leaves at t = 7, one joins at t = 4), parked cars,
/// a player, pedestrians (one leaves at 6, one joins at 3), changing flags, lod, state, lights.
std::vector<VehicleSample> scene(int t) {
  std::vector<VehicleSample> out;
  const double ft = t * 0.1;
  for (std::uint32_t id = 0; id < 13; ++id) {
    if ((id == 3 && t >= 7) || (id >= 10 && id < 12) || (id == 12 && t < 4)) continue;
    const double v = 4.0 + 3.0 * (id % 4) + 0.5 * std::sin(ft + id);
    const double h = 0.3 * id + 0.05 * t * (id % 3);
    VehicleSample s = agent(id, static_cast<EntityKind>(id % 4),
                            {100 + 20.0 * id + v * ft * std::cos(h),
                             50 + 3.0 * id + v * ft * std::sin(h), 1.5 + 0.1 * id},
                            h, v);
    s.flags = static_cast<std::uint8_t>((t + id) % 5 == 0 ? kSampleBraking : 0);
    if (id == 12 && t == 4) s.flags |= kSampleNew;
    s.lod = static_cast<std::uint8_t>((t / 3 + id) % 4);
    out.push_back(s);
  }
  for (std::uint32_t id = 20; id < 30; ++id) {  // Parked: never change.
    out.push_back(agent(id, id % 2 ? EntityKind::van : EntityKind::car,
                        {-200.0 + 6.1 * id, 310.25, 0.4}, 1.5 * id));
  }
  VehicleSample player = agent(40, EntityKind::player, {5.0 + 1.2 * t, -7.0, 0.3}, -0.2, 12.0);
  out.push_back(player);
  for (std::uint32_t id = 0; id < 21; ++id) {
    if ((id == 5 && t >= 6) || (id >= 15 && id < 20) || (id == 20 && t < 3)) continue;
    const double h = 6.0 + 0.7 * id - 0.2 * t;  // Crosses 2 pi for some ids.
    VehicleSample s =
        agent(id, EntityKind::pedestrian,
              {30 + 2.0 * id + 0.13 * t * std::cos(h), -60 + 0.13 * t * std::sin(h), 2.1}, h,
              1.3 + 0.01 * id);
    s.state = static_cast<std::uint8_t>((t / 4 + id) % 6);
    s.lod = static_cast<std::uint8_t>((id + t / 5) % 4);
    s.variant = static_cast<std::uint16_t>(id * 37);
    out.push_back(s);
  }
  return out;
}

std::vector<LightState> scene_lights(int t) {
  std::vector<LightState> l(7);
  for (std::size_t i = 0; i < l.size(); ++i)
    l[i] = static_cast<LightState>((i + static_cast<std::size_t>(t / 4)) % 4);
  return l;
}
std::vector<WalkState> scene_walks(int t) {
  std::vector<WalkState> w(5);
  for (std::size_t i = 0; i < w.size(); ++i)
    w[i] = static_cast<WalkState>((i + static_cast<std::size_t>(t / 6)) % 4);
  return w;
}

bool pedestrian(const VehicleSample& v) { return v.kind == EntityKind::pedestrian; }
void sort_key_order(std::vector<VehicleSample>& v) {
  std::sort(v.begin(), v.end(), [](const VehicleSample& a, const VehicleSample& b) {
    if (pedestrian(a) != pedestrian(b)) return !pedestrian(a);
    return a.id < b.id;
  });
}

void expect_close(const VehicleSample& want, const VehicleSample& got, const StreamConfig& c) {
  const double half = c.step_m / 2.0 + 1e-9;
  EXPECT_EQ(got.id, want.id);
  EXPECT_EQ(got.kind, want.kind) << "id " << want.id;
  EXPECT_EQ(got.flags, want.flags) << "id " << want.id;
  EXPECT_EQ(got.lod, want.lod) << "id " << want.id;
  EXPECT_EQ(got.state, want.state) << "id " << want.id;
  EXPECT_EQ(got.variant, want.variant) << "id " << want.id;
  EXPECT_NEAR(got.position.x, want.position.x, half) << "id " << want.id;
  EXPECT_NEAR(got.position.y, want.position.y, half) << "id " << want.id;
  EXPECT_NEAR(got.position.z, want.position.z, half) << "id " << want.id;
  const double dh = std::remainder(got.heading_rad - want.heading_rad, 2 * std::numbers::pi);
  EXPECT_LE(std::abs(dh), std::numbers::pi / kStreamHeadingSteps + 1e-9) << "id " << want.id;
  EXPECT_GE(got.heading_rad, 0.0);
  EXPECT_LT(got.heading_rad, 2 * std::numbers::pi);
  EXPECT_NEAR(got.speed_mps, want.speed_mps, 0.05 + 1e-9) << "id " << want.id;
}

void expect_frame(const std::vector<VehicleSample>& input, const StreamFrame& f,
                  const StreamConfig& c) {
  std::vector<VehicleSample> want = input;
  sort_key_order(want);
  ASSERT_EQ(f.agents.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i)
    expect_close(want[i], f.agents[i], c);
}

TEST(StreamCodec, RoundTripsKeyAndDeltaFrames) {
  const StreamConfig c = config();
  StreamEncoder enc(c);
  StreamDecoder dec(c);
  int keys = 0;
  for (int t = 0; t < 25; ++t) {
    const std::vector<VehicleSample> in = scene(t);
    const auto lights = scene_lights(t);
    const auto walks = scene_walks(t);
    const std::vector<std::uint8_t> bytes =
        enc.encode(100 + static_cast<std::uint64_t>(t) * 2, t * 0.2, 9.5f, in, lights, walks);
    EXPECT_EQ(enc.last_was_key(), t % 10 == 0);
    EXPECT_EQ(enc.next_seq(), static_cast<std::uint32_t>(t + 1));
    Result<StreamFrame> f = dec.decode(bytes);
    ASSERT_TRUE(f.ok()) << "frame " << t << ": " << f.error().to_string();
    keys += f->key ? 1 : 0;
    EXPECT_EQ(f->key, t % 10 == 0);
    EXPECT_EQ(f->seq, static_cast<std::uint32_t>(t));
    EXPECT_EQ(f->tick, 100 + static_cast<std::uint64_t>(t) * 2);
    EXPECT_EQ(f->time_s, t * 0.2);
    EXPECT_EQ(f->ticks_per_s, 9.5f);
    EXPECT_EQ(f->lights, lights);
    EXPECT_EQ(f->walks, walks);
    expect_frame(in, *f, c);
  }
  EXPECT_EQ(keys, 3);
}

TEST(StreamCodec, ForcedKeyFrameDecodesOnItsOwn) {
  const StreamConfig c = config();
  StreamEncoder enc(c);
  for (int t = 0; t < 3; ++t)
    (void)enc.encode(0, 0, 0, scene(t), scene_lights(t), scene_walks(t));
  const auto bytes = enc.encode(3, 0.3, 10, scene(3), scene_lights(3), scene_walks(3), true);
  EXPECT_TRUE(enc.last_was_key());
  StreamDecoder fresh(c);
  Result<StreamFrame> f = fresh.decode(bytes);
  ASSERT_TRUE(f.ok()) << f.error().to_string();
  EXPECT_TRUE(f->key);
  EXPECT_EQ(f->seq, 3U);
  expect_frame(scene(3), *f, c);
}

TEST(StreamCodec, AgentsAppearAndDisappear) {
  const StreamConfig c = config();
  StreamEncoder enc(c);
  StreamDecoder dec(c);
  const auto car = [](std::uint32_t id, double x) {
    return agent(id, EntityKind::car, {x, 0, 0}, 0, 5);
  };
  const auto ped = [](std::uint32_t id, double x) {
    return agent(id, EntityKind::pedestrian, {x, 1, 0}, 1, 1);
  };
  const std::vector<std::vector<VehicleSample>> frames = {
      {car(5, 0), car(9, 10), ped(2, 3)},
      {car(1, 0), car(5, 0.5), car(7, 4), car(9, 10.5), ped(0, 1), ped(2, 3.1), ped(8, 9)},
      {car(7, 4.2), ped(8, 9)},                               // Most leave.
      {},                                                     // Everyone leaves.
      {ped(4294967295U, 2), car(4294967295U, 3), car(0, 1)},  // Extreme ids; new ones only.
      {car(0, 1.1)},
  };
  for (std::size_t t = 0; t < frames.size(); ++t) {
    const auto bytes = enc.encode(t, 0, 0, frames[t], {}, {});
    Result<StreamFrame> f = dec.decode(bytes);
    ASSERT_TRUE(f.ok()) << "frame " << t << ": " << f.error().to_string();
    EXPECT_FALSE(f->key && t > 0);
    expect_frame(frames[t], *f, c);
  }
}

TEST(StreamCodec, SmallestRecordsAreNotTakenForAnOverlongCount) {
  const StreamConfig c = config();
  StreamEncoder enc(c);
  StreamDecoder dec(c);
  std::vector<VehicleSample> in;
  for (std::uint32_t id = 0; id < 100; ++id)
    in.push_back(agent(id, EntityKind::car, c.origin));  // 7 bytes each.
  const auto bytes = enc.encode(0, 0, 0, in, {}, {});
  EXPECT_EQ(bytes.size(), 42U + 7 * 100);
  Result<StreamFrame> f = dec.decode(bytes);
  ASSERT_TRUE(f.ok()) << f.error().to_string();
  expect_frame(in, *f, c);
  std::vector<std::uint8_t> more = bytes;
  more[30] = 101;  // One agent more than the bytes can hold.
  Result<StreamFrame> g = StreamDecoder(c).decode(more);
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.error().message, "byte 30: agent count 101 is more than the message can hold (100)");
}

TEST(StreamCodec, UnchangedAndSteadyAgentsCostFarUnderAByte) {
  StreamConfig c = config();
  c.key_every = 1000;
  StreamEncoder enc(c);
  StreamDecoder dec(c);
  constexpr std::uint32_t kAgents = 20000;
  std::vector<VehicleSample> agents;
  for (std::uint32_t i = 0; i < kAgents; ++i) {
    agents.push_back(agent(i, i % 2 ? EntityKind::pedestrian : EntityKind::car,
                           {0.37 * i, 0.11 * i, 1}, 0.001 * i, i % 7));
  }
  const auto key = enc.encode(0, 0, 0, agents, {}, {});
  ASSERT_TRUE(dec.decode(key).ok());
  const auto same = enc.encode(1, 0.1, 0, agents, {}, {});
  EXPECT_LT(same.size(), 60U) << "20k unchanged agents";
  Result<StreamFrame> f = dec.decode(same);
  ASSERT_TRUE(f.ok()) << f.error().to_string();
  expect_frame(agents, *f, c);
  // Agents moving the same whole number of steps per frame follow their prediction: after the
  // first delta (which sends each step), a frame costs only its header and one run.
  for (int t = 2; t < 5; ++t) {
    for (std::uint32_t i = 0; i < kAgents; ++i)
      agents[i].position.x += (i % 3) * 0.1;  // 5 steps of 0.02 m.
    const auto moved = enc.encode(static_cast<std::uint64_t>(t), 0, 0, agents, {}, {});
    if (t > 2) {
      EXPECT_LT(moved.size(), 60U) << "frame " << t;
    }
    Result<StreamFrame> g = dec.decode(moved);
    ASSERT_TRUE(g.ok()) << g.error().to_string();
    expect_frame(agents, *g, c);
  }
}

TEST(StreamCodec, SameLightsAreNotResent) {
  const StreamConfig c = config();
  StreamEncoder enc(c);
  StreamDecoder dec(c);
  std::vector<LightState> lights(4000, LightState::green);
  std::vector<WalkState> walks(4000, WalkState::walk);
  ASSERT_TRUE(dec.decode(enc.encode(0, 0, 0, {}, lights, walks)).ok());
  const auto same = enc.encode(1, 0, 0, {}, lights, walks);
  EXPECT_LT(same.size(), 100U);
  lights[3999] = LightState::yellow;
  const auto changed = enc.encode(2, 0, 0, {}, lights, walks);
  EXPECT_GE(changed.size(), 1000U);  // 4000 lanes at 2 bits.
  EXPECT_LT(changed.size(), 1100U);
  Result<StreamFrame> a = dec.decode(same);
  ASSERT_TRUE(a.ok()) << a.error().to_string();
  EXPECT_EQ(a->lights[3999], LightState::green);
  EXPECT_EQ(a->walks, walks);
  Result<StreamFrame> b = dec.decode(changed);
  ASSERT_TRUE(b.ok()) << b.error().to_string();
  EXPECT_EQ(b->lights, lights);
  EXPECT_EQ(b->walks, walks);
}

TEST(StreamCodec, MissingFrameIsNamed) {
  const StreamConfig c = config();
  StreamEncoder enc(c);
  std::vector<std::vector<std::uint8_t>> msgs;
  for (int t = 0; t < 12; ++t)
    msgs.push_back(enc.encode(0, 0, 0, scene(t), scene_lights(t), scene_walks(t)));
  {
    StreamDecoder dec(c);  // Joins on a delta frame.
    Result<StreamFrame> f = dec.decode(msgs[3]);
    ASSERT_FALSE(f.ok());
    EXPECT_NE(f.error().message.find("missing frame"), std::string::npos) << f.error().message;
  }
  StreamDecoder dec(c);
  ASSERT_TRUE(dec.decode(msgs[0]).ok());
  ASSERT_TRUE(dec.decode(msgs[1]).ok());
  Result<StreamFrame> f = dec.decode(msgs[3]);  // Frame 2 lost.
  ASSERT_FALSE(f.ok());
  EXPECT_NE(f.error().message.find("missing frame: delta frame 3 needs frame 2"), std::string::npos)
      << f.error().message;
  EXPECT_FALSE(dec.decode(msgs[4]).ok());        // Still missing until a key frame.
  EXPECT_FALSE(dec.decode(msgs[1]).ok());        // Repeats are missing frames too.
  Result<StreamFrame> k = dec.decode(msgs[10]);  // The next key frame.
  ASSERT_TRUE(k.ok()) << k.error().to_string();
  Result<StreamFrame> d = dec.decode(msgs[11]);
  ASSERT_TRUE(d.ok()) << d.error().to_string();
  expect_frame(scene(11), *d, c);
}

TEST(StreamCodec, TruncatedMessagesFailWithAnOffset) {
  const StreamConfig c = config();
  StreamEncoder enc(c);
  std::vector<std::vector<std::uint8_t>> msgs;
  for (int t = 0; t < 3; ++t)
    msgs.push_back(enc.encode(0, 0, 0, scene(t), scene_lights(t), scene_walks(t)));
  for (std::size_t m = 0; m < msgs.size(); ++m) {
    for (std::size_t len = 0; len < msgs[m].size(); ++len) {
      StreamDecoder dec(c);
      for (std::size_t before = 0; before < m; ++before)
        ASSERT_TRUE(dec.decode(msgs[before]).ok());
      Result<StreamFrame> f = dec.decode(std::span<const std::uint8_t>(msgs[m].data(), len));
      ASSERT_FALSE(f.ok()) << "message " << m << " cut to " << len << " bytes";
      EXPECT_EQ(f.error().message.rfind("byte ", 0), 0U) << f.error().message;
      // A failed frame leaves the decoder as it was: the whole message still decodes.
      ASSERT_TRUE(dec.decode(msgs[m]).ok()) << "message " << m << " after a cut copy";
    }
  }
  std::vector<std::uint8_t> longer = msgs[0];
  longer.push_back(0);
  StreamDecoder dec(c);
  Result<StreamFrame> f = dec.decode(longer);
  ASSERT_FALSE(f.ok());
  EXPECT_NE(f.error().message.find("expected the end of the frame"), std::string::npos);
}

TEST(StreamCodec, GarbageNeverCrashes) {
  const StreamConfig c = config();
  StreamEncoder enc(c);
  std::vector<std::vector<std::uint8_t>> msgs;
  for (int t = 0; t < 3; ++t)
    msgs.push_back(enc.encode(0, 0, 0, scene(t), scene_lights(t), scene_walks(t)));
  {
    StreamDecoder dec(c);
    const std::vector<std::uint8_t> magic = {'C', 'F', 'L', 'X', 1, 1};
    Result<StreamFrame> f = dec.decode(magic);
    ASSERT_FALSE(f.ok());
    EXPECT_EQ(f.error().message, "byte 0: expected the magic \"CFLS\"");
    std::vector<std::uint8_t> v2 = msgs[0];
    v2[4] = 2;
    f = dec.decode(v2);
    ASSERT_FALSE(f.ok());
    EXPECT_EQ(f.error().message, "byte 4: expected version 1, got 2");
  }
  // Every single-byte corruption, and random bytes after a valid header: an error or a frame,
  // never a crash (run under the asan-ubsan preset to see overreads).
  int errors = 0;
  for (std::size_t m = 0; m < msgs.size(); ++m) {
    for (std::size_t at = 0; at < msgs[m].size(); ++at) {
      for (const std::uint8_t x : {0x01, 0x80, 0xff}) {
        StreamDecoder dec(c);
        for (std::size_t before = 0; before < m; ++before)
          ASSERT_TRUE(dec.decode(msgs[before]).ok());
        std::vector<std::uint8_t> bad = msgs[m];
        bad[at] ^= x;
        Result<StreamFrame> f = dec.decode(bad);
        if (!f.ok()) {
          ++errors;
          EXPECT_EQ(f.error().message.find("byte "), 0U) << f.error().message;
        }
      }
    }
  }
  EXPECT_GT(errors, 0);
  Rng rng(7, Stage::sim, 0);
  for (int k = 0; k < 2000; ++k) {
    StreamDecoder dec(c);
    ASSERT_TRUE(dec.decode(msgs[0]).ok());
    std::vector<std::uint8_t> bad(msgs[1].begin(), msgs[1].begin() + 42);
    const std::uint32_t n = rng.below(200);
    for (std::uint32_t i = 0; i < n; ++i)
      bad.push_back(static_cast<std::uint8_t>(rng.below(256)));
    if (k % 2 == 0) bad[5] = static_cast<std::uint8_t>(rng.below(8));  // Key or delta.
    (void)dec.decode(bad);
  }
}

TEST(StreamCodec, SameInputGivesSameBytes) {
  const StreamConfig c = config();
  StreamEncoder a(c);
  StreamEncoder b(c);
  Rng rng(11, Stage::sim, 1);
  for (int t = 0; t < 15; ++t) {
    std::vector<VehicleSample> in = scene(t);
    std::vector<VehicleSample> shuffled = in;
    for (std::size_t i = shuffled.size(); i > 1; --i)
      std::swap(shuffled[i - 1], shuffled[rng.below(static_cast<std::uint32_t>(i))]);
    const auto x = a.encode(0, 0, 0, in, scene_lights(t), scene_walks(t));
    const auto y = b.encode(0, 0, 0, shuffled, scene_lights(t), scene_walks(t));
    EXPECT_EQ(x, y) << "frame " << t;
  }
}

TEST(StreamCodec, OddValuesAreClampedNotFatal) {
  const StreamConfig c = config();
  StreamEncoder enc(c);
  StreamDecoder dec(c);
  std::vector<VehicleSample> in = {
      agent(1, EntityKind::car, {1e12, -1e12, std::nan("")}, -7.0, -3.0),
      agent(2, EntityKind::bus, {0, 0, 0}, 2 * std::numbers::pi - 1e-6, 1e9),
      agent(2, EntityKind::truck, {5, 5, 5}),  // Duplicate key: the first wins.
  };
  in[0].lod = 7;
  Result<StreamFrame> f = dec.decode(enc.encode(0, 0, 0, in, {}, {}));
  ASSERT_TRUE(f.ok()) << f.error().to_string();
  ASSERT_EQ(f->agents.size(), 2U);
  EXPECT_NEAR(f->agents[0].position.x, c.origin.x + ((1 << 30) - 1) * 0.02, 1);
  EXPECT_NEAR(f->agents[0].position.y, c.origin.y - (1 << 30) * 0.02, 1);
  EXPECT_EQ(f->agents[0].position.z, c.origin.z);
  EXPECT_NEAR(f->agents[0].heading_rad, 2 * std::numbers::pi - 7.0 + 2 * std::numbers::pi, 0.01);
  EXPECT_EQ(f->agents[0].speed_mps, 0.0);
  EXPECT_EQ(f->agents[0].lod, 3);
  EXPECT_EQ(f->agents[1].kind, EntityKind::bus);
  EXPECT_EQ(f->agents[1].heading_rad, 0.0);
  EXPECT_NEAR(f->agents[1].speed_mps, 6553.5, 1e-9);
}

TEST(StreamHello, NamesTheFormatAndTheLanes) {
  const StreamConfig c = config();
  const std::vector<LaneId> sig = {3, 9};
  const std::vector<LaneId> cross = {12};
  const auto j = nlohmann::json::parse(stream_hello_json(c, 0.1, 10, sig, cross, 4096, 30));
  EXPECT_EQ(j["format"], "cityforge-live");
  EXPECT_EQ(j["version"], 1);
  EXPECT_EQ(j["origin"][0], -500.0);
  EXPECT_EQ(j["step_m"].get<double>(), static_cast<double>(0.02f));
  EXPECT_EQ(j["key_every"], 10);
  EXPECT_EQ(j["heading_steps"], 1024);
  EXPECT_EQ(j["signal_lanes"], nlohmann::json({3, 9}));
  EXPECT_EQ(j["crosswalk_lanes"], nlohmann::json({12}));
  EXPECT_EQ(j["kinds"][5], "pedestrian");
  EXPECT_EQ(j["max_message_bytes"], 4096);
  EXPECT_EQ(j["max_messages_per_s"], 30.0);
  EXPECT_EQ(j["frame_hz"], 10.0);
}

// -- The fixture of viewer/test/decode.test.mjs --------------------------------------------------

// The frames of the viewer's fixture (key_every 5, 12 frames) and the hello, with the C++
// decoder's output as JSON: the JavaScript decoder must give the same values.
struct Fixture {
  std::string hello;
  std::vector<std::vector<std::uint8_t>> frames;
  std::string expected;
};

Fixture make_fixture() {
  StreamConfig c = config();
  c.key_every = 5;
  const std::vector<LaneId> sig = {11, 12, 13, 14, 15, 16, 17};
  const std::vector<LaneId> cross = {21, 22, 23, 24, 25};
  Fixture fx;
  fx.hello = stream_hello_json(c, 0.1, 10, sig, cross, 4096, 30);
  StreamEncoder enc(c);
  StreamDecoder dec(c);
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (int t = 0; t < 12; ++t) {
    fx.frames.push_back(enc.encode(1000 + static_cast<std::uint64_t>(t), 100 + t * 0.1, 9.75f,
                                   scene(t), scene_lights(t), scene_walks(t)));
    Result<StreamFrame> f = dec.decode(fx.frames.back());
    if (!f.ok()) return fx;
    nlohmann::ordered_json j;
    j["key"] = f->key;
    j["seq"] = f->seq;
    j["tick"] = f->tick;
    j["time_s"] = f->time_s;
    j["ticks_per_s"] = f->ticks_per_s;
    j["bytes"] = fx.frames.back().size();
    for (const VehicleSample& a : f->agents) {
      j["ids"].push_back(a.id);
      j["kinds"].push_back(static_cast<int>(a.kind));
      j["x"].push_back(a.position.x);
      j["y"].push_back(a.position.y);
      j["z"].push_back(a.position.z);
      j["heading"].push_back(a.heading_rad);
      j["speed"].push_back(a.speed_mps);
      j["lod"].push_back(a.lod);
      j["state"].push_back(a.state);
      j["variant"].push_back(a.variant);
      j["flags"].push_back(a.flags);
    }
    for (const LightState l : f->lights)
      j["lights"].push_back(static_cast<int>(l));
    for (const WalkState w : f->walks)
      j["walks"].push_back(static_cast<int>(w));
    out.push_back(j);
  }
  // One frame a line: readable diffs, small file.
  fx.expected = "[\n";
  for (std::size_t i = 0; i < out.size(); ++i)
    fx.expected += out[i].dump() + (i + 1 < out.size() ? ",\n" : "\n");
  fx.expected += "]\n";
  return fx;
}

std::vector<std::uint8_t> frames_file(const Fixture& fx) {
  // Each frame: u32 little-endian length, then the bytes.
  std::vector<std::uint8_t> b;
  for (const auto& f : fx.frames) {
    for (unsigned i = 0; i < 4; ++i)
      b.push_back(static_cast<std::uint8_t>((f.size() >> (8 * i)) & 0xffU));
    b.insert(b.end(), f.begin(), f.end());
  }
  return b;
}

std::string read_text(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

// The committed fixture is what today's encoder writes: a format change must update the
// JavaScript decoder too. Regenerate with
//   CITYFORGE_WRITE_STREAM_FIXTURE=1 build/dev/traffic_tests --gtest_filter='StreamFixture.*'
TEST(StreamFixture, CommittedFixtureMatchesTheEncoder) {
  const Fixture fx = make_fixture();
  ASSERT_EQ(fx.frames.size(), 12U);
  const fs::path dir = fs::path(CITYFORGE_SOURCE_DIR) / "viewer" / "test" / "fixtures";
  const std::vector<std::uint8_t> bin = frames_file(fx);
  if (std::getenv("CITYFORGE_WRITE_STREAM_FIXTURE") != nullptr) {
    fs::create_directories(dir);
    std::ofstream(dir / "stream_hello.json", std::ios::binary) << fx.hello << "\n";
    std::ofstream(dir / "stream_frames.bin", std::ios::binary)
        .write(reinterpret_cast<const char*>(bin.data()), static_cast<std::streamsize>(bin.size()));
    std::ofstream(dir / "stream_expected.json", std::ios::binary) << fx.expected;
  }
  EXPECT_EQ(read_text(dir / "stream_hello.json"), fx.hello + "\n");
  EXPECT_EQ(read_text(dir / "stream_frames.bin"), std::string(bin.begin(), bin.end()));
  EXPECT_EQ(read_text(dir / "stream_expected.json"), fx.expected);
}

}  // namespace
}  // namespace cityforge::traffic
