#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# OpenDRIVE benchmark (issue 26): the map of the default city, the 4x5 km example and every OSM
# sample (Andorra: a 10 km2 box on its DEM). Per city: the time to write the map (stats.json
# timings.opendrive_s), its size and counts, the ASAM 1.4 XSD check (xmllint, when the offline
# schemas are in ../shared/schemas) and SUMO's independent reading (tests/export/xodr_sumo_check.py:
# netconvert, junction counts, 300 random trips, our lanes against SUMO's). Never asserts.
# Map data © OpenStreetMap contributors (ODbL).
#   bash bench/opendrive.sh [BUILD_DIR] [THREADS]
set -euo pipefail
build=${1:-build/release}
threads=${2:-$(nproc)}
exe="$build/cityforge"
data=tests/data
xsd=../shared/schemas/opendrive/1.4/OpenDRIVE_1.4H.xsd
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
common=(-q --no-sumo --no-city-glb --threads "$threads")
names=()
run() {  # name, command, args...
  local name=$1
  shift
  names+=("$name")
  "$exe" "$@" -o "$tmp/$name" "${common[@]}"
  local x="$tmp/$name/opendrive/city.xodr"
  if [ -f "$xsd" ] && command -v xmllint >/dev/null; then
    if xmllint --noout --schema "$xsd" "$x" >"$tmp/$name.xsd" 2>&1; then echo valid >"$tmp/$name.xsd";
    else echo INVALID >"$tmp/$name.xsd"; fi
  else
    echo "not checked" >"$tmp/$name.xsd"
  fi
  python3 tests/export/xodr_sumo_check.py "$x" --city-json "$tmp/$name/opendrive/city.json" \
    --lanes-json "$tmp/$name/lanes.json" --work-dir "$tmp/$name.sumo" \
    >"$tmp/$name.sumo.json" 2>/dev/null || true
}
run default generate
run metropolis_4x5km generate data/examples/metropolis-4x5km.json --seed 3
run andorra_10km2 import "$data/osm/andorra.osm.pbf" --dem "$data/dem/andorra_srtm3.tif" \
  --bbox 1.505,42.498,1.555,42.520
run munich import "$data/osm/munich_altstadt.osm.pbf"
run baltimore import "$data/osm/baltimore_downtown.osm.pbf"
run aberdeen import "$data/osm/aberdeen_centre.osm"
run manhattan import "$data/osm/manhattan_west_village.osm.pbf"
python3 - "$tmp" "${names[@]}" <<'PY'
import json, os, sys
root, names = sys.argv[1], sys.argv[2:]
print(f'{"city":<17} {"write_s":>7} {"MB":>6} {"roads":>6} {"junct":>6} {"signal":>6} {"xsd":>7} '
      f'{"nodes":>11} {"3+ways":>11} {"signals":>8} {"arrived":>8} {"lat_max":>7} {"lat_med":>7} '
      f'{"failed":<}')
for n in names:
    s = json.load(open(os.path.join(root, n, "stats.json")))
    o = s["opendrive"]
    xsd = open(os.path.join(root, n + ".xsd")).read().strip()
    try:
        c = json.load(open(os.path.join(root, n + ".sumo.json")))
    except (OSError, ValueError):
        c = {}
    j = c.get("junctions", {})
    sim = c.get("simulation", {})
    lanes = c.get("lanes", {})
    lat = lanes.get("lateral", {})
    print(f'{n:<17} {s["timings"]["opendrive_s"]:>7.2f} {o["bytes"] / 1e6:>6.1f} {o["roads"]:>6} '
          f'{o["junctions"]:>6} {o["signalised_junctions"]:>6} {xsd:>7} '
          f'{str(j.get("sumo", "-")) + "/" + str(j.get("ours", "-")):>11} '
          f'{str(j.get("sumo_3way", "-")) + "/" + str(j.get("ours_3way", "-")):>11} '
          f'{str(j.get("sumo_traffic_light", "-")) + "/" + str(j.get("ours_signalised", "-")):>9} '
          f'{sim.get("arrived_ratio", float("nan")):>8.3f} {lat.get("max") or float("nan"):>7.3f} '
          f'{lat.get("median") or float("nan"):>7.4f} {"; ".join(c.get("failed", ["no summary"]))}')
PY
