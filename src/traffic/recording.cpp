// SPDX-License-Identifier: Apache-2.0
// The `.cfrec` recording: a little-endian binary file of quantised frames with a seek index.
// Byte layout, quantisation and precision in docs/recording.md; keep the two in step.
#include "cityforge/traffic/recording.hpp"

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <numbers>
#include <optional>
#include <string_view>
#include <utility>

#include "cityforge/core/atomic_file.hpp"

namespace cityforge::traffic {

namespace {

constexpr char kMagic[8] = {'C', 'F', 'R', 'E', 'C', 'O', 'R', 'D'};
constexpr std::uint32_t kVersion = 2;
constexpr std::uint32_t kFrameMarker = 0x4D415246U;                        // "FRAM"
constexpr std::uint32_t kIndexMarker = 0x58444E49U;                        // "INDX"
constexpr std::uint32_t kEndMarker = 0x444E4543U;                          // "CEND"
constexpr std::size_t kHeaderBytes = 8 + 4 + 8 + 8 + 24 + 24 + 8 + 4 * 4;  // through the counts
constexpr std::size_t kRecordBytes = 20;
constexpr std::size_t kFrameHeadBytes = 4 + 8 + 8 + 4;
constexpr std::size_t kTrailerBytes = 8 + 4 + 4;
constexpr std::uint32_t kKindCount = 6;  // EntityKind values
constexpr std::size_t kFlushBytes = std::size_t{1} << 20U;

std::size_t state_bytes(std::size_t lanes) { return (lanes + 3) / 4; }
std::size_t frame_bytes(std::size_t vehicles, const RecordingInfo& info) {
  return kFrameHeadBytes + vehicles * kRecordBytes + state_bytes(info.signal_lanes.size()) +
         state_bytes(info.crosswalk_lanes.size());
}

// -- Encoding ----------------------------------------------------------------------------------

void put_u8(std::vector<unsigned char>& b, std::uint8_t v) { b.push_back(v); }
void put_u16(std::vector<unsigned char>& b, std::uint16_t v) {
  b.push_back(static_cast<unsigned char>(v & 0xffU));
  b.push_back(static_cast<unsigned char>(v >> 8U));
}
void put_u32(std::vector<unsigned char>& b, std::uint32_t v) {
  for (unsigned i = 0; i < 4; ++i) {
    b.push_back(static_cast<unsigned char>((v >> (8U * i)) & 0xffU));
  }
}
void put_u64(std::vector<unsigned char>& b, std::uint64_t v) {
  for (unsigned i = 0; i < 8; ++i) {
    b.push_back(static_cast<unsigned char>((v >> (8U * i)) & 0xffU));
  }
}
void put_f64(std::vector<unsigned char>& b, double v) {
  put_u64(b, std::bit_cast<std::uint64_t>(v));
}

// Steps of extent / 65535 from origin, rounded, clamped to the box.
std::uint16_t quantise(double v, double origin, double extent) {
  const double q = std::round((v - origin) / extent * 65535.0);
  return static_cast<std::uint16_t>(std::clamp(q, 0.0, 65535.0));
}
double dequantise(std::uint16_t q, double origin, double extent) {
  return origin + static_cast<double>(q) * extent / 65535.0;
}
// Steps of 2 pi / 65536, wrapped into [0, 65536).
std::uint16_t quantise_heading(double rad) {
  const double turns = rad / (2.0 * std::numbers::pi);
  const double q = std::round((turns - std::floor(turns)) * 65536.0);
  return static_cast<std::uint16_t>(static_cast<std::uint32_t>(q) & 0xffffU);
}
std::uint16_t quantise_speed(double mps) {
  return static_cast<std::uint16_t>(std::clamp(std::round(mps * 100.0), 0.0, 65535.0));
}

void put_record(std::vector<unsigned char>& b, const VehicleSample& v, const RecordingInfo& info) {
  put_u32(b, v.id);
  put_u8(b, static_cast<std::uint8_t>(v.kind));
  put_u8(b, v.flags);
  put_u16(b, quantise_heading(v.heading_rad));
  put_u16(b, quantise(v.position.x, info.origin.x, info.extent.x));
  put_u16(b, quantise(v.position.y, info.origin.y, info.extent.y));
  put_u16(b, quantise(v.position.z, info.origin.z, info.extent.z));
  put_u16(b, quantise_speed(v.speed_mps));
  put_u8(b, v.lod);
  put_u8(b, v.state);
  put_u16(b, v.variant);
}

template <class State>
void put_states(std::vector<unsigned char>& b, std::span<const State> states) {
  const std::size_t at = b.size();
  b.resize(at + state_bytes(states.size()), 0);
  for (std::size_t i = 0; i < states.size(); ++i) {
    const auto s = static_cast<unsigned>(states[i]) & 3U;
    b[at + i / 4] = static_cast<unsigned char>(b[at + i / 4] | (s << (2U * (i % 4))));
  }
}

bool finite3(Vec3 v) { return std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z); }

Status check_sample(const VehicleSample& v, const std::string& where) {
  if (!finite3(v.position) || !std::isfinite(v.heading_rad) || !std::isfinite(v.speed_mps)) {
    return Error::invalid_input(
        where, "vehicle " + std::to_string(v.id) + ": position, heading and speed must be finite");
  }
  if (static_cast<std::uint32_t>(v.kind) >= kKindCount) {
    return Error::invalid_input(where, "vehicle " + std::to_string(v.id) + ": unknown kind " +
                                           std::to_string(static_cast<unsigned>(v.kind)));
  }
  return Ok{};
}

Status check_info(const RecordingInfo& info, const std::string& where) {
  if (!(info.tick_s > 0.0) || !std::isfinite(info.tick_s) || !(info.frame_interval_s > 0.0) ||
      !std::isfinite(info.frame_interval_s)) {
    return Error::invalid_input(where, "tick_s and frame_interval_s must be finite and > 0");
  }
  if (!finite3(info.origin) || !finite3(info.extent) || !(info.extent.x > 0.0) ||
      !(info.extent.y > 0.0) || !(info.extent.z > 0.0)) {
    return Error::invalid_input(where, "origin must be finite and every extent finite and > 0");
  }
  for (const VehicleSample& v : info.parked) {
    Status s = check_sample(v, where + ": parked");
    if (!s) {
      return s;
    }
  }
  return Ok{};
}

// -- Decoding ----------------------------------------------------------------------------------

// Reads little-endian values from a byte span; every read is bounds checked by the caller via
// need(), so a truncated file is an error at the offset where data ran out.
class Reader {
 public:
  Reader(std::span<const unsigned char> bytes, const std::string& path)
      : m_b(bytes), m_path(path) {}
  std::size_t pos() const { return m_pos; }
  void seek(std::size_t p) { m_pos = p; }
  std::size_t left() const { return m_b.size() - m_pos; }
  Error error(std::size_t at, const std::string& what) const {
    return Error::invalid_input(m_path, "byte " + std::to_string(at) + ": " + what);
  }
  std::optional<Error> need(std::size_t n, const char* what) const {
    if (left() < n) {
      return error(m_pos, std::string("truncated: ") + what + " needs " + std::to_string(n) +
                              " bytes, " + std::to_string(left()) + " left");
    }
    return std::nullopt;
  }
  std::uint8_t u8() { return m_b[m_pos++]; }
  std::uint16_t u16() {
    const auto v = static_cast<std::uint16_t>(m_b[m_pos] | (m_b[m_pos + 1] << 8U));
    m_pos += 2;
    return v;
  }
  std::uint32_t u32() {
    std::uint32_t v = 0;
    for (unsigned i = 0; i < 4; ++i) {
      v |= static_cast<std::uint32_t>(m_b[m_pos + i]) << (8U * i);
    }
    m_pos += 4;
    return v;
  }
  std::uint64_t u64() {
    std::uint64_t v = 0;
    for (unsigned i = 0; i < 8; ++i) {
      v |= static_cast<std::uint64_t>(m_b[m_pos + i]) << (8U * i);
    }
    m_pos += 8;
    return v;
  }
  double f64() { return std::bit_cast<double>(u64()); }
  Vec3 vec3() {
    Vec3 v;
    v.x = f64();
    v.y = f64();
    v.z = f64();
    return v;
  }
  const unsigned char* here() const { return m_b.data() + m_pos; }

