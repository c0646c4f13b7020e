#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# "Same bytes out": hashes every file that five representative runs write, so a refactoring can
# prove it changed no output. The runs: the built-in default city, the 4x5 km example, an
# imported sample on its DEM, an island and two `cityforge wfc` solves.
#
#   bash bench/same_bytes.sh [BUILD_DIR]                  # print "sha256  case/path" lines
#   bash bench/same_bytes.sh [BUILD_DIR] --record FILE    # write them to FILE
#   bash bench/same_bytes.sh [BUILD_DIR] --check FILE     # compare with FILE; exit 1 on a change
#
# stats.json holds timings and memory, so only its deterministic counts are hashed (every key
# but "timings", "stages", "peak_rss_mb" and the like, see below). SUMO's own netconvert output
# is not ours and is skipped (--no-sumo).
set -euo pipefail
cd "$(dirname "$0")/.."
build=build/release
if [ $# -gt 0 ] && [ "${1#--}" = "$1" ]; then build=$1; shift; fi
mode=print
file=
if [ $# -gt 0 ]; then
  mode=${1#--}
  file=${2:?"--$mode needs a file"}
fi
exe=$build/cityforge
[ -x "$exe" ] || { echo "same_bytes: no $exe (build first)" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

run() {
  local name=$1; shift
  echo "same_bytes: $name" >&2
  "$@" >/dev/null 2>"$work/$name.log" || { cat "$work/$name.log" >&2; exit 1; }
}

run default "$exe" generate -o "$work/default" --no-sumo -q --threads 2
run metropolis "$exe" generate data/examples/metropolis-4x5km.json -o "$work/metropolis" --seed 3 \
  --no-sumo -q --threads 2
run import "$exe" import tests/data/osm/andorra.osm.pbf --dem tests/data/dem/andorra_srtm3.tif \
  --bbox 1.518,42.503,1.530,42.510 -o "$work/import" --no-sumo -q --threads 2
run island "$exe" island --seed 7 -o "$work/island" -q
mkdir -p "$work/wfc"
run wfc_blocks "$exe" wfc --model city_blocks --size 32,32 --seed 3 -o "$work/wfc/blocks.glb" -q
run wfc_roof "$exe" wfc --model builtin:rooftop --size 6,4,2 --fix 2,1,0=bulkhead \
  -o "$work/wfc/roof.json" --trace "$work/wfc/steps.json" -q

# stats.json: drop what measures the machine rather than the city.
strip_stats() {
  python3 - "$1" <<'EOF'
import json, sys
VOLATILE = {"timings", "stages", "wall_s", "peak_rss_mb", "peak_rss_kb", "threads", "total_s", "peak_rss_mib",
            "elapsed_s", "seconds", "time_s", "generated_at", "ms", "solve_ms", "ms_per_island"}
def clean(v):
    if isinstance(v, dict):
        return {k: clean(x) for k, x in v.items() if k not in VOLATILE and not k.endswith("_s")
                and not k.endswith("_ms") and not k.endswith("_mib")}
    if isinstance(v, list):
        return [clean(x) for x in v]
    return v
print(json.dumps(clean(json.load(open(sys.argv[1]))), sort_keys=True))
EOF
}

list=$work/hashes.txt
(
  cd "$work"
  find default metropolis import island wfc -type f ! -name '*.log' | LC_ALL=C sort | while read -r f; do
    case "$f" in
      */stats.json|*/sim_stats.json) printf '%s  %s\n' "$(strip_stats "$f" | sha256sum | cut -c1-64)" "$f" ;;
      *) printf '%s  %s\n' "$(sha256sum "$f" | cut -c1-64)" "$f" ;;
    esac
  done
) >"$list"

case $mode in
  print) cat "$list" ;;
  record) cp "$list" "$file"; echo "same_bytes: recorded $(wc -l <"$list") files in $file" >&2 ;;
  check)
    if diff -u "$file" "$list" >&2; then
      echo "same_bytes: all $(wc -l <"$list") files identical" >&2
    else
      echo "same_bytes: outputs differ from $file" >&2; exit 1
    fi ;;
  *) echo "same_bytes: unknown mode --$mode" >&2; exit 2 ;;
esac
