// SPDX-License-Identifier: Apache-2.0
#include "cityforge/core/loadable.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>
#include <system_error>
#include <vector>

namespace cityforge {
namespace {

std::vector<std::string> candidates(const LoadableModule& m) {
  if (const char* env = std::getenv(m.env_var.c_str()); env != nullptr && *env != '\0') {
    return {env};
  }
  std::vector<std::string> out;
  std::error_code ec;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) out.push_back((self.parent_path() / m.file_name).string());
  if (out.empty() || out.front() != m.built_path) out.push_back(m.built_path);
  return out;
}

}  // namespace

Result<void*> load_module(const LoadableModule& m) {
  std::string tried;
  for (const std::string& path : candidates(m)) {
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) {
      tried += (tried.empty() ? "" : ", ") + path;
      continue;
    }
    void* lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (lib == nullptr) {
      const char* why = dlerror();
      return Error::internal(path, "cannot load the module (" + m.purpose +
                                       "): " + (why != nullptr ? why : "dlopen failed"));
    }
    void* entry = dlsym(lib, m.entry.c_str());
    if (entry == nullptr) {
      return Error::internal(path, "expected a module with the entry '" + m.entry + "' (" +
                                       m.purpose + "); rebuild cityforge");
    }
    return entry;
  }
  return Error::internal(m.file_name, "cannot find the module (" + m.purpose +
                                          "), built beside the cityforge program; looked at " +
                                          tried);
}

SystemLibrary open_system_library(const char* env_var, const char* soname,
                                  const std::string& purpose) {
  SystemLibrary out;
  const char* env = std::getenv(env_var);
  out.name = env != nullptr && *env != '\0' ? env : soname;
  out.handle = dlopen(out.name.c_str(), RTLD_LAZY | RTLD_LOCAL);
  if (out.handle == nullptr) {
    const char* why = dlerror();
    out.error = "cannot load " + out.name + " (" + purpose +
                "): " + (why != nullptr ? why : "dlopen failed");
  }
  return out;
}

}  // namespace cityforge