 private:
  std::span<const unsigned char> m_b;
  const std::string& m_path;
  std::size_t m_pos = 0;
};

Result<VehicleSample> get_record(Reader& r, const RecordingInfo& info) {
  const std::size_t at = r.pos();
  VehicleSample v;
  v.id = r.u32();
  const std::uint8_t kind = r.u8();
  if (kind >= kKindCount) {
    return r.error(at + 4, "unknown entity kind " + std::to_string(kind));
  }
  v.kind = static_cast<EntityKind>(kind);
  v.flags = r.u8();
  v.heading_rad = r.u16() * (2.0 * std::numbers::pi / 65536.0);
  v.position.x = dequantise(r.u16(), info.origin.x, info.extent.x);
  v.position.y = dequantise(r.u16(), info.origin.y, info.extent.y);
  v.position.z = dequantise(r.u16(), info.origin.z, info.extent.z);
  v.speed_mps = r.u16() / 100.0;
  v.lod = r.u8();
  v.state = r.u8();
  v.variant = r.u16();
  return v;
}

template <class State>
std::vector<State> get_states(Reader& r, std::size_t count) {
  std::vector<State> out(count);
  const unsigned char* p = r.here();
  for (std::size_t i = 0; i < count; ++i) {
    out[i] = static_cast<State>((p[i / 4] >> (2U * (i % 4))) & 3U);
  }
  r.seek(r.pos() + state_bytes(count));
  return out;
}

// Header, tables and parked vehicles; leaves the reader at the first frame.
Result<RecordingInfo> read_header(Reader& r) {
  RecordingInfo info;
  if (auto e = r.need(kHeaderBytes, "header")) {
    return *e;
  }
  if (std::memcmp(r.here(), kMagic, sizeof kMagic) != 0) {
    return r.error(0, "not a cityforge recording (magic is not \"CFRECORD\")");
  }
  r.seek(sizeof kMagic);
  const std::uint32_t version = r.u32();
  if (version != kVersion) {
    return r.error(8, "unsupported version " + std::to_string(version) + ", expected " +
                          std::to_string(kVersion));
  }
  info.tick_s = r.f64();
  info.frame_interval_s = r.f64();
  info.origin = r.vec3();
  info.extent = r.vec3();
  info.seed = r.u64();
  const std::uint32_t kinds = r.u32();
  const std::uint32_t signals = r.u32();
  const std::uint32_t crosswalks = r.u32();
  const std::uint32_t parked = r.u32();
  if (Status s = check_info(info, "header"); !s) {
    return r.error(12, s.error().message);
  }
  if (kinds != kKindCount) {
    return r.error(kHeaderBytes - 16, "expected " + std::to_string(kKindCount) +
                                          " entity kinds, found " + std::to_string(kinds));
  }
  // The kind names must be ours, in enum order: the u8 kind of a record indexes them.
  for (std::uint32_t k = 0; k < kinds; ++k) {
    const std::size_t at = r.pos();
    if (auto e = r.need(1, "kind name length")) {
      return *e;
    }
    const std::uint8_t len = r.u8();
    if (auto e = r.need(len, "kind name")) {
      return *e;
    }
    const std::string_view name(reinterpret_cast<const char*>(r.here()), len);
    if (name != to_string(static_cast<EntityKind>(k))) {
      return r.error(at, "entity kind " + std::to_string(k) + " is \"" + std::string(name) +
                             "\", expected \"" + to_string(static_cast<EntityKind>(k)) + "\"");
    }
    r.seek(r.pos() + len);
  }
  // Counts against the bytes left before reading (and allocating for) the tables.
  const std::uint64_t table_bytes = 4ULL * signals + 4ULL * crosswalks + kRecordBytes * parked;
  if (table_bytes > r.left()) {
    return r.error(r.pos(), "counts need " + std::to_string(table_bytes) +
                                " bytes of lane tables and parked vehicles, the file has " +
                                std::to_string(r.left()) + " left");
  }
  info.signal_lanes.resize(signals);
  for (LaneId& l : info.signal_lanes) {
    l = r.u32();
  }
  info.crosswalk_lanes.resize(crosswalks);
  for (LaneId& l : info.crosswalk_lanes) {
    l = r.u32();
  }
  info.parked.reserve(parked);
  for (std::uint32_t i = 0; i < parked; ++i) {
    auto v = get_record(r, info);
    if (!v) {
      return v.error();
    }
    info.parked.push_back(*v);
  }
  return info;
}

Result<RecordedFrame> read_frame(Reader& r, const RecordingInfo& info, std::size_t end) {
  const std::size_t at = r.pos();
  if (auto e = r.need(kFrameHeadBytes, "frame header")) {
    return *e;
  }
  if (r.u32() != kFrameMarker) {
    return r.error(at, "expected a frame marker \"FRAM\"");
  }
  RecordedFrame f;
  f.tick = r.u64();
  f.time_s = r.f64();
  const std::uint32_t n = r.u32();
  if (!std::isfinite(f.time_s)) {
    return r.error(at + 12, "frame time is not finite");
  }
  const std::uint64_t size = frame_bytes(n, info);
  if (at + size != end) {
    return r.error(at + 20, std::to_string(n) + " vehicles make a frame of " +
                                std::to_string(size) + " bytes, the index gives it " +
                                std::to_string(end - at));
  }
  f.vehicles.reserve(n);
  for (std::uint32_t i = 0; i < n; ++i) {
    auto v = get_record(r, info);
    if (!v) {
      return v.error();
    }
    f.vehicles.push_back(*v);
  }
  f.lights = get_states<LightState>(r, info.signal_lanes.size());
  f.walks = get_states<WalkState>(r, info.crosswalk_lanes.size());
  return f;
}

}  // namespace

