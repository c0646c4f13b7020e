// SPDX-License-Identifier: Apache-2.0
// Props with a footprint for drive mode's collision world (issue 25): posts, hydrants and trunks
// read from the city's per-prop point clouds (points/props/<kind>.ply, README: outputs), which
// stats.json lists (dressing.by_prop), so no missing file is ever requested.

/** Kinds that stop a car, with the radius of what it hits (m): trunks, posts and hydrants. */
export const SOLID_PROPS = Object.freeze({
  street_light: 0.15,
  parking_lamp: 0.12,
  street_tree: 0.25,
  park_tree: 0.3,
  hydrant: 0.2,
  signal_pole: 0.15,
  stop_sign: 0.05,
  yield_sign: 0.05,
  bin: 0.3,
  fountain: 1.5,
  kiosk: 1.2,
});

const SIZES = { char: 1, uchar: 1, int8: 1, uint8: 1, short: 2, ushort: 2, int16: 2, uint16: 2,
  int: 4, uint: 4, int32: 4, uint32: 4, float: 4, float32: 4, double: 8, float64: 8 };

/** Positions (x, y) of a binary little-endian PLY point cloud: {x: Float64Array, y: ...}.
 *  Throws naming `name` on anything else. */
export function readPlyPoints(buffer, name = 'props.ply') {
  const bytes = new Uint8Array(buffer);
  const head = new TextDecoder('latin1').decode(bytes.subarray(0, Math.min(bytes.length, 4096)));
  const end = head.indexOf('end_header\n');
  if (!head.startsWith('ply\n') || end < 0) throw new Error(`${name}: not a PLY file`);
  const lines = head.slice(0, end).split('\n');
  if (!lines.includes('format binary_little_endian 1.0')) throw new Error(`${name}: expected binary_little_endian 1.0`);
  let count = -1;
  let stride = 0;
  const offset = {};
  const types = {};
  for (const l of lines) {
    const w = l.trim().split(/\s+/);
    if (w[0] === 'element') {
      if (count >= 0) break; // only the first element (vertex) is read
      if (w[1] !== 'vertex') throw new Error(`${name}: expected the vertex element first`);
      count = Number(w[2]);
    } else if (w[0] === 'property' && count >= 0) {
      if (!(w[1] in SIZES)) throw new Error(`${name}: property ${w[2]}: unsupported type ${w[1]}`);
      offset[w[2]] = stride;
      types[w[2]] = w[1];
      stride += SIZES[w[1]];
    }
  }
  if (!(count >= 0) || types.x !== 'float' || types.y !== 'float') throw new Error(`${name}: expected float x and y`);
  const body = end + 'end_header\n'.length;
  if (bytes.length < body + count * stride) throw new Error(`${name}: truncated (${count} points of ${stride} bytes)`);
  const view = new DataView(buffer, bytes.byteOffset + body);
  const x = new Float64Array(count);
  const y = new Float64Array(count);
  for (let i = 0; i < count; i++) {
    x[i] = view.getFloat32(i * stride + offset.x, true);
    y[i] = view.getFloat32(i * stride + offset.y, true);
  }
  return { x, y };
}

/** The solid props of a city: [{id: '<kind>:<index>', kind, x, y, radius_m}], for the kinds in
 *  SOLID_PROPS that stats.json (dressing.by_prop) lists. fetchFn: window.fetch. */
export async function loadSolidProps(fetchFn, cityBase, stats) {
  const byProp = stats?.dressing?.by_prop || {};
  const kinds = Object.keys(SOLID_PROPS).filter((k) => (byProp[k] ?? 0) > 0);
  const lists = await Promise.all(kinds.map(async (kind) => {
    const res = await fetchFn(`${cityBase}points/props/${kind}.ply`);
    if (!res.ok) throw new Error(`points/props/${kind}.ply: HTTP ${res.status}`);
    const p = readPlyPoints(await res.arrayBuffer(), `${kind}.ply`);
    const out = [];
    for (let i = 0; i < p.x.length; i++) out.push({ id: `${kind}:${i}`, kind, x: p.x[i], y: p.y[i], radius_m: SOLID_PROPS[kind] });
    return out;
  }));
  return lists.flat();
}
