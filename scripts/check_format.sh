#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Fails when a tracked C++ file differs from what clang-format (.clang-format) makes of it, and
# names each such file. `scripts/check_format.sh --fix` rewrites them in place instead.
# Templates (*.cpp.in) are not C++ until CMake fills them and are left alone.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v clang-format >/dev/null || { echo "check_format: clang-format is not installed (scripts/install-deps.sh installs it)" >&2; exit 2; }
mapfile -t files < <(git ls-files '*.cpp' '*.hpp' '*.h' 2>/dev/null || find src include apps tests bench -name '*.[ch]pp')
if [ "${1:-}" = "--fix" ]; then
  clang-format -i "${files[@]}"
  exit 0
fi
# One clang-format over all files (a process per file takes ~5x as long: it runs in the unit
# tests); the files come back named in its diagnostics.
status=0
out=$(clang-format --dry-run -Werror "${files[@]}" 2>&1) || status=$?
mapfile -t unformatted < <(printf '%s\n' "$out" |
  sed -n 's/^\(.*\):[0-9]*:[0-9]*: error: code should be clang-formatted.*/\1/p' | sort -u)
if [ "$status" -ne 0 ] && [ "${#unformatted[@]}" -eq 0 ]; then
  printf '%s\n' "$out" >&2
  echo "check_format: clang-format failed ($status)" >&2
  exit 2
fi
bad=0
for f in "${unformatted[@]}"; do
  echo "check_format: $f is not clang-formatted (run scripts/check_format.sh --fix)"
  bad=$((bad + 1))
done
if [ "$bad" -gt 0 ]; then
  echo "check_format: $bad of ${#files[@]} files need clang-format" >&2
  exit 1
fi
echo "check_format: ${#files[@]} files clean"
