#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Blender 3.4 headless import of city.glb (issue 31; ctest blender_import, docs/materials.md).
#
#   tests/blender/blender_import_test.sh --cityforge BUILD/cityforge --out DIR [--modes "nodes bake"]
#
# Generates the small commercial city of the CLI tests (tests/app/cli_run.hpp,
# kSmallCommercialCity) once per instancing mode (`--instances nodes`, then `bake`; Blender 3.4
# ignores EXT_mesh_gpu_instancing), imports each city.glb with Blender (`blender -b
# --factory-startup`) and tests/blender/import_city.py, which checks objects, triangles,
# materials, images with pixels, their links to the Principled BSDF, the Mapping nodes of
# KHR_texture_transform and the UV layers, and prints a JSON summary. Prints the importer's
# warnings, the summary and the times. Exit 0 pass, 1 fail, 77 skip (no `blender`, or Blender's
# Python without numpy, which its glTF importer needs: apt-get install blender python3-numpy).
set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cityforge=""
out=""
modes="nodes bake"
while [ $# -gt 0 ]; do
  case "$1" in
    --cityforge) cityforge="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --modes) modes="$2"; shift 2 ;;
    *) echo "blender_import: unknown argument '$1'" >&2; exit 1 ;;
  esac
done
if [ -z "$cityforge" ] || [ -z "$out" ]; then
  echo "usage: $0 --cityforge CITYFORGE --out DIR [--modes \"nodes bake\"]" >&2
  exit 1
fi

blender="${BLENDER:-blender}"
if ! command -v "$blender" >/dev/null 2>&1; then
  echo "blender_import: SKIP: no '$blender' on PATH (Debian: apt-get install blender python3-numpy)"
  exit 77
fi
mkdir -p "$out"
probe="$out/probe.py"
echo 'import bpy, numpy; print("BLENDER_PROBE", bpy.app.version_string, numpy.__version__)' >"$probe"
probe_out="$("$blender" -b --factory-startup --python-exit-code 1 --python "$probe" 2>&1)"
if ! grep -q "^BLENDER_PROBE" <<<"$probe_out"; then
  echo "blender_import: SKIP: Blender's Python has no numpy, so its glTF importer cannot run" \
       "(Debian: apt-get install python3-numpy). Blender said:"
  tail -n 5 <<<"$probe_out"
  exit 77
fi
echo "blender_import: $(grep "^BLENDER_PROBE" <<<"$probe_out" | cut -d' ' -f2-3 | sed 's/ / numpy /' | sed 's/^/Blender /')"

# tests/app/cli_run.hpp's kSmallCommercialCity: 420 x 320 m, one artery, a park in a corner.
config="$out/small-city.json"
cat >"$config" <<'EOF'
{
  "boundary": [[0, 0], [420, 0], [420, 320], [0, 320]],
  "arteries": [{"points": [[10, 160], [410, 170]]}],
  "zones": [{"kind": "commercial", "polygon": [[0, 0], [420, 0], [420, 320], [0, 320]],
             "height_m": [10, 24]},
            {"kind": "park", "polygon": [[300, 200], [420, 200], [420, 320], [300, 320]]}]
}
EOF

status=0
first_tris=""
for mode in $modes; do
  dir="$out/$mode"
  rm -rf "$dir"
  t0=$(date +%s.%N)
  if ! "$cityforge" generate "$config" -o "$dir" --instances "$mode" --no-sumo -q --threads 2; then
    echo "blender_import: FAIL ($mode): cityforge generate failed"
    status=1
    continue
  fi
  t1=$(date +%s.%N)
  log="$dir/blender.log"
  timeout 600 "$blender" -b --factory-startup --python-exit-code 1 \
    --python "$here/import_city.py" -- "$dir/city.glb" --summary "$dir/blender-summary.json" \
    >"$log" 2>&1
  rc=$?
  t2=$(date +%s.%N)
  gen_s=$(awk "BEGIN { printf \"%.1f\", $t1 - $t0 }")
  blender_s=$(awk "BEGIN { printf \"%.1f\", $t2 - $t1 }")
  # The importer's own log lines (its logger prints "time LEVEL message") and Blender's
  # warnings and errors, verbatim; our script's lines are reported below.
  warnings="$(grep -E "WARNING|ERROR|CRITICAL|Warning|Error|Traceback" "$log" | grep -v "^BLENDER_IMPORT" || true)"
  echo "blender_import ($mode): generate ${gen_s} s, blender ${blender_s} s (exit $rc)," \
       "city.glb $(du -m "$dir/city.glb" | cut -f1) MB"
  if [ -n "$warnings" ]; then
    echo "blender_import ($mode): Blender's log has warnings or errors:"
    echo "$warnings" | head -n 40
  else
    echo "blender_import ($mode): no warnings or errors in Blender's log"
  fi
  grep "^BLENDER_IMPORT_SUMMARY" "$log" || true
  if [ $rc -ne 0 ] || ! grep -q "^BLENDER_IMPORT_OK" "$log"; then
    echo "blender_import: FAIL ($mode): exit $rc"
    grep "^BLENDER_IMPORT_FAIL" "$log" || tail -n 30 "$log"
    status=1
  else
    # Every instancing mode is the same city: the same triangles in Blender.
    tris="$(grep -o '"triangles": [0-9]*' "$dir/blender-summary.json" | grep -o '[0-9]*$')"
    if [ -z "$first_tris" ]; then
      first_tris="$tris"
    elif [ "$tris" != "$first_tris" ]; then
      echo "blender_import: FAIL ($mode): $tris triangles, the first mode had $first_tris"
      status=1
      continue
    fi
    echo "blender_import: ok ($mode)"
    rm -f "$dir/city.glb"  # the baked one is ~280 MB; the log and summary stay
  fi
done
exit $status
