// SPDX-License-Identifier: Apache-2.0
// Weather as in the source (seeds/004, "Weather Cycle"): clear, cloudy, rain or storm, any of
// them with fog, and a change probability from 0 to 0.9: at every in-game hour the weather
// changes to another condition with that probability (so a longer day keeps a condition longer
// in real time). It changes what is seen (fog distance, light, rain streaks) and is sent to the
// live simulation as {"type":"weather"}; the server's {"type":"env"} sets it back.

import * as THREE from 'three';

import { mulberry32 } from './rng.js'; // Deterministic weather draws (test mode: a fixed seed).

export const KINDS = ['clear', 'cloudy', 'rain', 'storm'];
const EFFECT = {
  clear: { light: 1.0, far: 4000, rain: 0 },
  cloudy: { light: 0.65, far: 2600, rain: 0 },
  rain: { light: 0.45, far: 1200, rain: 6000 },
  storm: { light: 0.3, far: 700, rain: 14000 },
};
const FOG_FAR_M = 550; // fog: visibility under 1 km (meteorology); the city fades out by here
const RAIN_BOX_M = 80;

function rainMaterial() {
  return new THREE.ShaderMaterial({
    uniforms: { uTime: { value: 0 }, uCentre: { value: new THREE.Vector3() }, uBox: { value: RAIN_BOX_M } },
    vertexShader: /* glsl */ `
      uniform float uTime; uniform vec3 uCentre; uniform float uBox;
      attribute float aEnd;
      void main() {
        vec3 p = position;
        p.y = mod(p.y - uTime * 18.0, uBox);
        p = uCentre + p - vec3(uBox * 0.5, uBox * 0.3, uBox * 0.5);
        p.y -= aEnd * 0.9;
        p.x -= aEnd * 0.15;
        gl_Position = projectionMatrix * viewMatrix * vec4(p, 1.0);
      }`,
    fragmentShader: /* glsl */ `
      void main() { gl_FragColor = vec4(0.75, 0.8, 0.9, 0.45); }`,
    transparent: true,
    depthWrite: false,
  });
}

export class Weather {
  constructor(scene, sky, events, { seed = 1, changeProb = 0.2 } = {}) {
    this.scene = scene;
    this.sky = sky;
    this.events = events;
    this.kind = 'clear';
    this.fog = false;
    this.changeProb = changeProb;
    this.random = mulberry32(seed);
    this.send = null; // live client's send, set by main
    this.pending = null; // the latest local change until the server echoes it
    scene.fog = new THREE.Fog(0xffffff, 400, 4000);
    const drops = 14000;
    const pos = new Float32Array(drops * 2 * 3);
    const end = new Float32Array(drops * 2);
    const r = mulberry32(7);
    for (let i = 0; i < drops; i++) {
      const x = r() * RAIN_BOX_M, y = r() * RAIN_BOX_M, z = r() * RAIN_BOX_M;
      pos.set([x, y, z, x, y, z], i * 6);
      end[i * 2 + 1] = 1;
    }
    const g = new THREE.BufferGeometry();
    g.setAttribute('position', new THREE.BufferAttribute(pos, 3));
    g.setAttribute('aEnd', new THREE.BufferAttribute(end, 1));
    this.rain = new THREE.LineSegments(g, rainMaterial());
    this.rain.frustumCulled = false;
    this.rain.visible = false;
    this.rain.name = 'weather.rain';
    scene.add(this.rain);
    this.apply();
  }

  /// Sets the weather; `fromServer` does not echo it back.
  set(kind, fog, { fromServer = false } = {}) {
    if (kind === 'fog') {
      // The server's kind "fog" (any client may send it) is clear weather with fog here.
      kind = 'clear';
      fog = true;
    }
    if (!KINDS.includes(kind)) kind = 'clear';
    const changed = kind !== this.kind || !!fog !== this.fog;
    this.kind = kind;
    this.fog = !!fog;
    this.apply();
    if (!fromServer && this.send) {
      this.send({ type: 'weather', kind: this.kind, fog: this.fog });
      // The server's echoes of earlier changes may still be on their way: until the echo of
      // this one arrives (or 5 s pass), those are not applied over it (see echoIsStale).
      this.pending = { kind: this.kind, fog: this.fog, until: performance.now() + 5000 };
    }
    if (changed) this.events.dispatchEvent(new CustomEvent('weather', { detail: { kind, fog: this.fog } }));
  }

  /// True for a server `env` weather that predates the latest local change (it is dropped);
  /// the echo of that change itself ends the wait.
  echoIsStale(kind, fog) {
    const p = this.pending;
    if (!p) return false;
    if (performance.now() > p.until || (kind === p.kind && !!fog === p.fog)) {
      this.pending = null;
      return false;
    }
    return true;
  }

  setChangeProbability(p) {
    this.changeProb = Math.min(0.9, Math.max(0, p));
  }

  apply() {
    const e = EFFECT[this.kind];
    const far = this.fog ? FOG_FAR_M : e.far;
    this.scene.fog.near = this.fog ? 20 : far * 0.25;
    this.scene.fog.far = far;
    this.sky.lightScale = e.light * (this.fog ? 0.85 : 1);
    this.rain.visible = e.rain > 0;
    this.rain.geometry.setDrawRange(0, e.rain * 2);
    this.sky.update(0);
  }

  /// Called once per frame with the in-game hours crossed since the last frame.
  update(dt_s, hoursCrossed, camera) {
    for (let i = 0; i < hoursCrossed; i++) {
      if (this.random() < this.changeProb) {
        const others = KINDS.filter((k) => k !== this.kind);
        const next = others[Math.floor(this.random() * others.length) % others.length];
        const fog = this.random() < 0.15;
        this.set(next, fog);
      }
    }
    if (this.rain.visible) {
      this.rain.material.uniforms.uTime.value += dt_s;
      this.rain.material.uniforms.uCentre.value.copy(camera.position);
    }
  }
}
