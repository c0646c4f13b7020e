// SPDX-License-Identifier: Apache-2.0
// Fuzz target for the messages a live client sends (parse_control). Driver: fuzz_driver.hpp.
#include <string_view>

#include "cityforge/server/live.hpp"
#include "fuzz_main.hpp"

namespace cityforge::fuzz {
const Target& fuzz_target() {
  static const Target t{
      "live_control",
      {},
      {R"({"type":"viewer","x":1,"y":2,"z":3,"yaw_deg":45})",
       R"({"type":"player","x":1,"y":2,"z":0,"heading_rad":0.5,"speed_mps":3})",
       R"({"type":"player_off"})", R"({"type":"time","hour":7.5,"day_length_s":600})",
       R"({"type":"weather","kind":"rain","fog":true})",
       R"({"type":"density","vehicles":0.5,"pedestrians":2})"},
      json_tokens({"type", "viewer", "player", "time", "weather", "density", "hour", "kind"}),
      30000};
  return t;
}
}  // namespace cityforge::fuzz

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace cityforge;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  Result<server::Control> c = server::parse_control(text);
  fuzz::check(c, "live message");
  return 0;
}
