// SPDX-License-Identifier: Apache-2.0
// The drive panel's settings for users who do not open the console: remapping the controls
// (pick a device and an action, press the key, button or pedal to bind) and the metric
// thresholds (docs/drive.md, "Controls and gamepads" and "Thresholds"). The bindings are saved
// by the input module; thresholds hold for the next drives of the page.

import { ACTIONS, DEVICES, detectSource, snapshotPad } from './input.js';

const BIND_TIMEOUT_MS = 10_000;

/** A binding source as text: a key code, "button 7", "axis 1 (1 to -1)". */
export function describeSource(s) {
  if (typeof s === 'string') return s;
  if (s && Number.isInteger(s.button)) return `button ${s.button}`;
  if (s && Number.isInteger(s.axis)) return `axis ${s.axis} (${s.from} to ${s.to})`;
  return '?';
}

/** Fills `controlsEl` and `thresholdsEl` (elements of the panel) for `drive` (createDrive's
 *  API). `win`: the window (key events, animation frames). Returns {refresh} to redraw the
 *  values after a change made elsewhere (a new drive, the console). */
export function createDriveSettings(drive, controlsEl, thresholdsEl, win = window) {
  const doc = controlsEl.ownerDocument;
  const el = (tag, props = {}, ...kids) => {
    const e = doc.createElement(tag);
    Object.assign(e, props);
    for (const k of kids) e.append(k);
    return e;
  };
  const input = drive.input;

  // Controls: device, action, what is bound, bind and reset.
  const device = el('select', { id: 'bind-device' }, ...DEVICES.map((d) => el('option', { value: d, textContent: d })));
  const action = el('select', { id: 'bind-action' }, ...ACTIONS.map((a) => el('option', { value: a, textContent: a.replace(/_/g, ' ') })));
  const bound = el('div', { id: 'bind-current', className: 'hint' });
  const status = el('div', { id: 'bind-status', className: 'hint' });
  const bind = el('button', { id: 'bind-start', type: 'button', textContent: 'bind…' });
  const reset = el('button', { id: 'bind-reset', type: 'button', textContent: 'reset' });
  let cancel = null;
  const show = () => {
    const list = input.bindings[device.value]?.[action.value] || [];
    bound.textContent = list.length ? list.map(describeSource).join(', ') : '(nothing)';
  };
  const finish = (msg) => {
    if (cancel) cancel();
    cancel = null;
    status.textContent = msg;
    bind.disabled = false;
    show();
  };
  bind.addEventListener('click', () => {
    if (cancel) return;
    bind.disabled = true;
    const dev = device.value;
    const act = action.value;
    if (dev === 'keyboard') {
      status.textContent = 'press a key (Escape: cancel)';
      const onKey = (e) => {
        e.preventDefault();
        e.stopImmediatePropagation();
        if (e.code === 'Escape') return finish('cancelled');
        input.setBinding('keyboard', act, [e.code]);
        finish(`${act.replace(/_/g, ' ')}: ${e.code}`);
      };
      win.addEventListener('keydown', onKey, true);
      const timer = win.setTimeout(() => finish('no key pressed'), BIND_TIMEOUT_MS);
      cancel = () => {
        win.removeEventListener('keydown', onKey, true);
        win.clearTimeout(timer);
      };
      return;
    }
    // A pad of that profile: what moves first against a snapshot taken now, at rest.
    const pad = () => input.pads().find((p) => p && p.connected !== false &&
      (p.mapping === 'standard' ? 'gamepad' : 'wheel') === dev);
    const p0 = pad();
    if (!p0) return finish(`no ${dev} connected (press one of its buttons first)`);
    const rest = snapshotPad(p0);
    status.textContent = 'press the button or move the axis (10 s)';
    const t0 = Date.now();
    let raf = 0;
    const poll = () => {
      const p = pad();
      const s = p ? detectSource(rest, p) : null;
      if (s) {
        input.setBinding(dev, act, [s]);
        return finish(`${act.replace(/_/g, ' ')}: ${describeSource(s)}`);
      }
      if (Date.now() - t0 > BIND_TIMEOUT_MS) return finish('nothing moved');
      raf = win.requestAnimationFrame(poll);
    };
    raf = win.requestAnimationFrame(poll);
    cancel = () => win.cancelAnimationFrame(raf);
  });
  reset.addEventListener('click', () => {
    input.resetBindings(device.value, action.value);
    finish('default restored');
  });
  device.addEventListener('change', show);
  action.addEventListener('change', show);
  controlsEl.append(
    el('label', {}, el('span', { textContent: 'device' }), device),
    el('label', {}, el('span', { textContent: 'action' }), action),
    bound,
    el('div', {}, bind, reset),
    status,
  );

  // Thresholds: one number per key, set on change.
  const inputs = new Map();
  const errors = el('div', { id: 'threshold-errors', className: 'hint' });
  for (const [k, v] of Object.entries(drive.thresholds())) {
    const box = el('input', { type: 'number', step: 'any', min: '0', value: String(v) });
    box.dataset.threshold = k;
    box.style.width = '70px';
    box.addEventListener('change', () => {
      const rejected = drive.setThresholds({ [k]: box.value === '' ? NaN : Number(box.value) });
      errors.textContent = rejected.join('; ');
      box.value = String(drive.thresholds()[k]);
    });
    inputs.set(k, box);
    thresholdsEl.append(el('label', {}, el('span', { textContent: k.replace(/_/g, ' ') }), box));
  }
  thresholdsEl.append(errors);

  show();
  return {
    refresh() {
      show();
      const th = drive.thresholds();
      for (const [k, box] of inputs) if (doc.activeElement !== box) box.value = String(th[k]);
    },
  };
}
