// SPDX-License-Identifier: Apache-2.0
// Drive-mode input: the keyboard (events) and gamepads (the Gamepad API, polled once a frame),
// combined into one set of analogue targets per frame {throttle, brake, steer, handbrake,
// camera_next, look}. Bindings are remappable and kept in localStorage 'cityforge.controls'
// (docs/drive.md "Controls and gamepads"). Pure functions where possible, so node tests run
// them with a fake navigator.
// Based on: W3C Gamepad (standard mapping: buttons 6/7 triggers, axes 0/1 left stick).

/** Actions a binding can drive. */
export const ACTIONS = Object.freeze([
  'throttle',
  'brake',
  'steer_left',
  'steer_right',
  'handbrake',
  'camera_next',
  'look_left',
  'look_right',
]);
/** Devices with their own bindings: keyboard codes, standard-mapping gamepads, and every
 *  gamepad without the standard mapping (steering wheels, pedal sets). */
export const DEVICES = Object.freeze(['keyboard', 'gamepad', 'wheel']);
export const STORAGE_KEY = 'cityforge.controls';

/** The held-key name of each action (drive/index.js and its tests read keys.up etc.). */
const KEY_OF = Object.freeze({
  throttle: 'up',
  brake: 'down',
  steer_left: 'left',
  steer_right: 'right',
  handbrake: 'handbrake',
  camera_next: 'camera_next',
  look_left: 'look_left',
  look_right: 'look_right',
});

const freeze = (o) => {
  for (const v of Object.values(o)) if (v && typeof v === 'object') freeze(v);
  return Object.freeze(o);
};

/** Default bindings. Keyboard: KeyboardEvent.code lists. Gamepads: lists of sources, each
 *  {button: i} (its value 0..1) or {axis: i, from, to, deadzone}: the axis mapped linearly so
 *  `from` gives 0 and `to` gives 1 (clamped), values under `deadzone` are 0. */
export const DEFAULT_BINDINGS = freeze({
  keyboard: {
    throttle: ['ArrowUp', 'KeyW'],
    brake: ['ArrowDown', 'KeyS'],
    steer_left: ['ArrowLeft', 'KeyA'],
    steer_right: ['ArrowRight', 'KeyD'],
    handbrake: ['Space'],
    camera_next: ['KeyC'],
    look_left: ['KeyZ'],
    look_right: ['KeyX'],
  },
  gamepad: {
    throttle: [{ button: 7 }], // right trigger
    brake: [{ button: 6 }], // left trigger
    steer_left: [{ axis: 0, from: 0, to: -1, deadzone: 0.12 }], // left stick x
    steer_right: [{ axis: 0, from: 0, to: 1, deadzone: 0.12 }],
    handbrake: [{ button: 0 }], // A / cross
    camera_next: [{ button: 3 }], // Y / triangle
    look_left: [{ axis: 2, from: 0, to: -1, deadzone: 0.2 }], // right stick x
    look_right: [{ axis: 2, from: 0, to: 1, deadzone: 0.2 }],
  },
  wheel: {
    // Common wheel layout: wheel on axis 0, pedals resting at +1 and pressed at -1. Wheels
    // differ by model and driver: remap (see detectSource) when these do not fit.
    throttle: [{ axis: 1, from: 1, to: -1, deadzone: 0.02 }],
    brake: [{ axis: 2, from: 1, to: -1, deadzone: 0.02 }],
    steer_left: [{ axis: 0, from: 0, to: -1, deadzone: 0.01 }],
    steer_right: [{ axis: 0, from: 0, to: 1, deadzone: 0.01 }],
    handbrake: [{ button: 1 }],
    camera_next: [{ button: 3 }],
    look_left: [],
    look_right: [],
  },
});

/** A deep copy of the defaults (mutable). */
export function defaultBindings() {
  return JSON.parse(JSON.stringify(DEFAULT_BINDINGS));
}

