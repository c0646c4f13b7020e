// SPDX-License-Identifier: Apache-2.0
// Fuzz target for the OSM XML reader: any bytes give an Extract or an Error, never a crash, a
// hang or a sanitizer report. LLVMFuzzerTestOneInput is the libFuzzer entry point (build with
// clang -fsanitize=fuzzer -DCITYFORGE_LIBFUZZER to fuzz open-ended). Without libFuzzer (gcc,
// ctest `fuzz.osm_xml`) the main() below runs a fixed, deterministic corpus: hand-written
// extracts, prefixes of aberdeen_centre.osm cut at many points, and a fixed-seed mutation loop
// of byte flips, insertions and deletions over the seeds (a bounded number of iterations, not
// a time budget). Arguments, if given, are files to run instead (to replay a crash).
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

namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

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

/// Random edits. Half keep the XML well-formed, so the geometry code is reached: change a digit
/// (ids, coordinates: missing nodes, bow-ties, far points), swap two lines (unsorted files,
/// relations after ways). The rest break it: flip a byte, insert bytes (random or XML-ish),
/// delete a run, duplicate a run.
std::string mutate(std::string s, Rng& rng) {
  static const char* const tokens[] = {"<",
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
                                       "\0",
                                       "\xff",
                                       "<tag k='building' v='yes'/>"};
  const int edits = 1 + int(rng.below(4));
  for (int e = 0; e < edits; ++e) {
    const std::size_t at = s.empty() ? 0 : rng.below(std::uint32_t(s.size()));
    switch (rng.below(10)) {
      case 5:
      case 6:
      case 7: {
        const std::size_t d = s.find_first_of("0123456789", at);
        if (d != std::string::npos) s[d] = static_cast<char>('0' + rng.below(10));
        break;
      }
      case 8:
      case 9: {
        const std::size_t a0 = s.find('\n', at);
        const std::size_t b0 = s.empty() ? 0 : s.find('\n', rng.below(std::uint32_t(s.size())));
        if (a0 == std::string::npos || b0 == std::string::npos || a0 == b0) break;
        const std::size_t x = std::min(a0, b0) + 1, y = std::max(a0, b0) + 1;
        const std::size_t xe = s.find('\n', x), ye = s.find('\n', y);
        if (xe == std::string::npos || ye == std::string::npos || xe >= y) break;
        const std::string lx = s.substr(x, xe - x), ly = s.substr(y, ye - y);
        s.replace(y, ye - y, lx);
        s.replace(x, xe - x, ly);
        break;
      }
      case 0:
        if (!s.empty()) s[at] = static_cast<char>(s[at] ^ (1 << rng.below(8)));
        break;
      case 1:
        s.insert(at, 1, static_cast<char>(rng.below(256)));
        break;
      case 2: {
        const char* tok = tokens[rng.below(std::uint32_t(std::size(tokens)))];
        s.insert(at,
                 std::string(tok, std::max<std::size_t>(1, std::char_traits<char>::length(tok))));
        break;
      }
      case 3:
        if (!s.empty()) s.erase(at, 1 + rng.below(16));
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
  const char* seed_env = std::getenv("CITYFORGE_FUZZ_SEED");
  const char* iter_env = std::getenv("CITYFORGE_FUZZ_ITERATIONS");
  Rng rng(seed_env ? std::strtoull(seed_env, nullptr, 10) : 9, Stage::test, 0xF022);
  const long iterations = iter_env ? std::strtol(iter_env, nullptr, 10) : 2000;
  for (long i = 0; i < iterations; ++i) {
    std::string input = corpus[rng.below(std::uint32_t(corpus.size()))];
    input = mutate(std::move(input), rng);
    run(input);
  }
  std::printf("osm_xml_fuzz: %zu inputs (%zu read, the rest errors), no crash\n", g_runs, g_read);
  return 0;
}

#endif  // CITYFORGE_LIBFUZZER
