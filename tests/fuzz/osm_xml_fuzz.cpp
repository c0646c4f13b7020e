// SPDX-License-Identifier: Apache-2.0
// Fuzz target for the OSM XML reader: any bytes give an Extract or an Error, never a crash, a
// hang or a sanitizer report. LLVMFuzzerTestOneInput is the libFuzzer entry point (build with
// clang -fsanitize=fuzzer -DCITYFORGE_LIBFUZZER to fuzz open-ended). Without libFuzzer (gcc,
// ctest `fuzz.osm_xml`) the main() below runs a fixed, deterministic corpus: hand-written
// extracts, prefixes of aberdeen_centre.osm cut at many points, and a fixed-seed mutation loop
// of byte flips, insertions and deletions over the seeds (a bounded number of iterations, not
// a time budget). Arguments, if given, are files to run instead (to replay a crash). It keeps
// its own main() for the prefixes it asserts on; the rest is fuzz_driver.hpp's.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

#include "cityforge/core/rng.hpp"
#include "cityforge/osm/osm.hpp"
#include "fuzz_driver.hpp"

namespace {

using namespace cityforge;

/// Checks what read_xml promises; aborts (a fuzzer finding) when a promise is broken.
std::size_t g_read = 0;  // Inputs that read as an extract (the rest gave an Error).

void check(const Result<osm::Extract>& ex, std::string_view name) {
  auto fail = [](const char* what) {
    std::fprintf(stderr, "osm_xml_fuzz: broken promise: %s\n", what);
    std::abort();
  };
  if (!ex.ok()) {
    if (ex.error().message.empty()) fail("an error without a message");
    if (ex.error().where != name && ex.error().where != "--bbox")
      fail("an error not naming the input");
    return;
  }
  ++g_read;
  if (!ex->bounds.valid()) fail("invalid bounds");
  for (std::size_t i = 1; i < ex->nodes.size(); ++i)
    if (ex->nodes[i - 1].id >= ex->nodes[i].id) fail("nodes not sorted by id");
  for (std::size_t i = 1; i < ex->ways.size(); ++i)
    if (ex->ways[i - 1].id >= ex->ways[i].id) fail("ways not sorted by id");
  for (const auto& w : ex->ways) {
    if (w.refs.size() != w.points.size() || w.refs.size() < 2) fail("way refs and points differ");
    for (const Vec2& p : w.points)
      if (!std::isfinite(p.x) || !std::isfinite(p.y)) fail("non-finite way point");
  }
  for (const auto& a : ex->areas) {
    if (a.polygons.empty()) fail("area without polygons");
    for (const auto& p : a.polygons) {
      if (p.outer.size() < 3) fail("outer ring with fewer than 3 points");
      for (const Vec2& v : p.outer)
        if (!std::isfinite(v.x) || !std::isfinite(v.y)) fail("non-finite ring point");
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view xml(reinterpret_cast<const char*>(data), size);
  check(osm::read_xml(xml, "fuzz.osm"), "fuzz.osm");
  return 0;
}

namespace cityforge::fuzz {
const Target& fuzz_target() {
  static const Target t{"osm_xml", {}, {}, {}, 2000};
  return t;
}
}  // namespace cityforge::fuzz

namespace {

using cityforge::fuzz::slurp;

/// Small hand-written extracts that reach the reader's corners: a street, a building, a
/// multipolygon with a hole (relation first), a bow-tie, a way with a missing node, bounds.
std::vector<std::string> seeds() {
  const std::string head = "<?xml version='1.0'?>\n<osm version='0.6'>\n";
  std::string grid;
  for (int j = 0; j < 4; ++j) {
    for (int i = 0; i < 4; ++i) {
      char buf[128];
      std::snprintf(buf, sizeof buf, "<node id='%d' version='1' lat='%.4f' lon='%.4f'/>\n",
                    1 + i + 4 * j, 50.0 + 0.0009 * j, 10.0 + 0.0014 * i);
      grid += buf;
    }
  }
  return {
      head + grid +
          "<way id='10'><nd ref='1'/><nd ref='2'/><nd ref='3'/><tag k='highway' v='primary'/>"
          "<tag k='oneway' v='yes'/></way>\n</osm>\n",
      head + "<bounds minlat='50.0' minlon='10.0' maxlat='50.003' maxlon='10.005'/>\n" + grid +
          "<way id='11'><nd ref='1'/><nd ref='5'/><nd ref='6'/><nd ref='2'/><nd ref='1'/>"
          "<tag k='building' v='yes'/><tag k='height' v='12'/></way>\n</osm>\n",
      head + grid +
          "<relation id='7'><member type='way' ref='21' role='outer'/>"
          "<member type='way' ref='22' role='inner'/><tag k='type' v='multipolygon'/>"
          "<tag k='landuse' v='grass'/></relation>\n"
          "<way id='21'><nd ref='1'/><nd ref='4'/><nd ref='16'/><nd ref='13'/><nd ref='1'/></way>\n"
          "<way id='22'><nd ref='6'/><nd ref='7'/><nd ref='11'/><nd ref='10'/><nd ref='6'/></way>\n"
          "<way id='23'><nd ref='1'/><nd ref='2'/><tag k='highway' v='footway'/></way>\n</osm>\n",
      head + grid +
          "<way id='40'><nd ref='1'/><nd ref='6'/><nd ref='5'/><nd ref='2'/><nd ref='1'/>"
          "<tag k='building' v='yes'/></way>\n"
          "<way id='30'><nd ref='1'/><nd ref='999'/><nd ref='3'/><tag k='highway' "
          "v='service'/></way>\n"
          "<way id='31'><nd ref='5'/><nd ref='6'/><tag k='highway' v='residential'/></way>\n"
          "<node id='100' lat='50.001' lon='10.001'><tag k='highway' v='traffic_signals'/></node>\n"
          "</osm>\n",
  };
}

/// A well-formed slice of the real extract: its header, bounds and first nodes, closed.
std::string aberdeen_slice(const std::string& aberdeen) {
  const std::size_t slice_end = aberdeen.find('\n', 6000);
  return aberdeen.substr(0, slice_end + 1) + "</osm>\n";
}

}  // namespace

#ifdef CITYFORGE_LIBFUZZER
/// CITYFORGE_FUZZ_LIST_SEEDS=DIR (bench/fuzz.sh): writes the seeds into DIR and exits.
extern "C" int LLVMFuzzerInitialize(int* /*argc*/, char*** /*argv*/) {
  const char* dir = std::getenv("CITYFORGE_FUZZ_LIST_SEEDS");
  if (dir == nullptr) return 0;
  std::vector<std::string> corpus = seeds();
  corpus.push_back(
      aberdeen_slice(slurp(std::string(CITYFORGE_TEST_DATA) + "/osm/aberdeen_centre.osm")));
  for (std::size_t i = 0; i < corpus.size(); ++i)
    std::ofstream(std::string(dir) + "/seed_" + std::to_string(i) + ".osm", std::ios::binary)
        << corpus[i];
  std::exit(0);
}
#else

namespace {

std::size_t g_runs = 0;
void run(const std::string& bytes) {
  ++g_runs;
  LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
}

/// Random edits: the shared ones (fuzz_driver.hpp: digits, flips, XML tokens, deletions,
/// duplicated runs), and one in five times two lines swapped (unsorted files, relations before
/// their ways).
std::string mutate(std::string s, Rng& rng) {
  static const std::vector<std::string> tokens = {"<",
                                                  ">",
                                                  "/>",
                                                  "'",
                                                  "\"",
                                                  "=",
                                                  "&amp;",
                                                  "-",
                                                  "9",
                                                  "e9",
                                                  "<nd ref='1'/>",
                                                  "</way>",
                                                  "<osm>",
                                                  std::string(1, '\0'),
                                                  "\xff",
                                                  "<tag k='building' v='yes'/>"};
  if (rng.below(5) == 0 && !s.empty()) {
    const std::size_t a0 = s.find('\n', rng.below(std::uint32_t(s.size())));
    const std::size_t b0 = s.find('\n', rng.below(std::uint32_t(s.size())));
    if (a0 == std::string::npos || b0 == std::string::npos || a0 == b0) return s;
    const std::size_t x = std::min(a0, b0) + 1, y = std::max(a0, b0) + 1;
    const std::size_t xe = s.find('\n', x), ye = s.find('\n', y);
    if (xe == std::string::npos || ye == std::string::npos || xe >= y) return s;
    const std::string lx = s.substr(x, xe - x), ly = s.substr(y, ye - y);
    s.replace(y, ye - y, lx);
    s.replace(x, xe - x, ly);
    return s;
  }
  return fuzz::mutate(std::move(s), tokens, rng);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1) {
    for (int i = 1; i < argc; ++i)
      run(slurp(argv[i]));
    std::printf("osm_xml_fuzz: %zu inputs, no crash\n", g_runs);
    return 0;
  }
  // 1. Hand-written seeds, whole and degenerate.
  std::vector<std::string> corpus = seeds();
  for (const auto& s : corpus)
    run(s);
  run("");
  run("<osm");
  run("<osm version='0.6'/>");
  run("<osm version='0.7'></osm>");
  run(std::string(3, '\0'));

  // 2. Prefixes of a real API download, cut at 97 points (each must be an error: truncated).
  const std::string aberdeen = slurp(std::string(CITYFORGE_TEST_DATA) + "/osm/aberdeen_centre.osm");
  if (aberdeen.size() < 100000) {
    std::fprintf(stderr, "osm_xml_fuzz: cannot read aberdeen_centre.osm from %s\n",
                 CITYFORGE_TEST_DATA);
    return 1;
  }
  for (int k = 1; k < 98; ++k) {
    // Denser near the start, where the header, bounds and first nodes are.
    const double f = double(k) / 98.0;
    const std::size_t cut = std::size_t(f * f * double(aberdeen.size() - 16));
    const std::string prefix = aberdeen.substr(0, cut);
    ++g_runs;
    auto ex = osm::read_xml(prefix, "prefix.osm");
    check(ex, "prefix.osm");
    if (ex.ok()) {
      std::fprintf(stderr, "osm_xml_fuzz: a prefix of %zu bytes read as complete\n", cut);
      return 1;
    }
  }
  run(aberdeen);

  // 3. Fixed-seed mutations of the seeds and of a well-formed slice of the real file.
  corpus.push_back(aberdeen_slice(aberdeen));
  // Fixed by default; CITYFORGE_FUZZ_SEED / CITYFORGE_FUZZ_ITERATIONS explore further by hand.
  Rng rng = fuzz::fixed_rng();
  const long iterations = fuzz::iterations(2000);
  for (long i = 0; i < iterations; ++i) {
    std::string input = corpus[rng.below(std::uint32_t(corpus.size()))];
    input = mutate(std::move(input), rng);
    run(input);
  }
  std::printf("osm_xml_fuzz: %zu inputs (%zu read, the rest errors), no crash\n", g_runs, g_read);
  return 0;
}

#endif  // CITYFORGE_LIBFUZZER
