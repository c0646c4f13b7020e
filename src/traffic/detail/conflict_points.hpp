// SPDX-License-Identifier: Apache-2.0
// Where conflicting connectors cross (internal; conflict_points.cpp).
#pragma once

#include "cityforge/traffic/network.hpp"

namespace cityforge::traffic::detail {

/// Fills net.conflict_s from the connector polylines (conflicts must be built).
void compute_conflict_points(Network& net);

/// Arc length along `lane` of its crossing with `other` (net.conflict_s), or the lane's length
/// when `other` is not in its conflict list.
float conflict_point(const Network& net, LaneId lane, LaneId other);

}  // namespace cityforge::traffic::detail
