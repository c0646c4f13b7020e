// SPDX-License-Identifier: Apache-2.0
// Per-building colour variation of the facade modules (docs/materials.md): every building of a
// style is tinted by a hash of its id (the per-instance _BUILDING attribute of city.glb), so a
// street of one style is not one colour. The rule is the documented one, so an engine that
// reads _BUILDING can reproduce it.

/// GLSL of the tint: brightness 0.82-1.08 and a warm or cool shift of up to 6 %.
export const TINT_GLSL = `
vec3 cfTint(float building) {
  float h1 = fract(sin(building * 12.9898 + 1.0) * 43758.5453);
  float h2 = fract(sin(building * 78.233 + 2.0) * 24634.6345);
  float shade = 0.82 + 0.26 * h1;
  float warm = (h2 - 0.5) * 0.12;
  return shade * vec3(1.0 + warm, 1.0, 1.0 - warm);
}`;

const tinted = new WeakSet();

/// Makes `material` (a facade module's, drawn instanced with _BUILDING) take its building's
/// tint; once per material. Glass is left alone (its night lighting patches it).
export function tintByBuilding(material) {
  if (!material || tinted.has(material) || /\.glass$/.test(material.name || '')) return false;
  tinted.add(material);
  material.onBeforeCompile = (shader) => {
    shader.vertexShader = shader.vertexShader
      .replace('#include <common>', `#include <common>\nattribute float _BUILDING;\nvarying vec3 vCfTint;\n${TINT_GLSL}`)
      .replace('#include <begin_vertex>', '#include <begin_vertex>\nvCfTint = cfTint(_BUILDING);');
    shader.fragmentShader = shader.fragmentShader
      .replace('#include <common>', '#include <common>\nvarying vec3 vCfTint;')
      .replace('#include <color_fragment>', '#include <color_fragment>\ndiffuseColor.rgb *= vCfTint;');
  };
  material.customProgramCacheKey = () => 'cityforge-tint';
  material.needsUpdate = true;
  return true;
}
