// SPDX-License-Identifier: Apache-2.0
#include "cityforge/traffic/recording.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <numbers>
#include <string>
#include <vector>

#include "cityforge/core/rng.hpp"

namespace cityforge::traffic {
namespace {

namespace fs = std::filesystem;

// A fresh path per test in the system temp directory; removed with its .tmp at the end.
class RecordingFile : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    m_path = (fs::temp_directory_path() /
              (std::string("cf_rec_") + info->name() + "_" + std::to_string(::getpid()) + ".cfrec"))
                 .string();
    fs::remove(m_path);
    fs::remove(m_path + ".tmp");
  }
  void TearDown() override {
    fs::remove(m_path);
    fs::remove(m_path + ".tmp");
  }
  const std::string& path() const { return m_path; }

 private:
  std::string m_path;
};

RecordingInfo city_info() {
  RecordingInfo info;
  info.tick_s = 0.05;
  info.frame_interval_s = 0.1;
  info.origin = {-2500, -2500, -50};
  info.extent = {5000, 5000, 200};
  info.seed = 0x1234567890abcdefULL;
  info.signal_lanes = {812, 813, 815, 900, 901};
  info.crosswalk_lanes = {930, 931, 932};
  VehicleSample p;
  p.id = 7;
  p.kind = EntityKind::van;
  p.position = {10.5, -20.25, 3.0};
  p.heading_rad = 1.0;
  info.parked = {p};
  p.id = 8;
  p.kind = EntityKind::car;
  p.position = {2400, 2400, 100};
  info.parked.push_back(p);
  return info;
}

std::vector<VehicleSample> random_vehicles(std::uint64_t seed, std::uint32_t n) {
  Rng rng(seed, Stage::test, 61);
  std::vector<VehicleSample> out;
  for (std::uint32_t i = 0; i < n; ++i) {
    VehicleSample v;
    v.id = i * 3 + 1;
    v.kind = static_cast<EntityKind>(rng.below(6));
    v.flags = static_cast<std::uint8_t>(rng.below(64));
    v.position = {rng.uniform(-2500, 2500), rng.uniform(-2500, 2500), rng.uniform(-50, 150)};
    v.heading_rad = rng.uniform(-10, 10);
    v.speed_mps = rng.uniform(0, 40);
    out.push_back(v);
  }
  return out;
}

double angle_diff(double a, double b) {
  const double d = std::remainder(a - b, 2.0 * std::numbers::pi);
  return std::abs(d);
}

void expect_close(const VehicleSample& got, const VehicleSample& want, const RecordingInfo& info) {
  EXPECT_EQ(got.id, want.id);
  EXPECT_EQ(got.kind, want.kind);
  EXPECT_EQ(got.flags, want.flags);
  EXPECT_LE(std::abs(got.position.x - want.position.x), info.extent.x / 65535 / 2 + 1e-9);
  EXPECT_LE(std::abs(got.position.y - want.position.y), info.extent.y / 65535 / 2 + 1e-9);
  EXPECT_LE(std::abs(got.position.z - want.position.z), info.extent.z / 65535 / 2 + 1e-9);
  EXPECT_LE(angle_diff(got.heading_rad, want.heading_rad), std::numbers::pi / 65536 + 1e-12);
  EXPECT_GE(got.heading_rad, 0.0);
  EXPECT_LT(got.heading_rad, 2 * std::numbers::pi);
  EXPECT_NEAR(got.speed_mps, want.speed_mps, 0.005 + 1e-9);
}

std::vector<unsigned char> slurp(const std::string& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}
void spit(const std::string& p, const std::vector<unsigned char>& b) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
}

using RecordingTest = RecordingFile;

