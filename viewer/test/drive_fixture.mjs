// SPDX-License-Identifier: Apache-2.0
// A small synthetic lanes.json for the drive and metrics tests: one signalised junction at
// the origin. Eastbound approach lane 0 (y = -1.75) ends at x = -10; connector 1 goes through
// to exit lane 3, connector 2 turns right to exit lane 4 (southbound, x = -1.75); lane 5 is
// the westbound lane beside lane 0 and lane 6 the eastbound lane left of lane 0.

import { LaneIndex } from '../src/drive/lanes.js';
import { createCar, stepCar, updateControls } from '../src/drive/physics.js';
import { observe } from '../src/drive/state.js';

function line(x0, y0, x1, y1, n = 10) {
  const pts = [];
  for (let i = 0; i <= n; i++) pts.push([x0 + ((x1 - x0) * i) / n, y0 + ((y1 - y0) * i) / n, 0.01 * i]);
  return pts;
}

function arc(cx, cy, r, a0, a1, n = 12) {
  const pts = [];
  for (let i = 0; i <= n; i++) {
    const a = a0 + ((a1 - a0) * i) / n;
    pts.push([cx + r * Math.cos(a), cy + r * Math.sin(a), 0]);
  }
  return pts;
}

const LIMIT = 50 / 3.6;

function lane(id, tags, points, extra = {}) {
  return { id, tags, width_m: 3.5, speed_limit_mps: LIMIT, intersection: -1, successors: [],
    predecessors: [], points, ...extra };
}

export function junction() {
  return {
    format: 'cityforge-lanes',
    version: 1,
    lanes: [
      lane(0, ['vehicle'], line(-200, -1.75, -10, -1.75, 38), { successors: [1, 2], left_neighbour: 6 }),
      lane(1, ['vehicle', 'intersection'], line(-10, -1.75, 10, -1.75, 4),
        { intersection: 0, predecessors: [0], successors: [3], turn: 'through' }),
      lane(2, ['vehicle', 'intersection'], arc(-10, -10, 8.25, Math.PI / 2, 0),
        { intersection: 0, predecessors: [0], successors: [4], turn: 'right' }),
      lane(3, ['vehicle'], line(10, -1.75, 200, -1.75, 38), { predecessors: [1] }),
      lane(4, ['vehicle'], line(-1.75, -10, -1.75, -200, 38), { predecessors: [2] }),
      lane(5, ['vehicle'], line(-10, 1.75, -200, 1.75, 38)),
      lane(6, ['vehicle'], line(-200, -5.25, -10, -5.25, 38), { right_neighbour: 0 }),
      lane(7, ['sidewalk'], line(-200, -9, -10, -9, 38), { width_m: 2 }),
    ],
    intersections: [{ id: 0, node: 0, position: [0, 0], control: 'signal', legs: [] }],
    signals: [{ intersection: 0, offset_s: 0, cycle_s: 60,
      phases: [{ green_s: 25, yellow_s: 3, all_red_s: 2, green: [1, 2], walk: [] },
        { green_s: 25, yellow_s: 3, all_red_s: 2, green: [], walk: [] }] }],
  };
}

/** Feeds a recorder a scripted trajectory: pose(t) -> {x, y, heading_rad, speed_mps} of the
 *  front axle, sampled every dt for `seconds`; world(t) -> {signal, pedestrians, vehicles}. */
export function script(rec, index, pose, world, seconds, dt = 0.01) {
  let match = null;
  const steps = Math.round(seconds / dt);
  for (let i = 0; i <= steps; i++) {
    const t = i * dt;
    const p = pose(t);
    const car = createCar(p.x, p.y, p.heading_rad, p.speed_mps);
    car.accel_mps2 = p.accel_mps2 ?? 0;
    const box = observe(car, null, 0, index).box;
    match = index.match(box.x, box.y, p.heading_rad, match ? match.lane : null);
    const w = world(t);
    rec.step(i === 0 ? 0 : dt, observe(car, match, match ? match.z : 0, index), { sim_s: t, ...w });
  }
}

/** Straight eastbound run along y at constant speed, front axle at x0 at t = 0. */
export function eastbound(x0, speed_mps, y = -1.75) {
  return (t) => ({ x: x0 + speed_mps * t, y, heading_rad: 0, speed_mps });
}

/** Pose along a chain of lanes at constant speed (front axle s0 + v t along them). */
export function alongLanes(index, chain, s0, speed_mps) {
  return (t) => {
    let s = s0 + speed_mps * t;
    for (let i = 0; i < chain.length; i++) {
      const len = index.length(chain[i]);
      if (s <= len || i === chain.length - 1) {
        const p = index.pointAt(chain[i], s);
        return { x: p.x, y: p.y, heading_rad: p.heading_rad, speed_mps };
      }
      s -= len;
    }
    return null;
  };
}

/** Holds keys for `seconds` in physics steps of dt; returns the car. */
export function hold(car, keys, seconds, dt = 0.01, each = null) {
  const k = { up: false, down: false, left: false, right: false, handbrake: false, ...keys };
  for (let i = 0; i < Math.round(seconds / dt); i++) {
    updateControls(car, k, dt);
    stepCar(car, dt);
    if (each) each(car);
  }
  return car;
}

export { LaneIndex, LIMIT };