/** Checks one source of `device`; returns null when good, else what is wrong. */
export function sourceError(device, s) {
  if (device === 'keyboard') {
    return typeof s === 'string' && /^[A-Za-z][A-Za-z0-9]*$/.test(s)
      ? null
      : `expected a KeyboardEvent.code such as "KeyW", got ${JSON.stringify(s)}`;
  }
  if (!s || typeof s !== 'object' || Array.isArray(s)) return `expected {button} or {axis, from, to}, got ${JSON.stringify(s)}`;
  const index = (v) => Number.isInteger(v) && v >= 0 && v < 64;
  if ('button' in s) {
    if (!index(s.button)) return `expected button an integer 0..63, got ${JSON.stringify(s.button)}`;
    return Object.keys(s).length === 1 ? null : 'a button source has only "button"';
  }
  if (!index(s.axis)) return `expected axis an integer 0..63, got ${JSON.stringify(s.axis)}`;
  const unit = (v) => Number.isFinite(v) && v >= -1 && v <= 1;
  if (!unit(s.from) || !unit(s.to) || s.from === s.to) {
    return `expected from and to in [-1, 1] and different, got ${JSON.stringify(s.from)}, ${JSON.stringify(s.to)}`;
  }
  if (s.deadzone !== undefined && !(Number.isFinite(s.deadzone) && s.deadzone >= 0 && s.deadzone < 1)) {
    return `expected deadzone in [0, 1), got ${JSON.stringify(s.deadzone)}`;
  }
  const extra = Object.keys(s).filter((k) => !['axis', 'from', 'to', 'deadzone'].includes(k));
  return extra.length ? `unknown key ${JSON.stringify(extra[0])}` : null;
}

/** Bindings from an untrusted object (what localStorage held): every valid action list is
 *  taken, everything else keeps its default. Returns {bindings, errors: ["/gamepad/brake/0:
 *  expected ..."]}. */
export function validateBindings(obj) {
  const bindings = defaultBindings();
  const errors = [];
  if (!obj || typeof obj !== 'object' || Array.isArray(obj)) {
    return { bindings, errors: obj === null || obj === undefined ? [] : ['/: expected an object'] };
  }
  for (const key of Object.keys(obj)) {
    if (key === 'format' || key === 'version') continue;
    if (!DEVICES.includes(key)) errors.push(`/${key}: unknown device (expected ${DEVICES.join(', ')})`);
  }
  for (const device of DEVICES) {
    const d = obj[device];
    if (d === undefined) continue;
    if (!d || typeof d !== 'object' || Array.isArray(d)) {
      errors.push(`/${device}: expected an object`);
      continue;
    }
    for (const action of Object.keys(d)) {
      const where = `/${device}/${action}`;
      if (!ACTIONS.includes(action)) {
        errors.push(`${where}: unknown action`);
        continue;
      }
      const list = d[action];
      if (!Array.isArray(list)) {
        errors.push(`${where}: expected a list of sources`);
        continue;
      }
      const bad = list.map((s, i) => [i, sourceError(device, s)]).find(([, e]) => e);
      if (bad) errors.push(`${where}/${bad[0]}: ${bad[1]}`);
      else bindings[device][action] = JSON.parse(JSON.stringify(list));
    }
  }
  return { bindings, errors };
}

/** Bindings saved in `storage` (a localStorage), or the defaults. Bad entries are reported
 *  through `warn` and replaced by their defaults. */
export function loadBindings(storage, warn = () => {}) {
  let raw = null;
  try {
    raw = storage ? storage.getItem(STORAGE_KEY) : null;
  } catch {
    raw = null; // Storage blocked (privacy settings): defaults.
  }
  if (raw === null || raw === undefined) return defaultBindings();
  let obj;
  try {
    obj = JSON.parse(raw);
  } catch (e) {
    warn(`${STORAGE_KEY}: not JSON (${e.message}); using the default controls`);
    return defaultBindings();
  }
  const { bindings, errors } = validateBindings(obj);
  for (const e of errors) warn(`${STORAGE_KEY}: ${e}; that entry keeps its default`);
  return bindings;
}

/** Writes `bindings` to `storage` under 'cityforge.controls'; false when storage refuses. */
export function saveBindings(storage, bindings) {
  if (!storage) return false;
  try {
    storage.setItem(STORAGE_KEY, JSON.stringify({ format: 'cityforge-controls', version: 1, ...bindings }));
    return true;
  } catch {
    return false;
  }
}

/** A copy of `bindings` with `device`'s `action` bound to `sources` (a list, or one source).
 *  Throws Error "<device>/<action>/<i>: expected ..." on a bad source. */
export function setBinding(bindings, device, action, sources) {
  if (!DEVICES.includes(device)) throw new Error(`${device}: expected a device (${DEVICES.join(', ')})`);
  if (!ACTIONS.includes(action)) throw new Error(`${device}/${action}: expected an action (${ACTIONS.join(', ')})`);
  const list = Array.isArray(sources) ? sources : [sources];
  list.forEach((s, i) => {
    const e = sourceError(device, s);
    if (e) throw new Error(`${device}/${action}/${i}: ${e}`);
  });
  const out = JSON.parse(JSON.stringify(bindings));
  out[device][action] = JSON.parse(JSON.stringify(list));
  return out;
}