TEST_F(RecordingTest, RoundTripWithinQuantisation) {
  const RecordingInfo info = city_info();
  auto w = RecordingWriter::open(path(), info);
  ASSERT_TRUE(w.ok()) << w.error().to_string();
  std::vector<std::vector<VehicleSample>> frames;
  std::vector<std::vector<LightState>> lights;
  std::vector<std::vector<WalkState>> walks;
  for (std::uint32_t f = 0; f < 4; ++f) {
    frames.push_back(random_vehicles(f, 10 + f * 7));
    lights.push_back({});
    walks.push_back({});
    for (std::size_t i = 0; i < info.signal_lanes.size(); ++i) {
      lights.back().push_back(static_cast<LightState>((i + f) % 4));
    }
    for (std::size_t i = 0; i < info.crosswalk_lanes.size(); ++i) {
      walks.back().push_back(static_cast<WalkState>((i * 3 + f) % 4));
    }
    const Status s = w->write_frame(f * 2, f * 0.1, frames[f], lights[f], walks[f]);
    ASSERT_TRUE(s.ok()) << s.error().to_string();
  }
  ASSERT_EQ(w->frames_written(), 4U);
  ASSERT_TRUE(w->close().ok());
  EXPECT_EQ(fs::file_size(path()), w->bytes_written());

  auto rec = read_recording(path());
  ASSERT_TRUE(rec.ok()) << rec.error().to_string();
  EXPECT_EQ(rec->info.tick_s, info.tick_s);
  EXPECT_EQ(rec->info.frame_interval_s, info.frame_interval_s);
  EXPECT_EQ(rec->info.origin, info.origin);
  EXPECT_EQ(rec->info.extent, info.extent);
  EXPECT_EQ(rec->info.seed, info.seed);
  EXPECT_EQ(rec->info.signal_lanes, info.signal_lanes);
  EXPECT_EQ(rec->info.crosswalk_lanes, info.crosswalk_lanes);
  ASSERT_EQ(rec->info.parked.size(), 2U);
  expect_close(rec->info.parked[0], info.parked[0], info);
  expect_close(rec->info.parked[1], info.parked[1], info);
  ASSERT_EQ(rec->frames.size(), 4U);
  for (std::uint32_t f = 0; f < 4; ++f) {
    const RecordedFrame& got = rec->frames[f];
    EXPECT_EQ(got.tick, f * 2);
    EXPECT_EQ(got.time_s, f * 0.1);
    EXPECT_EQ(got.lights, lights[f]);
    EXPECT_EQ(got.walks, walks[f]);
    ASSERT_EQ(got.vehicles.size(), frames[f].size());
    for (std::size_t i = 0; i < got.vehicles.size(); ++i) {
      expect_close(got.vehicles[i], frames[f][i], info);
    }
  }
}

TEST_F(RecordingTest, ManyFramesCrossTheWriteBuffer) {
  RecordingInfo info = city_info();
  info.signal_lanes.clear();
  info.crosswalk_lanes.clear();
  auto w = RecordingWriter::open(path(), info);
  ASSERT_TRUE(w.ok());
  const auto vehicles = random_vehicles(99, 2000);  // 32 kB a frame
  for (std::uint32_t f = 0; f < 80; ++f) {
    ASSERT_TRUE(w->write_frame(f, f * 0.1, vehicles, {}, {}).ok());
  }
  ASSERT_TRUE(w->close().ok());
  auto rec = read_recording(path());
  ASSERT_TRUE(rec.ok()) << rec.error().to_string();
  ASSERT_EQ(rec->frames.size(), 80U);
  expect_close(rec->frames[79].vehicles[1999], vehicles[1999], info);
  EXPECT_EQ(rec->frames[41].tick, 41U);
}

TEST_F(RecordingTest, HeadingWrapsIntoOneTurn) {
  const RecordingInfo info = city_info();
  auto w = RecordingWriter::open(path(), info);
  ASSERT_TRUE(w.ok());
  const double two_pi = 2 * std::numbers::pi;
  const std::vector<double> headings = {
      -0.1, two_pi + 0.1, two_pi - 1e-7, -std::numbers::pi, 7 * two_pi + 1.0, 0.0};
  std::vector<VehicleSample> vs;
  for (double h : headings) {
    VehicleSample v;
    v.id = static_cast<std::uint32_t>(vs.size());
    v.heading_rad = h;
    vs.push_back(v);
  }
  ASSERT_TRUE(w->write_frame(0, 0, vs, std::vector<LightState>(5), std::vector<WalkState>(3)).ok());
  ASSERT_TRUE(w->close().ok());
  auto rec = read_recording(path());
  ASSERT_TRUE(rec.ok());
  const auto& got = rec->frames[0].vehicles;
  for (std::size_t i = 0; i < headings.size(); ++i) {
    expect_close(got[i], vs[i], info);
  }
  EXPECT_NEAR(got[0].heading_rad, two_pi - 0.1, 1e-4);
  EXPECT_NEAR(got[1].heading_rad, 0.1, 1e-4);
  EXPECT_EQ(got[2].heading_rad, 0.0);  // rounds up to a full turn, stored as 0
  EXPECT_NEAR(got[3].heading_rad, std::numbers::pi, 1e-4);
}

