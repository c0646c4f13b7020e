// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string_view>

namespace cityforge::pipeline {

/// The built-in default city: the text of data/default-city.json, embedded at build time so
/// `cityforge generate` works with no file at hand.
std::string_view default_city_json();

}  // namespace cityforge::pipeline
