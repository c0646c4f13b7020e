// SPDX-License-Identifier: Apache-2.0
// The driven car's mesh, built in code to the vehicle's size (length, width, height,
// wheelbase, wheel radius): body, cabin, wheels and lights. Local frame: +x
// forward, +y left, +z up, origin at the front-axle centre on the road (city convention);
// drive/index.js maps it into the scene.

import { CAR } from './physics.js';

export function buildCarMesh(THREE, params = CAR, colour = 0xd81b1b) {
  const car = new THREE.Group();
  car.name = 'cityforge-player-car';
  const paint = new THREE.MeshStandardMaterial({ color: colour, metalness: 0.4, roughness: 0.45 });
  const glass = new THREE.MeshStandardMaterial({ color: 0x1c2833, metalness: 0.2, roughness: 0.1 });
  const tyre = new THREE.MeshStandardMaterial({ color: 0x111111, roughness: 0.9 });
  const lamp = new THREE.MeshStandardMaterial({ color: 0xfff6d0, emissive: 0xfff0b0, emissiveIntensity: 1.5 });
  const rear = new THREE.MeshStandardMaterial({ color: 0x550000, emissive: 0xff1010, emissiveIntensity: 0.8 });
  const front = params.front_overhang_m;
  const back = params.wheelbase_m + params.rear_overhang_m;
  const len = front + back;
  const cx = (front - back) / 2; // Body centre along x, relative to the front axle.
  const w = params.width_m;
  const r = params.wheel_radius_m ?? 0.33;
  const h = params.height_m ?? 1.6; // roof height above the road
  const bodyTop = r + 0.7; // the body's box, from the axle height up
  const cabin = Math.max(0.3, h - bodyTop - 0.08);
  const add = (geo, mat, x, y, z) => {
    const m = new THREE.Mesh(geo, mat);
    m.position.set(x, y, z);
    car.add(m);
    return m;
  };
  add(new THREE.BoxGeometry(len, w, 0.7), paint, cx, 0, bodyTop - 0.35);
  add(new THREE.BoxGeometry(len * 0.5, w * 0.86, cabin), glass, cx - 0.2, 0, bodyTop + cabin / 2);
  add(new THREE.BoxGeometry(len * 0.46, w * 0.88, 0.08), paint, cx - 0.2, 0, bodyTop + cabin + 0.04);
  const wheel = new THREE.CylinderGeometry(r, r, 0.24, 16);
  for (const x of [0, -params.wheelbase_m]) {
    for (const y of [w / 2 - 0.1, -(w / 2 - 0.1)]) add(wheel, tyre, x, y, r);
  }
  for (const y of [0.55, -0.55]) {
    add(new THREE.BoxGeometry(0.06, 0.35, 0.14), lamp, front + 0.01, y * (w / 1.8), bodyTop - 0.25);
    add(new THREE.BoxGeometry(0.06, 0.35, 0.14), rear, -back - 0.01, y * (w / 1.8), bodyTop - 0.25);
  }
  return car;
}
