# SPDX-License-Identifier: Apache-2.0
# The two set-up commands of README.md: `make demo` and `make test`.
PRESET ?= release
BUILD := build/$(PRESET)
JOBS ?= $(shell nproc)
# Warnings are errors in CI.
ifeq ($(CI),true)
export CITYFORGE_WERROR := ON
endif

.PHONY: demo test deps build validator viewer bench clean

demo: build viewer
	./$(BUILD)/cityforge generate -o out
	@echo "View it: ./$(BUILD)/cityforge serve out --live   then open http://127.0.0.1:8080/"

test: build validator viewer
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

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
VIEWER_SRC := $(shell find viewer/src viewer/index.html viewer/package.json viewer/package-lock.json viewer/vite.config.js -type f 2>/dev/null)
viewer: viewer/dist/index.html
viewer/node_modules/.package-lock.json: viewer/package-lock.json | deps
	cd viewer && npm ci --no-audit --no-fund --loglevel=error
viewer/dist/index.html: $(VIEWER_SRC) viewer/node_modules/.package-lock.json
	cd viewer && npm run build

bench: build
	bash bench/run_scenarios.sh $(BUILD)

clean:
	rm -rf build out
