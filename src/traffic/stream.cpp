// SPDX-License-Identifier: Apache-2.0
// The live stream codec: quantised agents, delta-coded against the previous frame with a
// per-agent position prediction (last step repeated), run lengths for agents that follow their
// prediction exactly, key frames every key_every frames. Byte layout in docs/live.md ("Frame
// format"); viewer/src/live/decode.js decodes the same bytes. Keep the three in step.
#include "cityforge/traffic/stream.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <nlohmann/json.hpp>
#include <numbers>

#include "cityforge/core/assert.hpp"

namespace cityforge::traffic {

namespace {

using detail::StreamAgent;

constexpr std::uint8_t kMagic[4] = {'C', 'F', 'L', 'S'};
constexpr std::size_t kHeaderBytes = 4 + 1 + 1 + 4 + 8 + 8 + 4 + 4 + 4 + 4;
constexpr std::uint8_t kFrameKey = 1U << 0U;
constexpr std::uint8_t kFrameLights = 1U << 1U;
constexpr std::uint8_t kFrameWalks = 1U << 2U;
// Positions are clamped to +-2^30 steps so that every difference fits an int32 and every
// zigzag residual a 5-byte varint.
constexpr std::int64_t kMaxStep = (std::int64_t{1} << 30) - 1;
constexpr std::int64_t kMinStep = -(std::int64_t{1} << 30);
constexpr std::uint64_t kPedestrianClass = std::uint64_t{1} << 32U;
constexpr std::uint64_t kMaxKey = (std::uint64_t{2} << 32U) - 1;
constexpr unsigned kMaxVarintBytes = 5;
constexpr std::uint8_t kKindCount = 6;
constexpr std::int32_t kHalfTurn = kStreamHeadingSteps / 2;

// Delta ops: (count << 2) | code.
enum Op : std::uint8_t { kSkip = 0, kUpdate = 1, kRemove = 2, kInsert = 3 };
// Bits of an update record's mask.
enum UpdateBit : std::uint8_t {
  kUpX = 1U << 0U,
  kUpY = 1U << 1U,
  kUpZ = 1U << 2U,
  kUpHeading = 1U << 3U,
  kUpSpeed = 1U << 4U,
  kUpFlags = 1U << 5U,
  kUpLodState = 1U << 6U,
  kUpKindVariant = 1U << 7U,
};
// Bits of a full record's attribute byte above kind (0-2) and lod (3-4).
constexpr std::uint8_t kAttrFlags = 1U << 5U;
constexpr std::uint8_t kAttrState = 1U << 6U;
constexpr std::uint8_t kAttrVariant = 1U << 7U;

// -- Writing -----------------------------------------------------------------------------------

void put_u8(std::vector<std::uint8_t>& b, std::uint8_t v) { b.push_back(v); }
void put_le(std::vector<std::uint8_t>& b, std::uint64_t v, unsigned bytes) {
  for (unsigned i = 0; i < bytes; ++i) {
    b.push_back(static_cast<std::uint8_t>((v >> (8U * i)) & 0xffU));
  }
}
void put_varint(std::vector<std::uint8_t>& b, std::uint64_t v) {
  while (v >= 0x80U) {
    b.push_back(static_cast<std::uint8_t>((v & 0x7fU) | 0x80U));
    v >>= 7U;
  }
  b.push_back(static_cast<std::uint8_t>(v));
}
std::uint64_t zigzag(std::int64_t v) {
  return (static_cast<std::uint64_t>(v) << 1U) ^ static_cast<std::uint64_t>(v >> 63);
}
std::int64_t unzigzag(std::uint64_t z) {
  return static_cast<std::int64_t>(z >> 1U) ^ -static_cast<std::int64_t>(z & 1U);
}
void put_svarint(std::vector<std::uint8_t>& b, std::int64_t v) { put_varint(b, zigzag(v)); }

// -- Quantisation ------------------------------------------------------------------------------

std::int32_t quantise_position(double v, double origin, double step) {
  const double q = std::round((v - origin) / step);
  if (std::isnan(q)) return 0;
  return static_cast<std::int32_t>(
      std::clamp(q, static_cast<double>(kMinStep), static_cast<double>(kMaxStep)));
}
std::uint16_t quantise_heading(double rad) {
  if (!std::isfinite(rad)) return 0;
  const double turns = rad / (2.0 * std::numbers::pi);
  const double q = std::round((turns - std::floor(turns)) * kStreamHeadingSteps);
  return static_cast<std::uint16_t>(static_cast<std::uint32_t>(q) % kStreamHeadingSteps);
}
std::uint16_t quantise_speed(double mps) {
  const double q = std::round(mps * 10.0);
  if (std::isnan(q)) return 0;
  return static_cast<std::uint16_t>(std::clamp(q, 0.0, 65535.0));
}
bool is_pedestrian(std::uint8_t kind) {
  return kind == static_cast<std::uint8_t>(EntityKind::pedestrian);
}

StreamAgent quantise(const VehicleSample& v, const StreamConfig& c) {
  StreamAgent a;
  a.kind = static_cast<std::uint8_t>(v.kind);
  a.key = (is_pedestrian(a.kind) ? kPedestrianClass : 0) | v.id;
  const double step = c.step_m;
  a.x = quantise_position(v.position.x, c.origin.x, step);
  a.y = quantise_position(v.position.y, c.origin.y, step);
  a.z = quantise_position(v.position.z, c.origin.z, step);
  a.heading = quantise_heading(v.heading_rad);
  a.speed = quantise_speed(v.speed_mps);
  a.variant = v.variant;
  a.flags = v.flags;
  a.lod = static_cast<std::uint8_t>(std::min<unsigned>(v.lod, 3));
  a.state = v.state;
  return a;
}

VehicleSample dequantise(const StreamAgent& a, const StreamConfig& c) {
  VehicleSample v;
  const double step = c.step_m;
  v.id = static_cast<std::uint32_t>(a.key & 0xffffffffU);
  v.kind = static_cast<EntityKind>(a.kind);
  v.flags = a.flags;
  v.position = Vec3{c.origin.x + a.x * step, c.origin.y + a.y * step, c.origin.z + a.z * step};
  v.heading_rad = a.heading * (2.0 * std::numbers::pi / kStreamHeadingSteps);
  v.speed_mps = a.speed / 10.0;
  v.lod = a.lod;
  v.state = a.state;
  v.variant = a.variant;
  return v;
}

// A full record: key gap, attributes, position relative to the agent before it in key order.
void put_full(std::vector<std::uint8_t>& b, const StreamAgent& a, const StreamAgent* before) {
  put_varint(b, before ? a.key - before->key - 1 : a.key);
  std::uint8_t attr = static_cast<std::uint8_t>(a.kind | (a.lod << 3U));
  if (a.flags != 0) attr |= kAttrFlags;
  if (a.state != 0) attr |= kAttrState;
  if (a.variant != 0) attr |= kAttrVariant;
  put_u8(b, attr);
  if (a.flags != 0) put_u8(b, a.flags);
  if (a.state != 0) put_u8(b, a.state);
  if (a.variant != 0) put_varint(b, a.variant);
  put_svarint(b, std::int64_t{a.x} - (before ? before->x : 0));
  put_svarint(b, std::int64_t{a.y} - (before ? before->y : 0));
  put_svarint(b, std::int64_t{a.z} - (before ? before->z : 0));
  put_varint(b, a.heading);
  put_varint(b, a.speed);
}

std::int32_t heading_delta(std::uint16_t from, std::uint16_t to) {
  std::int32_t d = static_cast<std::int32_t>(to) - static_cast<std::int32_t>(from);
  if (d >= kHalfTurn) d -= static_cast<std::int32_t>(kStreamHeadingSteps);
  if (d < -kHalfTurn) d += static_cast<std::int32_t>(kStreamHeadingSteps);
  return d;
}

// The update record of `a` against `p` (the same agent one frame earlier); empty when `a` is
// exactly its prediction (a skip). Sets a's step (dx, dy, dz).
bool put_update(std::vector<std::uint8_t>& b, StreamAgent& a, const StreamAgent& p) {
  a.dx = a.x - p.x;
  a.dy = a.y - p.y;
  a.dz = a.z - p.z;
  std::uint8_t mask = 0;
  if (a.dx != p.dx) mask |= kUpX;
  if (a.dy != p.dy) mask |= kUpY;
  if (a.dz != p.dz) mask |= kUpZ;
  if (a.heading != p.heading) mask |= kUpHeading;
  if (a.speed != p.speed) mask |= kUpSpeed;
  if (a.flags != p.flags) mask |= kUpFlags;
  if (a.lod != p.lod || a.state != p.state) mask |= kUpLodState;
  if (a.kind != p.kind || a.variant != p.variant) mask |= kUpKindVariant;
  if (mask == 0) return false;
  put_u8(b, mask);
  if (mask & kUpX) put_svarint(b, std::int64_t{a.dx} - p.dx);
  if (mask & kUpY) put_svarint(b, std::int64_t{a.dy} - p.dy);
  if (mask & kUpZ) put_svarint(b, std::int64_t{a.dz} - p.dz);
  if (mask & kUpHeading) put_svarint(b, heading_delta(p.heading, a.heading));
  if (mask & kUpSpeed) put_svarint(b, std::int64_t{a.speed} - p.speed);
  if (mask & kUpFlags) put_u8(b, a.flags);
  if (mask & kUpLodState) put_varint(b, (std::uint64_t{a.state} << 2U) | a.lod);
  if (mask & kUpKindVariant) {
    put_u8(b, a.kind);
    put_varint(b, a.variant);
  }
  return true;
}

template <class State>
void put_states(std::vector<std::uint8_t>& b, std::span<const State> s) {
  const std::size_t at = b.size();
  b.resize(at + (s.size() + 3) / 4, 0);
  for (std::size_t i = 0; i < s.size(); ++i) {
    b[at + i / 4] |= static_cast<std::uint8_t>((static_cast<unsigned>(s[i]) & 3U) << (2 * (i % 4)));
  }
}
template <class State>
bool same_states(std::span<const State> s, const std::vector<std::uint8_t>& prev) {
  if (s.size() != prev.size()) return false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (static_cast<std::uint8_t>(s[i]) != prev[i]) return false;
  }
  return true;
}
template <class State>
void keep_states(std::span<const State> s, std::vector<std::uint8_t>& prev) {
  prev.resize(s.size());
  for (std::size_t i = 0; i < s.size(); ++i)
    prev[i] = static_cast<std::uint8_t>(s[i]);
}

// -- Reading -----------------------------------------------------------------------------------

/// Bounds-checked little-endian reader; the first failure is kept with its byte offset.
class Reader {
 public:
  explicit Reader(std::span<const std::uint8_t> b) : m_b(b) {}
  bool ok() const { return m_error.empty(); }
  std::size_t pos() const { return m_pos; }
  std::size_t left() const { return m_b.size() - m_pos; }
  const std::string& error() const { return m_error; }