TEST_F(RecordingTest, SpeedSaturatesAndPositionsClampToTheBox) {
  const RecordingInfo info = city_info();
  auto w = RecordingWriter::open(path(), info);
  ASSERT_TRUE(w.ok());
  std::vector<VehicleSample> vs(3);
  vs[0].speed_mps = 1000.0;
  vs[0].position = {-9000, 9000, 12};
  vs[1].speed_mps = -3.0;
  vs[1].position = {2500.0001, -2500.0001, 1e6};
  vs[2].speed_mps = 655.35;
  ASSERT_TRUE(w->write_frame(0, 0, vs, std::vector<LightState>(5), std::vector<WalkState>(3)).ok());
  ASSERT_TRUE(w->close().ok());
  auto rec = read_recording(path());
  ASSERT_TRUE(rec.ok());
  const auto& got = rec->frames[0].vehicles;
  EXPECT_EQ(got[0].speed_mps, 655.35);
  EXPECT_EQ(got[1].speed_mps, 0.0);
  EXPECT_EQ(got[2].speed_mps, 655.35);
  EXPECT_EQ(got[0].position.x, -2500.0);
  EXPECT_EQ(got[0].position.y, 2500.0);
  EXPECT_NEAR(got[0].position.z, 12.0, 200.0 / 65535);
  EXPECT_EQ(got[1].position.x, 2500.0);
  EXPECT_EQ(got[1].position.y, -2500.0);
  EXPECT_EQ(got[1].position.z, 150.0);
}

TEST_F(RecordingTest, NoFileAtPathUntilClose) {
  auto w = RecordingWriter::open(path(), city_info());
  ASSERT_TRUE(w.ok());
  ASSERT_TRUE(w->write_frame(1, 0.1, random_vehicles(1, 5), std::vector<LightState>(5),
                             std::vector<WalkState>(3))
                  .ok());
  EXPECT_FALSE(fs::exists(path()));
  EXPECT_TRUE(fs::exists(path() + ".tmp"));
  ASSERT_TRUE(w->close().ok());
  EXPECT_TRUE(fs::exists(path()));
  EXPECT_FALSE(fs::exists(path() + ".tmp"));
  EXPECT_FALSE(w->close().ok());  // twice is an error, not a crash
  EXPECT_FALSE(
      w->write_frame(2, 0.2, {}, std::vector<LightState>(5), std::vector<WalkState>(3)).ok());
}

TEST_F(RecordingTest, DestructorWithoutCloseRemovesTheTemporaryFile) {
  {
    auto w = RecordingWriter::open(path(), city_info());
    ASSERT_TRUE(w.ok());
    ASSERT_TRUE(w->write_frame(1, 0.1, random_vehicles(1, 5), std::vector<LightState>(5),
                               std::vector<WalkState>(3))
                    .ok());
    // A moved-from writer owns nothing; the moved-to one removes the file.
    RecordingWriter moved = std::move(*w);
    EXPECT_TRUE(fs::exists(path() + ".tmp"));
  }
  EXPECT_FALSE(fs::exists(path() + ".tmp"));
  EXPECT_FALSE(fs::exists(path()));
}

TEST_F(RecordingTest, EmptyRecordingIsValid) {
  RecordingInfo info = city_info();
  auto w = RecordingWriter::open(path(), info);
  ASSERT_TRUE(w.ok());
  ASSERT_TRUE(w->close().ok());
  auto rec = read_recording(path());
  ASSERT_TRUE(rec.ok()) << rec.error().to_string();
  EXPECT_TRUE(rec->frames.empty());
  EXPECT_EQ(rec->info.parked.size(), 2U);
  // Header 100 + kind names (6 + 3+3+3+5+6+10) + 8 lane ids + 2 parked + index marker + trailer.
  EXPECT_EQ(fs::file_size(path()), 100U + 36U + 8U * 4U + 2U * 20U + 4U + 16U);
}

TEST_F(RecordingTest, TwentyBytesPerRecord) {
  RecordingInfo info = city_info();
  auto w = RecordingWriter::open(path(), info);
  ASSERT_TRUE(w.ok());
  const std::vector<LightState> l(5);
  const std::vector<WalkState> k(3);
  const std::uint64_t start = w->bytes_written();
  ASSERT_TRUE(w->write_frame(0, 0, random_vehicles(3, 10), l, k).ok());
  const std::uint64_t one = w->bytes_written();
  ASSERT_TRUE(w->write_frame(1, 0.1, random_vehicles(3, 110), l, k).ok());
  const std::uint64_t two = w->bytes_written();
  EXPECT_EQ((two - one) - (one - start), 100U * 20U);
  // Frame: 24 bytes of head, the records, 2 bytes of lights (5 lanes), 1 of walks (3 lanes).
  EXPECT_EQ(one - start, 24U + 10U * 20U + 2U + 1U);
  ASSERT_TRUE(w->close().ok());
  EXPECT_EQ(w->bytes_written(), two + 4 + 2 * 8 + 16);
}

// Writes a small valid recording and returns its bytes.
std::vector<unsigned char> small_recording(const std::string& p) {
  auto w = RecordingWriter::open(p, city_info());
  EXPECT_TRUE(w.ok());
  for (std::uint32_t f = 0; f < 3; ++f) {
    EXPECT_TRUE(w->write_frame(f, f * 0.1, random_vehicles(f, 4), std::vector<LightState>(5),
                               std::vector<WalkState>(3))
                    .ok());
  }
  EXPECT_TRUE(w->close().ok());
  return slurp(p);
}

