// SPDX-License-Identifier: Apache-2.0
// The OSM reader on the sample extracts (tests/data/SOURCES.md has their census) and on broken
// inputs: each bad input gives an Error naming the file and the place, never a crash.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "cityforge/osm/osm.hpp"
#include "reader_checks.hpp"

namespace cityforge::osm {
namespace {

namespace fs = std::filesystem;
using testing::check_invariants;
using testing::count_areas_with;
using testing::count_ways_with;
using testing::sample;

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

/// A file in a per-test temporary folder (tests run in parallel under ctest).
class TempFile {
 public:
  TempFile(const std::string& name, const std::string& bytes) {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    m_dir = fs::temp_directory_path() / ("cityforge-osm-" + std::to_string(::getpid()) + "-" +
                                         info->test_suite_name() + "-" + info->name());
    fs::create_directories(m_dir);
    m_path = (m_dir / name).string();
    std::ofstream(m_path, std::ios::binary) << bytes;
  }
  ~TempFile() {
    std::error_code ec;
    fs::remove_all(m_dir, ec);
  }
  const std::string& path() const { return m_path; }

 private:
  fs::path m_dir;
  std::string m_path;
};

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

// ---- The samples --------------------------------------------------------------------------------

TEST(Reader, SmallSamplesPinnedCounts) {
  // Measured with this reader (rules: highway ways with a node inside the header bounds, building
  // areas from closed ways with a ring vertex inside); pinned so a change in the rules shows.
  auto manhattan = read_file(sample("manhattan_west_village.osm.pbf"));
  ASSERT_TRUE(manhattan.ok());
  auto aberdeen = read_file(sample("aberdeen_centre.osm"));
  ASSERT_TRUE(aberdeen.ok());
  EXPECT_EQ(count_ways_with(*manhattan, "highway"), 94u);
  EXPECT_EQ(count_areas_with(*manhattan, "building", false), 1520u);
  EXPECT_EQ(count_ways_with(*aberdeen, "highway"), 205u);
  EXPECT_EQ(count_areas_with(*aberdeen, "building", false), 131u);
}

TEST(Reader, RelationsStoredBeforeWaysStillMakeMultipolygons) {
  // Manhattan stores nodes, then relations, then ways; its building relations (5 in SOURCES.md)
  // must still be assembled.
  auto ex = read_file(sample("manhattan_west_village.osm.pbf"));
  ASSERT_TRUE(ex.ok()) << ex.error().to_string();
  std::size_t from_relations = 0;
  for (const Area& a : ex->areas)
    from_relations += a.from_relation ? 1 : 0;
  EXPECT_GT(from_relations, 0u);
}

TEST(Reader, SamplesHaveAreasWithHoles) {
  auto ex = read_file(sample("munich_altstadt.osm.pbf"));
  ASSERT_TRUE(ex.ok()) << ex.error().to_string();
  std::size_t with_holes = 0;
  for (const Area& a : ex->areas) {
    for (const Polygon& p : a.polygons) {
      if (p.holes.empty()) continue;
      ++with_holes;
      EXPECT_TRUE(a.from_relation);  // Only multipolygons have holes.
      EXPECT_GT(polygon_area(p), 0.0);
      EXPECT_LT(polygon_area(p), std::abs(ring_signed_area(p.outer)));
    }
  }
  EXPECT_GT(with_holes, 0u);
}

TEST(Reader, ClosedWaysRepeatTheirFirstNode) {
  // The Mounthooly roundabout in Aberdeen: a closed highway way.
  auto ex = read_file(sample("aberdeen_centre.osm"));
  ASSERT_TRUE(ex.ok()) << ex.error().to_string();
  std::size_t closed = 0;
  for (const Way& w : ex->ways) {
    if (tag(w.tags, "junction") != "roundabout" || w.refs.front() != w.refs.back()) continue;
    ++closed;
    EXPECT_EQ(w.points.front().x, w.points.back().x);
    EXPECT_EQ(w.points.front().y, w.points.back().y);
  }
  EXPECT_GT(closed, 0u);
}

TEST(Reader, PositionsAreTheLocalFrameOfTheBoundsCentre) {
  auto ex = read_file(sample("aberdeen_centre.osm"));
  ASSERT_TRUE(ex.ok());
  auto proj = Projection::around(ex->lon0, ex->lat0);
  ASSERT_TRUE(proj.ok());
  for (const Node& n : ex->nodes) {
    const Vec2 p = proj->to_local(n.lon, n.lat);
    ASSERT_NEAR(p.x, n.pos.x, 1e-9);
    ASSERT_NEAR(p.y, n.pos.y, 1e-9);
    // Within the ~600 m x 800 m header bounds.
    ASSERT_LT(std::abs(n.pos.x), 400.0);
    ASSERT_LT(std::abs(n.pos.y), 450.0);
  }
}

TEST(Reader, SameFileSameExtract) {
  auto a = read_file(sample("manhattan_west_village.osm.pbf"));
  auto b = read_file(sample("manhattan_west_village.osm.pbf"));
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_EQ(a->ways.size(), b->ways.size());
  ASSERT_EQ(a->areas.size(), b->areas.size());
  ASSERT_EQ(a->nodes.size(), b->nodes.size());
  for (std::size_t i = 0; i < a->ways.size(); ++i) {
    ASSERT_EQ(a->ways[i].id, b->ways[i].id);
    ASSERT_EQ(a->ways[i].refs, b->ways[i].refs);
    ASSERT_EQ(a->ways[i].tags, b->ways[i].tags);
    for (std::size_t k = 0; k < a->ways[i].points.size(); ++k) {
      ASSERT_EQ(a->ways[i].points[k].x, b->ways[i].points[k].x);
      ASSERT_EQ(a->ways[i].points[k].y, b->ways[i].points[k].y);
    }
  }
  for (std::size_t i = 0; i < a->areas.size(); ++i) {
    ASSERT_EQ(a->areas[i].osm_id, b->areas[i].osm_id);
    ASSERT_EQ(a->areas[i].polygons.size(), b->areas[i].polygons.size());
    for (std::size_t k = 0; k < a->areas[i].polygons.size(); ++k) {
      const auto& pa = a->areas[i].polygons[k].outer;
      const auto& pb = b->areas[i].polygons[k].outer;
      ASSERT_EQ(pa.size(), pb.size());
      for (std::size_t j = 0; j < pa.size(); ++j)
        ASSERT_TRUE(pa[j].x == pb[j].x && pa[j].y == pb[j].y);
    }
  }
}

TEST(Reader, BboxOptionImportsASubset) {
  auto full = read_file(sample("aberdeen_centre.osm"));
  ASSERT_TRUE(full.ok());
  ReadOptions options;
  options.bbox = GeoBox{-2.1000, 57.1500, -2.0960, 57.1530};
  auto part = read_file(sample("aberdeen_centre.osm"), options);
  ASSERT_TRUE(part.ok()) << part.error().to_string();
  check_invariants(*part);
  EXPECT_DOUBLE_EQ(part->lon0, -2.0980);
  EXPECT_DOUBLE_EQ(part->lat0, 57.1515);
  EXPECT_GT(part->ways.size(), 0u);
  EXPECT_LT(part->ways.size(), full->ways.size());
  EXPECT_LT(part->areas.size(), full->areas.size());
  EXPECT_EQ(part->stats.nodes, full->stats.nodes);  // The whole file is still read.
}

// ---- Hand-written XML --------------------------------------------------------------------------

std::string osm_xml(const std::string& body) {
  return "<?xml version='1.0' encoding='UTF-8'?>\n<osm version='0.6' generator='test'>\n" + body +
         "</osm>\n";
}
std::string node(long id, double lon, double lat, const std::string& tags = "") {
  char buf[160];
  std::snprintf(buf, sizeof buf, " <node id='%ld' version='1' lat='%.7f' lon='%.7f'", id, lat, lon);
  return std::string(buf) + (tags.empty() ? "/>\n" : ">" + tags + "</node>\n");
}
std::string way(long id, const std::vector<long>& refs, const std::string& tags) {
  std::string s = " <way id='" + std::to_string(id) + "' version='1'>";
  for (long r : refs)
    s += "<nd ref='" + std::to_string(r) + "'/>";
  return s + tags + "</way>\n";
}
std::string t(const std::string& k, const std::string& v) {
  return "<tag k='" + k + "' v='" + v + "'/>";
}
/// A 100 m grid of nodes 1..16 around (10.0, 50.0): id = 1 + i + 4 j.
std::string grid() {
  std::string s;
  for (int j = 0; j < 4; ++j)
    for (int i = 0; i < 4; ++i)
      s += node(1 + i + 4 * j, 10.0 + 0.0014 * i, 50.0 + 0.0009 * j);
  return s;
}

TEST(Reader, XmlWithoutBoundsUsesTheNodeExtent) {
  const std::string xml =
      osm_xml(grid() + node(100, 10.001, 50.001, t("highway", "traffic_signals")) +
              way(10, {1, 2, 3, 4}, t("highway", "residential") + t("name", "A")) +
              way(11, {1, 5, 6, 2, 1}, t("building", "yes")));
  auto ex = read_xml(xml, "grid.osm");
  ASSERT_TRUE(ex.ok()) << ex.error().to_string();
  check_invariants(*ex);
  EXPECT_DOUBLE_EQ(ex->bounds.min_lon, 10.0);
  EXPECT_NEAR(ex->bounds.max_lon, 10.0042, 1e-9);
  ASSERT_EQ(ex->ways.size(), 1u);
  EXPECT_EQ(ex->ways[0].refs, (std::vector<std::int64_t>{1, 2, 3, 4}));
  EXPECT_EQ(tag(ex->ways[0].tags, "name"), "A");
  ASSERT_EQ(ex->areas.size(), 1u);
  EXPECT_EQ(ex->areas[0].osm_id, 11);
  EXPECT_FALSE(ex->areas[0].from_relation);
  // The ring is given clockwise (1, 5, 6, 2 goes north, east, south): stored counter-clockwise.
  EXPECT_GT(ring_signed_area(ex->areas[0].polygons[0].outer), 0.0);
  EXPECT_NEAR(polygon_area(ex->areas[0].polygons[0]), 100.2 * 100.1, 50.0);
  ASSERT_EQ(ex->nodes.size(), 1u);
  EXPECT_EQ(ex->nodes[0].id, 100);
}

TEST(Reader, MultipolygonWithAHoleRelationBeforeItsWays) {
  // Outer 1-4-16-13, inner 6-7-11-10; the relation comes first in the file.
  const std::string rel =
      " <relation id='7' version='1'><member type='way' ref='21' role='outer'/>"
      "<member type='way' ref='22' role='inner'/>" +
      t("type", "multipolygon") + t("landuse", "grass") + "</relation>\n";
  const std::string xml =
      osm_xml(grid() + rel + way(21, {1, 4, 16, 13, 1}, "") + way(22, {6, 7, 11, 10, 6}, "") +
              way(23, {1, 2}, t("highway", "footway")));
  auto ex = read_xml(xml, "mp.osm");
  ASSERT_TRUE(ex.ok()) << ex.error().to_string();
  check_invariants(*ex);
  ASSERT_EQ(ex->areas.size(), 1u);
  const Area& a = ex->areas[0];
  EXPECT_EQ(a.osm_id, 7);
  EXPECT_TRUE(a.from_relation);
  EXPECT_EQ(tag(a.tags, "landuse"), "grass");
  ASSERT_EQ(a.polygons.size(), 1u);
  ASSERT_EQ(a.polygons[0].holes.size(), 1u);
  const double outer = ring_signed_area(a.polygons[0].outer);
  const double hole = ring_signed_area(a.polygons[0].holes[0]);
  EXPECT_GT(outer, 0.0);
  EXPECT_LT(hole, 0.0);
  EXPECT_NEAR(outer / -hole, 9.0, 0.05);  // 3 x 3 cells around 1 x 1.
}

TEST(Reader, UnsortedXmlWithSeveralVersionsReadsTheNewest) {
  // Ways before the nodes, ids out of order, node 2 twice (version 2 moved it 0.001 degree
  // north). Each object is read once, in its newest version.
  std::string body =
      way(12, {3, 4}, t("highway", "service")) + way(11, {1, 2}, t("highway", "service")) + grid();
  body += " <node id='2' version='2' lat='50.0010000' lon='10.0014000'/>\n";
  auto ex = read_xml(osm_xml(body), "unsorted.osm");
  ASSERT_TRUE(ex.ok()) << ex.error().to_string();
  EXPECT_EQ(ex->stats.nodes, 16u);
  EXPECT_EQ(ex->stats.ways, 2u);
  EXPECT_EQ(ex->stats.ways_missing_nodes, 0u);
  ASSERT_EQ(ex->ways.size(), 2u);
  EXPECT_EQ(ex->ways[0].id, 11);
  const Vec2 moved = ex->ways[0].points[1] - ex->ways[0].points[0];
  EXPECT_NEAR(moved.y, 111.2, 0.5);  // Version 2's latitude, not version 1's.
}

TEST(Reader, WayWithAMissingNodeIsSkippedAndCounted) {
  const std::string xml = osm_xml(grid() + way(30, {1, 2, 999, 3}, t("highway", "service")) +
                                  way(31, {5, 6, 7}, t("highway", "residential")));
  auto ex = read_xml(xml, "missing.osm");
  ASSERT_TRUE(ex.ok()) << ex.error().to_string();
  EXPECT_EQ(ex->stats.ways_missing_nodes, 1u);
  ASSERT_EQ(ex->ways.size(), 1u);
  EXPECT_EQ(ex->ways[0].id, 31);
  ASSERT_EQ(ex->warnings.size(), 1u);
  EXPECT_TRUE(contains(ex->warnings[0], "way 30")) << ex->warnings[0];
  EXPECT_TRUE(contains(ex->warnings[0], "node 999")) << ex->warnings[0];
}

TEST(Reader, SelfIntersectingBuildingIsSkippedAndCounted) {
  // A bow-tie 1-6-5-2-1 (edges 1-6 and 5-2 cross) next to a good building and a street.
  const std::string xml = osm_xml(grid() + way(40, {1, 6, 5, 2, 1}, t("building", "yes")) +
                                  way(41, {3, 4, 8, 7, 3}, t("building", "yes")) +
                                  way(42, {9, 10, 11}, t("highway", "residential")) +
                                  way(43, {13, 14, 15}, t("building", "yes")));  // not closed
  auto ex = read_xml(xml, "bowtie.osm");
  ASSERT_TRUE(ex.ok()) << ex.error().to_string();
  check_invariants(*ex);
  EXPECT_EQ(ex->stats.areas_invalid, 2u);
  ASSERT_EQ(ex->areas.size(), 1u);
  EXPECT_EQ(ex->areas[0].osm_id, 41);
  ASSERT_FALSE(ex->warnings.empty());
  EXPECT_TRUE(contains(ex->warnings[0], "way 40")) << ex->warnings[0];
  EXPECT_TRUE(contains(ex->warnings[0], "way 43")) << ex->warnings[0];
}

TEST(Reader, IncompleteMultipolygonIsCounted) {
  const std::string rel =
      " <relation id='8' version='1'><member type='way' ref='21' role='outer'/>"
      "<member type='way' ref='77' role='outer'/>" +
      t("type", "multipolygon") + t("building", "yes") + "</relation>\n";
  const std::string xml = osm_xml(grid() + rel + way(21, {1, 4, 16, 13, 1}, "") +
                                  way(23, {1, 2}, t("highway", "footway")));
  auto ex = read_xml(xml, "incomplete.osm");
  ASSERT_TRUE(ex.ok()) << ex.error().to_string();
  EXPECT_EQ(ex->stats.relations_incomplete, 1u);
  EXPECT_TRUE(ex->areas.empty());
  ASSERT_FALSE(ex->warnings.empty());
  EXPECT_TRUE(contains(ex->warnings.back(), "relation 8")) << ex->warnings.back();
}

// ---- Bad inputs --------------------------------------------------------------------------------

TEST(ReaderErrors, TruncatedXmlNamesTheFileLineAndColumn) {
  const std::string xml = slurp(sample("aberdeen_centre.osm"));
  ASSERT_GT(xml.size(), 100000u);
  const std::string cut = xml.substr(0, xml.size() / 2);
  TempFile file("aberdeen_cut.osm", cut);
  auto ex = read_file(file.path());
  ASSERT_FALSE(ex.ok());
  EXPECT_EQ(ex.error().where, file.path());
  EXPECT_TRUE(contains(ex.error().message, "line ")) << ex.error().message;
  EXPECT_TRUE(contains(ex.error().message, "column ")) << ex.error().message;
  EXPECT_TRUE(contains(ex.error().message, "truncated")) << ex.error().message;
  // The same from memory.
  auto mem = read_xml(cut, "cut.osm");
  ASSERT_FALSE(mem.ok());
  EXPECT_EQ(mem.error().where, "cut.osm");
  EXPECT_TRUE(contains(mem.error().message, "line ")) << mem.error().message;
}

TEST(ReaderErrors, MalformedXmlNamesTheLine) {
  const std::string xml = osm_xml(grid() + " <way id='1'><nd ref='1'/><tag k='a' v='b'></way>\n");
  auto ex = read_xml(xml, "bad.osm");
  ASSERT_FALSE(ex.ok());
  EXPECT_TRUE(contains(ex.error().message, "line 19")) << ex.error().message;
  EXPECT_TRUE(contains(ex.error().message, "mismatched tag")) << ex.error().message;
}

TEST(ReaderErrors, OutOfRangeCoordinateIsAnErrorWithItsLine) {
  // libosmium 2.19 would overflow a signed integer parsing this (found by the fuzz target).
  const std::string xml = osm_xml(grid() + " <node id='50' version='1' lat='5e99' lon='1'/>\n" +
                                  way(10, {1, 2}, t("highway", "service")));
  auto ex = read_xml(xml, "huge.osm");
  ASSERT_FALSE(ex.ok());
  EXPECT_EQ(ex.error().where, "huge.osm");
  EXPECT_TRUE(contains(ex.error().message, "lat='5e99' at line 19")) << ex.error().message;
  TempFile file("huge.osm", xml);
  auto from_file = read_file(file.path());
  ASSERT_FALSE(from_file.ok());
  EXPECT_TRUE(contains(from_file.error().message, "line 19")) << from_file.error().message;
  // In range with an exponent is fine.
  const std::string ok =
      osm_xml(grid() + " <node id='50' version='1' lat='5.0001e1' lon='1.00e1'/>\n" +
              way(10, {1, 2, 50}, t("highway", "service")));
  auto good = read_xml(ok, "exp.osm");
  ASSERT_TRUE(good.ok()) << good.error().to_string();
  ASSERT_EQ(good->ways.size(), 1u);
  EXPECT_EQ(good->ways[0].refs.back(), 50);
}

TEST(ReaderErrors, CorruptPbfBlockIsNamed) {
  std::string bytes = slurp(sample("manhattan_west_village.osm.pbf"));
  ASSERT_GT(bytes.size(), 100000u);
  for (std::size_t i = bytes.size() / 2; i < bytes.size() / 2 + 32; ++i)
    bytes[i] = static_cast<char>(bytes[i] ^ 0x5a);
  TempFile file("manhattan_bad.osm.pbf", bytes);
  auto ex = read_file(file.path());
  ASSERT_FALSE(ex.ok());
  EXPECT_EQ(ex.error().where, file.path());
  EXPECT_TRUE(contains(ex.error().message, "block ")) << ex.error().message;
  EXPECT_TRUE(contains(ex.error().message, "at byte ")) << ex.error().message;
}

TEST(ReaderErrors, TruncatedPbfIsAnError) {
  const std::string bytes = slurp(sample("manhattan_west_village.osm.pbf"));
  TempFile file("manhattan_cut.pbf", bytes.substr(0, bytes.size() / 3));
  auto ex = read_file(file.path());
  ASSERT_FALSE(ex.ok());
  EXPECT_EQ(ex.error().where, file.path());
  EXPECT_TRUE(contains(ex.error().message, "PBF")) << ex.error().message;
}

TEST(ReaderErrors, XmlNamedPbfIsAnError) {
  TempFile file("not_really.osm.pbf", osm_xml(grid()));
  auto ex = read_file(file.path());
  ASSERT_FALSE(ex.ok());
  EXPECT_TRUE(contains(ex.error().message, "PBF")) << ex.error().message;
}

TEST(ReaderErrors, EmptyBboxSaysSo) {
  ReadOptions options;
  options.bbox = GeoBox{-2.20, 57.00, -2.19, 57.01};  // South-west of Aberdeen's extract.
  auto ex = read_file(sample("aberdeen_centre.osm"), options);
  ASSERT_FALSE(ex.ok());
  EXPECT_EQ(ex.error().code, ErrorCode::invalid_input);
  EXPECT_TRUE(contains(ex.error().message, "hold no highway, building or other area"))
      << ex.error().message;
  EXPECT_TRUE(contains(ex.error().message, "lon -2.2000000..-2.1900000")) << ex.error().message;
}

TEST(ReaderErrors, InvalidBboxOption) {
  ReadOptions options;
  options.bbox = GeoBox{1.0, 42.0, 0.5, 42.5};  // min_lon > max_lon
  auto ex = read_file(sample("aberdeen_centre.osm"), options);
  ASSERT_FALSE(ex.ok());
  EXPECT_EQ(ex.error().where, "--bbox");
}

TEST(ReaderErrors, UnknownFormatAndMissingFile) {
  TempFile file("city.txt", osm_xml(grid()));
  auto unknown = read_file(file.path());
  ASSERT_FALSE(unknown.ok());
  EXPECT_TRUE(contains(unknown.error().message, "unknown OSM file format"))
      << unknown.error().message;

  auto missing = read_file(sample("no_such_file.osm.pbf"));
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, ErrorCode::io);
  EXPECT_TRUE(contains(missing.error().where, "no_such_file.osm.pbf"));