// -- Writer ------------------------------------------------------------------------------------

namespace {
// Closes an unfinished recording and removes its temporary file.
void discard(std::FILE*& file, const std::string& path) {
  if (file != nullptr) {
    std::fclose(file);
    file = nullptr;
    std::remove((path + ".tmp").c_str());
    unlist_temporary(path + ".tmp");
  }
}
}  // namespace

Result<RecordingWriter> RecordingWriter::open(const std::string& path, const RecordingInfo& info) {
  if (Status s = check_info(info, path); !s) {
    return s.error();
  }
  RecordingWriter w;
  w.m_path = path;
  w.m_info = info;
  const std::string tmp = path + ".tmp";
  list_temporary(tmp);  // An interrupted run removes it.
  w.m_file = std::fopen(tmp.c_str(), "wb");
  if (w.m_file == nullptr) {
    unlist_temporary(tmp);
    return Error::io(tmp, std::string("cannot create: ") + std::strerror(errno));
  }
  std::vector<unsigned char>& b = w.m_buffer;
  b.insert(b.end(), std::begin(kMagic), std::end(kMagic));
  put_u32(b, kVersion);
  put_f64(b, info.tick_s);
  put_f64(b, info.frame_interval_s);
  for (const Vec3& v : {info.origin, info.extent}) {
    put_f64(b, v.x);
    put_f64(b, v.y);
    put_f64(b, v.z);
  }
  put_u64(b, info.seed);
  put_u32(b, kKindCount);
  put_u32(b, static_cast<std::uint32_t>(info.signal_lanes.size()));
  put_u32(b, static_cast<std::uint32_t>(info.crosswalk_lanes.size()));
  put_u32(b, static_cast<std::uint32_t>(info.parked.size()));
  for (std::uint32_t k = 0; k < kKindCount; ++k) {
    const std::string_view name = to_string(static_cast<EntityKind>(k));
    put_u8(b, static_cast<std::uint8_t>(name.size()));
    b.insert(b.end(), name.begin(), name.end());
  }
  for (LaneId l : info.signal_lanes) {
    put_u32(b, l);
  }
  for (LaneId l : info.crosswalk_lanes) {
    put_u32(b, l);
  }
  for (const VehicleSample& v : info.parked) {
    put_record(b, v, info);
  }
  w.m_bytes = b.size();
  return w;
}

