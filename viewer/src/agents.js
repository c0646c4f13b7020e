// SPDX-License-Identifier: Apache-2.0
// Vehicles and pedestrians as one InstancedMesh per kind (low-poly shapes built here), following
// frames from the recording or the live stream. Between two frames agents are interpolated by
// id (docs/recording.md "Interpolating between frames"): new ids appear at their pose, the
// heading turns the short way. Colours: by variant, or by level of detail (red high, yellow
// medium, green low, grey off).

import * as THREE from 'three';
import { mergeGeometries } from 'three/addons/utils/BufferGeometryUtils.js';
import { KIND_NAMES, KIND_PEDESTRIAN, KIND_PLAYER, STATE_DOWN } from './recording.js';

const FLAG_NEW = 8;
const LYING_LIFT_M = 0.15; // A lying body's half thickness (the torso's depth / 2 and a bit).
const LOD_COLOURS = [0xe8382f, 0xf2d024, 0x35c24a, 0x8a8a8a].map((c) => new THREE.Color(c));
const CAR_PAINT = [0xb0b4b8, 0x1d3f8c, 0x8c1d1d, 0xeeeeee, 0x202020, 0x2f6b3a, 0xc48a1a, 0x5a5f66];
const CLOTHES = [0x3a4a8c, 0x8c3a3a, 0x2e2e2e, 0xd8d0c0, 0x4f7a3a, 0x7a5a9a, 0xc07030, 0x607080];
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

/// Vehicle of length L, width W, height H; the origin is the front axle on the road.
function vehicleGeometry(L, W, H, cabinShare, front = 0.9) {
  const rear = -(L - front);
  const parts = [box(rear, 0.3, -W / 2, L, H * 0.5, W, 1.0)];
  const cabinL = L * cabinShare;
  parts.push(box(rear + L * 0.2, 0.3 + H * 0.5, -W / 2 + 0.08, cabinL, H * 0.45, W - 0.16, 0.35));
  for (const [x, z] of [[0, -W / 2], [0, W / 2 - 0.25], [rear + 0.9, -W / 2], [rear + 0.9, W / 2 - 0.25]]) {
    parts.push(box(x - 0.35, 0, z, 0.7, 0.6, 0.25, 0.08));
  }
  return mergeGeometries(parts);
}

function busGeometry() {
  const L = 12, W = 2.5, H = 3.1, rear = -(L - 2.2);
  return mergeGeometries([
    box(rear, 0.35, -W / 2, L, H - 0.35, W, 1.0),
    box(rear + 0.5, 1.4, -W / 2 - 0.01, L - 1.0, 0.9, W + 0.02, 0.3),
    box(-0.6, 0, -W / 2, 0.9, 0.7, W, 0.08),
    box(rear + 1.5, 0, -W / 2, 0.9, 0.7, W, 0.08),
  ]);
}

function truckGeometry() {
  const W = 2.5;
  return mergeGeometries([
    box(-1.2, 0.4, -W / 2, 2.2, 2.6, W, 0.85),
    box(0.2, 1.8, -W / 2 + 0.05, 0.8, 0.9, W - 0.1, 0.3),
    box(-8.6, 0.9, -W / 2, 7.2, 3.0, W, 1.0),
    box(-0.4, 0, -W / 2, 0.9, 0.8, W, 0.08),
    box(-7.0, 0, -W / 2, 2.0, 0.8, W, 0.08),
  ]);
}

/// A person of boxes (36 triangles): legs, torso, head; 1.75 m tall, origin at the feet.
function personGeometry() {
  return mergeGeometries([
    box(-0.12, 0, -0.17, 0.24, 0.85, 0.34, 0.35),
    box(-0.14, 0.85, -0.22, 0.28, 0.65, 0.44, 1.0),
    box(-0.11, 1.52, -0.11, 0.22, 0.23, 0.22, 0.9),
  ]);
}

/// The far version of each kind: one box of the same size (12 triangles), drawn beyond
/// FAR_M where the shape cannot be told apart; software WebGL pays per triangle.
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

