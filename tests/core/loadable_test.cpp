// SPDX-License-Identifier: Apache-2.0
// load_module (core/loadable.hpp): finds a library by its environment variable or its build
// path, returns its entry symbol, and says which files it tried and why when it cannot.
#include "cityforge/core/loadable.hpp"

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <string>

namespace cityforge {
namespace {

/// The file of the loaded library that holds `cos` (libm), found through dladdr.
std::string libm_path() {
  Dl_info info{};
  double (*f)(double) = &::cos;
  if (dladdr(reinterpret_cast<void*>(f), &info) == 0 || info.dli_fname == nullptr) return "";
  return info.dli_fname;
}

LoadableModule module(const std::string& built, const std::string& entry) {
  return {"libcityforge_loadable_test.so", built, "CITYFORGE_LOADABLE_TEST", entry, "a test"};
}

TEST(Loadable, ReturnsTheEntryOfTheLibraryAtItsBuildPath) {
  const std::string libm = libm_path();
  ASSERT_FALSE(libm.empty());
  ::unsetenv("CITYFORGE_LOADABLE_TEST");
  Result<void*> entry = load_module(module(libm, "cos"));
  ASSERT_TRUE(entry) << entry.error().to_string();
  EXPECT_EQ(reinterpret_cast<double (*)(double)>(*entry)(0.0), 1.0);
}

TEST(Loadable, TheEnvironmentVariableNamesTheOnlyFileTried) {
  ::setenv("CITYFORGE_LOADABLE_TEST", "/nonexistent/libx.so", 1);
  Result<void*> entry = load_module(module(libm_path(), "cos"));
  ::unsetenv("CITYFORGE_LOADABLE_TEST");
  ASSERT_FALSE(entry);
  EXPECT_EQ(entry.error().code, ErrorCode::internal);
  EXPECT_NE(entry.error().message.find("/nonexistent/libx.so"), std::string::npos);
  EXPECT_NE(entry.error().message.find("(a test)"), std::string::npos);
}

TEST(Loadable, AMissingFileNamesEveryPlaceLookedAt) {
  ::unsetenv("CITYFORGE_LOADABLE_TEST");
  Result<void*> entry =
      load_module(module("/nonexistent/build/libcityforge_loadable_test.so", "x"));
  ASSERT_FALSE(entry);
  EXPECT_NE(entry.error().message.find("/nonexistent/build/libcityforge_loadable_test.so"),
            std::string::npos);
  // Beside the running program first.
  EXPECT_NE(entry.error().message.find("libcityforge_loadable_test.so, "), std::string::npos)
      << entry.error().message;
}

TEST(Loadable, ALibraryWithoutTheEntryIsRefused) {
  ::unsetenv("CITYFORGE_LOADABLE_TEST");
  Result<void*> entry = load_module(module(libm_path(), "cityforge_no_such_entry"));
  ASSERT_FALSE(entry);
  EXPECT_NE(entry.error().message.find("cityforge_no_such_entry"), std::string::npos);
  EXPECT_EQ(entry.error().where, libm_path());
}

TEST(Loadable, AFileThatIsNotALibraryIsRefusedWithTheLoadersReason) {
  ::unsetenv("CITYFORGE_LOADABLE_TEST");
  Result<void*> entry = load_module(module("/proc/self/status", "x"));
  ASSERT_FALSE(entry);
  EXPECT_EQ(entry.error().where, "/proc/self/status");
  EXPECT_NE(entry.error().message.find("cannot load the module (a test)"), std::string::npos)
      << entry.error().message;
}

}  // namespace
}  // namespace cityforge
