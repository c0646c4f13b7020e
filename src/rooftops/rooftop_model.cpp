// SPDX-License-Identifier: Apache-2.0
// The built-in rooftop model: data/wfc/rooftop.json, embedded at build time with the other
// built-in models of the wfc library, parsed and learned from its example layouts.

#include "cityforge/rooftops/rooftops.hpp"

namespace cityforge::rooftops {

Result<wfc::Model> builtin_rooftop_model() {
  static constexpr const char* kName = "wfc/rooftop.json";
  for (const auto& [name, text] : wfc::builtin_model_sources()) {
    if (name == kName) {
      return wfc::parse_model(text, kName);
    }
  }
  return Error::internal(kName, "the built-in rooftop model is not embedded in this build");
}

}  // namespace cityforge::rooftops