/** A copy of `bindings` with one action, one device or (no arguments) everything back to
 *  its default. */
export function resetBinding(bindings, device = null, action = null) {
  const out = JSON.parse(JSON.stringify(bindings));
  const defaults = defaultBindings();
  for (const d of device ? [device] : DEVICES) {
    if (!DEVICES.includes(d)) throw new Error(`${d}: expected a device (${DEVICES.join(', ')})`);
    if (action) out[d][action] = defaults[d][action];
    else out[d] = defaults[d];
  }
  return out;
}

/** Code -> held-key name for a keyboard binding. */
function codeTable(keyboard) {
  const table = new Map();
  for (const action of ACTIONS) for (const code of keyboard[action] || []) table.set(code, KEY_OF[action]);
  return table;
}
const DEFAULT_CODES = codeTable(DEFAULT_BINDINGS.keyboard);

/** Which held key ('up', 'down', 'left', 'right', 'handbrake', 'camera_next', 'look_left',
 *  'look_right') a KeyboardEvent drives, or null. Events without a code fall back to the key. */
export function controlOf(event, codes = DEFAULT_CODES) {
  if (codes.has(event.code)) return codes.get(event.code);
  const k = event.key;
  if (k === ' ' || k === 'Spacebar') return codes.get('Space') ?? null;
  if (typeof k === 'string' && k.length === 1) return codes.get(`Key${k.toUpperCase()}`) ?? null;
  return codes.get(k) ?? null;
}

function typingInto(target) {
  if (!target || !target.tagName) return false;
  const tag = target.tagName.toLowerCase();
  if (tag === 'textarea' || target.isContentEditable) return true;
  return tag === 'input' && !['range', 'checkbox', 'radio', 'button'].includes(target.type);
}

/** Listens on `target` (window) while attached; `keys` holds the held controls and
 *  `presses.camera_next` counts camera key presses (not repeats). Drive keys are taken before
 *  sliders, checkboxes and selects see them (so arrows do not move the time slider while
 *  driving); text fields keep their keys. */
export function createKeyboard(target, keyboard = DEFAULT_BINDINGS.keyboard) {
  const keys = {
    up: false,
    down: false,
    left: false,
    right: false,
    handbrake: false,
    camera_next: false,
    look_left: false,
    look_right: false,
  };
  const presses = { camera_next: 0 };
  let codes = codeTable(keyboard);
  const onKey = (down) => (e) => {
    const c = controlOf(e, codes);
    if (!c || typingInto(e.target)) return;
    if (down && !keys[c] && !e.repeat && c in presses) presses[c]++;
    keys[c] = down;
    e.preventDefault();
    e.stopPropagation();
  };
  const onDown = onKey(true);
  const onUp = onKey(false);
  const onBlur = () => {
    for (const k of Object.keys(keys)) keys[k] = false;
  };
  let attached = false;
  return {
    keys,
    presses,
    setBindings(kb) {
      codes = codeTable(kb);
      onBlur();
    },
    attach() {
      if (attached || !target) return;
      target.addEventListener('keydown', onDown, true);
      target.addEventListener('keyup', onUp, true);
      target.addEventListener('blur', onBlur);
      attached = true;
    },
    detach() {
      if (!attached) return;
      target.removeEventListener('keydown', onDown, true);
      target.removeEventListener('keyup', onUp, true);
      target.removeEventListener('blur', onBlur);
      onBlur();
      presses.camera_next = 0;
      attached = false;
    },
  };
}

/** Value 0..1 of one gamepad source on `pad`; `rest` (a Set) remembers the axes seen at their
 *  rest value: an axis counts only after that (pedals read 0, i.e. half pressed, until first
 *  touched on some drivers). */
export function sourceValue(pad, s, rest = null) {
  if ('button' in s) {
    const b = pad.buttons ? pad.buttons[s.button] : undefined;
    if (b === undefined || b === null) return 0;
    if (typeof b === 'number') return Math.min(1, Math.max(0, b));
    const v = Number.isFinite(b.value) ? b.value : 0;
    // Digital buttons should report 1 when pressed; some report pressed with value 0.
    return Math.min(1, Math.max(0, b.pressed && v === 0 ? 1 : v));
  }
  const a = pad.axes ? pad.axes[s.axis] : undefined;
  if (!Number.isFinite(a)) return 0;
  if (rest) {
    const key = `${pad.index}|${pad.id}|${s.axis}|${s.from}`;
    if (!rest.has(key)) {
      if (Math.abs(a - s.from) > 0.1) return 0;
      rest.add(key);
    }
  }
  const t = Math.min(1, Math.max(0, (a - s.from) / (s.to - s.from)));
  const dz = s.deadzone ?? 0;
  return t <= dz ? 0 : (t - dz) / (1 - dz);
}

