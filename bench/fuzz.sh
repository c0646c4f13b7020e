#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Runs every libFuzzer target (tests/fuzz/*_fuzz.cpp) for SECONDS each, coverage-guided, under
# ASan + UBSan, and prints per target: executions, coverage (edges, features), corpus size,
# crashes, and the totals over every run so far (a ledger in the build folder).
#
#   bench/fuzz.sh SECONDS [TARGET ...]     (default: every target; JOBS=N targets at once)
#
# Builds the `fuzz` preset (clang from Debian: clang, libclang-rt via clang-14) when
# build/fuzz is missing. Each target's corpus grows in build/fuzz/fuzz-corpus/TARGET across
# runs, starting from its seeds (data/, tests/data/, tests/fuzz/corpus/). A crash leaves its
# input in build/fuzz/fuzz-crashes/; copy it into tests/fuzz/regressions/TARGET/ once fixed, and
# ctest fuzz.TARGET replays it in every build. Exit status 1 when any target crashed.
set -euo pipefail
cd "$(dirname "$0")/.."

if [[ $# -lt 1 || ! "$1" =~ ^[0-9]+$ ]]; then
  echo "usage: bench/fuzz.sh SECONDS [TARGET ...]" >&2
  exit 2
fi
SECONDS_EACH=$1
shift
BUILD=${CITYFORGE_FUZZ_BUILD:-build/fuzz}
JOBS=${JOBS:-$(nproc)}

if [[ ! -f "$BUILD/build.ninja" ]]; then
  cmake --preset fuzz >/dev/null
fi
ninja -C "$BUILD" fuzz_targets >/dev/null

TARGETS=("$@")
if [[ ${#TARGETS[@]} -eq 0 ]]; then
  for f in tests/fuzz/*_fuzz.cpp; do
    t=$(basename "$f" _fuzz.cpp)
    TARGETS+=("$t")
  done
fi

mkdir -p "$BUILD/fuzz-corpus" "$BUILD/fuzz-crashes" "$BUILD/fuzz-logs"
LEDGER="$BUILD/fuzz-ledger.tsv"
[[ -f "$LEDGER" ]] || printf 'date\ttarget\tseconds\texecs\tcov\tft\tcorpus\tcrashes\n' >"$LEDGER"

run_target() {
  local t=$1
  local bin="$BUILD/tests/${t}_fuzz"
  local corpus="$BUILD/fuzz-corpus/$t"
  local seeds="$BUILD/fuzz-seeds/$t"
  local log="$BUILD/fuzz-logs/$t.log"
  mkdir -p "$corpus" "$seeds"
  # The target's seeds: the files it names, and its inline seeds written into the folder.
  # (A target that does not know the variable would fuzz here: bounded by timeout.)
  { CITYFORGE_FUZZ_LIST_SEEDS="$seeds" timeout 60 "$bin" -runs=0 || true; } 2>/dev/null |
    while read -r f; do
      [[ -f "$f" ]] && cp -f "$f" "$seeds/$(basename "$f")"
    done
  local before
  before=$(ls "$BUILD/fuzz-crashes" | grep -cE "^$t-(crash|oom|timeout|leak)-" || true)
  # -timeout: an input taking 10 s is a hang; -rss_limit_mb: a leak or a runaway allocation.
  "$bin" -max_total_time="$SECONDS_EACH" -timeout=10 -rss_limit_mb=2560 -print_final_stats=1 \
    -artifact_prefix="$BUILD/fuzz-crashes/$t-" "$corpus" "$seeds" >"$log" 2>&1 || true
  local after
  after=$(ls "$BUILD/fuzz-crashes" | grep -cE "^$t-(crash|oom|timeout|leak)-" || true)
  local execs cov ft corp
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
  cov=$(grep -oE 'cov: [0-9]+' "$log" | tail -1 | grep -oE '[0-9]+$')
  ft=$(grep -oE 'ft: [0-9]+' "$log" | tail -1 | grep -oE '[0-9]+$')
  corp=$(ls "$corpus" | wc -l)
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$(date -u +%FT%TZ)" "$t" "$SECONDS_EACH" \
    "${execs:-0}" "${cov:-0}" "${ft:-0}" "$corp" "$((after - before))" >>"$LEDGER"
}

echo "fuzz: ${#TARGETS[@]} targets x ${SECONDS_EACH} s, $JOBS at once (ASan + UBSan, libFuzzer)"
running=0
for t in "${TARGETS[@]}"; do
  if [[ ! -x "$BUILD/tests/${t}_fuzz" ]]; then
    echo "fuzz: no target $t (tests/fuzz/${t}_fuzz.cpp)" >&2
    exit 2
  fi
  run_target "$t" &
  running=$((running + 1))
  if [[ $running -ge $JOBS ]]; then
    wait -n || true
    running=$((running - 1))
  fi
done
wait || true

# This run's lines, and the totals over the ledger.
python3 - "$LEDGER" "$SECONDS_EACH" "${TARGETS[@]}" <<'EOF'
import csv, sys
ledger, seconds, targets = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
rows = list(csv.DictReader(open(ledger), delimiter="\t"))
crashed = False
print(f"{'target':<16}{'execs':>12}{'exec/s':>9}{'cov':>7}{'ft':>8}{'corpus':>8}{'crashes':>8}"
      f"{'total s':>9}{'total execs':>13}{'all crashes':>12}")
for t in targets:
    mine = [r for r in rows if r["target"] == t]
    last = mine[-1]
    total_s = sum(int(r["seconds"]) for r in mine)
    total_execs = sum(int(r["execs"]) for r in mine)
    all_crashes = sum(int(r["crashes"]) for r in mine)
    crashed |= int(last["crashes"]) > 0
    print(f"{t:<16}{int(last['execs']):>12}{int(last['execs']) // max(seconds, 1):>9}"
          f"{last['cov']:>7}{last['ft']:>8}{last['corpus']:>8}{last['crashes']:>8}"
          f"{total_s:>9}{total_execs:>13}{all_crashes:>12}")
sys.exit(1 if crashed else 0)
EOF
