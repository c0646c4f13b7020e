// SPDX-License-Identifier: Apache-2.0
// Fuzz target for traffic recordings (.cfrec: header, lane tables, frames, index, trailer),
// parse_recording. Driver and modes: fuzz_driver.hpp.
#include <span>

#include "cityforge/traffic/recording.hpp"
#include "fuzz_main.hpp"

namespace cityforge::fuzz {
const Target& fuzz_target() {
  static const Target t{
      "recording",
      {"tests/fuzz/corpus/recording"},
      {},
      {"CFRECORD", "FRAM", "INDX", "CEND", std::string(4, '\xff'), std::string(8, '\0'),
       std::string("\x00\x00\x00\x80", 4), std::string("\xff\xff\xff\x7f", 4)},
      30000};
  return t;
}
}  // namespace cityforge::fuzz

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace cityforge;
  Result<traffic::Recording> r = traffic::parse_recording(std::span(data, size), "fuzz.cfrec");
  fuzz::check(r, "fuzz.cfrec");
  return 0;
}
