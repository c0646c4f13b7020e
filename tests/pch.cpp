// SPDX-License-Identifier: Apache-2.0
// The target that compiles the tests' precompiled header once (tests/CMakeLists.txt); every
// test executable reuses it.