  bool fail(std::size_t at, const std::string& what) {
    if (m_error.empty()) m_error = "byte " + std::to_string(at) + ": " + what;
    m_pos = m_b.size();
    return false;
  }
  bool need(std::size_t n, const char* what) {
    if (!ok()) return false;
    if (left() < n) {
      return fail(m_pos, std::string("expected ") + what + " (" + std::to_string(n) +
                             " bytes), message ends after " + std::to_string(left()));
    }
    return true;
  }
  std::uint64_t le(unsigned bytes, const char* what) {
    if (!need(bytes, what)) return 0;
    std::uint64_t v = 0;
    for (unsigned i = 0; i < bytes; ++i)
      v |= std::uint64_t{m_b[m_pos + i]} << (8U * i);
    m_pos += bytes;
    return v;
  }
  std::uint8_t u8(const char* what) { return static_cast<std::uint8_t>(le(1, what)); }
  std::uint64_t varint(const char* what) {
    const std::size_t at = m_pos;
    std::uint64_t v = 0;
    for (unsigned i = 0; i < kMaxVarintBytes; ++i) {
      if (!need(1, what)) return 0;
      const std::uint8_t byte = m_b[m_pos++];
      v |= std::uint64_t{byte & 0x7fU} << (7U * i);
      if ((byte & 0x80U) == 0) return v;
    }
    fail(at, std::string("expected ") + what + " as a varint of at most 5 bytes");
    return 0;
  }
  std::int64_t svarint(const char* what) { return unzigzag(varint(what)); }
  std::span<const std::uint8_t> bytes(std::size_t n, const char* what) {
    if (!need(n, what)) return {};
    const auto s = m_b.subspan(m_pos, n);
    m_pos += n;
    return s;
  }

