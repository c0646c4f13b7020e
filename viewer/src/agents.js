// SPDX-License-Identifier: Apache-2.0
// Vehicles and pedestrians as instanced meshes, one per kind and level of detail, following
// frames from the recording or the live stream. Between two frames agents are interpolated by
// id (docs/recording.md "Interpolating between frames"): new ids appear at their pose, the
// heading turns the short way. Levels by distance to the camera: pedestrians near it are the
// rigged, animated bodies of agent_models.js (within a triangle budget), then a three-box
// figure, then one box; vehicles near it are models with rolling, steering wheels, then one
// box. Crossing a level's distance an agent fades by dithering from one level to the next.
// Colours: by appearance variant (the same outfit at every level), or by the simulation's level
// of detail (red high, yellow medium, green low, grey off).

import * as THREE from 'three';
import { mergeGeometries } from 'three/addons/utils/BufferGeometryUtils.js';
import {
  WHEELBASE, WHEEL_RADIUS, appearance, cycleLength, gaitOf, personMaterial, personModel,
  plainMaterial, triangleCount, vehicleMaterial, vehicleModel,
} from './agent_models.js';
import { KIND_NAMES, KIND_PEDESTRIAN, KIND_PLAYER, STATE_DOWN } from './recording.js';

const FLAG_NEW = 8;
const LYING_LIFT_M = 0.15; // A lying body's half thickness (the torso's depth / 2 and a bit).
const LOD_COLOURS = [0xe8382f, 0xf2d024, 0x35c24a, 0x8a8a8a].map((c) => new THREE.Color(c));
const CAR_PAINT = [0xb0b4b8, 0x1d3f8c, 0x8c1d1d, 0xeeeeee, 0x202020, 0x2f6b3a, 0xc48a1a, 0x5a5f66];
const PLAYER_COLOUR = new THREE.Color(0x00e5ff);

/// A box with a vertex colour, placed with its minimum corner at (x0, y0, z0) (local metres:
/// +x forward, +y up, +z right side).
function box(x0, y0, z0, sx, sy, sz, shade) {
  const g = new THREE.BoxGeometry(sx, sy, sz);
  g.translate(x0 + sx / 2, y0 + sy / 2, z0 + sz / 2);
  const c = new Float32Array(g.attributes.position.count * 3).fill(shade);
  g.setAttribute('color', new THREE.BufferAttribute(c, 3));
  return g;
}

/// The middle level of a pedestrian: a person of boxes (36 triangles): legs, torso, head; 1.75 m
/// tall, origin at the feet.
function personBoxes() {
  return mergeGeometries([
    box(-0.12, 0, -0.17, 0.24, 0.85, 0.34, 0.35),
    box(-0.14, 0.85, -0.22, 0.28, 0.65, 0.44, 1.0),
    box(-0.11, 1.52, -0.11, 0.22, 0.23, 0.22, 0.9),
  ]);
}

/// The far version of each kind: one box of the same size (12 triangles), drawn beyond the
/// kind's last level distance where the shape cannot be told apart; software WebGL pays per
/// triangle.
function farGeometryFor(kind) {
  switch (KIND_NAMES[kind]) {
    case 'pedestrian': return box(-0.14, 0, -0.22, 0.28, 1.75, 0.44, 0.7);
    case 'bus': return box(-9.8, 0, -1.25, 12, 3.1, 2.5, 0.9);
    case 'truck': return box(-8.6, 0, -1.25, 9.6, 3.4, 2.5, 0.9);
    case 'van': return box(-4.3, 0, -1.0, 5.2, 2.3, 2.0, 0.9);
    case 'player': return box(-3.7, 0, -0.95, 4.6, 1.5, 1.9, 0.9);
    default: return box(-3.6, 0, -0.92, 4.5, 1.45, 1.85, 0.9);
  }
}

/// Level distances (m): an agent nearer than a level's distance is drawn by that level (the
/// first level whose distance it is within), fading over a band of FADE_SHARE x the distance.
/// The pedestrians' first distance shrinks when more bodies than PERSON_BUDGET_TRIS allow
/// would be within it (seeds/002: a fixed polygon budget for the crowd's cheap meshes).
const LEVEL_M = { vehicle: [90], pedestrian: [40, 90] };
const FADE_SHARE = 0.2;
const PERSON_BUDGET_TRIS = 200_000;