TEST_F(RecordingTest, TruncatedFileIsAnErrorWithTheOffset) {
  const auto bytes = small_recording(path());
  ASSERT_TRUE(read_recording(path()).ok());
  for (std::size_t cut :
       {std::size_t{1}, std::size_t{17}, bytes.size() / 2, bytes.size() - 60, bytes.size() - 100}) {
    spit(path(), std::vector<unsigned char>(bytes.begin(), bytes.end() - static_cast<long>(cut)));
    auto rec = read_recording(path());
    ASSERT_FALSE(rec.ok()) << "cut " << cut;
    EXPECT_EQ(rec.error().where, path());
    EXPECT_NE(rec.error().message.find("byte "), std::string::npos) << rec.error().message;
  }
  spit(path(), std::vector<unsigned char>(bytes.begin(), bytes.begin() + 50));
  auto rec = read_recording(path());
  ASSERT_FALSE(rec.ok());
  EXPECT_NE(rec.error().message.find("truncated"), std::string::npos) << rec.error().message;
  EXPECT_FALSE(read_recording(path() + ".missing").ok());
}

TEST_F(RecordingTest, WrongMagicOrVersionIsAnError) {
  auto bytes = small_recording(path());
  bytes[0] = 'X';
  spit(path(), bytes);
  auto rec = read_recording(path());
  ASSERT_FALSE(rec.ok());
  EXPECT_NE(rec.error().message.find("byte 0"), std::string::npos) << rec.error().message;
  bytes[0] = 'C';
  bytes[8] = 3;  // version 3
  spit(path(), bytes);
  rec = read_recording(path());
  ASSERT_FALSE(rec.ok());
  EXPECT_NE(rec.error().message.find("version 3"), std::string::npos) << rec.error().message;
}

TEST_F(RecordingTest, CorruptIndexAndFrameMarkerAreErrors) {
  const auto bytes = small_recording(path());
  const std::size_t n = bytes.size();
  // The last index entry (frame 2's offset) lies just before the 16-byte trailer.
  auto bad_index = bytes;
  bad_index[n - 16 - 8 + 6] = 0x7f;
  spit(path(), bad_index);
  auto rec = read_recording(path());
  ASSERT_FALSE(rec.ok());
  EXPECT_NE(rec.error().message.find("byte " + std::to_string(n - 24)), std::string::npos)
      << rec.error().message;
  // Frame 1's marker: at frame 1's offset.
  std::uint64_t off1 = 0;
  for (int i = 0; i < 8; ++i) {
    off1 |= static_cast<std::uint64_t>(bytes[n - 16 - 16 + i]) << (8 * i);
  }
  auto bad_marker = bytes;
  bad_marker[off1] ^= 0xff;
  spit(path(), bad_marker);
  rec = read_recording(path());
  ASSERT_FALSE(rec.ok());
  EXPECT_NE(rec.error().message.find("byte " + std::to_string(off1)), std::string::npos)
      << rec.error().message;
  // A vehicle count that does not fill the frame's bytes.
  auto bad_count = bytes;
  bad_count[off1 + 20] = 3;
  spit(path(), bad_count);
  rec = read_recording(path());
  ASSERT_FALSE(rec.ok());
  EXPECT_NE(rec.error().message.find("byte " + std::to_string(off1 + 20)), std::string::npos)
      << rec.error().message;
  // A bad kind byte in frame 1's first record.
  auto bad_kind = bytes;
  bad_kind[off1 + 24 + 4] = 9;
  spit(path(), bad_kind);
  rec = read_recording(path());
  ASSERT_FALSE(rec.ok());
  EXPECT_NE(rec.error().message.find("kind"), std::string::npos) << rec.error().message;
}

TEST_F(RecordingTest, RejectsBadInput) {
  RecordingInfo info = city_info();
  info.extent.x = 0;
  EXPECT_FALSE(RecordingWriter::open(path(), info).ok());
  info = city_info();
  info.tick_s = std::nan("");
  EXPECT_FALSE(RecordingWriter::open(path(), info).ok());
  auto w = RecordingWriter::open(path(), city_info());
  ASSERT_TRUE(w.ok());
  EXPECT_FALSE(
      w->write_frame(0, 0, {}, std::vector<LightState>(4), std::vector<WalkState>(3)).ok());
  auto vs = random_vehicles(1, 2);
  vs[1].position.y = std::nan("");
  EXPECT_FALSE(
      w->write_frame(0, 0, vs, std::vector<LightState>(5), std::vector<WalkState>(3)).ok());
  EXPECT_EQ(w->frames_written(), 0U);
}

}  // namespace
}  // namespace cityforge::traffic
