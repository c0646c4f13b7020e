// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "cityforge/core/result.hpp"

/// `cityforge building` (docs/styles.md): one building from a style, written as glTF, for
/// iterating on a style as an artist.
namespace cityforge::exporter {

struct OneBuildingOptions {
  std::string style = "brick_walkup";   ///< A built-in style name, or a BDF .json path.
  std::string footprint = "rectangle";  ///< lots::FootprintShape name.
  std::string size = "20x14";           ///< WIDTHxDEPTH in metres, each in (0, 1000).
  double height_m = 18.0;               ///< [the style's ground floor, 1000]
  std::string massing = "plain";        ///< plain, cubified or staggered.
  double shape_param = 0.5;             ///< Footprint proportion (notch, wing, cut).
  std::uint64_t seed = 1;
  std::string out = "building.glb";
};

/// What write_one_building wrote.
struct OneBuildingReport {
  std::string summary;  ///< One console line ending in '\n'.
};

/// Loads the style (a name among the built-in styles, or the one file when `style` has a '/'
/// or ends in .json), makes the building's DNA (footprint, size, three height layers from the
/// style's levels, massing) on one lot whose front edge is the street, generates it
/// (buildings::generate_lot) and writes options.out (exporter::building_glb) through a
/// temporary name. `warning` (optional) is told when the footprint's shortest wall is under the
/// style's min_wall_m (the city would not build it). Errors name the option (--style,
/// --footprint, --size, --height, --massing) or the style file.
Result<OneBuildingReport> write_one_building(
    const OneBuildingOptions& options, const std::function<void(const std::string&)>& warning = {});

}  // namespace cityforge::exporter