  auto folder = read_file(std::string(CITYFORGE_TEST_DATA) + "/osm.osm");
  ASSERT_FALSE(folder.ok());
  EXPECT_EQ(folder.error().code, ErrorCode::io);
}

TEST(ReaderErrors, EmptyAndNonOsmXml) {
  auto empty = read_xml("", "empty.osm");
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.error().where, "empty.osm");
  auto html = read_xml("<html><body>hi</body></html>", "page.osm");
  ASSERT_FALSE(html.ok());
  auto nothing = read_xml(osm_xml(""), "nothing.osm");
  ASSERT_FALSE(nothing.ok());
  EXPECT_TRUE(contains(nothing.error().message, "no node")) << nothing.error().message;
}

// ---- parse_bbox (src/osm/tags.cpp) --------------------------------------------------------------

TEST(ParseBbox, AcceptsFourNumbers) {
  auto b = parse_bbox("1.41237,42.4276, 1.78748 ,42.65717");
  ASSERT_TRUE(b.ok()) << b.error().to_string();
  EXPECT_DOUBLE_EQ(b->min_lon, 1.41237);
  EXPECT_DOUBLE_EQ(b->min_lat, 42.4276);
  EXPECT_DOUBLE_EQ(b->max_lon, 1.78748);
  EXPECT_DOUBLE_EQ(b->max_lat, 42.65717);
  EXPECT_TRUE(b->contains(1.5, 42.5));
  EXPECT_FALSE(b->contains(1.3, 42.5));
  auto neg = parse_bbox("-74.01369,40.73302,-73.9996,40.73969");
  ASSERT_TRUE(neg.ok());
  EXPECT_DOUBLE_EQ(neg->min_lon, -74.01369);
}

TEST(ParseBbox, RejectsBadStringsNamingTheOption) {
  const char* bad[] = {"",          "1,2,3",     "1,2,3,4,5", "a,2,3,4",    "1,,3,4",
                       "1,2,0,4",   "1,5,3,4",   "1,2,3,95",  "-181,2,3,4", "1;2;3;4",
                       "nan,1,2,3", "1,2,inf,4", "1 2,3,4,5", "0x1,2,3,4"};
  for (const char* s : bad) {
    auto b = parse_bbox(s, "--bbox");
    ASSERT_FALSE(b.ok()) << "'" << s << "'";
    EXPECT_EQ(b.error().where, "--bbox");
    EXPECT_EQ(b.error().code, ErrorCode::invalid_input);
    EXPECT_FALSE(b.error().message.empty());
  }
  auto named = parse_bbox("x", "import.bbox");
  ASSERT_FALSE(named.ok());
  EXPECT_EQ(named.error().where, "import.bbox");
}

}  // namespace
}  // namespace cityforge::osm
