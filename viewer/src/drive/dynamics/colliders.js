// SPDX-License-Identifier: Apache-2.0
// The static and kinematic things the car can hit: buildings (their footprint walls as one
// triangle mesh per 100 m tile), props (octagonal prisms, merged the same way), traffic (kinematic boxes) and
// pedestrians (kinematic sensor cylinders: reported, not pushed against).

import { GROUP, groups } from './vehicle.js';

const WALL_BELOW_M = 1.0; // Walls reach this far below the lowest corner's ground...
const WALL_ABOVE_M = 4.0; // ...and this far above the highest.
const PROP_HEIGHT_M = 4.0;
const PED_RADIUS_M = 0.3; // As the metrics' pedestrian disc (docs/drive.md).
const PED_HEIGHT_M = 1.7;
const FRONT_TO_AXLE_M = 0.9; // Traffic vehicles: front axle 0.9 m behind the front (docs/drive.md).
const UPRIGHT = { x: Math.SQRT1_2, y: 0, z: 0, w: Math.SQRT1_2 }; // Turns Rapier's y-axis shapes to z.
const ZERO = () => ({ x: 0, y: 0, z: 0 });

function openRing(ring) {
  const n = ring.length;
  if (n > 1 && ring[0][0] === ring[n - 1][0] && ring[0][1] === ring[n - 1][1]) return ring.slice(0, n - 1);
  return ring;
}

const TILE_M = 100; // Buildings are merged into one wall mesh per tile of this size.

function segDist2(px, py, a, b) {
  const dx = b[0] - a[0];
  const dy = b[1] - a[1];
  const l2 = dx * dx + dy * dy;
  const t = l2 > 0 ? Math.max(0, Math.min(1, ((px - a[0]) * dx + (py - a[1]) * dy) / l2)) : 0;
  const ex = a[0] + t * dx - px;
  const ey = a[1] + t * dy - py;
  return ex * ex + ey * ey;
}

/** Fixed trimesh colliders holding the footprints' walls (a vertical quad per ring edge), one
 *  collider per 100 m tile: Rapier's step costs time per collider, even static ones, so 7,000
 *  separate buildings would cost more than the whole car. A contact names its building by the
 *  wall nearest the contact point (other_id = index in `rings`). */
export function buildBuildings(R, rw, rings, groundHeight, info) {
  const cg = groups(GROUP.world, GROUP.car);
  const tiles = new Map(); // "i,j" -> {ids, verts: number[], idx: number[]}.
  const open = rings.map((raw) => openRing(raw || []));
  open.forEach((ring, id) => {
    const n = ring.length;
    if (n < 3) return;
    let lo = Infinity;
    let hi = -Infinity;
    for (const p of ring) {
      const z = groundHeight(p[0], p[1]);
      lo = Math.min(lo, z);
      hi = Math.max(hi, z);
    }
    const key = `${Math.floor(ring[0][0] / TILE_M)},${Math.floor(ring[0][1] / TILE_M)}`;
    let t = tiles.get(key);
    if (!t) tiles.set(key, (t = { ids: [], verts: [], idx: [] }));
    t.ids.push(id);
    const base = t.verts.length / 3;
    for (let i = 0; i < n; i++) {
      t.verts.push(ring[i][0], ring[i][1], lo - WALL_BELOW_M, ring[i][0], ring[i][1], hi + WALL_ABOVE_M);
      const j = (i + 1) % n;
      const a = base + 2 * i;
      const b = base + 2 * j;
      t.idx.push(a, b, b + 1, a, b + 1, a + 1);
    }
  });
  for (const t of tiles.values()) {
    const c = rw.createCollider(
      R.ColliderDesc.trimesh(new Float32Array(t.verts), new Uint32Array(t.idx)).setCollisionGroups(cg).setFriction(0.5),
    );
    const resolve = (p) => {
      let best = t.ids[0];
      let bestD = Infinity;
      for (const id of t.ids) {
        const ring = open[id];
        for (let i = 0; i < ring.length; i++) {
          const d = segDist2(p.x, p.y, ring[i], ring[(i + 1) % ring.length]);
          if (d < bestD) {
            bestD = d;
            best = id;
          }
        }
      }
      return best;
    };
    info.set(c.handle, { with: 'building', other_id: null, other_kind: 'building', vel: ZERO, resolve });
  }
  return tiles.size;
}

/** Props as upright octagonal prisms (radius_m, PROP_HEIGHT_M tall), merged like the
 *  buildings into one fixed triangle mesh per 100 m tile: thousands of separate cylinders made
 *  Rapier's step several times dearer (about 1.7 ms with the default city's 18,000 posts and
 *  trunks, in headless Chromium). A contact names the prop whose outline is nearest the contact
 *  point. */
