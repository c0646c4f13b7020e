#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Scenario benchmark: generates the default city and the 4x5 km metropolis end to end and
# prints wall time per stage and peak memory (from each run's stats.json), then the building
# figures (lots + buildings time, buildings, instances, instances per second) and the set
# dressing (props by category, parking spots, audio points). Never asserts.
#   bash bench/run_scenarios.sh [BUILD_DIR] [THREADS]
set -euo pipefail
build=${1:-build/release}
threads=${2:-$(nproc)}
exe="$build/cityforge"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for cfg in "" data/examples/metropolis-4x5km.json; do
  name=${cfg:-default}
  "$exe" generate $cfg -o "$tmp/$(basename "$name" .json)" --threads "$threads" -q --no-sumo
done
python3 - "$tmp" <<'PY'
import json, os, sys
rows = []
for name in ("default", "metropolis-4x5km"):
    s = json.load(open(os.path.join(sys.argv[1], name, "stats.json")))
    rows.append((name, s))
print(f'{"city":<18} {"terrain":>8} {"layout":>8} {"roads":>8} {"freeway":>8} {"lots":>8} '
      f'{"buildngs":>8} {"dressing":>8} {"export":>8} {"total":>8} {"peak_MiB":>9} '
      f'{"instances":>10} {"glb_MB":>7} {"threads":>7}')
for name, s in rows:
    t = {x["name"]: x["wall_s"] for x in s["timings"]["stages"]}
    glb = os.path.getsize(os.path.join(sys.argv[1], name, "city.glb")) / 1e6
    print(f'{name:<18} {t.get("terrain",0):8.3f} {t.get("layout",0):8.3f} {t.get("roads",0):8.3f} '
          f'{t.get("freeway",0):8.3f} {t.get("lots",0):8.3f} {t.get("buildings",0):8.3f} '
          f'{t.get("dressing",0):8.3f} {t.get("export",0):8.3f} {s["timings"]["total_wall_s"]:8.3f} '
          f'{s["timings"]["peak_rss_mib"]:9.1f} {s["instances"]["total"]:10d} {glb:7.1f} {s["timings"]["threads"]:7d}')
print()
print(f'{"city":<18} {"lots":>7} {"bldgs":>7} {"floors":>8} {"instances":>10} {"occluded":>9} '
      f'{"lots+bld_s":>10} {"inst/s":>11} {"bld_peakMiB":>11}')
for name, s in rows:
    t = {x["name"]: x for x in s["timings"]["stages"]}
    b = s["buildings"]
    secs = t["lots"]["wall_s"] + t["buildings"]["wall_s"]
    print(f'{name:<18} {s["lots"]["lots"]:7d} {b["buildings"]:7d} {b["floors"]:8d} '
          f'{b["instances"]:10d} {100*b["occlusion_reduction"]:8.1f}% {secs:10.3f} '
          f'{b["instances"]/max(secs,1e-9):11.0f} {t["buildings"]["peak_rss_mib"]:11.1f}')
print()
print(f'{"city":<18} {"props":>9} {"sidewalk":>9} {"ground":>8} {"lights":>7} {"veg":>7} '
      f'{"furnit":>7} {"signals":>7} {"biome":>7} {"parking":>8} {"audio":>8} {"tiled_km":>8}')
for name, s in rows:
    d = s["dressing"]
    c = d["by_category"]
    print(f'{name:<18} {d["items"]:9d} {c["sidewalk"]:9d} {c["ground"]:8d} {c["lighting"]:7d} '
          f'{c["vegetation"]:7d} {c["furniture"]:7d} {c["signals"]:7d} {c["biome"]:7d} '
          f'{d["parking_spots"]:8d} {d["audio_points"]:8d} {d["furnished_sidewalk_km"]:8.1f}')
PY
