# SPDX-License-Identifier: Apache-2.0
# The two set-up commands of README.md: `make demo` and `make test`.
PRESET ?= release
BUILD := build/$(PRESET)
JOBS ?= $(shell nproc)
# Warnings are errors in CI.
ifeq ($(CI),true)
export CITYFORGE_WERROR := ON
endif

.PHONY: demo test deps build validator bench clean

demo: build
	./$(BUILD)/cityforge generate -o out

test: build validator
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

bench: build
	bash bench/run_scenarios.sh $(BUILD)

clean:
	rm -rf build out