/** Per action, the largest value of its sources over the connected pads (each read with its
 *  profile: 'gamepad' for the standard mapping, else 'wheel'). */
export function readGamepads(pads, bindings, rest = null) {
  const out = {};
  for (const a of ACTIONS) out[a] = 0;
  let connected = 0;
  for (const pad of pads || []) {
    if (!pad || pad.connected === false) continue;
    connected++;
    const profile = bindings[pad.mapping === 'standard' ? 'gamepad' : 'wheel'];
    for (const a of ACTIONS) {
      for (const s of profile[a] || []) out[a] = Math.max(out[a], sourceValue(pad, s, rest));
    }
  }
  out.connected = connected;
  return out;
}

const clamp1 = (v) => Math.min(1, Math.max(-1, v));
const PRESS = 0.5; // An analogue value above this counts as a pressed button.

/** Targets for one frame from held keys, gamepad values (readGamepads) and the number of
 *  camera presses: {throttle, brake (0..1), steer (-1..1, left positive), handbrake (bool),
 *  camera_next (bool: once per press), look (-1..1, left positive), channels: {throttle,
 *  brake, steer} (true where the gamepad set the value: it applies directly, keys ramp),
 *  analog (any channel true), up, down, left, right (the held keys, for code that ramps keys
 *  itself when analog is false)}. */
export function combineTargets(keys, pad, cameraPresses = 0) {
  const kThrottle = keys.up ? 1 : 0;
  const kBrake = keys.down ? 1 : 0;
  const kSteer = (keys.left ? 1 : 0) - (keys.right ? 1 : 0);
  const pSteer = pad.steer_left - pad.steer_right;
  const channels = {
    throttle: pad.throttle > kThrottle,
    brake: pad.brake > kBrake,
    steer: kSteer === 0 && pSteer !== 0,
  };
  return {
    throttle: Math.max(kThrottle, pad.throttle),
    brake: Math.max(kBrake, pad.brake),
    steer: clamp1(kSteer + pSteer),
    handbrake: !!keys.handbrake || pad.handbrake > PRESS,
    camera_next: cameraPresses > 0,
    look: clamp1((keys.look_left ? 1 : 0) - (keys.look_right ? 1 : 0) + pad.look_left - pad.look_right),
    channels,
    analog: channels.throttle || channels.brake || channels.steer,
    up: !!keys.up,
    down: !!keys.down,
    left: !!keys.left,
    right: !!keys.right,
  };
}

function approach(value, target, rate, dt) {
  if (value < target) return Math.min(target, value + rate * dt);
  return Math.max(target, value - rate * dt);
}

const RAMP = Object.freeze({
  throttle_rate: 3.0,
  brake_rate: 5.0,
  steer_rate: 2.5,
  steer_return_rate: 4.0,
  stop_mps: 0.05,
});

/** Moves `controls` {throttle, brake, steer, handbrake} toward the targets for dt_s and
 *  returns it: keyboard values ramp at the params' rates (pedals drop to 0 at once when
 *  released, steering returns to centre at steer_return_rate), analogue ones
 *  (targets.channels; without it, all when targets.analog is true) apply as they are. No
 *  gear logic and no pedal swap in reverse. */
export function rampControls(controls, t, dt_s, params = RAMP) {
  const analog = channelsOf(t);
  controls.throttle = rampPedal(controls.throttle, t.throttle, analog.throttle, params.throttle_rate, dt_s);
  controls.brake = rampPedal(controls.brake, t.brake, analog.brake, params.brake_rate, dt_s);
  if (analog.steer) controls.steer = t.steer;
  else {
    const rate = t.steer === 0 ? params.steer_return_rate : params.steer_rate;
    controls.steer = approach(controls.steer, t.steer, rate, dt_s);
  }
  controls.handbrake = !!t.handbrake;
  return controls;
}

function channelsOf(t) {
  if (t.channels) return t.channels;
  const all = t.analog === true;
  return { throttle: all, brake: all, steer: all };
}

function rampPedal(value, target, analog, rate, dt_s) {
  if (analog) return target;
  return target > 0 ? approach(value, target, rate, dt_s) : 0;
}

