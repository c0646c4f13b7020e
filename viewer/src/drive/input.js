// SPDX-License-Identifier: Apache-2.0
// Keyboard state for drive mode: ArrowUp/KeyW throttle, ArrowDown/KeyS brake (reverse from
// rest), ArrowLeft/KeyA and ArrowRight/KeyD steer, Space handbrake.

const CODES = {
  ArrowUp: 'up',
  KeyW: 'up',
  ArrowDown: 'down',
  KeyS: 'down',
  ArrowLeft: 'left',
  KeyA: 'left',
  ArrowRight: 'right',
  KeyD: 'right',
  Space: 'handbrake',
};

/** Which control a KeyboardEvent drives, or null. */
export function controlOf(event) {
  if (CODES[event.code]) return CODES[event.code];
  const k = event.key;
  if (k === ' ' || k === 'Spacebar') return 'handbrake';
  if (typeof k === 'string' && k.length === 1) return CODES[`Key${k.toUpperCase()}`] ?? null;
  return CODES[k] ?? null;
}

function typingInto(target) {
  if (!target || !target.tagName) return false;
  const tag = target.tagName.toLowerCase();
  if (tag === 'textarea' || target.isContentEditable) return true;
  return tag === 'input' && !['range', 'checkbox', 'radio', 'button'].includes(target.type);
}

/** Listens on `target` (window) while attached; `keys` holds the held controls. Drive keys are
 *  taken before sliders, checkboxes and selects see them (so arrows do not move the time slider
 *  while driving); text fields keep their keys. */
export function createKeyboard(target) {
  const keys = { up: false, down: false, left: false, right: false, handbrake: false };
  const onKey = (down) => (e) => {
    const c = controlOf(e);
    if (!c || typingInto(e.target)) return;
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
      attached = false;
    },
  };
}
