#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Islands over seeds 1..N (issue 29's acceptance figures, and their cost): how many have stairs,
# a walkable beach (a navigable tile on layer 0), walkable land deleted by a later pass; median
# walkable cells, triangles and generate time; islands the solver gave up on (exit 2) are
# counted apart, with the wall seconds of every run. With a second build, both run seed by seed
# in turn so a drift of the machine hits both alike.
#
#   bash bench/islands_seeds.sh BUILD [OTHER_BUILD]      (env SEEDS, default 100; SIZE, default 6)
set -euo pipefail
build=${1:?usage: bench/islands_seeds.sh BUILD [OTHER_BUILD]}
other=${2:-}
seeds=${SEEDS:-100}
size=${SIZE:-6}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 - "$build/cityforge" "${other:+$other/cityforge}" "$seeds" "$work" "$size" <<'PY'
import json, statistics, subprocess, sys, time
exe, other, seeds, work, size = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]
builds = [("this", exe)] + ([("other", other)] if other else [])
rows = {name: [] for name, _ in builds}
failed = {name: [] for name, _ in builds}
wall = {name: [] for name, _ in builds}
for seed in range(1, seeds + 1):
    for name, prog in builds:
        out = f"{work}/{name}"
        t0 = time.monotonic()
        run = subprocess.run([prog, "island", "--seed", str(seed), "--size", size, "-q", "-o", out])
        wall[name].append(time.monotonic() - t0)
        if run.returncode == 2:  # No island within the solver's budget: nothing written.
            failed[name].append(seed)
            continue
        run.check_returncode()
        stats = json.load(open(f"{out}/stats.json"))
        tiles = json.load(open(f"{out}/island_tiles.json"))["tiles"]
        c = stats["counts"]
        rows[name].append({
            "stairs": c["stairs"] > 0,
            "beach": any(t["layer"] == 0 and t["navigable"] for t in tiles),
            "deleted": c["removed_snippets"] > 0,
            "walkable": c["navigable"], "triangles": c["triangles"],
            "generate_ms": stats["generate_ms"],
        })
print(f"islands of seeds 1..{seeds} (size {size}), per build:")
for name, prog in builds:
    r = rows[name]
    w = wall[name]
    print(f"  {name:5s} {prog}: wall s per run min {min(w):.2f}, median {statistics.median(w):.2f}, "
          f"max {max(w):.2f}; no island (exit 2) for {len(failed[name])} seeds {failed[name]}")
    if not r:
        continue
    med = lambda k: statistics.median(x[k] for x in r)
    print(f"        with stairs {sum(x['stairs'] for x in r)}, walkable beach "
          f"{sum(x['beach'] for x in r)}, walkable land deleted {sum(x['deleted'] for x in r)}; "
          f"median walkable cells {med('walkable'):.0f}, triangles {med('triangles'):.0f}, "
          f"generate {med('generate_ms'):.1f} ms")
PY
