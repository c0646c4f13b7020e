// SPDX-License-Identifier: Apache-2.0
// Fuzz target for the city JSON reader (parse_city_config: syntax, the field tables, the
// layout's own validation). Driver and modes: fuzz_driver.hpp.
#include <string_view>

#include "cityforge/pipeline/city_config.hpp"
#include "fuzz_main.hpp"

namespace cityforge::fuzz {
const Target& fuzz_target() {
  static const Target t{"city_config",
                        {"data/default-city.json", "data/examples", "tests/fuzz/tiny-city.json"},
                        {},
                        json_tokens(),
                        20000};
  return t;
}
}  // namespace cityforge::fuzz

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace cityforge;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  Result<pipeline::CityConfig> c = pipeline::parse_city_config(text, "fuzz.json");
  fuzz::check(c, "fuzz.json");
  return 0;
}