RecordingWriter::RecordingWriter(RecordingWriter&& other) noexcept
    : m_file(std::exchange(other.m_file, nullptr)),
      m_path(std::move(other.m_path)),
      m_info(std::move(other.m_info)),
      m_offsets(std::move(other.m_offsets)),
      m_bytes(other.m_bytes),
      m_buffer(std::move(other.m_buffer)) {}

RecordingWriter& RecordingWriter::operator=(RecordingWriter&& other) noexcept {
  if (this != &other) {
    discard(m_file, m_path);
    m_file = std::exchange(other.m_file, nullptr);
    m_path = std::move(other.m_path);
    m_info = std::move(other.m_info);
    m_offsets = std::move(other.m_offsets);
    m_bytes = other.m_bytes;
    m_buffer = std::move(other.m_buffer);
  }
  return *this;
}

RecordingWriter::~RecordingWriter() { discard(m_file, m_path); }

namespace {
Status flush_buffer(std::FILE* file, std::vector<unsigned char>& buffer, const std::string& tmp) {
  if (!buffer.empty() && std::fwrite(buffer.data(), 1, buffer.size(), file) != buffer.size()) {
    return Error::io(tmp, std::string("write failed: ") + std::strerror(errno));
  }
  buffer.clear();
  return Ok{};
}
}  // namespace