/// Beyond these distances (m) agents are drawn with their far (one-box) meshes.
const FAR_M = { vehicle: 90, pedestrian: 45 };

function geometryFor(kind) {
  switch (KIND_NAMES[kind]) {
    case 'van': return vehicleGeometry(5.2, 2.0, 2.3, 0.7);
    case 'bus': return busGeometry();
    case 'truck': return truckGeometry();
    case 'player': return vehicleGeometry(4.6, 1.9, 1.5, 0.45);
    case 'pedestrian': return personGeometry();
    default: return vehicleGeometry(4.5, 1.85, 1.45, 0.45);
  }
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

export class Agents {
  constructor(scene) {
    this.scene = scene;
    this.group = new THREE.Group();
    this.group.name = 'agents';
    scene.add(this.group);
    this.material = new THREE.MeshStandardMaterial({ vertexColors: true, roughness: 0.6, metalness: 0.1 });
    this.meshes = KIND_NAMES.map((_, k) => this.makeMesh(k, 1024));
    this.far = KIND_NAMES.map((_, k) => this.makeMesh(k, 1024, true));
    this.a = null; // previous frame
    this.b = null; // current frame
    this.match = null; // b index -> a index or -1
    this.lodColours = false;
    this.counts = { vehicles: 0, pedestrians: 0, per_lod: { high: 0, medium: 0, low: 0, off: 0 } };
    this._colour = new THREE.Color();
    this.frames = 0;
    this.viewer = new THREE.Vector3(); // three coordinates of the camera
    this.maxDistance = { vehicle: 2000, pedestrian: 600 }; // drawn within (m); all are counted
    this.vehiclePoses = makePoses(1024);
    this.down = new Map(); // pedestrian id -> {x, y, z, heading_rad}: knocked down here
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
  makeMesh(kind, capacity, far = false) {
    const mesh = new THREE.InstancedMesh(far ? farGeometryFor(kind) : geometryFor(kind), this.material, capacity);
    mesh.name = `agents.${KIND_NAMES[kind]}${far ? '.far' : ''}`;
    mesh.userData.far = far;
    mesh.count = 0;
    mesh.frustumCulled = false; // moving instances: a cached bounding sphere would be stale
    mesh.instanceMatrix.setUsage(THREE.DynamicDrawUsage);
    mesh.instanceColor = new THREE.InstancedBufferAttribute(new Float32Array(capacity * 3), 3);
    mesh.instanceColor.setUsage(THREE.DynamicDrawUsage);
    mesh.userData.capacity = capacity;
    this.group.add(mesh);
    return mesh;
  }

  ensureCapacity(kind, n) {
    for (const set of [this.meshes, this.far]) {
      const old = set[kind];
      if (n <= old.userData.capacity) continue;
      let cap = old.userData.capacity;
      while (cap < n) cap *= 2;
      this.group.remove(old);
      old.dispose();
      set[kind] = this.makeMesh(kind, cap, old.userData.far);
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
    const fill = new Int32Array(KIND_NAMES.length);
    const fillFar = new Int32Array(KIND_NAMES.length);
    const farVeh2 = FAR_M.vehicle ** 2;
    const farPed2 = FAR_M.pedestrian ** 2;
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
    for (let i = 0; i < n; i++) {
      const kind = b.kinds[i];
      const lod = b.lod[i] & 3;
      lods[lod]++;
      if (kind === KIND_PEDESTRIAN) pedestrians++;
      else vehicles++;
      const ddx = b.x[i] - vx, ddy = b.y[i] - vy;
      const d2 = ddx * ddx + ddy * ddy;
      if (d2 > (kind === KIND_PEDESTRIAN ? maxPed2 : maxVeh2)) continue;
      const near = d2 <= (kind === KIND_PEDESTRIAN ? farPed2 : farVeh2);
      const mesh = near ? this.meshes[kind] : this.far[kind];
      const slot = near ? fill[kind]++ : fillFar[kind]++;
      let x = b.x[i], y = b.y[i], z = b.z[i], h = b.heading[i];
      const j = this.match[i];
      const fallen = kind === KIND_PEDESTRIAN ? this.down.get(b.ids[i]) : undefined;
      const lying = fallen !== undefined || (kind === KIND_PEDESTRIAN && b.state && b.state[i] === STATE_DOWN);
      if (fallen) {
        x = fallen.x;
        y = fallen.y;
        z = Number.isFinite(fallen.z) ? fallen.z : z;
        h = fallen.heading_rad;
      } else if (a && j >= 0 && u < 1 && !lying) {
        x = a.x[j] + (x - a.x[j]) * u;
        y = a.y[j] + (y - a.y[j]) * u;
        z = a.z[j] + (z - a.z[j]) * u;
        let dh = h - a.heading[j];
        dh -= Math.floor((dh + Math.PI) / (2 * Math.PI)) * 2 * Math.PI;
        h = a.heading[j] + u * dh;
      }
      if (kind !== KIND_PEDESTRIAN) {
        poses.index[posed] = i;
        poses.x[posed] = x;
        poses.y[posed] = y;
        poses.z[posed] = z;
        poses.heading[posed++] = h;
      }
      const c = Math.cos(h), s = Math.sin(h);
      const m = mesh.instanceMatrix.array;
      const o = slot * 16;
      // Rotation about three's y (up) by the heading; engine (x, y, z) -> three (x, z, -y).
      if (lying) {
        // Face down, head along the heading: the body's up goes forward, its front down.
        m[o] = 0; m[o + 1] = -1; m[o + 2] = 0; m[o + 3] = 0;
        m[o + 4] = c; m[o + 5] = 0; m[o + 6] = -s; m[o + 7] = 0;
        m[o + 8] = s; m[o + 9] = 0; m[o + 10] = c; m[o + 11] = 0;
        m[o + 12] = x; m[o + 13] = z + LYING_LIFT_M; m[o + 14] = -y; m[o + 15] = 1;
      } else {
        m[o] = c; m[o + 1] = 0; m[o + 2] = -s; m[o + 3] = 0;
        m[o + 4] = 0; m[o + 5] = 1; m[o + 6] = 0; m[o + 7] = 0;
        m[o + 8] = s; m[o + 9] = 0; m[o + 10] = c; m[o + 11] = 0;
        m[o + 12] = x; m[o + 13] = z; m[o + 14] = -y; m[o + 15] = 1;
      }
      const col = this._colour;
      if (this.lodColours) col.copy(LOD_COLOURS[lod]);
      else if (kind === KIND_PLAYER) col.copy(PLAYER_COLOUR);
      else {
        const palette = kind === KIND_PEDESTRIAN ? CLOTHES : CAR_PAINT;
        col.setHex(palette[hashVariant(b.ids[i], b.variant[i]) % palette.length]);
        if (KIND_NAMES[kind] === 'bus') col.setHex(0xd8a020);
      }
      col.toArray(mesh.instanceColor.array, slot * 3);
    }
    for (let k = 0; k < KIND_NAMES.length; k++) {
      for (const [mesh, n] of [[this.meshes[k], fill[k]], [this.far[k], fillFar[k]]]) {
        mesh.count = n;
        mesh.instanceMatrix.clearUpdateRanges();
        mesh.instanceMatrix.addUpdateRange(0, n * 16);
        mesh.instanceMatrix.needsUpdate = true;
        mesh.instanceColor.clearUpdateRanges();
        mesh.instanceColor.addUpdateRange(0, n * 3);
        mesh.instanceColor.needsUpdate = true;
      }
    }
    poses.count = posed;
    this.counts = {
      vehicles,
      pedestrians,
      per_lod: { high: lods[0], medium: lods[1], low: lods[2], off: lods[3] },
    };
  }

  setVisible(on) {
    this.group.visible = on;
  }
}