 private:
  std::span<const std::uint8_t> m_b;
  std::size_t m_pos = 0;
  std::string m_error;
};

bool in_range(std::int64_t q) { return q >= kMinStep && q <= kMaxStep; }

// Sets a position coordinate from a decoded value, checking the range.
bool set_step(Reader& r, std::size_t at, std::int64_t q, std::int32_t& out, const char* what) {
  if (!in_range(q)) {
    return r.fail(
        at, std::string("expected ") + what + " within +-2^30 steps, got " + std::to_string(q));
  }
  out = static_cast<std::int32_t>(q);
  return true;
}

bool check_kind(Reader& r, std::size_t at, std::uint8_t kind, std::uint64_t key) {
  if (kind >= kKindCount) {
    return r.fail(at, "expected a kind 0..5, got " + std::to_string(kind));
  }
  if (is_pedestrian(kind) != (key >= kPedestrianClass)) {
    return r.fail(at, std::string("kind ") + to_string(static_cast<EntityKind>(kind)) +
                          " does not match its key's class (" +
                          (key >= kPedestrianClass ? "pedestrian" : "vehicle") + ")");
  }
  return true;
}

// A full record after `before` (null for the first of the frame).
bool read_full(Reader& r, const StreamAgent* before, StreamAgent& a) {
  const std::size_t at = r.pos();
  const std::uint64_t gap = r.varint("key gap");
  a.key = before ? before->key + 1 + gap : gap;
  if (r.ok() && a.key > kMaxKey) {
    return r.fail(at, "expected a key below 2^33 (class << 32 | id), got " + std::to_string(a.key));
  }
  const std::size_t attr_at = r.pos();
  const std::uint8_t attr = r.u8("attribute byte");
  a.kind = attr & 7U;
  a.lod = (attr >> 3U) & 3U;
  if (r.ok() && !check_kind(r, attr_at, a.kind, a.key)) return false;
  a.flags = (attr & kAttrFlags) ? r.u8("flags") : 0;
  a.state = (attr & kAttrState) ? r.u8("state") : 0;
  const std::size_t var_at = r.pos();
  const std::uint64_t variant = (attr & kAttrVariant) ? r.varint("variant") : 0;
  if (r.ok() && variant > 0xffffU) return r.fail(var_at, "expected a variant <= 65535");
  a.variant = static_cast<std::uint16_t>(variant);
  const std::size_t pos_at = r.pos();
  const std::int64_t x = r.svarint("x step") + (before ? before->x : 0);
  const std::int64_t y = r.svarint("y step") + (before ? before->y : 0);
  const std::int64_t z = r.svarint("z step") + (before ? before->z : 0);
  if (!r.ok() || !set_step(r, pos_at, x, a.x, "x") || !set_step(r, pos_at, y, a.y, "y") ||
      !set_step(r, pos_at, z, a.z, "z")) {
    return false;
  }
  const std::size_t h_at = r.pos();
  const std::uint64_t heading = r.varint("heading");
  if (r.ok() && heading >= kStreamHeadingSteps) {
    return r.fail(h_at, "expected a heading below 1024, got " + std::to_string(heading));
  }
  const std::size_t s_at = r.pos();
  const std::uint64_t speed = r.varint("speed");
  if (r.ok() && speed > 0xffffU) return r.fail(s_at, "expected a speed <= 65535 (0.1 m/s)");
  a.heading = static_cast<std::uint16_t>(heading);
  a.speed = static_cast<std::uint16_t>(speed);
  a.dx = a.dy = a.dz = 0;
  return r.ok();
}

// Applies an update record to `a` (a copy of the agent's previous state).
bool read_update(Reader& r, StreamAgent& a) {
  const std::uint8_t mask = r.u8("update mask");
  if (!r.ok()) return false;
  const auto step = [&](std::uint8_t bit, std::int32_t& q, std::int32_t& d, const char* what) {
    const std::size_t v_at = r.pos();
    const std::int64_t nd = std::int64_t{d} + ((mask & bit) ? r.svarint(what) : 0);
    if (!r.ok() || !set_step(r, v_at, q + nd, q, what)) return false;
    d = static_cast<std::int32_t>(nd);
    return true;
  };
  if (!step(kUpX, a.x, a.dx, "x") || !step(kUpY, a.y, a.dy, "y") || !step(kUpZ, a.z, a.dz, "z")) {
    return false;
  }
  if (mask & kUpHeading) {
    const std::size_t h_at = r.pos();
    const std::int64_t d = r.svarint("heading delta");
    if (r.ok() && (d < -kHalfTurn || d >= kHalfTurn)) {
      return r.fail(h_at, "expected a heading delta in -512..511, got " + std::to_string(d));
    }
    a.heading =
        static_cast<std::uint16_t>((a.heading + d + kStreamHeadingSteps) % kStreamHeadingSteps);
  }
  if (mask & kUpSpeed) {
    const std::size_t s_at = r.pos();
    const std::int64_t s = a.speed + r.svarint("speed delta");
    if (r.ok() && (s < 0 || s > 0xffff)) {
      return r.fail(s_at, "expected a speed in 0..65535 after the delta, got " + std::to_string(s));
    }
    a.speed = static_cast<std::uint16_t>(s);
  }
  if (mask & kUpFlags) a.flags = r.u8("flags");
  if (mask & kUpLodState) {
    const std::size_t l_at = r.pos();
    const std::uint64_t v = r.varint("lod and state");
    if (r.ok() && (v >> 2U) > 0xffU) return r.fail(l_at, "expected a state <= 255");
    a.lod = static_cast<std::uint8_t>(v & 3U);
    a.state = static_cast<std::uint8_t>(v >> 2U);
  }
  if (mask & kUpKindVariant) {
    const std::size_t k_at = r.pos();
    a.kind = r.u8("kind");
    if (r.ok() && !check_kind(r, k_at, a.kind, a.key)) return false;
    const std::size_t v_at = r.pos();
    const std::uint64_t v = r.varint("variant");
    if (r.ok() && v > 0xffffU) return r.fail(v_at, "expected a variant <= 65535");
    a.variant = static_cast<std::uint16_t>(v);
  }
  return r.ok();
}

template <class State>
bool read_states(Reader& r, std::uint32_t count, std::vector<State>& out, const char* what) {
  // In 64 bits: a claimed count of 2^32 - 1 wrapped to 0 bytes and then a 4 GB resize.
  const std::span<const std::uint8_t> b =
      r.bytes(static_cast<std::size_t>((std::uint64_t{count} + 3) / 4), what);
  if (!r.ok()) return false;
  out.resize(count);
  for (std::size_t i = 0; i < count; ++i)
    out[i] = static_cast<State>((b[i / 4] >> (2 * (i % 4))) & 3U);
  return true;
}

// The agent section of a delta frame: ops over the previous frame's agents.
bool read_delta(Reader& r, const std::vector<StreamAgent>& prev, std::uint32_t count,
                std::vector<StreamAgent>& out) {
  std::size_t i = 0;
  while (r.ok() && (i < prev.size() || out.size() < count)) {
    const std::size_t at = r.pos();
    const std::uint64_t op = r.varint("an op (count << 2 | code)");
    if (!r.ok()) return false;
    const auto code = static_cast<Op>(op & 3U);
    const std::uint64_t n = op >> 2U;
    static const char* const kNames[] = {"skip", "update", "remove", "insert"};
    if (n == 0) return r.fail(at, std::string("expected a ") + kNames[code] + " count >= 1");
    if (code != kInsert && n > prev.size() - i) {
      return r.fail(at, std::string(kNames[code]) + " of " + std::to_string(n) +
                            " agents, but only " + std::to_string(prev.size() - i) +
                            " previous agents are left");
    }
    if (code != kRemove && n > count - out.size()) {
      return r.fail(at, std::string(kNames[code]) + " of " + std::to_string(n) +
                            " agents would exceed the frame's agent count " +
                            std::to_string(count));
    }
    for (std::uint64_t k = 0; k < n && r.ok(); ++k) {
      switch (code) {
        case kSkip: {
          StreamAgent a = prev[i++];
          const std::size_t a_at = r.pos();
          if (!set_step(r, a_at, std::int64_t{a.x} + a.dx, a.x, "predicted x") ||
              !set_step(r, a_at, std::int64_t{a.y} + a.dy, a.y, "predicted y") ||
              !set_step(r, a_at, std::int64_t{a.z} + a.dz, a.z, "predicted z")) {
            return false;
          }
          out.push_back(a);
          break;
        }
        case kUpdate: {
          StreamAgent a = prev[i++];
          if (!read_update(r, a)) return false;
          out.push_back(a);
          break;
        }
        case kRemove:
          ++i;
          break;
        case kInsert: {
          const std::size_t a_at = r.pos();
          StreamAgent a;
          if (!read_full(r, out.empty() ? nullptr : &out.back(), a)) return false;
          if (i < prev.size() && a.key >= prev[i].key) {
            return r.fail(a_at, "inserted key " + std::to_string(a.key) +
                                    " is not below the next previous agent's key " +
                                    std::to_string(prev[i].key));
          }
          out.push_back(a);
          break;
        }
      }
    }
  }
  return r.ok();
}

}  // namespace