function levelGeometries(kind) {
  const name = KIND_NAMES[kind];
  if (name === 'pedestrian') return [personModel(), personBoxes(), farGeometryFor(kind)];
  return [vehicleModel(name), farGeometryFor(kind)];
}

function hashVariant(id, variant) {
  let h = (id * 2654435761) ^ (variant * 40503);
  h = Math.imul(h ^ (h >>> 16), 2246822507);
  return (h ^ (h >>> 13)) >>> 0;
}

/// The drawn vehicles' interpolated poses (city frame) of the last update, for the vehicle
/// lights: index into frame b, x, y, z (front axle on the road), heading (rad).
function makePoses(capacity) {
  return {
    count: 0,
    index: new Int32Array(capacity),
    x: new Float32Array(capacity),
    y: new Float32Array(capacity),
    z: new Float32Array(capacity),
    heading: new Float32Array(capacity),
  };
}

const FRESH_AFTER_M = 10; // a jump longer than this between updates restarts the animation state

/// Per-agent animation state of the agents drawn near: position at the last update, the walk
/// cycle's phase (pedestrians), the distance rolled and the steering angle (vehicles).
class Motion {
  constructor() {
    this.map = new Map();
    this.gen = 0;
  }

  /// The state of `key` after moving to (x, y) with heading h; `seed` in [0, 1) starts a new one.
  step(key, x, y, h, seed) {
    let m = this.map.get(key);
    if (!m || m.gen < this.gen - 1 || Math.hypot(x - m.x, y - m.y) > FRESH_AFTER_M) {
      m = { x, y, h, phase: seed, rolled: seed * 10, steer: 0, ds: 0, dh: 0, gen: this.gen };
      this.map.set(key, m);
      return m;
    }
    m.ds = Math.hypot(x - m.x, y - m.y);
    let dh = h - m.h;
    dh -= Math.floor((dh + Math.PI) / (2 * Math.PI)) * 2 * Math.PI;
    m.dh = dh;
    m.x = x;
    m.y = y;
    m.h = h;
    m.gen = this.gen;
    return m;
  }

  /// Next update; forgets agents not seen for two updates now and then.
  next() {
    this.gen++;
    if (this.gen % 64 === 0) {
      for (const [k, m] of this.map) if (m.gen < this.gen - 2) this.map.delete(k);
    }
  }
}

/// The meshes' per-instance attributes beyond the matrix and colour, by level geometry.
function instanceAttributes(geometry) {
  if (geometry.name === 'person') return { aLook: 4, aAnim: 4 };
  if (geometry.attributes.aWheel) return { aDrive: 2 };
  return {};
}

export class Agents {
  constructor(scene) {
    this.scene = scene;
    this.group = new THREE.Group();
    this.group.name = 'agents';
    scene.add(this.group);
    this.materials = { plain: plainMaterial(), person: personMaterial(), vehicle: vehicleMaterial() };
    this.geometries = KIND_NAMES.map((_, k) => levelGeometries(k));
    // levels[kind][l]: the instanced mesh of level l (0 nearest); meshes and far alias the first
    // and last levels.
    this.levels = KIND_NAMES.map((_, k) => this.geometries[k].map((_, l) => this.makeMesh(k, l, 1024)));
    this.a = null; // previous frame
    this.b = null; // current frame
    this.match = null; // b index -> a index or -1
    this.lodColours = false;
    this.counts = { vehicles: 0, pedestrians: 0, per_lod: { high: 0, medium: 0, low: 0, off: 0 } };
    this.drawn = { animated_pedestrians: 0, person_radius_m: LEVEL_M.pedestrian[0], wheeled_vehicles: 0, fading: 0 };
    this._colour = new THREE.Color();
    this.frames = 0;
    this.viewer = new THREE.Vector3(); // three coordinates of the camera
    this.maxDistance = { vehicle: 2000, pedestrian: 600 }; // drawn within (m); all are counted
    this.vehiclePoses = makePoses(1024);
    this.down = new Map(); // pedestrian id -> {x, y, z, heading_rad}: knocked down here
    this.motion = new Motion();
    this.personTris = triangleCount(this.geometries[KIND_PEDESTRIAN][0]);
    this.probe = { pedestrians: [], vehicles: [] };
  }

  get meshes() {
    return this.levels.map((l) => l[0]);
  }

  get far() {
    return this.levels.map((l) => l[l.length - 1]);
  }

