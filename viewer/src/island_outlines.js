// SPDX-License-Identifier: Apache-2.0
// The island's outlines (issue 29; seeds/003, 37:45-38:57: "if you just run edge detection on
// that map you get super nice outlines"): the land is drawn a second time with its contrast map
// (island.glb's _CONTRAST attribute, made by islands::contrast_map) into a target of the
// canvas's size, and an edge detection over that target darkens the picture where neighbouring
// pixels' contrast colours differ: strongly between materials, faintly between game tiles, and
// along the land's silhouette (the target's alpha), and around the walkers, drawn there in one
// flat colour over the land. Being computed on screen, the lines keep
// one width at any zoom, which lines baked into a texture cannot.
import * as THREE from 'three';

const CONTRAST_VERTEX = `
attribute vec4 _contrast;
varying vec3 vContrast;
void main() {
  vContrast = _contrast.rgb;
  gl_Position = projectionMatrix * modelViewMatrix * vec4(position, 1.0);
}`;
const CONTRAST_FRAGMENT = `
varying vec3 vContrast;
void main() { gl_FragColor = vec4(vContrast, 1.0); }`;
// Figures (the walkers) in one flat contrast colour: they hide the lines of the land behind
// them and get an outline of their own, as the talk's units do.
const FIGURE_VERTEX = `
void main() {
  vec4 p = vec4(position, 1.0);
#ifdef USE_INSTANCING
  p = instanceMatrix * p;
#endif
  gl_Position = projectionMatrix * modelViewMatrix * p;
}`;
const FIGURE_FRAGMENT = `
void main() { gl_FragColor = vec4(0.95, 0.05, 0.5, 1.0); }`;

const EDGE_VERTEX = `
varying vec2 vUv;
void main() { vUv = uv; gl_Position = vec4(position.xy, 0.0, 1.0); }`;
// The largest difference (colour and alpha) between a pixel and its four neighbours, one pixel
// away: lines one to two pixels wide, as dark as the contrast the edge asked for.
const EDGE_FRAGMENT = `
uniform sampler2D tContrast;
uniform vec2 texel;
uniform float strength;
varying vec2 vUv;
float diff(vec4 a, vec4 b) { return max(length(a.rgb - b.rgb) * min(a.a, b.a), abs(a.a - b.a)); }
void main() {
  vec4 c = texture2D(tContrast, vUv);
  float g = max(max(diff(c, texture2D(tContrast, vUv + vec2(texel.x, 0.0))),
                    diff(c, texture2D(tContrast, vUv - vec2(texel.x, 0.0)))),
                max(diff(c, texture2D(tContrast, vUv + vec2(0.0, texel.y))),
                    diff(c, texture2D(tContrast, vUv - vec2(0.0, texel.y)))));
  gl_FragColor = vec4(0.12, 0.1, 0.09, strength * smoothstep(0.12, 0.5, g));
}`;

/** Pixels whose neighbours differ by more than this count as lines (outlineShare). */
export const LINE_THRESHOLD = 0.12;

