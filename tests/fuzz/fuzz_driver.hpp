// SPDX-License-Identifier: Apache-2.0
#pragma once

// What every fuzz target shares (tests/fuzz/<name>_fuzz.cpp; fuzz_main.hpp adds the entry
// points, main() or libFuzzer's seed listing). A target defines
// LLVMFuzzerTestOneInput (any bytes give a value or an Error, never a crash, a hang or a
// sanitizer report) and `fuzz_target()`: its seeds (files and folders of data/ and tests/, and
// inline texts) and the tokens its mutations insert.
//
// Two ways to run one:
// - libFuzzer (the `fuzz` preset: clang, -fsanitize=fuzzer,address,undefined, CITYFORGE_LIBFUZZER
//   defined): open-ended, coverage-guided; bench/fuzz.sh SECONDS runs every target. With
//   CITYFORGE_FUZZ_LIST_SEEDS=1 the binary prints its seed files and exits (the script copies
//   them into the corpus).
// - any other build (ctest `fuzz.<name>`): main() below runs a fixed, deterministic corpus: every
//   seed and regression (tests/fuzz/regressions/<name>/: inputs that once crashed it), prefixes
//   of each cut at 24 points, then a fixed-seed loop of mutations (byte flips,
//   insertions of the target's tokens and of edge-case numbers, deletions, duplicated runs, digit
//   changes). CITYFORGE_FUZZ_ITERATIONS and CITYFORGE_FUZZ_SEED explore further; arguments, if
//   given, are files to run instead (to replay a crash).

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

#include "cityforge/core/result.hpp"
#include "cityforge/core/rng.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace cityforge::fuzz {

struct Target {
  const char* name;
  /// Files or folders (every regular file in it), relative to the source folder.
  std::vector<std::string> seed_paths;
  std::vector<std::string> inline_seeds;
  /// Inserted whole by mutations: the format's keywords and structure.
  std::vector<std::string> tokens;
  long iterations = 2000;  ///< Mutations in the deterministic run.
};

/// Defined by each target.
const Target& fuzz_target();

/// Tokens for JSON formats: structure, literals, escapes, a byte order mark, bytes that are
/// not UTF-8, deep nesting; a target adds its own keys.
inline std::vector<std::string> json_tokens(const std::vector<std::string>& keys = {}) {
  std::vector<std::string> t = {"{",
                                "}",
                                "[",
                                "]",
                                ",",
                                ":",
                                "\"",
                                "\"\":",
                                "null",
                                "true",
                                "false",
                                "\\u0000",
                                "\\ud800",
                                "\\\"",
                                "\xEF\xBB\xBF",
                                "\xC3",
                                "\xFF",
                                "[[[[[[[[[[[[[[[["
                                "[[[[[[[[[[[[[[[[",
                                "{}",
                                "[]",
                                "1e400",
                                "-1e400",
                                "1e-400",
                                "-0"};
  for (const std::string& k : keys)
    t.push_back("\"" + k + "\":");
  return t;
}

/// Inputs the parser accepted (the deterministic run prints how many reached past the errors).
inline std::size_t& accepted_count() {
  static std::size_t n = 0;
  return n;
}
inline void accepted() { ++accepted_count(); }

/// A broken promise: a fuzzer finding. Prints what and aborts.
[[noreturn]] inline void broken(const char* what) {
  std::fprintf(stderr, "%s_fuzz: broken promise: %s\n", fuzz_target().name, what);
  std::abort();
}

/// What every error promises: a message, and a place that starts with the input's name.
inline void check_error(const Error& e, std::string_view name) {
  if (e.message.empty()) broken("an error without a message");
  if (e.where.rfind(name, 0) != 0) broken("an error that does not name the input");
}

inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

/// The seed files, in a fixed order, then the target's regressions.
inline std::vector<std::filesystem::path> seed_files(const Target& t) {
  namespace fs = std::filesystem;
  std::vector<fs::path> out;
  for (const std::string& rel : t.seed_paths) {
    const fs::path p = fs::path(CITYFORGE_SOURCE_DIR) / rel;
    if (fs::is_directory(p)) {
      std::vector<fs::path> files;
      for (const auto& e : fs::directory_iterator(p))
        if (e.is_regular_file()) files.push_back(e.path());
      std::sort(files.begin(), files.end());
      out.insert(out.end(), files.begin(), files.end());
    } else if (fs::is_regular_file(p)) {
      out.push_back(p);
    } else {
      std::fprintf(stderr, "%s_fuzz: seed %s is missing\n", t.name, p.c_str());
      std::exit(1);
    }
  }
  // Inputs that once crashed it (tests/fuzz/regressions/<name>/), replayed in every build.
  const fs::path regressions = fs::path(CITYFORGE_SOURCE_DIR) / "tests/fuzz/regressions" / t.name;
  if (fs::is_directory(regressions)) {
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(regressions))
      if (e.is_regular_file()) files.push_back(e.path());
    std::sort(files.begin(), files.end());
    out.insert(out.end(), files.begin(), files.end());
  }
  return out;
}