// -- Encoder -----------------------------------------------------------------------------------

StreamEncoder::StreamEncoder(const StreamConfig& config) : m_config(config) {
  CF_ASSERT(m_config.step_m > 0, "StreamConfig::step_m must be > 0");
  m_config.key_every = std::max<std::uint32_t>(m_config.key_every, 1);
}

std::vector<std::uint8_t> StreamEncoder::encode(std::uint64_t tick, double time_s,
                                                float ticks_per_s,
                                                std::span<const VehicleSample> agents,
                                                std::span<const LightState> lights,
                                                std::span<const WalkState> walks, bool force_key) {
  // 1. Quantise and sort into key order; the first of duplicate keys wins.
  m_cur.clear();
  m_cur.reserve(agents.size());
  for (const VehicleSample& v : agents)
    m_cur.push_back(quantise(v, m_config));
  const auto by_key = [](const StreamAgent& a, const StreamAgent& b) { return a.key < b.key; };
  if (!std::is_sorted(m_cur.begin(), m_cur.end(), by_key)) {
    std::stable_sort(m_cur.begin(), m_cur.end(), by_key);
  }
  m_cur.erase(
      std::unique(m_cur.begin(), m_cur.end(),
                  [](const StreamAgent& a, const StreamAgent& b) { return a.key == b.key; }),
      m_cur.end());

  // 2. Header.
  const bool key = force_key || m_seq % m_config.key_every == 0;
  const bool send_lights = key || !same_states(lights, m_prev_lights);
  const bool send_walks = key || !same_states(walks, m_prev_walks);
  std::vector<std::uint8_t> b;
  b.reserve(kHeaderBytes + m_cur.size() * (key ? 14 : 4) + lights.size() / 4 + walks.size() / 4 +
            8);
  for (const std::uint8_t m : kMagic)
    put_u8(b, m);
  put_u8(b, kStreamVersion);
  put_u8(b, static_cast<std::uint8_t>((key ? kFrameKey : 0) | (send_lights ? kFrameLights : 0) |
                                      (send_walks ? kFrameWalks : 0)));
  put_le(b, m_seq, 4);
  put_le(b, tick, 8);
  put_le(b, std::bit_cast<std::uint64_t>(time_s), 8);
  put_le(b, std::bit_cast<std::uint32_t>(ticks_per_s), 4);
  put_le(b, m_cur.size(), 4);
  put_le(b, lights.size(), 4);
  put_le(b, walks.size(), 4);

  // 3. Agents: full records, or ops against the previous frame.
  if (key) {
    for (std::size_t j = 0; j < m_cur.size(); ++j)
      put_full(b, m_cur[j], j > 0 ? &m_cur[j - 1] : nullptr);
  } else {
    // Records of the current run go to `run` until the op changes; then op + run are flushed.
    std::vector<std::uint8_t> run;
    std::vector<std::uint8_t> rec;
    Op run_op = kSkip;
    std::uint64_t run_n = 0;
    const auto emit = [&](Op op) {
      if (run_n > 0 && op != run_op) {
        put_varint(b, (run_n << 2U) | run_op);
        b.insert(b.end(), run.begin(), run.end());
        run.clear();
        run_n = 0;
      }
      run_op = op;
      ++run_n;
    };
    std::size_t i = 0;
    std::size_t j = 0;
    while (i < m_prev.size() || j < m_cur.size()) {
      if (j < m_cur.size() && (i == m_prev.size() || m_cur[j].key < m_prev[i].key)) {
        emit(kInsert);
        put_full(run, m_cur[j], j > 0 ? &m_cur[j - 1] : nullptr);
        ++j;
      } else if (j == m_cur.size() || m_prev[i].key < m_cur[j].key) {
        emit(kRemove);
        ++i;
      } else {
        rec.clear();
        if (put_update(rec, m_cur[j], m_prev[i])) {
          emit(kUpdate);
          run.insert(run.end(), rec.begin(), rec.end());
        } else {
          emit(kSkip);
        }
        ++i;
        ++j;
      }
    }
    if (run_n > 0) {
      put_varint(b, (run_n << 2U) | run_op);
      b.insert(b.end(), run.begin(), run.end());
    }
  }

  // 4. Light and walk states, 2 bits per lane, when they changed (always in key frames).
  if (send_lights) put_states(b, lights);
  if (send_walks) put_states(b, walks);
  keep_states(lights, m_prev_lights);
  keep_states(walks, m_prev_walks);
  std::swap(m_prev, m_cur);
  m_last_key = key;
  ++m_seq;
  return b;
}

