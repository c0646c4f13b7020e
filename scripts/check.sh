#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Before each commit: formatting, build, tests. Install as the pre-commit hook with
#   ln -sf ../../scripts/check.sh .git/hooks/pre-commit
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
bash scripts/check_format.sh >/dev/null || { bash scripts/check_format.sh | tail -5; exit 1; }
python3 scripts/check_layering.py >/dev/null || { python3 scripts/check_layering.py; exit 1; }
cmake --preset release >/dev/null
cmake --build --preset release -j "$(nproc)"
ctest --preset release -j "$(nproc)"
