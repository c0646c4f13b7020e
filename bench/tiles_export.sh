#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Tiles against the single city.glb, side by side in one run: generates a city RUNS times each
# way, alternating (A: --tiles --no-city-glb, B: city.glb as today), and prints the medians of
# the export step (B: export; A: export + tiles), the whole run and peak memory (stats.json),
# the bytes written, the ratios, and where the tile writer's time goes (stats.json
# "timings"."tiles_thread_seconds"). Never asserts; say whether the machine was quiet when quoting.
#   bash bench/tiles_export.sh [BUILD_DIR] [CONFIG|default] [RUNS] [THREADS]
set -euo pipefail
build=${1:-build/release}
cfg=${2:-data/examples/metropolis-4x5km.json}
runs=${3:-3}
threads=${4:-2}
exe="$build/cityforge"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
args=()
[ "$cfg" != default ] && args=("$cfg" --seed 3)
echo "tiles_export: $cfg, $runs runs each way, $threads threads, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
for i in $(seq 1 "$runs"); do
  "$exe" generate "${args[@]}" -o "$tmp/glb$i" --threads "$threads" -q --no-sumo
  "$exe" generate "${args[@]}" -o "$tmp/tiles$i" --threads "$threads" -q --no-sumo --tiles --no-city-glb
  du -sb "$tmp/glb$i/city.glb" | cut -f1 > "$tmp/glb$i.bytes"
  du -sb "$tmp/tiles$i/tiles" | cut -f1 > "$tmp/tiles$i.bytes"
  # Keep only what the summary reads: the cities are hundreds of MB each.
  find "$tmp/glb$i" "$tmp/tiles$i" -mindepth 1 -maxdepth 1 ! -name stats.json -exec rm -rf {} +
done
python3 - "$tmp" "$runs" <<'PY'
import json, os, statistics, sys
tmp, runs = sys.argv[1], int(sys.argv[2])
def load(kind, i):
    s = json.load(open(os.path.join(tmp, f"{kind}{i}", "stats.json")))
    t = {x["name"]: x["wall_s"] for x in s["timings"]["stages"]}
    size = int(open(os.path.join(tmp, f"{kind}{i}.bytes")).read())
    return s, t, size
rows = {"glb": [], "tiles": []}
for i in range(1, runs + 1):
    for kind in rows:
        rows[kind].append(load(kind, i))
med = statistics.median
def export_s(kind, r):
    s, t, _ = r
    return t.get("export", 0) + (t.get("tiles", 0) if kind == "tiles" else 0)
print(f'{"output":<22} {"export_s":>9} {"tiles_s":>8} {"whole_s":>8} {"peak_MiB":>9} {"MB":>8}')
fig = {}
for kind, name in (("glb", "city.glb (today)"), ("tiles", "--tiles --no-city-glb")):
    r = rows[kind]
    fig[kind] = (med([export_s(kind, x) for x in r]), med([x[0]["timings"]["total_wall_s"] for x in r]),
                 med([x[0]["timings"]["peak_rss_mib"] for x in r]), med([x[2] for x in r]) / 1e6)
    print(f'{name:<22} {fig[kind][0]:9.2f} {med([x[1].get("tiles", 0) for x in r]):8.2f} '
          f'{fig[kind][1]:8.2f} {fig[kind][2]:9.0f} {fig[kind][3]:8.1f}')
g, t = fig["glb"], fig["tiles"]
print(f'ratios city.glb / tiles: export {g[0] / t[0]:.2f}x, whole run {g[1] / t[1]:.2f}x, '
      f'peak memory {g[2] / t[2]:.2f}x, bytes {g[3] / t[3]:.2f}x')
ts = [x[0]["tiles"] for x in rows["tiles"]]
tts = [x[0]["timings"]["tiles_thread_seconds"] for x in rows["tiles"]]
last = ts[-1]
print(f'tiles: {last["tiles"]} ({last["leaves"]} leaves, {last["parents"]} parents, depth '
      f'{last["depth"]}), root {last["root_bytes"] / 1e6:.2f} MB, largest leaf '
      f'{last["max_leaf_bytes"] / 1e6:.2f} MB, root geometricError {last["root_geometric_error_m"]:.0f} m')
keys = ["chunking_s", "leaves_s", "standins_s", "parents_s", "write_s"]
print("where the tile time goes (median thread-seconds): " +
      ", ".join(f'{k[:-2]} {med([x[k] for x in tts]):.2f}' for k in keys))
PY