// -- Decoder -----------------------------------------------------------------------------------

StreamDecoder::StreamDecoder(const StreamConfig& config) : m_config(config) {}

Result<StreamFrame> StreamDecoder::decode(std::span<const std::uint8_t> message) {
  Reader r(message);
  const auto bad = [&]() { return Error::invalid_input("live stream frame", r.error()); };
  // 1. Header.
  const std::span<const std::uint8_t> magic = r.bytes(4, "the magic \"CFLS\"");
  if (!r.ok()) return bad();
  if (std::memcmp(magic.data(), kMagic, 4) != 0) {
    r.fail(0, "expected the magic \"CFLS\"");
    return bad();
  }
  const std::uint8_t version = r.u8("the version");
  if (r.ok() && version != kStreamVersion) {
    r.fail(4, "expected version " + std::to_string(kStreamVersion) + ", got " +
                  std::to_string(version));
  }
  const std::uint8_t fflags = r.u8("the frame flags");
  if (r.ok() && (fflags & ~(kFrameKey | kFrameLights | kFrameWalks)) != 0) {
    r.fail(5, "expected frame flags with bits 0-2 only, got " + std::to_string(fflags));
  }
  StreamFrame f;
  f.key = (fflags & kFrameKey) != 0;
  if (r.ok() && f.key && (fflags & (kFrameLights | kFrameWalks)) != (kFrameLights | kFrameWalks)) {
    r.fail(5, "expected a key frame to carry light and walk states (flags 7)");
  }
  f.seq = static_cast<std::uint32_t>(r.le(4, "seq"));
  f.tick = r.le(8, "tick");
  f.time_s = std::bit_cast<double>(r.le(8, "time_s"));
  f.ticks_per_s = std::bit_cast<float>(static_cast<std::uint32_t>(r.le(4, "ticks_per_s")));
  const auto count = static_cast<std::uint32_t>(r.le(4, "agent count"));
  const auto n_lights = static_cast<std::uint32_t>(r.le(4, "light count"));
  const auto n_walks = static_cast<std::uint32_t>(r.le(4, "walk count"));
  if (!r.ok()) return bad();
  if (!f.key) {
    if (!m_have || f.seq != m_seq + 1) {
      return Error::invalid_input(
          "live stream frame",
          "byte 6: missing frame: delta frame " + std::to_string(f.seq) + " needs frame " +
              std::to_string(f.seq - 1) + ", " +
              (m_have ? "last decoded " + std::to_string(m_seq) : std::string("none decoded")) +
              "; wait for the next key frame");
    }
    if (!(fflags & kFrameLights) && n_lights != m_lights.size()) {
      r.fail(34, "light count " + std::to_string(n_lights) + " differs from the previous frame's " +
                     std::to_string(m_lights.size()) + " and no states follow");
    }
    if (!(fflags & kFrameWalks) && n_walks != m_walks.size()) {
      r.fail(38, "walk count " + std::to_string(n_walks) + " differs from the previous frame's " +
                     std::to_string(m_walks.size()) + " and no states follow");
    }
  }

  // 2. Agents. A full record is at least 7 bytes; a delta frame's skips cost none.
  const std::size_t most = r.left() / 7 + (f.key ? 0 : m_prev.size());
  if (r.ok() && count > most) {
    r.fail(30, "agent count " + std::to_string(count) + " is more than the message can hold (" +
                   std::to_string(most) + ")");
  }
  std::vector<StreamAgent> agents;
  agents.reserve(r.ok() ? count : 0);
  if (f.key) {
    for (std::uint32_t j = 0; j < count && r.ok(); ++j) {
      StreamAgent a;
      if (read_full(r, agents.empty() ? nullptr : &agents.back(), a)) agents.push_back(a);
    }
  } else if (r.ok()) {
    read_delta(r, m_prev, count, agents);
  }

  // 3. Light and walk states.
  std::vector<LightState> lights = m_lights;
  std::vector<WalkState> walks = m_walks;
  if (fflags & kFrameLights) read_states(r, n_lights, lights, "light states");
  if (fflags & kFrameWalks) read_states(r, n_walks, walks, "walk states");
  if (r.ok() && r.left() != 0) {
    r.fail(r.pos(),
           "expected the end of the frame, " + std::to_string(r.left()) + " bytes are left");
  }
  if (!r.ok()) return bad();

  // 4. Keep the state for the next delta frame, hand out the dequantised frame.
  f.agents.reserve(agents.size());
  for (const StreamAgent& a : agents)
    f.agents.push_back(dequantise(a, m_config));
  f.lights = lights;
  f.walks = walks;
  m_prev = std::move(agents);
  m_lights = std::move(lights);
  m_walks = std::move(walks);
  m_seq = f.seq;
  m_have = true;
  return f;
}

