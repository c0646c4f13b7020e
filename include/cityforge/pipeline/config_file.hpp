// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>

#include "cityforge/core/result.hpp"
#include "cityforge/pipeline/city_config.hpp"

/// Reading a city JSON from disk with the files it names. Stages never touch files; this is
/// what `cityforge generate` and `cityforge import` call before them.
namespace cityforge::pipeline {

/// How errors name the built-in default city (data/default-city.json, embedded).
inline constexpr const char* kBuiltInCitySource = "<built-in default-city.json>";

/// Reads and checks a city JSON (the built-in default city when `path` is empty) with the style
/// and biome files it names (`buildings.style_files`, `dressing.biome_files`), read relative to
/// the JSON's folder (the current folder for the built-in city) unless absolute; their texts
/// replace the built-in style and biome sources. Errors: an unreadable file (io, names it), or
/// whatever parse_city_config says (invalid_input, "<path>: <JSON pointer>").
Result<CityConfig> load_city_config_file(const std::string& path);

/// The name errors give the config at `path`: the path, or kBuiltInCitySource when empty.
std::string city_config_source(const std::string& path);

/// A stage's error names the element ("freeways[0].points[3]"); an input error gets the
/// config's `source` in front unless it already starts with it.
Error with_config_source(Error error, const std::string& source);

/// The whole of a hand-written file (a city JSON, a style, a biome) as bytes in a string, refused
/// when longer than JsonLimits' max_bytes. Errors name the path.
Result<std::string> read_text_file(const std::string& path);

}  // namespace cityforge::pipeline
