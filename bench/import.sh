#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Import benchmark (issue 9): real places end to end through `cityforge import`: the largest
# sample (the whole of Andorra on its SRTM DEM), a 10 km2 city-centre box of Andorra la Vella /
# Escaldes on the DEM (the target: < 10 s on 2 cores), and the other samples without a DEM.
# Prints wall time per stage, total, peak memory (stats.json and /usr/bin/time), output size and
# what was built. Never asserts.  Map data © OpenStreetMap contributors (ODbL).
#   bash bench/import.sh [BUILD_DIR] [THREADS]
set -euo pipefail
build=${1:-build/release}
threads=${2:-$(nproc)}
exe="$build/cityforge"
data=tests/data
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
run() {  # name, args...
  local name=$1
  shift
  /usr/bin/time -f "%e %M" -o "$tmp/$name.time" "$exe" import "$@" -o "$tmp/$name" \
    --threads "$threads" -q --no-sumo
}
run andorra_10km2 "$data/osm/andorra.osm.pbf" --dem "$data/dem/andorra_srtm3.tif" \
  --bbox 1.505,42.498,1.555,42.520
run andorra_all "$data/osm/andorra.osm.pbf" --dem "$data/dem/andorra_srtm3.tif"
run munich "$data/osm/munich_altstadt.osm.pbf"
run baltimore "$data/osm/baltimore_downtown.osm.pbf"
run aberdeen "$data/osm/aberdeen_centre.osm"
run manhattan "$data/osm/manhattan_west_village.osm.pbf"
python3 - "$tmp" <<'PY'
import json, os, sys
root = sys.argv[1]
names = ["andorra_10km2", "andorra_all", "munich", "baltimore", "aberdeen", "manhattan"]
stages = ["read", "terrain", "network", "condition", "roads", "lots", "buildings", "features",
          "dressing", "export"]
print(f'{"place":<14} {"km2":>6} ' + " ".join(f"{s[:8]:>8}" for s in stages) +
      f' {"total_s":>8} {"wall_s":>7} {"peakMiB":>8} {"out_MB":>7}')
for n in names:
    s = json.load(open(os.path.join(root, n, "stats.json")))
    t = {x["name"]: x["wall_s"] for x in s["timings"]["stages"]}
    wall, kb = open(os.path.join(root, n + ".time")).read().split()
    size = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(os.path.join(root, n))
               for f in fs) / 1e6
    print(f'{n:<14} {s["import"]["area_km2"]:6.1f} ' +
          " ".join(f"{t.get(x, 0):8.3f}" for x in stages) +
          f' {s["timings"]["total_wall_s"]:8.3f} {float(wall):7.2f} {int(kb)/1024:8.0f} {size:7.1f}')
print()
print(f'{"place":<14} {"edges":>6} {"paths":>6} {"signals":>7} {"bldgs":>6} {"tagged_h":>8} '
      f'{"instances":>9} {"props":>7} {"cell_m":>6} {"warnings":>8}')
for n in names:
    s = json.load(open(os.path.join(root, n, "stats.json")))
    im = s["import"]
    print(f'{n:<14} {s["counts"]["road_edges"]:6d} {im["roads"]["path_ways"]:6d} '
          f'{s["intersections"]["signal"]:7d} {s["buildings"]["buildings"]:6d} '
          f'{im["buildings"]["heights_tagged"]:8d} {s["instances"]["total"]:9d} '
          f'{s["dressing"]["items"]:7d} {im["terrain_cell_m"]:6.1f} {im["warning_count"]:8d}')
PY
