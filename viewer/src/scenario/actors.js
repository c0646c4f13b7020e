// SPDX-License-Identifier: Apache-2.0
// Meshes for the scenario's hazard actors (runner.js): a low-poly pedestrian whose legs swing
// with the distance walked, a car (drive/mesh.js, in another colour) for red-light runners and
// pull-outs, a thin box for an opening door. Placed from the hazard view every frame; hidden
// while pending, except a pull_out car, which is parked where it will pull out from (a car
// appearing from nowhere would give the hazard away). sudden_fog has no mesh.

import { buildCarMesh } from '../drive/mesh.js';
import { ACTORS } from './runner.js';

const STRIDE_M = 1.4; // one leg-swing cycle per this many metres walked

function pedestrianMesh(THREE, colour) {
  const g = new THREE.Group();
  const cloth = new THREE.MeshStandardMaterial({ color: colour, roughness: 0.8 });
  const dark = new THREE.MeshStandardMaterial({ color: 0x2b2f3a, roughness: 0.9 });
  const skin = new THREE.MeshStandardMaterial({ color: 0xd2a07c, roughness: 0.7 });
  const part = (geo, mat, x, y, z, parent = g) => {
    const m = new THREE.Mesh(geo, mat);
    m.position.set(x, y, z);
    parent.add(m);
    return m;
  };
  // Local frame: +x forward, +y left, +z up, origin between the feet.
  part(new THREE.BoxGeometry(0.24, 0.42, 0.62), cloth, 0, 0, 1.15);
  part(new THREE.IcosahedronGeometry(0.12, 0), skin, 0, 0, 1.6);
  const legs = [];
  for (const y of [0.1, -0.1]) {
    const hip = new THREE.Group();
    hip.position.set(0, y, 0.85);
    g.add(hip);
    part(new THREE.BoxGeometry(0.14, 0.14, 0.85), dark, 0, 0, -0.42, hip);
    legs.push(hip);
  }
  for (const y of [0.27, -0.27]) part(new THREE.BoxGeometry(0.1, 0.1, 0.6), cloth, 0, y, 1.15);
  g.userData.legs = legs;
  return g;
}

function vehicleMesh(THREE) {
  // drive/mesh.js puts the origin at the front axle; the hazard view gives the body centre.
  const car = buildCarMesh(THREE, undefined, 0x2f6fd0);
  car.name = '';
  car.position.x = (ACTORS.vehicle.length_m / 2) - 0.9;
  const g = new THREE.Group();
  g.add(car);
  return g;
}

function doorMesh(THREE) {
  const { length_m, width_m } = ACTORS.door;
  const m = new THREE.Mesh(new THREE.BoxGeometry(length_m, width_m, 0.95),
    new THREE.MeshStandardMaterial({ color: 0x8a8f96, metalness: 0.4, roughness: 0.5 }));
  m.position.z = 0.3 + 0.475;
  const g = new THREE.Group();
  g.add(m);
  return g;
}

/** Hazard meshes under one group. THREE: the three.js module; toScene(x, y, z) -> Vector3 or
 *  [x, y, z] (city frame to scene, as drive ctx.toScene); scene: where the group goes
 *  (optional). update(hazards, {z}) once a frame: z is the height for actors without one (the
 *  car's). */
const LYING_LIFT_M = 0.15; // A lying body's half thickness.

export function createHazardActors(THREE, toScene, { scene = null } = {}) {
  const group = new THREE.Group();
  group.name = 'cityforge-hazard-actors';
  if (scene) scene.add(group);
  const actors = new Map(); // hazard id -> {mesh, walked, last}
  const vec = (v) => (Array.isArray(v) ? new THREE.Vector3(v[0], v[1], v[2]) : new THREE.Vector3(v.x, v.y, v.z));
  const at = (x, y, z) => vec(toScene(x, y, z));
  const axis = (x, y, z) => at(x, y, z).sub(at(0, 0, 0)).normalize();

  function make(h) {
    let mesh = null;
    if (h.kind === 'pedestrian_steps_out') {
      let hash = 0;
      for (const ch of String(h.id)) hash = (hash * 31 + ch.charCodeAt(0)) >>> 0;
      mesh = pedestrianMesh(THREE, [0xc0392b, 0xe0b020, 0x2e86c1, 0x27ae60][hash % 4]);
    } else if (h.kind === 'red_light_runner' || h.kind === 'pull_out') mesh = vehicleMesh(THREE);
    else if (h.kind === 'door_opens') mesh = doorMesh(THREE);
    if (!mesh) return null;
    mesh.name = `cityforge-hazard-${h.id}`;
    mesh.matrixAutoUpdate = false;
    group.add(mesh);
    return { mesh, walked: 0, last: null };
  }

  return {
    group,
    /** Places every actor from the hazard view. */
    update(hazards, { z = 0 } = {}) {
      for (const h of hazards) {
        let a = actors.get(h.id);
        if (a === undefined) actors.set(h.id, (a = make(h)));
        if (!a) continue;
        const show = h.x !== null && (h.state !== 'pending' || h.kind === 'pull_out');
        a.mesh.visible = show;
        if (!show) continue;
        if (a.last) a.walked += Math.hypot(h.x - a.last[0], h.y - a.last[1]);
        a.last = [h.x, h.y];
        const legs = a.mesh.userData.legs;
        if (legs) {
          const swing = Math.hypot(h.vx, h.vy) > 0.05 ? 0.45 * Math.sin((2 * Math.PI * a.walked) / STRIDE_M) : 0;
          legs[0].rotation.y = swing;
          legs[1].rotation.y = -swing;
        }
        const c = Math.cos(h.heading_rad);
        const s = Math.sin(h.heading_rad);
        let ex = axis(c, s, 0);
        const ey = axis(-s, c, 0);
        let ez = axis(0, 0, 1);
        let lift = 0;
        if (h.state === 'down') {
          // Knocked down: face down, head along the heading (its up goes forward, its front down).
          ex = axis(0, 0, -1);
          ez = axis(c, s, 0);
          lift = LYING_LIFT_M;
          if (legs) legs[0].rotation.y = legs[1].rotation.y = 0;
        }
        const p = at(h.x, h.y, (h.z ?? z) + lift);
        a.mesh.matrix.set(ex.x, ey.x, ez.x, p.x, ex.y, ey.y, ez.y, p.y, ex.z, ey.z, ez.z, p.z, 0, 0, 0, 1);
        a.mesh.matrixWorldNeedsUpdate = true;
      }
    },
    /** Removes the meshes (a new drive makes new ones). */
    dispose() {
      group.removeFromParent();
      group.traverse((o) => {
        if (o.geometry) o.geometry.dispose();
        if (o.material) o.material.dispose();
      });
      actors.clear();
    },
  };
}
