// SPDX-License-Identifier: Apache-2.0
// Drive input: keyboard bindings, gamepads through a fake navigator (standard mapping and a
// wheel with pedal axes), targets that combine them, remapping saved in a fake localStorage,
// and controls from targets matching physics.updateControls for the keys.
import assert from 'node:assert/strict';
import test from 'node:test';

import {
  DEFAULT_BINDINGS,
  STORAGE_KEY,
  applyTargets,
  combineTargets,
  controlOf,
  createInput,
  defaultBindings,
  detectSource,
  rampControls,
  loadBindings,
  readGamepads,
  resetBinding,
  setBinding,
  snapshotPad,
  validateBindings,
} from '../src/drive/input.js';
import { CAR, createCar, updateControls } from '../src/drive/physics.js';

function fakeStorage(init = {}) {
  const m = new Map(Object.entries(init));
  return {
    getItem: (k) => (m.has(k) ? m.get(k) : null),
    setItem: (k, v) => m.set(k, String(v)),
    map: m,
  };
}

function fakeWindow() {
  const handlers = {};
  return {
    addEventListener: (t, fn) => ((handlers[t] ||= new Set()).add(fn)),
    removeEventListener: (t, fn) => handlers[t]?.delete(fn),
    fire(type, code, extra = {}) {
      const e = { code, key: '', target: null, repeat: false, preventDefault() {}, stopPropagation() {}, ...extra };
      for (const fn of handlers[type] || []) fn(e);
    },
    count: (t) => handlers[t]?.size ?? 0,
  };
}

/** A gamepad: `mapping` 'standard' or '' (wheel); buttons as values. */
function pad({ index = 0, id = 'pad', mapping = 'standard', axes = [0, 0, 0, 0], buttons = 17 } = {}) {
  return {
    index,
    id,
    mapping,
    connected: true,
    axes: [...axes],
    buttons: Array.from({ length: buttons }, () => ({ pressed: false, value: 0 })),
    press(i, v = 1) {
      this.buttons[i] = { pressed: v > 0.5, value: v };
    },
  };
}

function fakeNavigator(pads) {
  return { getGamepads: () => [...pads, null] };
}

const quiet = () => {};
const near = (a, b) => Math.abs(a - b) < 1e-9;

test('keyboard: default codes, camera key C, Q stays free', () => {
  assert.equal(controlOf({ code: 'ArrowUp' }), 'up');
  assert.equal(controlOf({ code: 'KeyC' }), 'camera_next');
  assert.equal(controlOf({ code: 'KeyZ' }), 'look_left');
  assert.equal(controlOf({ code: 'KeyQ', key: 'q' }), null);
  assert.equal(controlOf({ key: 'w' }), 'up', 'events without a code fall back to the key');
  assert.equal(controlOf({ key: ' ' }), 'handbrake');
});

test('standard gamepad: triggers, stick with dead zone, handbrake, camera once per press', () => {
  const p = pad();
  const win = fakeWindow();
  const input = createInput(win, { nav: fakeNavigator([p]), storage: fakeStorage(), warn: quiet });
  input.attach();
  let t = input.poll();
  assert.equal(t.gamepads, 1);
  assert.deepEqual([t.throttle, t.brake, t.steer, t.handbrake, t.camera_next], [0, 0, 0, false, false]);
  p.press(7, 0.6);
  p.press(6, 0.25);
  p.axes[0] = -0.56; // left, past the 0.12 dead zone: (0.56 - 0.12) / 0.88 = 0.5
  t = input.poll();
  assert.ok(Math.abs(t.throttle - 0.6) < 1e-9);
  assert.ok(Math.abs(t.brake - 0.25) < 1e-9);
  assert.ok(Math.abs(t.steer - 0.5) < 1e-9, `steer ${t.steer} (left positive)`);
  assert.deepEqual(t.channels, { throttle: true, brake: true, steer: true });
  assert.equal(t.analog, true);
  p.axes[0] = 0.1; // inside the dead zone
  assert.equal(input.poll().steer, 0);
  p.axes[0] = 1;
  assert.equal(input.poll().steer, -1);
  p.press(0);
  assert.equal(input.poll().handbrake, true);
  p.press(3);
  assert.equal(input.poll().camera_next, true, 'pressed');
  assert.equal(input.poll().camera_next, false, 'held: no repeat');
  p.press(3, 0);
  input.poll();
  p.press(3);
  assert.equal(input.poll().camera_next, true, 'pressed again');
});

