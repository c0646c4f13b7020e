// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdio>
#include <cstdlib>

/// CF_ASSERT(cond, "reason"): a broken invariant is a bug. On in Debug and sanitizer builds.
#ifdef NDEBUG
#define CF_ASSERT(cond, reason) ((void)0)
#else
#define CF_ASSERT(cond, reason)                                                             \
  do {                                                                                      \
    if (!(cond)) {                                                                          \
      std::fprintf(stderr, "%s:%d: assertion failed: %s (%s)\n", __FILE__, __LINE__, #cond, \
                   reason);                                                                 \
      std::abort();                                                                         \
    }                                                                                       \
  } while (0)
#endif