Status RecordingWriter::write_frame(std::uint64_t tick, double time_s,
                                    std::span<const VehicleSample> vehicles,
                                    std::span<const LightState> lights,
                                    std::span<const WalkState> walks) {
  const auto where = [&] { return m_path + ": frame " + std::to_string(m_offsets.size()); };
  if (m_file == nullptr) {
    return Error::invalid_input(m_path, "write_frame after close");
  }
  if (lights.size() != m_info.signal_lanes.size() ||
      walks.size() != m_info.crosswalk_lanes.size()) {
    return Error::invalid_input(
        where(), "expected " + std::to_string(m_info.signal_lanes.size()) + " lights and " +
                     std::to_string(m_info.crosswalk_lanes.size()) + " walk states, got " +
                     std::to_string(lights.size()) + " and " + std::to_string(walks.size()));
  }
  if (!std::isfinite(time_s)) {
    return Error::invalid_input(where(), "time_s must be finite");
  }
  if (vehicles.size() > 0xffffffffULL) {
    return Error::invalid_input(where(), "too many vehicles for one frame");
  }
  for (const VehicleSample& v : vehicles) {
    if (Status s = check_sample(v, m_path); !s) {
      return Error::invalid_input(where(), s.error().message);
    }
  }
  m_offsets.push_back(m_bytes);
  const std::size_t before = m_buffer.size();
  put_u32(m_buffer, kFrameMarker);
  put_u64(m_buffer, tick);
  put_f64(m_buffer, time_s);
  put_u32(m_buffer, static_cast<std::uint32_t>(vehicles.size()));
  m_buffer.reserve(m_buffer.size() + vehicles.size() * kRecordBytes + 64);
  for (const VehicleSample& v : vehicles) {
    put_record(m_buffer, v, m_info);
  }
  put_states(m_buffer, lights);
  put_states(m_buffer, walks);
  m_bytes += m_buffer.size() - before;
  if (m_buffer.size() >= kFlushBytes) {
    return flush_buffer(m_file, m_buffer, m_path + ".tmp");
  }
  return Ok{};
}