export function makeOutlines(renderer) {
  const target = new THREE.WebGLRenderTarget(1, 1, { depthBuffer: true });
  const contrastScene = new THREE.Scene();
  const contrastMaterial = new THREE.ShaderMaterial({ vertexShader: CONTRAST_VERTEX, fragmentShader: CONTRAST_FRAGMENT });
  let land = null;
  let figures = null;
  let figuresSource = null;
  const figureMaterial = new THREE.ShaderMaterial({ vertexShader: FIGURE_VERTEX, fragmentShader: FIGURE_FRAGMENT });
  const edgeMaterial = new THREE.ShaderMaterial({
    vertexShader: EDGE_VERTEX,
    fragmentShader: EDGE_FRAGMENT,
    uniforms: { tContrast: { value: target.texture }, texel: { value: new THREE.Vector2() }, strength: { value: 0.7 } },
    transparent: true,
    depthTest: false,
    depthWrite: false,
  });
  const quad = new THREE.Mesh(new THREE.PlaneGeometry(2, 2), edgeMaterial);
  quad.frustumCulled = false;
  const quadScene = new THREE.Scene();
  quadScene.add(quad);
  const quadCamera = new THREE.OrthographicCamera(-1, 1, 1, -1, 0, 1);
  const clear = new THREE.Color(0, 0, 0);

  function size() {
    const s = renderer.getDrawingBufferSize(new THREE.Vector2());
    if (target.width !== s.x || target.height !== s.y) target.setSize(s.x, s.y);
    edgeMaterial.uniforms.texel.value.set(1 / s.x, 1 / s.y);
  }
  function drawContrast(camera) {
    size();
    if (figures) {
      figures.count = figuresSource.count;
      figures.visible = figuresSource.visible;
    }
    const oldTarget = renderer.getRenderTarget();
    const oldClear = renderer.getClearColor(new THREE.Color());
    const oldAlpha = renderer.getClearAlpha();
    renderer.setRenderTarget(target);
    renderer.setClearColor(clear, 0);
    renderer.clear();
    renderer.render(contrastScene, camera);
    renderer.setRenderTarget(oldTarget);
    renderer.setClearColor(oldClear, oldAlpha);
  }

  return {
    enabled: true,
    /** The land mesh of the loaded island.glb (its geometry has _contrast), or null. */
    setLand(mesh) {
      if (land) contrastScene.remove(land);
      land = null;
      if (!mesh || !mesh.geometry.getAttribute('_contrast')) return;
      land = new THREE.Mesh(mesh.geometry, contrastMaterial);
      land.matrixAutoUpdate = false;
      mesh.updateWorldMatrix(true, false);
      land.matrix.copy(mesh.matrixWorld);
      contrastScene.add(land);
    },
    /** An InstancedMesh drawn over the land (the walkers): its instances share its matrices. */
    setFigures(mesh) {
      if (figures) contrastScene.remove(figures);
      figuresSource = mesh;
      figures = new THREE.InstancedMesh(mesh.geometry, figureMaterial, mesh.instanceMatrix.count);
      figures.instanceMatrix = mesh.instanceMatrix;
      figures.frustumCulled = false;
      contrastScene.add(figures);
    },
    get hasMap() {
      return land !== null;
    },
    /** After the scene is drawn: the lines over it. */
    draw(camera) {
      if (!this.enabled || !land) return;
      drawContrast(camera);
      const autoClear = renderer.autoClear;
      renderer.autoClear = false;
      renderer.render(quadScene, quadCamera);
      renderer.autoClear = autoClear;
    },
    /** For tests: the share of the canvas's pixels that the edge detection draws as lines. */
    share(camera) {
      if (!land) return 0;
      drawContrast(camera);
      const w = target.width;
      const h = target.height;
      const px = new Uint8Array(w * h * 4);
      renderer.readRenderTargetPixels(target, 0, 0, w, h, px);
      const at = (x, y, k) => px[(y * w + x) * 4 + k] / 255;
      const diff = (x0, y0, x1, y1) => {
        const a0 = at(x0, y0, 3);
        const a1 = at(x1, y1, 3);
        const d = Math.hypot(at(x0, y0, 0) - at(x1, y1, 0), at(x0, y0, 1) - at(x1, y1, 1), at(x0, y0, 2) - at(x1, y1, 2));
        return Math.max(d * Math.min(a0, a1), Math.abs(a0 - a1));
      };
      let lines = 0;
      for (let y = 1; y < h - 1; y++) {
        for (let x = 1; x < w - 1; x++) {
          const g = Math.max(diff(x, y, x + 1, y), diff(x, y, x - 1, y), diff(x, y, x, y + 1), diff(x, y, x, y - 1));
          if (g > LINE_THRESHOLD) lines++;
        }
      }
      return lines / ((w - 2) * (h - 2));
    },
  };
}
