// SPDX-License-Identifier: Apache-2.0
// The island's baked light volume (issue 29; seeds/003, 39:09-41:16: "baked into a big nice
// light volume ... so then I can light particles, grass, foliage, units super cheaply"):
// island_light.png read byte-exactly, and the ambient cube at any point. The layout is the one
// island_tiles.json's "light_volume" describes (docs/islands.md "Light volume"). The PNG is
// decoded here, not through a canvas: a canvas keeps premultiplied alpha, and the distance
// field in the alpha channel would blur the light of the voxels under the ground. No three.js
// here: positions are engine coordinates (x, y, z up).

/** PNG bytes (8-bit RGBA, not interlaced: what cityforge writes) -> {width, height, data}. */
export async function decodePng(bytes) {
  const u8 = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  const sig = [137, 80, 78, 71, 13, 10, 26, 10];
  if (u8.length < 8 || sig.some((b, i) => u8[i] !== b)) throw new Error('not a PNG file');
  const view = new DataView(u8.buffer, u8.byteOffset, u8.byteLength);
  let width = 0;
  let height = 0;
  const idat = [];
  for (let at = 8; at + 8 <= u8.length;) {
    const length = view.getUint32(at);
    const type = String.fromCharCode(...u8.subarray(at + 4, at + 8));
    const body = u8.subarray(at + 8, at + 8 + length);
    if (type === 'IHDR') {
      width = view.getUint32(at + 8);
      height = view.getUint32(at + 12);
      const [depth, colour, , , interlace] = body.subarray(8, 13);
      if (depth !== 8 || colour !== 6 || interlace !== 0) {
        throw new Error(`PNG: expected 8-bit RGBA, not interlaced (depth ${depth}, colour type ${colour}, interlace ${interlace})`);
      }
    } else if (type === 'IDAT') {
      idat.push(body);
    } else if (type === 'IEND') {
      break;
    }
    at += 12 + length;
  }
  if (!width || !height || !idat.length) throw new Error('PNG: no IHDR or no image data');
  const stream = new Blob(idat).stream().pipeThrough(new DecompressionStream('deflate'));
  const raw = new Uint8Array(await new Response(stream).arrayBuffer());
  const stride = width * 4;
  if (raw.length !== height * (stride + 1)) throw new Error(`PNG: ${raw.length} bytes of pixels for ${width} x ${height}`);
  const data = new Uint8Array(height * stride);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)];
    const src = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    const out = data.subarray(y * stride, (y + 1) * stride);
    const up = y > 0 ? data.subarray((y - 1) * stride, y * stride) : null;
    for (let i = 0; i < stride; i++) {
      const a = i >= 4 ? out[i - 4] : 0;
      const b = up ? up[i] : 0;
      const c = up && i >= 4 ? up[i - 4] : 0;
      let p;
      switch (filter) {
        case 0: p = 0; break;
        case 1: p = a; break;
        case 2: p = b; break;
        case 3: p = (a + b) >> 1; break;
        case 4: {
          const e = a + b - c;
          const pa = Math.abs(e - a);
          const pb = Math.abs(e - b);
          const pc = Math.abs(e - c);
          p = pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
          break;
        }
        default: throw new Error(`PNG: row ${y} has filter ${filter}`);
      }
      out[i] = (src[i] + p) & 255;
    }
  }
  return { width, height, data };
}

/**
 * The volume from island_tiles.json's `light_volume` and the decoded image. `cubeAt(x, y, z)`
 * gives [+x, -x, +y, -y, +z, -z] (0..1), trilinear over the voxels around the point that are
 * above the ground (as LightVolume::cube_at); `lightAt(p, n)` weighs them by n's squares.
 */
export function lightVolume(meta, image) {
  const [nx, ny, nz] = meta.size;
  const [sx, sy, sz] = meta.step;
  const [ox, oy, oz] = meta.origin;
  if (image.width !== nx * nz || image.height !== 2 * ny) {
    throw new Error(`island_light.png is ${image.width} x ${image.height}, expected ${nx * nz} x ${2 * ny}`);
  }
  const row = image.width * 4;
  const block = row * ny;
  const px = (ix, iy, iz) => iy * row + (iz * nx + ix) * 4;
  const open = (i) => image.data[block + i + 3] >= 128; // distance >= 0
  const axis = (v, o, s, n) => {
    const u = Math.min(Math.max((v - o) / s, 0), n - 1);
    const i0 = Math.min(Math.floor(u), Math.max(n - 2, 0));
    return [i0, n > 1 ? u - i0 : 0];
  };
  function cubeAt(x, y, z) {
    const [ix, fx] = axis(x, ox, sx, nx);
    const [iy, fy] = axis(y, oy, sy, ny);
    const [iz, fz] = axis(z, oz, sz, nz);
    const sum = [0, 0, 0, 0, 0, 0];
    let total = 0;
    for (const openOnly of [true, false]) {
      for (let c = 0; c < 8; c++) {
        const dx = c & 1;
        const dy = (c >> 1) & 1;
        const dz = (c >> 2) & 1;
        const w = (dx ? fx : 1 - fx) * (dy ? fy : 1 - fy) * (dz ? fz : 1 - fz);
        const i = px(Math.min(ix + dx, nx - 1), Math.min(iy + dy, ny - 1), Math.min(iz + dz, nz - 1));
        if (w === 0 || (openOnly && !open(i))) continue;
        const d = image.data;
        sum[0] += (w * d[i]) / 255;
        sum[1] += (w * d[block + i]) / 255;
        sum[2] += (w * d[i + 1]) / 255;
        sum[3] += (w * d[block + i + 1]) / 255;
        sum[4] += (w * d[i + 2]) / 255;
        sum[5] += (w * d[block + i + 2]) / 255;
        total += w;
      }
      if (total > 0) break;
    }
    return total > 0 ? sum.map((v) => v / total) : sum;
  }
  function lightAt(p, n) {
    const c = cubeAt(p[0], p[1], p[2]);
    return n[0] * n[0] * c[n[0] >= 0 ? 0 : 1] + n[1] * n[1] * c[n[1] >= 0 ? 2 : 3] + n[2] * n[2] * c[n[2] >= 0 ? 4 : 5];
  }
  return { size: [nx, ny, nz], albedo: meta.ground_albedo ?? 0.3, cubeAt, lightAt };
}

/**
 * How bright a small upright figure (a walker) is at p, 0..1: its top takes the +z light and
 * its sides the mean of the four sides, over their value in the open (1 and 0.5 + bounce).
 */
export function figureLight(volume, p) {
  const c = volume.cubeAt(p[0], p[1], p[2]);
  const sides = (c[0] + c[1] + c[2] + c[3]) / 4 / (0.5 + 0.5 * volume.albedo);
  return Math.min(1, 0.4 * c[4] + 0.6 * sides);
}
