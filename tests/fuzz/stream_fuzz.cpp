// SPDX-License-Identifier: Apache-2.0
// Fuzz target for the live stream's frame decoder (StreamDecoder::decode, what the browser's
// decoder mirrors). An input is a sequence of frames, each a little-endian u32 length and its
// bytes (viewer/test/fixtures/stream_frames.bin, the seed, is 12 of them). Driver: fuzz_driver.hpp.
#include <algorithm>
#include <cstring>
#include <span>

#include "cityforge/traffic/stream.hpp"
#include "fuzz_main.hpp"

namespace cityforge::fuzz {
const Target& fuzz_target() {
  static const Target t{
      "stream",
      {"tests/fuzz/corpus/stream"},
      {},
      {std::string(4, '\0'), std::string(4, '\xff'), std::string("\x00\x00\x00\x80", 4),
       std::string("\x01\x00\x00\x00", 4), std::string("\x10\x00\x00\x00", 4)},
      30000};
  return t;
}
}  // namespace cityforge::fuzz

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace cityforge;
  traffic::StreamDecoder decoder(traffic::StreamConfig{Vec3{-500.0f, -400.0f, -10.0f}, 0.02f, 5});
  std::size_t at = 0;
  while (size - at >= 4) {
    std::uint32_t n = 0;
    for (unsigned i = 0; i < 4; ++i)
      n |= static_cast<std::uint32_t>(data[at + i]) << (8 * i);
    at += 4;
    const std::size_t len = std::min<std::size_t>(n, size - at);
    Result<traffic::StreamFrame> f = decoder.decode(std::span(data + at, len));
    if (!f && f.error().message.empty()) fuzz::broken("a frame error without a message");
    if (f) fuzz::accepted();
    at += len;
  }
  return 0;
}
