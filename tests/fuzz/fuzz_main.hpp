// SPDX-License-Identifier: Apache-2.0
#pragma once

// The entry points of a fuzz target built on fuzz_driver.hpp: include this once, in the
// target's file. Modes: fuzz_driver.hpp.

#include "fuzz_driver.hpp"

#ifdef CITYFORGE_LIBFUZZER
/// CITYFORGE_FUZZ_LIST_SEEDS=1: print the seed files (and write the inline seeds to the folder
/// CITYFORGE_FUZZ_LIST_SEEDS names, when it is not "1"), then exit; bench/fuzz.sh reads them.
extern "C" int LLVMFuzzerInitialize(int* /*argc*/, char*** /*argv*/) {
  const char* list = std::getenv("CITYFORGE_FUZZ_LIST_SEEDS");
  if (list == nullptr) return 0;
  const cityforge::fuzz::Target& t = cityforge::fuzz::fuzz_target();
  for (const auto& p : cityforge::fuzz::seed_files(t))
    std::printf("%s\n", p.c_str());
  if (std::string_view(list) != "1") {
    for (std::size_t i = 0; i < t.inline_seeds.size(); ++i) {
      std::ofstream(std::filesystem::path(list) / ("inline_" + std::to_string(i)), std::ios::binary)
          << t.inline_seeds[i];
    }
  }
  std::exit(0);
}
#else
int main(int argc, char** argv) { return cityforge::fuzz::deterministic_main(argc, argv); }
#endif