test('wheel (no standard mapping): pedal axes count only once seen at rest', () => {
  const w = pad({ id: 'G29 wheel', mapping: '', axes: [0, 0, 0, 0] });
  const input = createInput(null, { nav: fakeNavigator([w]), storage: fakeStorage(), warn: quiet });
  // Some drivers report 0 (half way) until a pedal is first touched: not throttle.
  let t = input.poll();
  assert.equal(t.throttle, 0);
  assert.equal(t.brake, 0);
  w.axes[1] = 1; // throttle pedal at rest
  w.axes[2] = 1;
  assert.equal(input.poll().throttle, 0);
  w.axes[1] = -1; // fully down
  w.axes[2] = 0; // brake half way
  w.axes[0] = 0.25; // wheel a quarter right
  t = input.poll();
  assert.equal(t.throttle, 1);
  assert.ok(Math.abs(t.brake - (0.5 - 0.02) / 0.98) < 1e-9, `brake ${t.brake}`);
  assert.ok(Math.abs(t.steer + (0.25 - 0.01) / 0.99) < 1e-9, `steer ${t.steer}`);
  // A standard pad connected alongside keeps its own profile.
  const p = pad({ index: 1 });
  const both = readGamepads([w, p], defaultBindings(), new Set(['0|G29 wheel|1|1', '0|G29 wheel|2|1']));
  assert.equal(both.connected, 2);
  assert.equal(both.throttle, 1);
});

test('keyboard and gamepad combine; keys give the camera press too', () => {
  const p = pad();
  const win = fakeWindow();
  const input = createInput(win, { nav: fakeNavigator([p]), storage: fakeStorage(), warn: quiet });
  input.attach();
  assert.equal(win.count('keydown'), 1);
  win.fire('keydown', 'KeyW');
  p.press(7, 0.3);
  let t = input.poll();
  assert.equal(t.throttle, 1, 'the key wins over the lighter trigger');
  assert.equal(t.channels.throttle, false);
  assert.equal(t.analog, false, 'keys only: ramped by whoever steps the car');
  assert.equal(t.up, true);
  win.fire('keyup', 'KeyW');
  assert.ok(Math.abs(input.poll().throttle - 0.3) < 1e-9);
  win.fire('keydown', 'KeyC');
  win.fire('keydown', 'KeyC', { repeat: true });
  t = input.poll();
  assert.equal(t.camera_next, true);
  assert.equal(input.poll().camera_next, false, 'one press, one change');
  win.fire('keydown', 'KeyZ');
  assert.equal(input.poll().look, 1);
  input.detach();
  assert.equal(win.count('keydown'), 0);
  assert.equal(input.keys.look_left, false, 'released on detach');
});

test('remapping: set, save, load, reset; bad stored entries keep their defaults', () => {
  const storage = fakeStorage();
  const win = fakeWindow();
  const input = createInput(win, { nav: fakeNavigator([]), storage, warn: quiet });
  input.attach();
  input.setBinding('keyboard', 'throttle', ['KeyI']);
  input.setBinding('wheel', 'brake', { axis: 3, from: -1, to: 1 });
  const saved = JSON.parse(storage.getItem(STORAGE_KEY));
  assert.equal(saved.format, 'cityforge-controls');
  assert.deepEqual(saved.keyboard.throttle, ['KeyI']);
  win.fire('keydown', 'KeyI');
  assert.equal(input.poll().throttle, 1, 'new key drives');
  win.fire('keyup', 'KeyI');
  win.fire('keydown', 'KeyW');
  assert.equal(input.poll().throttle, 0, 'old key no longer');
  win.fire('keyup', 'KeyW');
  // A second page load reads the same bindings.
  const again = createInput(fakeWindow(), { nav: null, storage, warn: quiet });
  assert.deepEqual(again.bindings.wheel.brake, [{ axis: 3, from: -1, to: 1 }]);
  assert.deepEqual(again.bindings.keyboard.throttle, ['KeyI']);
  input.resetBindings('keyboard', 'throttle');
  assert.deepEqual(input.bindings.keyboard.throttle, DEFAULT_BINDINGS.keyboard.throttle);
  assert.deepEqual(input.bindings.wheel.brake, [{ axis: 3, from: -1, to: 1 }], 'only that one reset');
  input.resetBindings();
  assert.deepEqual(input.bindings, defaultBindings());
  assert.throws(() => setBinding(defaultBindings(), 'gamepad', 'brake', { axis: 1, from: 1, to: 1 }), /gamepad\/brake\/0: expected from and to/);
  assert.throws(() => setBinding(defaultBindings(), 'gamepad', 'fly', { button: 1 }), /expected an action/);
  assert.throws(() => setBinding(defaultBindings(), 'keyboard', 'brake', [42]), /expected a KeyboardEvent.code/);
  assert.throws(() => resetBinding(defaultBindings(), 'joystick'), /expected a device/);
  // Stored garbage: what is valid is taken, the rest warned about and defaulted.
  const warnings = [];
  const bad = fakeStorage({
    [STORAGE_KEY]: JSON.stringify({
      keyboard: { brake: ['KeyK'], throttle: 'KeyW' },
      gamepad: { handbrake: [{ button: -1 }], teleport: [] },
      mouse: {},
    }),
  });
  const b = loadBindings(bad, (m) => warnings.push(m));
  assert.deepEqual(b.keyboard.brake, ['KeyK']);
  assert.deepEqual(b.keyboard.throttle, DEFAULT_BINDINGS.keyboard.throttle);
  assert.deepEqual(b.gamepad.handbrake, DEFAULT_BINDINGS.gamepad.handbrake);
  assert.equal(warnings.length, 4, warnings.join('\n'));
  assert.ok(warnings.some((w) => w.includes('/gamepad/handbrake/0: expected button')));
  assert.deepEqual(loadBindings(fakeStorage({ [STORAGE_KEY]: '{oops' }), quiet), defaultBindings());
  assert.deepEqual(validateBindings(undefined).errors, []);
});