/// Random edits that reach both sides: a third keep the structure (digits changed, edge-case
/// numbers, the format's tokens), the rest break it (flips, insertions, deletions, duplicates).
inline std::string mutate(std::string s, const std::vector<std::string>& tokens, Rng& rng) {
  static const char* const kNumbers[] = {"1e400", "-1e400",     "0",  "-0",  "1e-400",
                                         "NaN",   "4294967296", "-1", "1e9", "9007199254740993",
                                         "1.5"};
  const int edits = 1 + static_cast<int>(rng.below(4));
  for (int e = 0; e < edits; ++e) {
    const std::size_t at = s.empty() ? 0 : rng.below(static_cast<std::uint32_t>(s.size()));
    switch (rng.below(10)) {
      case 0:
        if (!s.empty()) s[at] = static_cast<char>(s[at] ^ (1 << rng.below(8)));
        break;
      case 1:
        s.insert(at, 1, static_cast<char>(rng.below(256)));
        break;
      case 2:
      case 3:
        if (!tokens.empty())
          s.insert(at, tokens[rng.below(static_cast<std::uint32_t>(tokens.size()))]);
        break;
      case 4: {  // A number replaced by an edge case.
        const std::size_t d = s.find_first_of("0123456789", at);
        if (d == std::string::npos) break;
        const std::size_t end = s.find_first_not_of("0123456789.eE+-", d);
        s.replace(d, (end == std::string::npos ? s.size() : end) - d,
                  kNumbers[rng.below(static_cast<std::uint32_t>(std::size(kNumbers)))]);
        break;
      }
      case 5:
      case 6: {
        const std::size_t d = s.find_first_of("0123456789", at);
        if (d != std::string::npos) s[d] = static_cast<char>('0' + rng.below(10));
        break;
      }
      case 7:
        if (!s.empty()) s.erase(at, 1 + rng.below(16));
        break;
      case 8:
        if (!s.empty()) s.erase(at, 1 + rng.below(512));
        break;
      default:
        if (!s.empty()) {
          const std::size_t len = std::min<std::size_t>(s.size() - at, 1 + rng.below(64));
          s.insert(at, s.substr(at, len));
        }
        break;
    }
  }
  return s;
}

/// What every parse promises: a value (counted), or an error that names the input.
template <class T>
void check(const Result<T>& r, std::string_view name) {
  if (r) {
    accepted();
  } else {
    check_error(r.error(), name);
  }
}

/// The deterministic run's generator and mutation count: fixed, unless CITYFORGE_FUZZ_SEED and
/// CITYFORGE_FUZZ_ITERATIONS ask for another campaign.
inline Rng fixed_rng() {
  const char* seed_env = std::getenv("CITYFORGE_FUZZ_SEED");
  return Rng(seed_env ? std::strtoull(seed_env, nullptr, 10) : 9, Stage::test, 0xF022);
}
inline long iterations(long fallback) {
  const char* iter_env = std::getenv("CITYFORGE_FUZZ_ITERATIONS");
  return iter_env ? std::strtol(iter_env, nullptr, 10) : fallback;
}

inline void run_one(const std::string& bytes) {
  LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
}

/// The deterministic run (see the top of this file).
inline int deterministic_main(int argc, char** argv) {
  const Target& t = fuzz_target();
  std::size_t runs = 0;
  if (argc > 1) {
    for (int i = 1; i < argc; ++i, ++runs)
      run_one(slurp(argv[i]));
    std::printf("%s_fuzz: %zu inputs, no crash\n", t.name, runs);
    return 0;
  }
  // 1. Seeds, whole, and prefixes of each (truncated files).
  std::vector<std::string> corpus(t.inline_seeds.begin(), t.inline_seeds.end());
  for (const auto& p : seed_files(t))
    corpus.push_back(slurp(p));
  for (const std::string& s : corpus) {
    run_one(s);
    ++runs;
    for (int k = 1; k < 25; ++k, ++runs)
      run_one(s.substr(0, s.size() * static_cast<std::size_t>(k * k) / 625));
  }
  // 2. Fixed-seed mutations of the seeds, with the target's tokens and the keys of its seeds.
  std::vector<std::string> tokens = t.tokens;
  for (const std::string& s : corpus) {
    std::size_t q = 0;
    while ((q = s.find('"', q)) != std::string::npos && tokens.size() < 400) {
      const std::size_t end = s.find('"', q + 1);
      if (end == std::string::npos) break;
      if (end - q <= 40 && s.compare(end, 2, "\":") == 0) {
        std::string key = s.substr(q, end - q + 2);
        if (std::find(tokens.begin(), tokens.end(), key) == tokens.end()) tokens.push_back(key);
      }
      q = end + 1;
    }
  }
  Rng rng = fixed_rng();
  const long count = iterations(t.iterations);
  for (long i = 0; i < count && !corpus.empty(); ++i, ++runs)
    run_one(mutate(corpus[rng.below(static_cast<std::uint32_t>(corpus.size()))], tokens, rng));
  std::printf("%s_fuzz: %zu inputs (%zu accepted, the rest errors), no crash\n", t.name, runs,
              accepted_count());
  return 0;
}

}  // namespace cityforge::fuzz
