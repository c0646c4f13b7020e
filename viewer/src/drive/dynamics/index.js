// SPDX-License-Identifier: Apache-2.0
// Vehicle dynamics and collisions for drive mode (issue 25): a Rapier world in the city frame
// (metres, x east, y north, z up) holding the driven car(s), the buildings' walls, props and
// the traffic and crowd as kinematic bodies. API and model: docs/vehicles.md.

import RAPIER from '@dimforge/rapier3d-compat';

import { buildBuildings, buildProps, AgentBodies } from './colliders.js';
import { validateVehicle } from './spec.js';
import {
  createVehicle,
  DYN,
  finishVehicle,
  placeGround,
  prepareVehicle,
  WHEEL_RAY_GROUPS,
} from './vehicle.js';

export { validateVehicle, DYN };

const MAX_FRAME_S = 0.25; // Longer frames (a stalled tab) are cut to this, as drive mode does.
const CONTACT_GAP_S = 1.0; // A contact that ends and starts again within this is the same one.

let ready = null;

/** Loads Rapier's WebAssembly once; later calls return the same promise. */
export function initPhysics() {
  if (!ready) ready = RAPIER.init().then(() => RAPIER);
  return ready;
}

/** Creates the collision world. Call after `await initPhysics()`.
 *  @param {object} o
 *  @param {(x:number, y:number) => number} [o.groundHeight] road height under (x, y); default 0
 *  @param {Array<Array<[number, number]>>} [o.buildings] footprint rings; other_id = index
 *  @param {Array<{id, x, y, radius_m, kind}>} [o.props] posts, trees, ... as upright cylinders */
export function createPhysicsWorld(o = {}) {
  if (!ready) throw new Error('createPhysicsWorld: await initPhysics() first');
  const R = RAPIER;
  const groundHeight = o.groundHeight || (() => 0);
  const rw = new R.World({ x: 0, y: 0, z: -DYN.gravity_mps2 });
  rw.timestep = DYN.step_s;
  const events = new R.EventQueue(true);
  const info = new Map(); // Collider handle -> {with, other_id, other_kind, vel()}.

  const t0 = performance.now();
  buildBuildings(R, rw, o.buildings || [], groundHeight, info);
  buildProps(R, rw, o.props || [], groundHeight, info);
  const agents = new AgentBodies(R, rw, groundHeight, info);
  const buildMs = performance.now() - t0;

  const cars = [];
  const touching = new Map(); // "carHandle:otherHandle" -> {active, last_s}.
  let acc = 0;
  let time = 0;

  function fixedStep(contacts) {
    const dt = DYN.step_s;
    agents.advance(dt);
    const pre = new Map();
    for (const car of cars) {
      prepareVehicle(car, dt);
      placeGround(car, groundHeight);
      car.ctl.updateVehicle(dt, undefined, WHEEL_RAY_GROUPS);
      pre.set(car.collider.handle, { car, v: car.body.linvel() });
    }
    rw.step(events);
    time += dt;
    for (const car of cars) finishVehicle(car, dt);
    events.drainCollisionEvents((h1, h2, started) => {
      const a = pre.has(h1) ? h1 : pre.has(h2) ? h2 : null;
      if (a === null) return;
      const other = a === h1 ? h2 : h1;
      const what = info.get(other) || (pre.has(other) ? { with: 'vehicle', other_id: 'car', other_kind: 'car', vel: () => pre.get(other).v } : null);
      if (!what) return; // The car's own ground box.
      // Building tiles hold many buildings: the contact episode is per tile.
      const key = `${a}:${other}`;
      const t = touching.get(key) || { active: false, last_s: -Infinity };
      touching.set(key, t);
      if (!started) {
        t.active = false;
        t.last_s = time;
        return;
      }
      const isNew = !t.active && time - t.last_s > CONTACT_GAP_S;
      t.active = true;
      if (!isNew) return;
      const { car, v } = pre.get(a);
      const ov = what.vel();
      const p = contactPoint(rw, a, other) || car.state();
      contacts.push({
        with: what.with,
        other_id: what.resolve ? what.resolve(p) : what.other_id,
        other_kind: what.resolveKind ? what.resolveKind(p) : what.other_kind,
        impact_speed_mps: Math.hypot(v.x - ov.x, v.y - ov.y, v.z - (ov.z || 0)),
        x: p.x,
        y: p.y,
      });
    });
  }

  return {
    /** Seconds it took to build the static colliders (buildings and props). */
    build_ms: buildMs,
    /** Adds a car. pose: front-axle centre {x, y, z (road height), heading_rad, speed_mps};
     *  opts.grip: tyre friction multiplier (weather), default 1. */
    addCar(spec, pose, opts = {}) {
      const s = Object.isFrozen(spec) ? spec : validateVehicle(spec, `${spec && spec.name}.json`);
      const p = { ...pose };
      if (p.z == null) p.z = groundHeight(p.x, p.y);
      const car = createVehicle(R, rw, s, p, opts);
      cars.push(car);
      return car;
    },
    /** Sets the tyre friction multiplier of every car (docs/vehicles.md, weather grip). */
    setGrip(factor) {
      for (const car of cars) car.grip = factor;
    },
    /** Replaces the traffic and crowd (kinematic bodies; moved on at their velocities each step
     *  until the next call). */
    setAgents(a) {
      agents.set(a || {});
    },
    /** Advances by dt_s in fixed 0.01 s steps with the first car's controls {throttle 0..1,
     *  brake 0..1, steer -1..1 (left +), handbrake}. Returns the contacts that started. */
    step(dt_s = DYN.step_s, controls = null) {
      if (controls && cars[0]) cars[0].controls = controls;
      acc += Math.min(dt_s, MAX_FRAME_S);
      const contacts = [];
      while (acc >= DYN.step_s - 1e-9) {
        acc -= DYN.step_s;
        fixedStep(contacts);
      }
      return contacts;
    },
    /** Drive time stepped so far (s). */
    time: () => time,
    /** Frees the Rapier world; the object must not be used afterwards. */
    dispose() {
      for (const car of cars) car.dispose();
      cars.length = 0;
      events.free();
      rw.free();
    },
  };
}

function contactPoint(rw, h1, h2) {
  const c1 = rw.getCollider(h1);
  const c2 = rw.getCollider(h2);
  if (!c1 || !c2) return null;
  // The point on the other collider nearest the car (world frame); sensors count too.
  const c = c2.contactCollider(c1, 0.5);
  return c ? c.point1 : null;
}
