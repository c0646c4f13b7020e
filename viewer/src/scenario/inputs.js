// SPDX-License-Identifier: Apache-2.0
// Driver inputs per physics step, for identical replays of a scenario drive: a recorder that
// keeps only the steps where an input changed, its JSON form (with the scenario's name, seed
// and file hash, so a replay can check it runs the same scenario), a player that gives the
// inputs at any step, and scripted inputs ([{t_s, throttle, ...}, ...]) for tests and studies.
// The inputs are what the car's physics reads (car.controls after the keys' and pads' ramps,
// the gear, and the look direction that the eyes-off-road metric reads), so replaying them
// step by step reproduces the drive; JSON numbers round-trip exactly.

/** The recorded inputs and their values before any record. */
export const FIELDS = Object.freeze(['throttle', 'brake', 'steer', 'handbrake', 'gear', 'look']);
export const NEUTRAL = Object.freeze({ throttle: 0, brake: 0, steer: 0, handbrake: false, gear: 1, look: 0 });
export const FORMAT = 'cityforge-drive-inputs';
export const STEP_S = 0.01;

const RANGE = { throttle: [0, 1], brake: [0, 1], steer: [-1, 1], look: [-1, 1] };

/** The value of one input, checked: numbers finite and in range, handbrake a boolean, gear 1
 *  or -1. Throws with `where` in the message. */
function check(field, v, where) {
  if (field === 'handbrake') {
    if (typeof v !== 'boolean') throw new Error(`${where}: handbrake: expected a boolean, got ${JSON.stringify(v)}`);
    return v;
  }
  if (field === 'gear') {
    if (v !== 1 && v !== -1) throw new Error(`${where}: gear: expected 1 or -1, got ${JSON.stringify(v)}`);
    return v;
  }
  const [lo, hi] = RANGE[field];
  if (typeof v !== 'number' || !Number.isFinite(v) || v < lo || v > hi) {
    throw new Error(`${where}: ${field}: expected a number in [${lo}, ${hi}], got ${JSON.stringify(v)}`);
  }
  return v;
}

const rowOf = (step, c) => [step, c.throttle, c.brake, c.steer, c.handbrake ? 1 : 0, c.gear, c.look];
const controlsOf = (row) => ({ throttle: row[1], brake: row[2], steer: row[3], handbrake: row[4] === 1,
  gear: row[5], look: row[6] });

/** Records inputs. meta: {scenario (name), seed, file_hash, step_s}. record(step, inputs) once
 *  per physics step, steps ascending from 0; fields inputs lacks keep their last value. */
export function createInputRecorder(meta = {}) {
  const rows = [];
  let cur = { ...NEUTRAL };
  let steps = 0;
  const rec = {
    meta: { scenario: meta.scenario ?? null, seed: meta.seed ?? null, file_hash: meta.file_hash ?? null,
      step_s: meta.step_s ?? STEP_S },
    /** Steps recorded (the last step + 1). */
    get steps() {
      return steps;
    },
    record(step, inputs) {
      if (!Number.isInteger(step) || step < steps) {
        throw new Error(`input recorder: step ${step} after step ${steps - 1}`);
      }
      const next = { ...cur };
      for (const f of FIELDS) if (inputs[f] !== undefined) next[f] = check(f, inputs[f], `step ${step}`);
      if (rows.length === 0 || FIELDS.some((f) => next[f] !== cur[f])) rows.push(rowOf(step, next));
      cur = next;
      steps = step + 1;
    },
    /** The recording as a plain object (JSON.stringify(recorder) gives its text). */
    toJSON() {
      return { format: FORMAT, version: 1, ...rec.meta, steps, columns: ['step', ...FIELDS],
        changes: rows.map((r) => r.slice()) };
    },
  };
  return rec;
}

/** Parses and checks a recording (its text or object): {scenario, seed, file_hash, step_s,
 *  steps, changes}. */
