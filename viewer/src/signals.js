// SPDX-License-Identifier: Apache-2.0
// Signal states at intersections: one small unlit marker above the start (stop line) of every
// signal lane of lanes.json, coloured by the light state of the latest frame (recording or live
// stream; the order of the states is the recording's / hello's signal lane table).

import * as THREE from 'three';

export const LIGHT_NAMES = ['red', 'green', 'yellow', 'off'];
const LIGHT_COLOURS = [0xff2a1a, 0x2aff4a, 0xffd21a, 0x303030].map((c) => new THREE.Color(c));
const HEIGHT_M = 4.5;

export class Signals {
  constructor(scene, lanes) {
    this.scene = scene;
    this.byId = new Map();
    for (const l of lanes?.lanes ?? []) this.byId.set(l.id, l);
    this.laneIds = new Uint32Array(0);
    this.states = new Uint8Array(0);
    this.mesh = null;
    this.group = new THREE.Group();
    this.group.name = 'signals';
    scene.add(this.group);
  }

  /// The signal lane table (ids in the order of every frame's light states).
  setTable(laneIds) {
    this.laneIds = Uint32Array.from(laneIds);
    this.states = new Uint8Array(this.laneIds.length).fill(3);
    if (this.mesh) {
      this.group.remove(this.mesh);
      this.mesh.dispose();
    }
    const g = new THREE.BoxGeometry(0.9, 0.9, 0.9);
    const mesh = new THREE.InstancedMesh(g, new THREE.MeshBasicMaterial({ color: 0xffffff }), this.laneIds.length);
    mesh.name = 'signals.markers';
    const m = new THREE.Matrix4();
    this.laneIds.forEach((id, i) => {
      const lane = this.byId.get(id);
      const p = lane?.points?.[0] ?? [0, 0, -1000];
      m.makeTranslation(p[0], (p[2] ?? 0) + HEIGHT_M, -p[1]);
      mesh.setMatrixAt(i, m);
      mesh.setColorAt(i, LIGHT_COLOURS[3]);
    });
    mesh.computeBoundingSphere();
    this.mesh = mesh;
    this.group.add(mesh);
  }

  /// Light states of one frame (Uint8Array, 0 red, 1 green, 2 yellow, 3 off).
  setStates(lights) {
    if (!this.mesh || !lights) return;
    const n = Math.min(lights.length, this.states.length);
    let changed = false;
    for (let i = 0; i < n; i++) {
      if (this.states[i] !== lights[i]) {
        this.states[i] = lights[i];
        this.mesh.setColorAt(i, LIGHT_COLOURS[lights[i] & 3]);
        changed = true;
      }
    }
    if (changed) this.mesh.instanceColor.needsUpdate = true;
  }

  /// Map lane id -> 'red' | 'green' | 'yellow' | 'off'.
  map() {
    const out = new Map();
    this.laneIds.forEach((id, i) => out.set(id, LIGHT_NAMES[this.states[i] & 3]));
    return out;
  }

  setVisible(on) {
    this.group.visible = on;
  }
}