export function buildProps(R, rw, props, groundHeight, info) {
  const cg = groups(GROUP.world, GROUP.car);
  const tiles = new Map(); // "i,j" -> {ids, verts, idx}
  const SIDES = 8;
  props.forEach((p, k) => {
    const r = p.radius_m / Math.cos(Math.PI / SIDES); // the octagon holds the circle
    const z = groundHeight(p.x, p.y);
    const key = `${Math.floor(p.x / TILE_M)},${Math.floor(p.y / TILE_M)}`;
    let t = tiles.get(key);
    if (!t) tiles.set(key, (t = { ids: [], verts: [], idx: [] }));
    t.ids.push(k);
    const base = t.verts.length / 3;
    for (let i = 0; i < SIDES; i++) {
      const a = (2 * Math.PI * i) / SIDES;
      const x = p.x + r * Math.cos(a);
      const y = p.y + r * Math.sin(a);
      t.verts.push(x, y, z - 0.5, x, y, z - 0.5 + PROP_HEIGHT_M);
      const aa = base + 2 * i;
      const bb = base + 2 * ((i + 1) % SIDES);
      t.idx.push(aa, bb, bb + 1, aa, bb + 1, aa + 1);
    }
    // A lid, so a contact from above (a car dropped on a post) still hits it.
    for (let i = 1; i + 1 < SIDES; i++) t.idx.push(base + 1, base + 2 * i + 1, base + 2 * (i + 1) + 1);
  });
  for (const t of tiles.values()) {
    const c = rw.createCollider(
      R.ColliderDesc.trimesh(new Float32Array(t.verts), new Uint32Array(t.idx)).setCollisionGroups(cg).setFriction(0.5),
    );
    const nearest = (pt) => {
      let best = t.ids[0];
      let bestD = Infinity;
      for (const k of t.ids) {
        const q = props[k];
        const d = Math.abs(Math.hypot(pt.x - q.x, pt.y - q.y) - q.radius_m);
        if (d < bestD) {
          bestD = d;
          best = k;
        }
      }
      return props[best];
    };
    info.set(c.handle, {
      with: 'prop',
      other_id: null,
      other_kind: 'prop',
      vel: ZERO,
      resolve: (pt) => nearest(pt).id,
      resolveKind: (pt) => nearest(pt).kind ?? 'prop',
    });
  }
  return tiles.size;
}

/** Traffic and crowd as kinematic bodies, kept by id between calls to set(). */
export class AgentBodies {
  constructor(R, rw, groundHeight, info) {
    this.R = R;
    this.rw = rw;
    this.groundHeight = groundHeight;
    this.info = info;
    this.bodies = new Map(); // "v:id" / "p:id" -> entry.
  }

  set({ vehicles = [], pedestrians = [] }) {
    const seen = new Set();
    for (const a of vehicles) {
      const h = a.heading_rad || 0;
      const v = a.speed_mps || 0;
      seen.add(this.#upsert(`v:${a.id}`, a, 'vehicle', {
        x: a.x, y: a.y, heading_rad: h, vx: v * Math.cos(h), vy: v * Math.sin(h),
        length_m: a.length_m || 4.5, width_m: a.width_m || 1.8,
      }));
    }
    for (const a of pedestrians) {
      seen.add(this.#upsert(`p:${a.id}`, a, 'pedestrian', {
        x: a.x, y: a.y, heading_rad: 0, vx: a.vx || 0, vy: a.vy || 0,
        length_m: 2 * PED_RADIUS_M, width_m: 2 * PED_RADIUS_M,
      }));
    }
    for (const [key, e] of this.bodies) {
      if (!seen.has(key)) {
        this.info.delete(e.collider.handle);
        this.rw.removeRigidBody(e.body);
        this.bodies.delete(key);
      }
    }
  }

  #upsert(key, a, kind, s) {
    const R = this.R;
    let e = this.bodies.get(key);
    if (e && (e.length_m !== s.length_m || e.width_m !== s.width_m)) {
      this.info.delete(e.collider.handle);
      this.rw.removeRigidBody(e.body);
      e = null;
    }
    if (!e) {
      const body = this.rw.createRigidBody(R.RigidBodyDesc.kinematicPositionBased());
      let desc;
      if (kind === 'pedestrian') {
        desc = R.ColliderDesc.cylinder(PED_HEIGHT_M / 2, PED_RADIUS_M).setRotation(UPRIGHT).setSensor(true);
      } else {
        const hz = s.length_m > 7 ? 1.5 : 0.75;
        // Box centre: half a length back from the front, which is 0.9 m ahead of the axle.
        desc = R.ColliderDesc.cuboid(s.length_m / 2, s.width_m / 2, hz)
          .setTranslation(FRONT_TO_AXLE_M - s.length_m / 2, 0, 0.2 + hz);
      }
      const collider = this.rw.createCollider(desc.setCollisionGroups(groups(GROUP.agent, GROUP.car)), body);
      e = { body, collider, length_m: s.length_m, width_m: s.width_m, fresh: true };
      this.bodies.set(key, e);
    }
    Object.assign(e, { x: s.x, y: s.y, heading_rad: s.heading_rad, vx: s.vx, vy: s.vy });
    this.info.set(e.collider.handle, {
      with: kind,
      other_id: a.id,
      other_kind: kind === 'pedestrian' ? 'pedestrian' : a.kind ?? 'car',
      vel: () => ({ x: e.vx, y: e.vy, z: 0 }),
    });
    this.#place(e, true);
    return key;
  }

  #place(e, teleport) {
    const z = this.groundHeight(e.x, e.y) + (e.collider.isSensor() ? PED_HEIGHT_M / 2 : 0);
    const t = { x: e.x, y: e.y, z };
    const q = { x: 0, y: 0, z: Math.sin(e.heading_rad / 2), w: Math.cos(e.heading_rad / 2) };
    if (teleport && e.fresh) {
      e.body.setTranslation(t, true);
      e.body.setRotation(q, true);
      e.fresh = false;
    } else {
      e.body.setNextKinematicTranslation(t);
      e.body.setNextKinematicRotation(q);
    }
  }

  /** Moves every agent on at its velocity for one step. */
  advance(dt) {
    for (const e of this.bodies.values()) {
      if (e.vx === 0 && e.vy === 0) continue;
      e.x += e.vx * dt;
      e.y += e.vy * dt;
      this.#place(e, false);
    }
  }
}
