// SPDX-License-Identifier: Apache-2.0
// Time of day, day length, sun and moon, sky colour. The clock runs at 24 h per `dayLength_s`
// real seconds. When the sun's elevation crosses kTwilightDeg the sky fires one 'dusk' (going
// down) or 'dawn' (going up) event on `events`; lights and windows switch on those events only.

import * as THREE from 'three';

/// Sun elevation (degrees) at which street lights switch: a little before sunset, as photocells do.
export const TWILIGHT_DEG = 4;
const LATITUDE_DEG = 40; // a mid-latitude city near an equinox: noon elevation 50 degrees

const SKY_DAY = new THREE.Color(0x9fc4e8);
const SKY_DUSK = new THREE.Color(0xd88a5a);
const SKY_NIGHT = new THREE.Color(0x0b1226);
const GROUND_DAY = new THREE.Color(0x6b5a45);
const GROUND_NIGHT = new THREE.Color(0x0a0a10);

/// Sun direction (three axes, unit, pointing to the sun) and elevation in degrees at hour h.
export function sunAt(hour) {
  // Hour angle: 0 at noon, 15 degrees per hour; declination 0 (equinox).
  const H = THREE.MathUtils.degToRad((hour - 12) * 15);
  const lat = THREE.MathUtils.degToRad(LATITUDE_DEG);
  // East-north-up: x east, y north, z up.
  const east = -Math.sin(H);
  const north = -Math.cos(H) * Math.sin(lat);
  const up = Math.cos(H) * Math.cos(lat);
  const dir = new THREE.Vector3(east, up, -north).normalize();
  return { dir, elevation_deg: THREE.MathUtils.radToDeg(Math.asin(up)) };
}

export class Sky {
  constructor(scene, events, { hour = 10, dayLength_s = 1440 } = {}) {
    this.scene = scene;
    this.events = events;
    this.hour = hour;
    this.dayLength_s = dayLength_s;
    this.running = true;
    this.lightScale = 1; // weather dims the lights
    this.fogScale = 1;
    this.hemi = new THREE.HemisphereLight(SKY_DAY, GROUND_DAY, 1.2);
    this.sun = new THREE.DirectionalLight(0xfff1dc, 2.6);
    this.moon = new THREE.DirectionalLight(0x9fb4ff, 0.0);
    scene.add(this.hemi, this.sun, this.sun.target, this.moon, this.moon.target);
    this.background = new THREE.Color();
    scene.background = this.background;
    this.night = null; // unknown until the first update fires the initial event
    this.centre = new THREE.Vector3();
    this.update(0);
  }

  setTime(hour) {
    this.hour = ((hour % 24) + 24) % 24;
    this.update(0);
  }

  setDayLength(s) {
    this.dayLength_s = Math.max(1, s);
  }

  /// Advances the clock by dt_s real seconds and recomputes lights; fires dusk / dawn once per
  /// crossing. Returns the whole hours crossed (the weather's change draws use them).
  update(dt_s) {
    const before = this.hour;
    if (this.running && dt_s > 0) this.hour = (this.hour + (dt_s * 24) / this.dayLength_s) % 24;
    const crossedHours = Math.floor(this.hour) !== Math.floor(before) ? 1 : 0;
    const { dir, elevation_deg } = sunAt(this.hour);
    this.elevation_deg = elevation_deg;
    const night = elevation_deg < TWILIGHT_DEG;
    if (night !== this.night) {
      const first = this.night === null;
      this.night = night;
      this.events.dispatchEvent(new CustomEvent(night ? 'dusk' : 'dawn', { detail: { hour: this.hour, initial: first } }));
    }
    // Lights: sun above the horizon, moon opposite at night.
    const dayness = THREE.MathUtils.smoothstep(elevation_deg, -6, 10);
    const warm = 1 - THREE.MathUtils.smoothstep(elevation_deg, 0, 25);
    this.sun.position.copy(this.centre).addScaledVector(dir, 1000);
    this.sun.target.position.copy(this.centre);
    this.sun.intensity = 2.6 * THREE.MathUtils.smoothstep(elevation_deg, -2, 8) * this.lightScale;
    this.sun.color.setRGB(1, 0.95 - 0.3 * warm, 0.86 - 0.45 * warm);
    this.moon.position.copy(this.centre).addScaledVector(dir, -1000);
    this.moon.target.position.copy(this.centre);
    this.moon.intensity = 0.35 * (1 - dayness);
    this.hemi.intensity = (0.25 + 0.95 * dayness) * this.lightScale;
    const sky = this.hemi.color.copy(SKY_NIGHT).lerp(SKY_DAY, dayness);
    sky.lerp(SKY_DUSK, warm * dayness * 0.6);
    this.hemi.groundColor.copy(GROUND_NIGHT).lerp(GROUND_DAY, dayness);
    this.background.copy(sky).multiplyScalar(0.55 + 0.45 * this.lightScale);
    if (this.scene.fog) this.scene.fog.color.copy(this.background);
    return crossedHours;
  }

  /// Follows the camera so the directional lights point at what is seen.
  setCentre(v) {
    this.centre.copy(v);
  }
}
