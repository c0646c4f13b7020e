// SPDX-License-Identifier: Apache-2.0
// The driven car's mesh, built in code: body, cabin, wheels and lights. Local frame: +x
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
  const add = (geo, mat, x, y, z) => {
    const m = new THREE.Mesh(geo, mat);
    m.position.set(x, y, z);
    car.add(m);
    return m;
  };
  add(new THREE.BoxGeometry(len, w, 0.7), paint, cx, 0, 0.3 + 0.35);
  add(new THREE.BoxGeometry(len * 0.5, w * 0.86, 0.55), glass, cx - 0.2, 0, 1.0 + 0.27);
  add(new THREE.BoxGeometry(len * 0.46, w * 0.88, 0.08), paint, cx - 0.2, 0, 1.57);
  const wheel = new THREE.CylinderGeometry(0.33, 0.33, 0.24, 16);
  for (const x of [0, -params.wheelbase_m]) {
    for (const y of [w / 2 - 0.1, -(w / 2 - 0.1)]) add(wheel, tyre, x, y, 0.33);
  }
  for (const y of [0.55, -0.55]) {
    add(new THREE.BoxGeometry(0.06, 0.35, 0.14), lamp, front + 0.01, y, 0.75);
    add(new THREE.BoxGeometry(0.06, 0.35, 0.14), rear, -back - 0.01, y, 0.75);
  }
  return car;
}
