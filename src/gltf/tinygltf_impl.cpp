// SPDX-License-Identifier: Apache-2.0
// The one translation unit that compiles tinygltf's implementation.
#define TINYGLTF_IMPLEMENTATION
#include "cityforge/gltf/tinygltf_model.hpp"
