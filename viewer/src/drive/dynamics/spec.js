// SPDX-License-Identifier: Apache-2.0
// Vehicle files (data/vehicles/<name>.json, format "cityforge-vehicle" version 1): validation.
// The format and its limits are in /docs/vehicles.md; errors name the file, the JSON pointer of
// the bad value, what was expected and what was found.

const SCHEMA = {
  body: [
    'length_m', 'width_m', 'height_m', 'mass_kg', 'wheelbase_m', 'track_m', 'cg_height_m',
    'cg_to_front_axle_m', 'front_overhang_m',
  ],
  suspension: [
    'rest_length_m', 'max_travel_m', 'stiffness', 'damping_compression', 'damping_relaxation',
  ],
  tyres: ['radius_m', 'friction', 'side_stiffness'],
  engine: ['idle_rpm', 'redline_rpm', 'torque_curve'],
  gearbox: ['ratios', 'reverse_ratio', 'final_drive', 'upshift_rpm', 'downshift_rpm', 'shift_time_s'],
  brakes: ['max_torque_nm', 'front_share'],
  steering: ['max_angle_deg'],
};
const TOP = ['format', 'version', 'name', 'label', 'drivetrain', ...Object.keys(SCHEMA)];
const DRIVETRAINS = ['rwd', 'fwd', 'awd'];

function show(v) {
  if (v === undefined) return 'nothing';
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'number') return String(v);
  if (Array.isArray(v)) return `an array of ${v.length}`;
  if (v === null) return 'null';
  return typeof v === 'object' ? 'an object' : String(v);
}

function fail(file, ptr, expected, got) {
  throw new Error(`${file}: ${ptr}: expected ${expected}, got ${show(got)}`);
}

function isNum(v) {
  return typeof v === 'number' && Number.isFinite(v);
}

function positive(file, ptr, v) {
  if (!isNum(v) || v <= 0) fail(file, ptr, 'a number > 0', v);
  return v;
}

function object(file, ptr, v, keys) {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) fail(file, ptr || '/', 'an object', v);
  for (const k of Object.keys(v)) {
    if (!keys.includes(k)) fail(file, `${ptr}/${k}`, `one of the keys ${keys.join(', ')}`, k);
  }
  for (const k of keys) {
    if (!(k in v)) fail(file, `${ptr}/${k}`, 'a value (the key is required)', undefined);
  }
}

function torqueCurve(file, ptr, v) {
  if (!Array.isArray(v) || v.length < 2) fail(file, ptr, 'an array of >= 2 [rpm, torque_nm] points', v);
  v.forEach((p, i) => {
    if (!Array.isArray(p) || p.length !== 2) fail(file, `${ptr}/${i}`, 'a [rpm, torque_nm] pair', p);
    positive(file, `${ptr}/${i}/0`, p[0]);
    if (!isNum(p[1]) || p[1] < 0) fail(file, `${ptr}/${i}/1`, 'a torque >= 0', p[1]);
    if (i > 0 && p[0] <= v[i - 1][0]) {
      fail(file, `${ptr}/${i}/0`, `an rpm > ${v[i - 1][0]} (strictly ascending)`, p[0]);
    }
  });
}

function ratios(file, ptr, v) {
  if (!Array.isArray(v) || v.length < 1) fail(file, ptr, 'an array of >= 1 gear ratios', v);
  v.forEach((r, i) => {
    positive(file, `${ptr}/${i}`, r);
    if (i > 0 && r >= v[i - 1]) fail(file, `${ptr}/${i}`, `a ratio < ${v[i - 1]} (strictly descending)`, r);
  });
}

/** Checks a parsed vehicle file against the contract and returns a frozen deep copy.
 *  Throws Error("<fileName>: <JSON pointer>: expected ..., got ...") on the first problem.
 *  @param {object} json   parsed JSON
 *  @param {string} fileName  name used in messages (e.g. "hatchback.json") */
export function validateVehicle(json, fileName = 'vehicle.json') {
  const f = fileName;
  object(f, '', json, TOP);
  if (json.format !== 'cityforge-vehicle') fail(f, '/format', '"cityforge-vehicle"', json.format);
  if (json.version !== 1) fail(f, '/version', '1', json.version);
  if (typeof json.name !== 'string' || !/^[a-z0-9_]+$/.test(json.name)) {
    fail(f, '/name', 'a name of [a-z0-9_]+', json.name);
  }
  if (typeof json.label !== 'string' || json.label.length === 0) fail(f, '/label', 'a non-empty string', json.label);
  if (!DRIVETRAINS.includes(json.drivetrain)) fail(f, '/drivetrain', '"rwd", "fwd" or "awd"', json.drivetrain);
  for (const [section, keys] of Object.entries(SCHEMA)) {
    object(f, `/${section}`, json[section], keys);
    for (const k of keys) {
      const ptr = `/${section}/${k}`;
      const v = json[section][k];
      if (k === 'torque_curve') torqueCurve(f, ptr, v);
      else if (k === 'ratios') ratios(f, ptr, v);
      else if (k === 'front_share') {
        if (!isNum(v) || v < 0 || v > 1) fail(f, ptr, 'a number in [0, 1]', v);
      } else positive(f, ptr, v);
    }
  }
  // Cross-field limits.
  const { body, engine, gearbox } = json;
  if (body.cg_to_front_axle_m >= body.wheelbase_m) {
    fail(f, '/body/cg_to_front_axle_m', `a value < wheelbase_m (${body.wheelbase_m})`, body.cg_to_front_axle_m);
  }
  if (engine.idle_rpm >= engine.redline_rpm) {
    fail(f, '/engine/idle_rpm', `a value < redline_rpm (${engine.redline_rpm})`, engine.idle_rpm);
  }
  if (gearbox.upshift_rpm > engine.redline_rpm) {
    fail(f, '/gearbox/upshift_rpm', `a value <= redline_rpm (${engine.redline_rpm})`, gearbox.upshift_rpm);
  }
  if (gearbox.downshift_rpm >= gearbox.upshift_rpm) {
    fail(f, '/gearbox/downshift_rpm', `a value < upshift_rpm (${gearbox.upshift_rpm})`, gearbox.downshift_rpm);
  }
  return deepFreeze(structuredClone(json));
}

function deepFreeze(o) {
  if (o && typeof o === 'object') {
    for (const v of Object.values(o)) deepFreeze(v);
    Object.freeze(o);
  }
  return o;
}