  /// A pedestrian the driven car knocked down: drawn lying at `pose` (city frame; heading: the
  /// way it fell, its head that way) whatever the frames say, until clearDown(). Pedestrians
  /// whose state byte says down (STATE_DOWN, the live server's) lie where the frame puts them.
  setDown(id, pose) {
    this.down.set(id, { ...pose });
  }

  clearDown() {
    this.down.clear();
  }

  makeMesh(kind, level, capacity) {
    const geometry = this.geometries[kind][level].clone();
    const extra = instanceAttributes(geometry);
    const mat = geometry.name === 'person' ? this.materials.person : extra.aDrive ? this.materials.vehicle : this.materials.plain;
    const mesh = new THREE.InstancedMesh(geometry, mat, capacity);
    const last = level === this.geometries[kind].length - 1;
    mesh.name = `agents.${KIND_NAMES[kind]}${level === 0 ? '' : last ? '.far' : `.level${level}`}`;
    mesh.userData.level = level;
    mesh.count = 0;
    mesh.frustumCulled = false; // moving instances: a cached bounding sphere would be stale
    mesh.instanceMatrix.setUsage(THREE.DynamicDrawUsage);
    mesh.instanceColor = new THREE.InstancedBufferAttribute(new Float32Array(capacity * 3), 3);
    mesh.instanceColor.setUsage(THREE.DynamicDrawUsage);
    const dynamic = { aFade: 2, ...extra };
    mesh.userData.dynamic = Object.keys(dynamic);
    for (const [name, size] of Object.entries(dynamic)) {
      const attr = new THREE.InstancedBufferAttribute(new Float32Array(capacity * size), size);
      attr.setUsage(THREE.DynamicDrawUsage);
      geometry.setAttribute(name, attr);
    }
    mesh.userData.capacity = capacity;
    this.group.add(mesh);
    return mesh;
  }

  ensureCapacity(kind, n) {
    const set = this.levels[kind];
    for (let l = 0; l < set.length; l++) {
      const old = set[l];
      if (n <= old.userData.capacity) continue;
      let cap = old.userData.capacity;
      while (cap < n) cap *= 2;
      this.group.remove(old);
      old.geometry.dispose();
      old.dispose();
      set[l] = this.makeMesh(kind, l, cap);
    }
  }

  /// Pushes the newest frame; the one before it becomes the interpolation start.
  push(frame) {
    this.a = this.b;
    this.b = frame;
    this.frames++;
    const n = frame.count;
    this.match = new Int32Array(n).fill(-1);
    if (this.a) {
      const index = new Map();
      const a = this.a;
      for (let i = 0; i < a.count; i++) index.set(a.ids[i] * 2 + (a.kinds[i] === KIND_PEDESTRIAN ? 1 : 0), i);
      for (let i = 0; i < n; i++) {
        if (frame.flags[i] & FLAG_NEW) continue;
        const j = index.get(frame.ids[i] * 2 + (frame.kinds[i] === KIND_PEDESTRIAN ? 1 : 0));
        if (j !== undefined) this.match[i] = j;
      }
    }
  }

  /// Sets `a` and `b` directly (recording seeks), recomputing the matches.
  setPair(a, b) {
    this.b = a;
    this.push(b);
  }

  setLodColours(on) {
    this.lodColours = on;
    this.materials.person.userData.uniforms.uLodMode.value = on ? 1 : 0;
  }

  /// The pedestrians' first level distance this update: LEVEL_M's, or less when more bodies
  /// than the triangle budget allows are within it (the budget's nearest ones keep it).
  personRadius(b, vx, vy) {
    const r0 = LEVEL_M.pedestrian[0] * (1 + FADE_SHARE / 2);
    const room = Math.floor(PERSON_BUDGET_TRIS / this.personTris);
    const d2 = [];
    for (let i = 0; i < b.count; i++) {
      if (b.kinds[i] !== KIND_PEDESTRIAN) continue;
      const dx = b.x[i] - vx, dy = b.y[i] - vy;
      const d = dx * dx + dy * dy;
      if (d < r0 * r0) d2.push(d);
    }
    if (d2.length <= room) return LEVEL_M.pedestrian[0];
    d2.sort((p, q) => p - q);
    return Math.sqrt(d2[room]) / (1 + FADE_SHARE / 2);
  }

