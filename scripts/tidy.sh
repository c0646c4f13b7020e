#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# clang-tidy with the agreed checks of .clang-tidy over every translation unit of the build
# (src/, apps/, tests/, bench/), in parallel; exit 1 on any finding. Needs a configured build:
#   scripts/tidy.sh [BUILD_DIR] [-j N] [FILE_REGEX]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/release}
shift || true
jobs=$(nproc)
if [ "${1:-}" = "-j" ]; then jobs=$2; shift 2; fi
regex=${1:-'/(src|apps|tests|bench)/.*\.cpp$'}
[ -f "$build/compile_commands.json" ] || { echo "tidy: no $build/compile_commands.json (configure first: cmake --preset release)" >&2; exit 2; }
command -v run-clang-tidy >/dev/null || { echo "tidy: run-clang-tidy is not installed (Debian package clang-tidy)" >&2; exit 2; }
log=$(mktemp)
trap 'rm -f "$log"' EXIT
start=$(date +%s)
run-clang-tidy -quiet -p "$build" -j "$jobs" "$regex" >"$log" 2>&1 || true
findings=$(grep -cE '^[^ ]+:[0-9]+:[0-9]+: (warning|error):' "$log" || true)
grep -E '^[^ ]+:[0-9]+:[0-9]+: (warning|error):' "$log" | sort -u || true
echo "tidy: $(grep -c '^clang-tidy' "$log" || true) files, $findings finding(s), $(( $(date +%s) - start )) s"
[ "$findings" -eq 0 ]
