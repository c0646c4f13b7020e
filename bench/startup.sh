#!/usr/bin/env bash
# Process start-up of the program (issue 30 asks for under 10 ms): whole-process wall time of
# `cityforge --help` and of `cityforge island` (the default island, all of its work), medians
# over RUNS runs taken in turn with /bin/true (what starting any process costs here) and, when
# given, a second build's program, so that a drift of the machine hits all alike.
#
#   bash bench/startup.sh BUILD [OTHER_BUILD]     (env RUNS, default 30)
set -euo pipefail
build=${1:?usage: bench/startup.sh BUILD [OTHER_BUILD]}
other=${2:-}
runs=${RUNS:-30}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 - "$build/cityforge" "${other:+$other/cityforge}" "$runs" "$work" <<'PY'
import os, statistics, subprocess, sys, time
exe, other, runs, work = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
cases = [("empty process (/bin/true)", ["/bin/true"])]
for label, prog in (("this", exe), ("other", other)):
    if not prog:
        continue
    cases.append((f"{label}: cityforge --help", [prog, "--help"]))
    cases.append((f"{label}: cityforge island", [prog, "island", "-q", "-o", os.path.join(work, label)]))
times = {name: [] for name, _ in cases}
for _ in range(2):  # warm-up: page cache, loader cache
    for _, cmd in cases:
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
for _ in range(runs):
    for name, cmd in cases:
        t0 = time.perf_counter()
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        times[name].append((time.perf_counter() - t0) * 1000.0)
print(f"wall ms over {runs} runs each, taken in turn (min / median / max):")
for name, _ in cases:
    t = sorted(times[name])
    print(f"  {name:38s} {t[0]:7.1f} {statistics.median(t):7.1f} {t[-1]:7.1f}")
PY
