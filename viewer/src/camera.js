// SPDX-License-Identifier: Apache-2.0
// Cameras: orbit (three's OrbitControls), fly (WASD + QE up/down, drag to look, Shift faster)
// and a top-down map mode (pan and zoom, north up). Poses in and out are in city coordinates
// (x east, y north, z up; yaw counter-clockwise from east, pitch up from the horizon).

import * as THREE from 'three';
import { OrbitControls } from 'three/addons/controls/OrbitControls.js';

export const MODES = ['orbit', 'fly', 'map'];

export class CameraRig {
  constructor(camera, dom) {
    this.camera = camera;
    this.dom = dom;
    this.mode = 'orbit';
    this.enabled = true; // drive mode takes the camera over
    this.controls = new OrbitControls(camera, dom);
    this.controls.enableDamping = false;
    this.controls.maxPolarAngle = THREE.MathUtils.degToRad(88);
    this.controls.screenSpacePanning = false;
    this.controls.maxDistance = 8000;
    this.keys = new Set();
    this.yaw = 0;
    this.pitch = 0;
    this.dragging = false;
    this._euler = new THREE.Euler(0, 0, 0, 'YXZ');
    window.addEventListener('keydown', (e) => {
      if (e.target instanceof HTMLInputElement || e.target instanceof HTMLSelectElement) return;
      this.keys.add(e.code);
    });
    window.addEventListener('keyup', (e) => this.keys.delete(e.code));
    window.addEventListener('blur', () => this.keys.clear());
    dom.addEventListener('pointerdown', (e) => {
      if (this.mode === 'fly') {
        this.dragging = true;
        this.lastX = e.clientX;
        this.lastY = e.clientY;
      }
    });
    window.addEventListener('pointerup', () => (this.dragging = false));
    window.addEventListener('pointermove', (e) => {
      if (!this.dragging || this.mode !== 'fly') return;
      this.yaw -= (e.clientX - this.lastX) * 0.004;
      this.pitch = THREE.MathUtils.clamp(this.pitch - (e.clientY - this.lastY) * 0.004, -1.5, 1.5);
      this.lastX = e.clientX;
      this.lastY = e.clientY;
    });
  }

  setMode(mode) {
    if (!MODES.includes(mode)) throw new Error(`camera mode '${mode}': expected one of ${MODES.join(', ')}`);
    const cam = this.camera;
    const target = this.controls.target.clone();
    this.mode = mode;
    if (mode === 'fly') {
      this.controls.enabled = false;
      const dir = target.sub(cam.position).normalize();
      this.yaw = Math.atan2(-dir.x, -dir.z);
      this.pitch = Math.asin(THREE.MathUtils.clamp(dir.y, -1, 1));
    } else if (mode === 'map') {
      this.controls.enabled = true;
      this.controls.enableRotate = false;
      this.controls.screenSpacePanning = true;
      this.controls.minPolarAngle = 0;
      this.controls.maxPolarAngle = 0;
      const height = Math.max(400, cam.position.y - target.y);
      cam.position.set(target.x, target.y + height, target.z + 0.01);
      cam.up.set(0, 1, 0);
      this.controls.update();
    } else {
      this.controls.enabled = true;
      this.controls.enableRotate = true;
      this.controls.screenSpacePanning = false;
      this.controls.minPolarAngle = 0;
      this.controls.maxPolarAngle = THREE.MathUtils.degToRad(88);
      if (this.flyTarget) this.controls.target.copy(this.flyTarget);
      this.controls.update();
    }
  }

  /// Places the camera (city coordinates); the look-at point is `distance` metres ahead.
  setPose({ x, y, z, yaw_deg = 0, pitch_deg = -30, distance = 300 }) {
    const cam = this.camera;
    cam.position.set(x, z, -y);
    const yaw = THREE.MathUtils.degToRad(yaw_deg);
    const pitch = THREE.MathUtils.degToRad(pitch_deg);
    const dir = new THREE.Vector3(Math.cos(pitch) * Math.cos(yaw), Math.sin(pitch), -Math.cos(pitch) * Math.sin(yaw));
    this.controls.target.copy(cam.position).addScaledVector(dir, distance);
    this.yaw = Math.atan2(-dir.x, -dir.z);
    this.pitch = pitch;
    cam.lookAt(this.controls.target);
    if (this.mode !== 'fly') this.controls.update();
  }

  /// City-coordinate pose of the camera: position and heading of the view (for server LOD).
  pose() {
    const cam = this.camera;
    const dir = new THREE.Vector3();
    cam.getWorldDirection(dir);
    return {
      x: cam.position.x,
      y: -cam.position.z,
      z: cam.position.y,
      yaw_deg: THREE.MathUtils.radToDeg(Math.atan2(-dir.z, dir.x)),
      pitch_deg: THREE.MathUtils.radToDeg(Math.asin(THREE.MathUtils.clamp(dir.y, -1, 1))),
    };
  }

  update(dt_s) {
    if (!this.enabled) return;
    if (this.mode !== 'fly') {
      this.controls.update();
      return;
    }
    const cam = this.camera;
    this._euler.set(this.pitch, this.yaw, 0);
    cam.quaternion.setFromEuler(this._euler);
    const speed = (this.keys.has('ShiftLeft') || this.keys.has('ShiftRight') ? 120 : 30) * dt_s;
    const fwd = new THREE.Vector3(0, 0, -1).applyQuaternion(cam.quaternion);
    const right = new THREE.Vector3(1, 0, 0).applyQuaternion(cam.quaternion);
    if (this.keys.has('KeyW')) cam.position.addScaledVector(fwd, speed);
    if (this.keys.has('KeyS')) cam.position.addScaledVector(fwd, -speed);
    if (this.keys.has('KeyD')) cam.position.addScaledVector(right, speed);
    if (this.keys.has('KeyA')) cam.position.addScaledVector(right, -speed);
    if (this.keys.has('KeyE')) cam.position.y += speed;
    if (this.keys.has('KeyQ')) cam.position.y -= speed;
    this.flyTarget = cam.position.clone().addScaledVector(fwd, 100);
  }
}
