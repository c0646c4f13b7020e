#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Scenario benchmark: generates the default city and the 4x5 km metropolis end to end and
# prints wall time per stage and peak memory (from each run's stats.json). Never asserts.
#   bash bench/run_scenarios.sh [BUILD_DIR] [THREADS]
set -euo pipefail
build=${1:-build/release}
threads=${2:-$(nproc)}
exe="$build/cityforge"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '%-22s %8s %8s %8s %8s %8s %9s %9s %8s %8s %9s\n' city terrain layout roads export total peak_MiB road_km blocks lanes threads
for cfg in "" data/examples/metropolis-4x5km.json; do
  name=${cfg:-default}
  "$exe" generate $cfg -o "$tmp/$(basename "$name" .json)" --threads "$threads" -q
  python3 - "$tmp/$(basename "$name" .json)/stats.json" "$(basename "$name" .json)" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
t = {x["name"]: x["wall_s"] for x in s["stages"]}
lanes = sum(v for k, v in s.get("lanes", {}).items() if k in ("vehicle", "connectors", "sidewalk", "crosswalk"))
print(f'{sys.argv[2]:<22} {t.get("terrain",0):8.3f} {t.get("layout",0):8.3f} {t.get("roads",0):8.3f} '
      f'{t.get("export",0):8.3f} {s["total_wall_s"]:8.3f} {s["peak_rss_mib"]:9.1f} '
      f'{s["road_km"]["total"]:9.1f} {s["counts"]["blocks"]:8d} {lanes:8d} {s["threads"]:9d}')
PY
done