std::string stream_hello_json(const StreamConfig& config, double tick_s, double frame_hz,
                              std::span<const LaneId> signal_lanes,
                              std::span<const LaneId> crosswalk_lanes,
                              std::uint32_t max_message_bytes, double max_messages_per_s) {
  nlohmann::ordered_json j;
  j["format"] = "cityforge-live";
  j["version"] = kStreamVersion;
  j["tick_s"] = tick_s;
  j["frame_hz"] = frame_hz;
  j["origin"] = {config.origin.x, config.origin.y, config.origin.z};
  // The float widened to double: decoders multiply by exactly the value the encoder used.
  j["step_m"] = static_cast<double>(config.step_m);
  j["heading_steps"] = kStreamHeadingSteps;
  j["speed_step_mps"] = 0.1;
  j["key_every"] = config.key_every;
  nlohmann::ordered_json kinds = nlohmann::ordered_json::array();
  for (std::uint8_t k = 0; k < kKindCount; ++k)
    kinds.push_back(to_string(static_cast<EntityKind>(k)));
  j["kinds"] = kinds;
  j["signal_lanes"] = std::vector<LaneId>(signal_lanes.begin(), signal_lanes.end());
  j["crosswalk_lanes"] = std::vector<LaneId>(crosswalk_lanes.begin(), crosswalk_lanes.end());
  j["max_message_bytes"] = max_message_bytes;
  j["max_messages_per_s"] = max_messages_per_s;
  return j.dump();
}

}  // namespace cityforge::traffic
