// SPDX-License-Identifier: Apache-2.0
// Names of the traffic enums (stats, recordings, docs).
#include "cityforge/traffic/recording.hpp"
#include "cityforge/traffic/traffic.hpp"

namespace cityforge::traffic {

const char* to_string(VehicleType t) {
  switch (t) {
    case VehicleType::car:
      return "car";
    case VehicleType::van:
      return "van";
    case VehicleType::bus:
      return "bus";
    case VehicleType::truck:
      return "truck";
  }
  return "?";
}

const char* to_string(EntityKind k) {
  switch (k) {
    case EntityKind::car:
      return "car";
    case EntityKind::van:
      return "van";
    case EntityKind::bus:
      return "bus";
    case EntityKind::truck:
      return "truck";
    case EntityKind::player:
      return "player";
    case EntityKind::pedestrian:
      return "pedestrian";
  }
  return "?";
}

}  // namespace cityforge::traffic
