// SPDX-License-Identifier: Apache-2.0
// Street lights (props_lighting street_light / parking_lamp instances). They switch only on the
// sky's 'dusk' and 'dawn' events (and the #show-lights option), never by polling the clock:
// on, the lamp heads glow (emissive), every lamp gets a cheap additive glow sprite, and a few
// real PointLights follow the lamps nearest the camera.

import * as THREE from 'three';

import { contentMatrix } from './city.js';

const LAMP_COLOUR = new THREE.Color(0xffc27a);
const POINT_LIGHTS = 4;
const POINT_REFRESH_S = 0.5;

function glowTexture() {
  const c = document.createElement('canvas');
  c.width = c.height = 64;
  const g = c.getContext('2d');
  const grad = g.createRadialGradient(32, 32, 0, 32, 32, 32);
  grad.addColorStop(0, 'rgba(255,236,200,1)');
  grad.addColorStop(0.25, 'rgba(255,200,120,0.6)');
  grad.addColorStop(1, 'rgba(255,160,60,0)');
  g.fillStyle = grad;
  g.fillRect(0, 0, 64, 64);
  const t = new THREE.CanvasTexture(c);
  t.colorSpace = THREE.SRGBColorSpace;
  return t;
}

export class StreetLights {
  /// city: City (lampSources), events: the sky's EventTarget.
  constructor(scene, city, events) {
    this.scene = scene;
    this.on = false; // what the last dusk / dawn event said
    this.enabled = true; // #show-lights
    this.switches = 0;
    // Lamp heads: the 'prop.light' primitive of each lamp mesh, with its own material.
    this.city = city;
    this.headMaterial = null;
    this.heads = [];
    this.glow = new THREE.Points(
      new THREE.BufferGeometry(),
      new THREE.PointsMaterial({
        size: 9,
        map: glowTexture(),
        color: LAMP_COLOUR,
        transparent: true,
        depthWrite: false,
        blending: THREE.AdditiveBlending,
        sizeAttenuation: true,
      }),
    );
    this.glow.name = 'street_lights.glow';
    this.glow.visible = false;
    scene.add(this.glow);
    this.points = [];
    for (let i = 0; i < POINT_LIGHTS; i++) {
      const l = new THREE.PointLight(LAMP_COLOUR, 0, 30, 1.6);
      l.visible = false;
      scene.add(l);
      this.points.push(l);
    }
    this._refresh = 0;
    this.rebuild();
    // A tiled city adds and removes lamps as tiles load, unload, show and hide.
    for (const ev of ['content-added', 'content-removed', 'content-visibility']) {
      city.addEventListener?.(ev, () => {
        this._stale = true;
      });
    }
    events.addEventListener('dusk', () => this.switchTo(true));
    events.addEventListener('dawn', () => this.switchTo(false));
  }

  /// Lamp heads of the city's shown lamp meshes (positions cached per mesh), their glows.
  rebuild() {
    this._stale = false;
    const heads = [];
    for (const mesh of this.city.lampSources) {
      if (!mesh.isInstancedMesh) continue;
      const part = mesh.userData.cfPart;
      if (part && !part.visible) continue;
      let own = mesh.userData.cfHeads;
      if (!own) {
        own = [];
        if (/light/.test(mesh.material.name) || mesh.material === this.headMaterial) {
          if (!this.headMaterial) {
            this.headMaterial = mesh.material.clone();
            this.headMaterial.name = 'street_light.head';
            this.apply();
          }
          mesh.material = this.headMaterial;
          mesh.geometry.computeBoundingBox();
          const local = mesh.geometry.boundingBox.getCenter(new THREE.Vector3());
          const world = contentMatrix(mesh);
          const m = new THREE.Matrix4();
          // The full set: the city's per-instance culling may have shrunk count already.
          const src = mesh.userData.orig;
          const n = src ? src.n : mesh.count;
          for (let i = 0; i < n; i++) {
            if (src) m.fromArray(src.matrix, i * 16);
            else mesh.getMatrixAt(i, m);
            own.push(local.clone().applyMatrix4(m).applyMatrix4(world));
          }
        }
        mesh.userData.cfHeads = own;
      }
      for (const h of own) heads.push(h);
    }
    this.heads = heads;
    const pos = new Float32Array(heads.length * 3);
    heads.forEach((p, i) => p.toArray(pos, i * 3));
    const g = new THREE.BufferGeometry();
    g.setAttribute('position', new THREE.BufferAttribute(pos, 3));
    g.computeBoundingSphere();
    this.glow.geometry.dispose();
    this.glow.geometry = g;
    this._refresh = 0;
  }

  switchTo(on) {
    this.on = on;
    this.switches++;
    this.apply();
  }

  setEnabled(on) {
    this.enabled = on;
    this.apply();
  }

  get lit() {
    return this.on && this.enabled;
  }

  apply() {
    const lit = this.lit;
    if (this.headMaterial) {
      this.headMaterial.emissive.copy(LAMP_COLOUR);
      this.headMaterial.emissiveIntensity = lit ? 4 : 0;
    }
    this.glow.visible = lit;
    for (const l of this.points) {
      l.visible = lit;
      l.intensity = lit ? 60 : 0;
    }
    this._refresh = 0;
  }

  /// Moves the few real PointLights to the lamps nearest the camera (only while lit).
  update(dt_s, camera) {
    if (this._stale) this.rebuild();
    if (!this.lit || this.heads.length === 0) return;
    this._refresh -= dt_s;
    if (this._refresh > 0) return;
    this._refresh = POINT_REFRESH_S;
    const p = camera.position;
    const best = [];
    for (const h of this.heads) {
      const d = h.distanceToSquared(p);
      if (best.length < POINT_LIGHTS || d < best[best.length - 1].d) {
        best.push({ h, d });
        best.sort((x, y) => x.d - y.d);
        if (best.length > POINT_LIGHTS) best.pop();
      }
    }
    best.forEach((b, i) => this.points[i].position.copy(b.h));
  }

  /// Lamp heads nearest the camera (three coordinates), for tests.
  nearest(camera, n) {
    return this.heads
      .map((h) => ({ h, d: h.distanceToSquared(camera.position) }))
      .sort((a, b) => a.d - b.d)
      .slice(0, n)
      .map((x) => x.h);
  }
}