/** For the kinematic car (physics.js): like physics.updateControls does for keys, selects
 *  reverse from rest (brake held, no throttle) and forward again (throttle held, no brake),
 *  and in reverse lets the brake pedal drive and the throttle brake; then rampControls.
 *  `params` needs the *_rate fields and stop_mps (physics.CAR has them). */
export function applyTargets(car, t, dt_s, params = RAMP) {
  const atRest = Math.abs(car.speed_mps) <= params.stop_mps;
  if (atRest && car.gear > 0 && t.brake > PRESS && t.throttle <= PRESS) car.gear = -1;
  else if (atRest && car.gear < 0 && t.throttle > PRESS && t.brake <= PRESS) car.gear = 1;
  if (car.gear > 0) return rampControls(car.controls, t, dt_s, params);
  const ch = channelsOf(t);
  const swapped = {
    ...t,
    throttle: t.brake,
    brake: t.throttle,
    channels: { ...ch, throttle: ch.brake, brake: ch.throttle },
  };
  return rampControls(car.controls, swapped, dt_s, params);
}

/** For remapping: the source on `pad` that moved most since `before` (a snapshot {axes,
 *  buttons: values} taken at rest): {button: i} for a button pressed past 0.5, else {axis: i,
 *  from: rest value rounded, to: -1 or 1} for an axis that moved over 0.5; null if none. */
export function detectSource(before, pad) {
  let best = null;
  let most = 0.5;
  (pad.buttons || []).forEach((b, i) => {
    const v = typeof b === 'number' ? b : b && (b.value || (b.pressed ? 1 : 0));
    const v0 = before.buttons ? before.buttons[i] ?? 0 : 0;
    if (v - v0 > most) {
      most = v - v0;
      best = { button: i };
    }
  });
  (pad.axes || []).forEach((a, i) => {
    const a0 = before.axes ? before.axes[i] ?? 0 : 0;
    if (Math.abs(a - a0) > most) {
      most = Math.abs(a - a0);
      const from = Math.round(a0); // 0 for sticks and wheels, +-1 for pedals
      best = { axis: i, from, to: a > a0 ? 1 : -1, deadzone: from === 0 ? 0.1 : 0.02 };
      if (best.to === best.from) best.to = -best.from;
    }
  });
  return best;
}

/** A snapshot of a pad for detectSource. */
export function snapshotPad(pad) {
  return {
    axes: Array.from(pad.axes || []),
    buttons: Array.from(pad.buttons || [], (b) => (typeof b === 'number' ? b : b ? b.value || (b.pressed ? 1 : 0) : 0)),
  };
}

/** Keyboard plus gamepads. `target`: the window (key events); `nav`: what has getGamepads
 *  (navigator); `storage`: localStorage for the bindings. poll() once a frame returns the
 *  targets (combineTargets). */
export function createInput(target, { nav = null, storage = null, warn = (m) => console.warn(m) } = {}) {
  let bindings = loadBindings(storage, warn);
  const keyboard = createKeyboard(target, bindings.keyboard);
  const rest = new Set();
  let padCamera = false; // the gamepad camera button was down at the last poll
  const pads = () => {
    if (!nav || typeof nav.getGamepads !== 'function') return [];
    try {
      return Array.from(nav.getGamepads() || []);
    } catch {
      return []; // Blocked by a permissions policy.
    }
  };
  const store = (b) => {
    bindings = b;
    keyboard.setBindings(b.keyboard);
    saveBindings(storage, b);
    return b;
  };
  return {
    keys: keyboard.keys,
    attach: () => keyboard.attach(),
    detach: () => {
      keyboard.detach();
      padCamera = false;
    },
    get bindings() {
      return bindings;
    },
    setBinding: (device, action, sources) => store(setBinding(bindings, device, action, sources)),
    resetBindings: (device = null, action = null) => store(resetBinding(bindings, device, action)),
    gamepads: () =>
      pads()
        .filter((p) => p && p.connected !== false)
        .map((p) => ({ index: p.index, id: p.id, mapping: p.mapping, profile: p.mapping === 'standard' ? 'gamepad' : 'wheel' })),
    pads,
    /** This frame's targets. */
    poll() {
      const pad = readGamepads(pads(), bindings, rest);
      const down = pad.camera_next > PRESS;
      const presses = keyboard.presses.camera_next + (down && !padCamera ? 1 : 0);
      padCamera = down;
      keyboard.presses.camera_next = 0;
      const t = combineTargets(keyboard.keys, pad, presses);
      t.gamepads = pad.connected;
      return t;
    },
  };
}
