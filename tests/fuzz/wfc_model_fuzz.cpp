// SPDX-License-Identifier: Apache-2.0
// Fuzz target for WFC model files (parse_model: tiles, symmetries, constraints, examples).
// Driver and modes: fuzz_driver.hpp.
#include <string_view>

#include "cityforge/wfc/wfc.hpp"
#include "fuzz_main.hpp"

namespace cityforge::fuzz {
const Target& fuzz_target() {
  static const Target t{
      "wfc_model", {"data/wfc"}, {}, json_tokens({"X", "L", "T", "I", "\\\\", "F"}), 20000};
  return t;
}
}  // namespace cityforge::fuzz

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace cityforge;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  Result<wfc::Model> m = wfc::parse_model(text, "fuzz.json");
  fuzz::check(m, "fuzz.json");
  return 0;
}
