// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "cityforge/core/result.hpp"

namespace cityforge {

/// Loads GEOS (libgeos_c.so.1, or the file CITYFORGE_GEOS_LIBRARY names) if not yet loaded.
/// The program does not link GEOS: it is loaded on first use, so that starting the program
/// (--help) does not pay for its relocations. Commands call this before any work, so that a
/// missing library is a clear error rather than an exception in the middle of a stage; the
/// polygon operations of core/polygon.hpp throw std::runtime_error when it cannot be loaded.
Status load_geos();

}  // namespace cityforge
