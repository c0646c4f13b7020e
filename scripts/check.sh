#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Before each commit: formatting, build, tests. Install as the pre-commit hook with
#   ln -sf ../../scripts/check.sh .git/hooks/pre-commit
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
files=$(git ls-files '*.cpp' '*.hpp' | grep -v '^tools/' || true)
if ! clang-format --dry-run --Werror $files >/dev/null 2>&1; then
  echo "check: clang-format would change files; run: clang-format -i \$(git ls-files '*.cpp' '*.hpp')" >&2
  exit 1
fi
cmake --preset release >/dev/null
cmake --build --preset release -j "$(nproc)"
ctest --preset release -j "$(nproc)"