test('controls from keyboard targets match physics.updateControls step for step', () => {
  let seed = 12345;
  const rnd = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32);
  const a = createCar(0, 0, 0, 0);
  const b = createCar(0, 0, 0, 0);
  const keys = { up: false, down: false, left: false, right: false, handbrake: false };
  const none = { throttle: 0, brake: 0, steer_left: 0, steer_right: 0, handbrake: 0, camera_next: 0, look_left: 0, look_right: 0 };
  for (let step = 0; step < 3000; step++) {
    if (step % 40 === 0) for (const k of Object.keys(keys)) keys[k] = rnd() < 0.35;
    // Both cars get the same speed history so reverse selection is exercised.
    const v = step % 400 < 200 ? 0 : 5 * Math.sin(step / 50);
    a.speed_mps = v;
    b.speed_mps = v;
    updateControls(a, keys, 0.01, CAR);
    applyTargets(b, combineTargets(keys, none), 0.01, CAR);
    assert.deepEqual(b.controls, a.controls, `step ${step}`);
    assert.equal(b.gear, a.gear, `gear at step ${step}`);
  }
});

test('analogue targets apply directly; reverse from rest with the brake', () => {
  const car = createCar(0, 0, 0, 0);
  const none = { throttle: 0, brake: 0, steer_left: 0, steer_right: 0, handbrake: 0, camera_next: 0, look_left: 0, look_right: 0 };
  const keys = { up: false, down: false, left: false, right: false, handbrake: false };
  applyTargets(car, combineTargets(keys, { ...none, throttle: 0.4, steer_right: 0.7 }), 0.01, CAR);
  assert.equal(car.controls.throttle, 0.4);
  assert.ok(Math.abs(car.controls.steer + 0.7) < 1e-12);
  // At rest, brake held: reverse; the brake pedal then drives backwards.
  applyTargets(car, combineTargets(keys, { ...none, brake: 0.8 }), 0.01, CAR);
  assert.equal(car.gear, -1);
  assert.equal(car.controls.throttle, 0.8);
  assert.equal(car.controls.brake, 0);
  car.speed_mps = -2;
  applyTargets(car, combineTargets(keys, { ...none, throttle: 0.5 }), 0.01, CAR);
  assert.equal(car.gear, -1, 'moving: no gear change');
  assert.equal(car.controls.brake, 0.5, 'throttle brakes in reverse');
});

test('rampControls (dynamics car): keys ramp, pads apply, no pedal swap', () => {
  const none = { throttle: 0, brake: 0, steer_left: 0, steer_right: 0, handbrake: 0, camera_next: 0, look_left: 0, look_right: 0 };
  const keys = { up: true, down: false, left: true, right: false, handbrake: false };
  const c = { throttle: 0, brake: 0, steer: 0, handbrake: false };
  for (let i = 0; i < 10; i++) rampControls(c, combineTargets(keys, none), 0.01, CAR);
  assert.ok(near(c.throttle, 0.3) && near(c.steer, 0.25), JSON.stringify(c));
  keys.up = false;
  keys.left = false;
  rampControls(c, combineTargets(keys, none), 0.01, CAR);
  assert.equal(c.throttle, 0, 'released pedal drops at once');
  assert.ok(near(c.steer, 0.21), 'steering returns at 4/s');
  rampControls(c, combineTargets(keys, { ...none, brake: 0.7 }), 0.01, CAR);
  assert.deepEqual([c.throttle, c.brake], [0, 0.7], 'the brake stays the brake');
});

test('detectSource finds the pressed button or the moved axis and its rest', () => {
  const w = pad({ mapping: '', axes: [0, 1, 1, 0] });
  const rest = snapshotPad(w);
  w.axes[2] = -0.9;
  assert.deepEqual(detectSource(rest, w), { axis: 2, from: 1, to: -1, deadzone: 0.02 });
  w.axes[2] = 1;
  w.axes[0] = 0.8;
  assert.deepEqual(detectSource(rest, w), { axis: 0, from: 0, to: 1, deadzone: 0.1 });
  w.axes[0] = 0;
  w.press(5);
  assert.deepEqual(detectSource(rest, w), { button: 5 });
  assert.equal(detectSource(snapshotPad(w), w), null);
});

test('describeSource names keys, buttons and axes for the panel', async () => {
  const { describeSource } = await import('../src/drive/settings_ui.js');
  assert.equal(describeSource('KeyW'), 'KeyW');
  assert.equal(describeSource({ button: 7 }), 'button 7');
  assert.equal(describeSource({ axis: 2, from: 1, to: -1, deadzone: 0.02 }), 'axis 2 (1 to -1)');
  assert.equal(describeSource({}), '?');
});
