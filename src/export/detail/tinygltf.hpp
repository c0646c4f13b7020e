// SPDX-License-Identifier: Apache-2.0
#pragma once

// tinygltf with the configuration every translation unit of the export module must share (the
// inline TinyGLTF constructor refers to the image loaders unless these are set): our models
// carry colours, not textures, so no image is ever read or written.
#ifndef TINYGLTF_NO_STB_IMAGE
#define TINYGLTF_NO_STB_IMAGE
#endif
#ifndef TINYGLTF_NO_STB_IMAGE_WRITE
#define TINYGLTF_NO_STB_IMAGE_WRITE
#endif
#ifndef TINYGLTF_NO_EXTERNAL_IMAGE
#define TINYGLTF_NO_EXTERNAL_IMAGE
#endif
#include <tiny_gltf.h>