export function fromJSON(input) {
  const o = typeof input === 'string' ? JSON.parse(input) : input;
  if (!o || o.format !== FORMAT || o.version !== 1) {
    throw new Error(`inputs: expected format "${FORMAT}" version 1, got ${JSON.stringify(o && o.format)} ${JSON.stringify(o && o.version)}`);
  }
  if (!(o.step_s > 0)) throw new Error(`inputs: step_s: expected a number > 0, got ${JSON.stringify(o.step_s)}`);
  if (!Number.isInteger(o.steps) || o.steps < 0) throw new Error(`inputs: steps: expected an integer >= 0, got ${JSON.stringify(o.steps)}`);
  if (!Array.isArray(o.changes)) throw new Error('inputs: changes: expected an array');
  let prev = -1;
  const changes = o.changes.map((r, i) => {
    const where = `inputs: changes/${i}`;
    if (!Array.isArray(r) || r.length !== FIELDS.length + 1) throw new Error(`${where}: expected [step, ${FIELDS.join(', ')}]`);
    if (!Number.isInteger(r[0]) || r[0] <= prev || r[0] >= o.steps) {
      throw new Error(`${where}: step: expected an integer in (${prev}, ${o.steps}), got ${JSON.stringify(r[0])}`);
    }
    prev = r[0];
    if (r[4] !== 0 && r[4] !== 1) throw new Error(`${where}: handbrake: expected 0 or 1, got ${JSON.stringify(r[4])}`);
    FIELDS.forEach((f, k) => f !== 'handbrake' && check(f, r[k + 1], where));
    return r.slice();
  });
  return { scenario: o.scenario ?? null, seed: o.seed ?? null, file_hash: o.file_hash ?? null, step_s: o.step_s,
    steps: o.steps, changes };
}

/** Why a recording does not belong to a scenario (/scenario.json object), or null when its
 *  name, seed and file hash match. */
export function recordingMismatch(recording, spec) {
  for (const [k, want] of [['scenario', spec.name], ['seed', spec.seed], ['file_hash', spec.file_hash]]) {
    if (recording[k] !== (want ?? null)) return `${k}: the recording has ${JSON.stringify(recording[k])}, the scenario ${JSON.stringify(want ?? null)}`;
  }
  return null;
}

/** Plays a recording (a recorder, its JSON text or object): at(k) -> the inputs at step k
 *  (NEUTRAL before the first change; the last ones past the end). */
export function createInputPlayer(recording) {
  const r = typeof recording?.toJSON === 'function' ? fromJSON(recording.toJSON())
    : recording && recording.changes && !recording.format ? recording : fromJSON(recording);
  const rows = r.changes;
  let hint = 0; // replays walk forwards: start the search at the last answer
  return {
    steps: r.steps,
    step_s: r.step_s,
    meta: { scenario: r.scenario, seed: r.seed, file_hash: r.file_hash },
    at(k) {
      if (hint >= rows.length || rows[hint][0] > k) hint = 0;
      if (rows.length === 0 || rows[0][0] > k) return { ...NEUTRAL };
      let lo = hint;
      let hi = rows.length - 1;
      while (lo < hi) {
        const mid = (lo + hi + 1) >> 1;
        if (rows[mid][0] <= k) lo = mid;
        else hi = mid - 1;
      }
      hint = lo;
      return controlsOf(rows[lo]);
    },
  };
}

/** Per-step inputs from a script [{t_s, throttle?, brake?, steer?, handbrake?, gear?, look?}]:
 *  each entry sets its fields from the first step at or after t_s (an entry at 2.73 s acts
 *  from step 273 exactly, despite 2.73 / 0.01 = 272.99999999999997), until a later entry
 *  changes them. opts: step_s (0.01), duration_s (steps = duration / step; default: to the
 *  last entry's step), and the recording's scenario, seed, file_hash. Returns a player. */
export function scriptedInputs(script, opts = {}) {
  const step_s = opts.step_s ?? STEP_S;
  const entries = script.map((e, i) => {
    if (typeof e.t_s !== 'number' || !Number.isFinite(e.t_s) || e.t_s < 0) {
      throw new Error(`script/${i}: t_s: expected a number >= 0, got ${JSON.stringify(e.t_s)}`);
    }
    return { e, i, k: Math.max(0, Math.ceil(e.t_s / step_s - 1e-6)) };
  }).sort((a, b) => a.k - b.k || a.i - b.i);
  const last = entries.length ? entries[entries.length - 1].k + 1 : 1;
  const steps = opts.duration_s !== undefined ? Math.max(last, Math.round(opts.duration_s / step_s)) : last;
  const rec = createInputRecorder({ ...opts, step_s });
  for (let j = 0; j < entries.length;) {
    const k = entries[j].k;
    const merged = {};
    for (; j < entries.length && entries[j].k === k; j++) {
      for (const f of FIELDS) if (entries[j].e[f] !== undefined) merged[f] = entries[j].e[f];
    }
    rec.record(k, merged);
  }
  if (steps > rec.steps) rec.record(steps - 1, {});
  return createInputPlayer(rec);
}
