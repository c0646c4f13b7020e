// SPDX-License-Identifier: Apache-2.0
// The car as the metrics and the test hook see it: front-axle pose, lane match and footprint.

import { footprint, frontAxle, frontBumper } from './physics.js';

/** Whether a lanes.json lane is a connector inside a junction. */
export function laneIsConnector(lane) {
  return !!lane && ((lane.tags || []).includes('intersection') || (lane.intersection ?? -1) >= 0);
}

/** The lane fields of a car's state from its lane match (null when off every lane): lane,
 *  s_m, lateral_m, heading_err_rad, width_m, speed_limit_mps, connector. */
export function laneFields(match, index) {
  const lane = match ? index.lane(match.lane) : null;
  return {
    lane: match ? match.lane : null,
    s_m: match ? match.s_m : null,
    lateral_m: match ? match.lateral_m : null,
    heading_err_rad: match ? match.heading_err_rad : null,
    width_m: match ? match.width_m : null,
    speed_limit_mps: match ? match.speed_limit_mps : null,
    connector: laneIsConnector(lane),
  };
}

/** Snapshot of the car: {x, y (front axle), z, heading_rad, speed_mps, accel_mps2, gear,
 *  lane, s_m, lateral_m, heading_err_rad, width_m, speed_limit_mps, connector, controls,
 *  front (bumper), box (footprint)}. `match`: LaneIndex.match of the footprint centre. */
export function observe(car, match, z, index) {
  const f = frontAxle(car);
  return {
    x: f.x,
    y: f.y,
    z,
    heading_rad: car.heading_rad,
    speed_mps: car.speed_mps,
    accel_mps2: car.accel_mps2,
    gear: car.gear,
    ...laneFields(match, index),
    controls: { ...car.controls },
    front: frontBumper(car),
    box: footprint(car),
  };
}