Status RecordingWriter::close() {
  if (m_file == nullptr) {
    return Error::invalid_input(m_path, "recording already closed");
  }
  const std::string tmp = m_path + ".tmp";
  const std::uint64_t index_at = m_bytes;
  put_u32(m_buffer, kIndexMarker);
  for (std::uint64_t off : m_offsets) {
    put_u64(m_buffer, off);
  }
  put_u64(m_buffer, index_at);
  put_u32(m_buffer, static_cast<std::uint32_t>(m_offsets.size()));
  put_u32(m_buffer, kEndMarker);
  m_bytes = index_at + 4 + 8 * m_offsets.size() + kTrailerBytes;
  Status s = flush_buffer(m_file, m_buffer, tmp);
  if (!s) {
    return s;  // the destructor removes the temporary file
  }
  const int rc = std::fclose(m_file);
  m_file = nullptr;
  if (rc != 0) {
    const std::string why = std::strerror(errno);
    std::remove(tmp.c_str());
    unlist_temporary(tmp);
    return Error::io(tmp, "close failed: " + why);
  }
  if (std::rename(tmp.c_str(), m_path.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    std::remove(tmp.c_str());
    unlist_temporary(tmp);
    return Error::io(m_path, "cannot rename " + tmp + " into place: " + why);
  }
  unlist_temporary(tmp);
  return Ok{};
}

// -- Reader ------------------------------------------------------------------------------------

Result<Recording> read_recording(const std::string& path) {
  std::vector<unsigned char> bytes;
  {
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (f == nullptr) {
      return Error::io(path, std::string("cannot open: ") + std::strerror(errno));
    }
    unsigned char chunk[1 << 16];
    std::size_t n = 0;
    while ((n = std::fread(chunk, 1, sizeof chunk, f)) > 0) {
      bytes.insert(bytes.end(), chunk, chunk + n);
    }
    const bool failed = std::ferror(f) != 0;
    std::fclose(f);
    if (failed) {
      return Error::io(path, "read failed");
    }
  }
  return parse_recording(bytes, path);
}

Result<Recording> parse_recording(std::span<const unsigned char> bytes, const std::string& path) {
  // 1. The bytes.
  Reader r(bytes, path);

  // 2. Header, tables, parked vehicles.
  auto info = read_header(r);
  if (!info) {
    return info.error();
  }
  const std::size_t frames_at = r.pos();

  // 3. Trailer and index: the index sits between the frames and the trailer, exactly.
  if (bytes.size() < frames_at + 4 + kTrailerBytes) {
    return r.error(bytes.size(), "truncated: no room for the frame index and trailer after byte " +
                                     std::to_string(frames_at));
  }
  const std::size_t trailer_at = bytes.size() - kTrailerBytes;
  r.seek(trailer_at);
  const std::uint64_t index_at = r.u64();
  const std::uint32_t count = r.u32();
  if (r.u32() != kEndMarker) {
    return r.error(trailer_at + 12, "expected the end marker \"CEND\" (truncated file?)");
  }
  if (index_at < frames_at || index_at > trailer_at || trailer_at - index_at != 4 + 8ULL * count) {
    return r.error(trailer_at, "index at byte " + std::to_string(index_at) + " with " +
                                   std::to_string(count) + " frames does not fit between byte " +
                                   std::to_string(frames_at) + " and the trailer at byte " +
                                   std::to_string(trailer_at));
  }
  r.seek(index_at);
  if (r.u32() != kIndexMarker) {
    return r.error(index_at, "expected the index marker \"INDX\"");
  }
  std::vector<std::uint64_t> offsets(count);
  for (std::uint32_t i = 0; i < count; ++i) {
    const std::size_t at = r.pos();
    offsets[i] = r.u64();
    const std::uint64_t expect_min = i == 0 ? frames_at : offsets[i - 1] + kFrameHeadBytes;
    if ((i == 0 && offsets[i] != frames_at) || offsets[i] < expect_min || offsets[i] > index_at ||
        index_at - offsets[i] < kFrameHeadBytes) {
      return r.error(at, "frame " + std::to_string(i) + " offset " + std::to_string(offsets[i]) +
                             " is outside the frames (bytes " + std::to_string(frames_at) + " to " +
                             std::to_string(index_at) + ") or out of order");
    }
  }
  if (count == 0 && index_at != frames_at) {
    return r.error(frames_at, "no frames indexed but " + std::to_string(index_at - frames_at) +
                                  " bytes of frames");
  }

  // 4. Frames, each filling exactly the bytes up to the next one.
  Recording rec;
  rec.info = std::move(*info);
  rec.frames.reserve(count);
  for (std::uint32_t i = 0; i < count; ++i) {
    const std::size_t end = i + 1 < count ? offsets[i + 1] : index_at;
    r.seek(offsets[i]);
    auto frame = read_frame(r, rec.info, end);
    if (!frame) {
      return frame.error();
    }
    rec.frames.push_back(std::move(*frame));
  }
  return rec;
}

}  // namespace cityforge::traffic
