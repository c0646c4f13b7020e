#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The parallel parts under ThreadSanitizer (`make sanitizers`; tests/tsan/README.md): the unit
# tests of the modules that run threads (core's rank and job helpers, the sim scheduler and
# spatial hash, traffic, the crowd), then the program itself at 2 threads: `generate` (the
# pipeline's stage waves and every parallel stage and exporter), `simulate` (scheduler, traffic,
# crowd, spatial hash) and `serve --live` under 100 clients of the soak (the HTTP threads, the
# live hub and the simulation thread). Fails on the first failed command and on any TSan report.
#
#   tests/tsan/run.sh BUILD_DIR [SOAK_SECONDS]
#
# BUILD_DIR: a `tsan` preset build holding core_tests sim_tests traffic_tests crowd_tests,
# cityforge, cityforge_live_soak and tsan_selfcheck. SOAK_SECONDS [20].
set -euo pipefail
shopt -s inherit_errexit
cd "$(dirname "$0")/../.."

[ $# -ge 1 ] || { sed -n '3,/^set -euo/p' "$0" | sed '$d' >&2; exit 2; }
build=$(cd "$1" 2>/dev/null && pwd) || { echo "tsan: no build folder $1" >&2; exit 2; }
soak_s=${2:-20}
work=$(mktemp -d "${TMPDIR:-/tmp}/cityforge-tsan.XXXXXX")
trap 'rm -rf "$work"' EXIT
# Every report goes to a file (log_path: one per process), so a report from a server the soak
# stopped, or from a child the tests started, is not lost in their output.
export TSAN_OPTIONS="log_path=$work/report second_deadlock_stack=1 history_size=4"

reports() {
  if compgen -G "$work/report.*" >/dev/null; then
    cat "$work"/report.* >&2
    echo "tsan: ThreadSanitizer reported the races above ($1)" >&2
    exit 1
  fi
}

echo "tsan: the deliberate race of tsan_selfcheck is seen"
mkdir -p "$work/self"
TSAN_OPTIONS="log_path=$work/self/report" "$build/tsan_selfcheck" > /dev/null || true
self=$(cat "$work"/self/report.* 2>/dev/null || true)
line=$(grep -n 'The deliberate race' tests/tsan/selfcheck.cpp | cut -d: -f1)
if [ "$(grep -c '^WARNING: ThreadSanitizer: data race' <<<"$self")" != 1 ] ||
  ! grep -q "selfcheck.cpp:$line" <<<"$self"; then
  printf '%s\n' "$self" >&2
  echo "tsan: expected exactly one race report, at tests/tsan/selfcheck.cpp:$line" >&2
  exit 1
fi

echo "tsan: unit tests of core, sim, traffic and crowd"
ctest --test-dir "$build" --output-on-failure -j "${JOBS:-$(nproc)}" -L unit \
  -E '_NOT_BUILT$|^viewer\.|^labels\.|^format\.|^layering\.'
reports "unit tests"

exe="$build/cityforge"
echo "tsan: cityforge generate at 2 threads"
"$exe" generate tests/fuzz/tiny-city.json -q -o "$work/city" --threads 2
reports "generate"

echo "tsan: cityforge simulate at 2 threads"
"$exe" simulate "$work/city" --threads 2 --seconds 20 --vehicles 150 --pedestrians 150 \
  --no-record > /dev/null
reports "simulate"

echo "tsan: cityforge serve --live under the soak's 100 clients for $soak_s s"
REPORT="$work/soak.json" WARMUP_S=5 VEHICLES=150 PEDESTRIANS=150 WORK_DIR="$work/soak" \
  bash bench/live_soak.sh "$build" "$soak_s" "$work/city" > "$work/soak.txt"
tail -n 6 "$work/soak.txt"
reports "serve --live"
grep -q 'server exit code after SIGTERM: 0$' "$work/soak.txt" ||
  { echo "tsan: the server did not exit 0 after SIGTERM" >&2; exit 1; }
echo "tsan: no races reported"
