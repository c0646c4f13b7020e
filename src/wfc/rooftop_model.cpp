// SPDX-License-Identifier: Apache-2.0
// The built-in rooftop model: data/wfc/rooftop.json, embedded at build time, parsed and learned
// from its example layouts.

#include "cityforge/wfc/rooftops.hpp"

namespace cityforge::wfc {

Result<Model> builtin_rooftop_model() {
  static constexpr const char* kName = "wfc/rooftop.json";
  for (const auto& [name, text] : builtin_model_sources()) {
    if (name == kName) {
      return parse_model(text, kName);
    }
  }
  return Error::internal(kName, "the built-in rooftop model is not embedded in this build");
}

}  // namespace cityforge::wfc
