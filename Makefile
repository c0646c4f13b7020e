# SPDX-License-Identifier: Apache-2.0
# The two set-up commands of README.md: `make demo` and `make test`.
PRESET ?= release
BUILD := build/$(PRESET)
JOBS ?= $(shell nproc)
# Warnings are errors in CI.
ifeq ($(CI),true)
export CITYFORGE_WERROR := ON
endif
# The builds these commands make from a fresh clone (CI's too) compile each library module as
# unity builds (CMakeLists.txt, CITYFORGE_UNITY): a fraction of the compile time. `make UNITY=OFF`
# builds release a file a unit, as `cmake --preset release` does (an edited file then rebuilds
# alone); the sanitizer presets are unity builds either way.
UNITY ?= ON
export CITYFORGE_UNITY := $(UNITY)

.PHONY: demo test sanitizers deps build validator viewer bench clean

demo: build viewer
	./$(BUILD)/cityforge generate -o out
	@echo "View it: ./$(BUILD)/cityforge serve out --live   then open http://127.0.0.1:8080/"

test: build validator viewer
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)
ifneq ($(SANITIZERS),0)
	$(MAKE) sanitizers
endif

# The sanitizers (README "Reliability"), each in its own build folder with only what it runs:
# AddressSanitizer (leak checks on) + UBSan over the unit tests and the fuzz targets' fixed
# corpora, then ThreadSanitizer over the parallel parts (tests/tsan/README.md: the unit tests of
# core, sim, traffic and crowd, and generate, simulate and serve --live under 100 clients, with
# TBB's loops on joined threads that TSan can see). Tests of executables not built there are
# skipped, as are the unit checks with no C++ in them. `make test SANITIZERS=0` skips this part.
SAN_SKIP := _NOT_BUILT$$|^viewer\.|^labels\.|^format\.|^layering\.
TSAN_TARGETS := core_tests sim_tests traffic_tests crowd_tests cityforge_cli cityforge_live_soak \
  tsan_selfcheck
sanitizers: deps
	cmake --preset asan-ubsan >/dev/null
	cmake --build --preset asan-ubsan -j $(JOBS) --target unit_tests fuzz_targets
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  ctest --test-dir build/asan-ubsan --output-on-failure -j $(JOBS) -L unit -E '$(SAN_SKIP)'
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  ctest --test-dir build/asan-ubsan --output-on-failure -j $(JOBS) -R '^fuzz\.'
	cmake --preset tsan >/dev/null
	cmake --build --preset tsan -j $(JOBS) --target $(TSAN_TARGETS)
	JOBS=$(JOBS) bash tests/tsan/run.sh build/tsan

deps:
	bash scripts/install-deps.sh

build: deps
	cmake --preset $(PRESET) >/dev/null
	cmake --build --preset $(PRESET) -j $(JOBS)

# The Khronos glTF validator, from the npm registry, exactly as pinned by the lockfile.
validator: deps
	@test -d tools/gltf-validator/node_modules/gltf-validator || \
	  (cd tools/gltf-validator && npm ci --no-audit --no-fund --loglevel=error)
	@test -d tools/schema-check/node_modules/ajv || \
	  (cd tools/schema-check && npm ci --no-audit --no-fund --loglevel=error)

# The browser viewer (three.js, pinned by viewer/package-lock.json) built into viewer/dist,
# which `cityforge serve` ships at /; rebuilt only when a source is newer than dist.
VIEWER_SRC := $(shell find viewer/src viewer/index.html viewer/package.json viewer/package-lock.json viewer/vite.config.js data/vehicles -type f 2>/dev/null)
viewer: viewer/dist/index.html
viewer/node_modules/.package-lock.json: viewer/package-lock.json | deps
	cd viewer && npm ci --no-audit --no-fund --loglevel=error
viewer/dist/index.html: $(VIEWER_SRC) viewer/node_modules/.package-lock.json
	cd viewer && npm run build

bench: build
	bash bench/run_scenarios.sh $(BUILD)

clean:
	rm -rf build out