  /// Draws the agents at fraction u in [0, 1] between frame a and frame b.
  update(u) {
    const b = this.b;
    if (!b) return;
    const a = this.a;
    const n = b.count;
    u = Math.min(1, Math.max(0, u));
    const perKind = new Int32Array(KIND_NAMES.length);
    for (let i = 0; i < n; i++) perKind[b.kinds[i]]++;
    for (let k = 0; k < KIND_NAMES.length; k++) this.ensureCapacity(k, perKind[k]);
    const fill = this.levels.map((l) => new Int32Array(l.length));
    const lods = [0, 0, 0, 0];
    let vehicles = 0;
    let pedestrians = 0;
    // Slots change with the distance culling, so colours are written with the matrices.
    const vx = this.viewer.x, vy = -this.viewer.z;
    const maxVeh2 = this.maxDistance.vehicle ** 2;
    const maxPed2 = this.maxDistance.pedestrian ** 2;
    if (this.vehiclePoses.index.length < n) this.vehiclePoses = makePoses(n);
    const poses = this.vehiclePoses;
    let posed = 0;
    const personR = this.personRadius(b, vx, vy);
    const levelM = { vehicle: LEVEL_M.vehicle, pedestrian: [personR, ...LEVEL_M.pedestrian.slice(1)] };
    this.motion.next();
    const probe = { pedestrians: [], vehicles: [] };
    let fading = 0;
    const t = a && Number.isFinite(a.time_s) && Number.isFinite(b.time_s) ? a.time_s + (b.time_s - a.time_s) * u : (b.time_s ?? 0);
    this.materials.person.userData.uniforms.uTime.value = t;
    const matrix = new Float32Array(16);
    for (let i = 0; i < n; i++) {
      const kind = b.kinds[i];
      const ped = kind === KIND_PEDESTRIAN;
      const lod = b.lod[i] & 3;
      lods[lod]++;
      if (ped) pedestrians++;
      else vehicles++;
      const ddx = b.x[i] - vx, ddy = b.y[i] - vy;
      const d2 = ddx * ddx + ddy * ddy;
      if (d2 > (ped ? maxPed2 : maxVeh2)) continue;
      const d = Math.sqrt(d2);
      // The level (and the next one while fading into it).
      const dists = ped ? levelM.pedestrian : levelM.vehicle;
      let level = dists.length, fade = 1;
      for (let l = 0; l < dists.length; l++) {
        const w = dists[l] * FADE_SHARE;
        if (d < dists[l] - w / 2) {
          level = l;
          break;
        }
        if (d < dists[l] + w / 2) {
          level = l;
          fade = 1 - (d - (dists[l] - w / 2)) / w;
          break;
        }
      }
      let x = b.x[i], y = b.y[i], z = b.z[i], h = b.heading[i], speed = b.speed[i];
      const j = this.match[i];
      const fallen = ped ? this.down.get(b.ids[i]) : undefined;
      const lying = fallen !== undefined || (ped && b.state && b.state[i] === STATE_DOWN);
      if (fallen) {
        x = fallen.x;
        y = fallen.y;
        z = Number.isFinite(fallen.z) ? fallen.z : z;
        h = fallen.heading_rad;
      } else if (a && j >= 0 && u < 1 && !lying) {
        x = a.x[j] + (x - a.x[j]) * u;
        y = a.y[j] + (y - a.y[j]) * u;
        z = a.z[j] + (z - a.z[j]) * u;
        speed = a.speed[j] + (speed - a.speed[j]) * u;
        let dh = h - a.heading[j];
        dh -= Math.floor((dh + Math.PI) / (2 * Math.PI)) * 2 * Math.PI;
        h = a.heading[j] + u * dh;
      }
      if (!ped) {
        poses.index[posed] = i;
        poses.x[posed] = x;
        poses.y[posed] = y;
        poses.z[posed] = z;
        poses.heading[posed++] = h;
      }
      const c = Math.cos(h), s = Math.sin(h);
      const m = matrix;
      // Rotation about three's y (up) by the heading; engine (x, y, z) -> three (x, z, -y).
      if (lying) {
        // Face down, head along the heading: the body's up goes forward, its front down.
        m[0] = 0; m[1] = -1; m[2] = 0; m[3] = 0;
        m[4] = c; m[5] = 0; m[6] = -s; m[7] = 0;
        m[8] = s; m[9] = 0; m[10] = c; m[11] = 0;
        m[12] = x; m[13] = z + LYING_LIFT_M; m[14] = -y; m[15] = 1;
      } else {
        m[0] = c; m[1] = 0; m[2] = -s; m[3] = 0;
        m[4] = 0; m[5] = 1; m[6] = 0; m[7] = 0;
        m[8] = s; m[9] = 0; m[10] = c; m[11] = 0;
        m[12] = x; m[13] = z; m[14] = -y; m[15] = 1;
      }
      const hv = hashVariant(b.ids[i], b.variant[i]);
      const look = ped ? appearance(hv) : null;
      const col = this._colour;
      if (this.lodColours) col.copy(LOD_COLOURS[lod]);
      else if (kind === KIND_PLAYER) col.copy(PLAYER_COLOUR);
      else if (ped) col.setHex(look.top);
      else col.setHex(KIND_NAMES[kind] === 'bus' ? 0xd8a020 : CAR_PAINT[hv % CAR_PAINT.length]);
      // Animation state for the agents drawn by their first level.
      let motion = null;
      if (level === 0) {
        motion = this.motion.step(b.ids[i] * 2 + (ped ? 1 : 0), x, y, h, (hv >>> 7) / 33554432);
        if (ped) {
          const gait = lying ? 0 : gaitOf(speed);
          motion.phase = (motion.phase + motion.ds / cycleLength(gait)) % 1;
          motion.gait = gait;
        } else {
          const name = KIND_NAMES[kind];
          motion.rolled += motion.ds;
          // Steering from the path's curvature (Ackermann, one track): tan(angle) = wheelbase x
          // dheading / ds; smoothed, as the interpolated heading turns in steps between frames.
          const target = motion.ds > 0.02 ? Math.atan((WHEELBASE[name] * motion.dh) / motion.ds) : motion.steer;
          motion.steer += (Math.max(-0.6, Math.min(0.6, target)) - motion.steer) * 0.25;
          motion.roll = motion.rolled / WHEEL_RADIUS[name];
        }
      }
      const set = this.levels[kind];
      const draw = (l, fadeT, side) => {
        const mesh = set[l];
        const slot = fill[kind][l]++;
        mesh.instanceMatrix.array.set(m, slot * 16);
        col.toArray(mesh.instanceColor.array, slot * 3);
        const at = mesh.geometry.attributes;
        at.aFade.array[slot * 2] = fadeT;
        at.aFade.array[slot * 2 + 1] = side;
        if (at.aAnim) {
          at.aLook.array.set([look.bottom, look.skin, look.hair, look.accent], slot * 4);
          at.aAnim.array.set([motion.phase, motion.gait, look.accessories + 16 * look.shoes, (hv & 0xffff) / 65536], slot * 4);
        }
        if (at.aDrive) {
          at.aDrive.array[slot * 2] = motion.roll;
          at.aDrive.array[slot * 2 + 1] = motion.steer;
        }
      };
      if (fade < 1) {
        fading++;
        draw(level, fade, 0);
        draw(level + 1, fade, 1);
      } else draw(level, 1, 0);
      if (level === 0 && probe[ped ? 'pedestrians' : 'vehicles'].length < 64) {
        probe[ped ? 'pedestrians' : 'vehicles'].push(ped
          ? { id: b.ids[i], phase: motion.phase, gait: motion.gait, accessories: look.accessories }
          : { id: b.ids[i], roll: motion.roll, steer: motion.steer });
      }
    }
    for (let k = 0; k < KIND_NAMES.length; k++) {
      this.levels[k].forEach((mesh, l) => {
        const count = fill[k][l];
        mesh.count = count;
        for (const [attr, size] of [[mesh.instanceMatrix, 16], [mesh.instanceColor, 3],
          ...mesh.userData.dynamic.map((name) => [mesh.geometry.attributes[name], mesh.geometry.attributes[name].itemSize])]) {
          attr.clearUpdateRanges();
          attr.addUpdateRange(0, count * size);
          attr.needsUpdate = true;
        }
      });
    }
    poses.count = posed;
    this.probe = probe;
    this.counts = {
      vehicles,
      pedestrians,
      per_lod: { high: lods[0], medium: lods[1], low: lods[2], off: lods[3] },
    };
    let wheeled = 0;
    for (let k = 0; k < KIND_NAMES.length; k++) if (k !== KIND_PEDESTRIAN) wheeled += fill[k][0];
    this.drawn = {
      animated_pedestrians: fill[KIND_PEDESTRIAN][0],
      person_radius_m: personR,
      person_triangles: this.personTris,
      wheeled_vehicles: wheeled,
      fading,
    };
  }

  setVisible(on) {
    this.group.visible = on;
  }
}
