// SPDX-License-Identifier: Apache-2.0
#pragma once

// tinygltf, configured and implemented once for the whole program by the glTF library.
#include "cityforge/gltf/tinygltf_model.hpp"
