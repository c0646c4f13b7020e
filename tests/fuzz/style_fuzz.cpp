// SPDX-License-Identifier: Apache-2.0
// Fuzz target for building definition files (parse_style: the BDF and its facade grammars).
// Driver and modes: fuzz_driver.hpp.
#include <string_view>

#include "cityforge/buildings/style.hpp"
#include "fuzz_main.hpp"

namespace cityforge::fuzz {
const Target& fuzz_target() {
  static const Target t{"style",
                        {"data/styles"},
                        {},
                        json_tokens({"split", "repeat", "fill", "module", "ground", "upper"}),
                        20000};
  return t;
}
}  // namespace cityforge::fuzz

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace cityforge;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  Result<buildings::Style> s = buildings::parse_style(text, "fuzz.json");
  fuzz::check(s, "fuzz.json");
  return 0;
}
