// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstddef>
#include <string>

#include "cityforge/core/atomic_file.hpp"
#include "cityforge/core/result.hpp"
#include "cityforge/freeway/freeway.hpp"
#include "cityforge/layout/layout.hpp"
#include "cityforge/roads/roads.hpp"
#include "cityforge/terrain/heightfield.hpp"

/// ASAM OpenDRIVE export of the street network (docs/opendrive.md): the map CARLA, esmini and
/// SUMO's netconvert drive on, in the same local frame as city.glb and lanes.json.
namespace cityforge::exporter {

/// What to write.
struct OpenDriveOptions {
  int rev_minor = 4;     ///< 4 (OpenDRIVE 1.4, what CARLA reads) or 8 (1.8).
  std::string name;      ///< header/@name.
  std::string geo_proj;  ///< PROJ definition of the local frame (imports); "" = none.
};

/// Counts of the written map (stats and tests).
struct OpenDriveStats {
  std::size_t roads = 0;             ///< Every road, connecting roads included.
  std::size_t connecting_roads = 0;  ///< One per junction connector.
  std::size_t junctions = 0;
  std::size_t signalised_junctions = 0;
  std::size_t traffic_lights = 0;  ///< signal elements of type 1000001.
  std::size_t signs = 0;           ///< Stop (206) and yield (205) signs.
  std::size_t controllers = 0;
  std::size_t crosswalks = 0;
  std::size_t bridges = 0;       ///< bridge objects (imported bridges).
  std::size_t tunnels = 0;       ///< tunnel objects (imported tunnels).
  std::size_t geometries = 0;    ///< planView primitives.
  std::size_t elevations = 0;    ///< elevationProfile pieces.
  std::size_t shapes = 0;        ///< lateralProfile shape records.
  double max_fit_error_m = 0.0;  ///< Largest distance of a connector sample from its curve.
};

/// The map and its side file.
struct OpenDriveFiles {
  std::string xodr;            ///< opendrive/city.xodr (empty when written to a sink).
  std::size_t xodr_bytes = 0;  ///< Its size.
  /// opendrive/city.json: our lane id -> (road, lane id) for every vehicle lane, and the
  /// signal phase plans by controller (OpenDRIVE has no phases). Format in docs/opendrive.md.
  std::string side_json;
  OpenDriveStats stats;
};

/// Writes the streets of `roads` (sections as roads, junction connectors as connecting roads,
/// junctions, signals, signs, crosswalks, imported bridges and tunnels as objects) and, when
/// `freeway` is given, its decks and ramps as OpenDRIVE. Road z follows the drawn road surface
/// (roads::road_surface_z); freeway and ramp z the lanes' (the deck top).
///
/// Ids: road k = section k; connecting roads of the street junctions next (one per connector,
/// by junction, then lane id); then the freeway's roads in its lane order (one per deck piece
/// of one direction, between ramp diverges and merges, lanes -1 at the median to -n at the
/// curb; one per ramp and per deck-end turnaround). Junction j = layout node j; the deck-end
/// turnarounds get junctions from the node count on. An interchange's off-ramp, on-ramp and
/// the deck piece between its diverge and merge are connecting roads of the street junction
/// where the ramps meet the artery (1.4 has no direct junctions; each road end belongs to one
/// junction). Deterministic: the same inputs give the same bytes. Errors (invalid_input) on a
/// non-finite number, naming the road; on rev_minor other than 4 or 8.
Result<OpenDriveFiles> opendrive(const layout::Output& city, const roads::Output& roads,
                                 const terrain::Heightfield& ground, const roads::Config& config,
                                 const OpenDriveOptions& options,
                                 const freeway::Output* freeway = nullptr);

/// The same map written to `xodr` a megabyte at a time as it is made (the returned `xodr` is
/// empty; `xodr_bytes` is its size): what the city folder's export uses, so a region's map is
/// never held whole. A sink's error stops it and is the error.
Result<OpenDriveFiles> opendrive(const ByteSink& xodr, const layout::Output& city,
                                 const roads::Output& roads, const terrain::Heightfield& ground,
                                 const roads::Config& config, const OpenDriveOptions& options,
                                 const freeway::Output* freeway = nullptr);

}  // namespace cityforge::exporter
