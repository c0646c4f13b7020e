// SPDX-License-Identifier: Apache-2.0
#pragma once

// learn_from_examples with the place an error is reported at chosen by the caller (the JSON
// reader names the file and the example's JSON pointer).

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "cityforge/wfc/wfc.hpp"

namespace cityforge::wfc::detail {

/// As learn_from_examples; errors in example i are reported at where_of(i).
Result<std::vector<std::uint32_t>> learn_examples(
    Model& model, const std::vector<Example>& examples,
    const std::function<std::string(std::size_t)>& where_of);

}  // namespace cityforge::wfc::detail
