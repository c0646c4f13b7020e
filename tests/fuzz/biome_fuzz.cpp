// SPDX-License-Identifier: Apache-2.0
// Fuzz target for biome files (parse_biome). Driver and modes: fuzz_driver.hpp.
#include <string_view>

#include "cityforge/dressing/dressing.hpp"
#include "fuzz_main.hpp"

namespace cityforge::fuzz {
const Target& fuzz_target() {
  static const Target t{"biome", {"data/biomes"}, {}, json_tokens(), 20000};
  return t;
}
}  // namespace cityforge::fuzz

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace cityforge;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  Result<dressing::Biome> b = dressing::parse_biome(text, "fuzz.json");
  fuzz::check(b, "fuzz.json");
  return 0;
}
