// SPDX-License-Identifier: Apache-2.0
// Reads an OSM extract (XML or PBF) with libosmium into the parts the import uses.
//
// Two passes over the input, as libosmium's multipolygon assembly wants: the first reads only
// the relations (so multipolygons are known however the file is ordered: some PBFs store
// relations before ways), the second reads nodes (locations into an in-memory index), ways
// (locations from the index) and hands member and closed ways to the multipolygon manager,
// which assembles areas. Everything is collected in WGS84 first; then the bounds are fixed
// (--bbox, else the header bounds, else the node extent), the local frame is centred on them,
// and what lies inside is projected and sorted by id.
// GCC 12 reports a false -Wstringop-overread inside libosmium's builder (an empty user name
// copied from a relation without metadata) where it is inlined; the headers are third-party.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-overread"
#include <zlib.h>

#include <osmium/area/assembler.hpp>
#include <osmium/area/multipolygon_manager.hpp>
#include <osmium/handler.hpp>
#include <osmium/handler/node_locations_for_ways.hpp>
#include <osmium/index/map/flex_mem.hpp>
#include <osmium/io/any_input.hpp>
#include <osmium/io/file.hpp>
#include <osmium/io/reader.hpp>
#include <osmium/object_pointer_collection.hpp>
#include <osmium/osm/object_comparisons.hpp>
#include <osmium/thread/pool.hpp>
#include <osmium/visitor.hpp>
#include <protozero/pbf_reader.hpp>
#pragma GCC diagnostic pop

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <optional>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "cityforge/osm/osm.hpp"

namespace cityforge::osm {
namespace {

using LonLat = std::pair<double, double>;

// ---- Which objects matter ----------------------------------------------------------------------

bool has(const osmium::TagList& tags, const char* key) {
  return tags.get_value_by_key(key) != nullptr;
}
bool is(const osmium::TagList& tags, const char* key, const char* value) {
  const char* v = tags.get_value_by_key(key);
  return v && std::strcmp(v, value) == 0;
}

/// Tagged nodes the import uses: signals, crossings, furniture, trees, barriers, stops.
bool node_wanted(const osmium::TagList& tags) {
  static const char* const keys[] = {"highway",  "amenity", "emergency", "natural", "barrier",
                                     "crossing", "railway", "leisure",   "man_made"};
  return std::any_of(std::begin(keys), std::end(keys), [&](const char* k) { return has(tags, k); });
}

/// Linear ways: highways (not mapped as areas), barriers, waterways (not riverbanks), railways.
bool linear_wanted(const osmium::TagList& tags) {
  const bool area_yes = is(tags, "area", "yes");
  if (has(tags, "highway") && !area_yes) return true;
  if (has(tags, "railway") && !area_yes) return true;
  if (has(tags, "barrier")) return true;
  if (has(tags, "waterway") && !is(tags, "waterway", "riverbank") && !is(tags, "waterway", "dock"))
    return true;
  return false;
}

/// Areas: buildings and parts, land use, natural (not the linear kinds), leisure, amenity,
/// water, riverbanks, squares, man_made, and anything closed with area=yes.
bool area_wanted(const osmium::TagList& tags) {
  if (is(tags, "area", "no")) return false;
  if (has(tags, "building") && !is(tags, "building", "no")) return true;
  if (has(tags, "building:part") && !is(tags, "building:part", "no")) return true;
  if (has(tags, "landuse") || has(tags, "leisure") || has(tags, "amenity") || has(tags, "water") ||
      has(tags, "man_made") || has(tags, "area:highway"))
    return true;
  if (const char* n = tags.get_value_by_key("natural")) {
    static const char* const linear[] = {"coastline", "tree_row",   "cliff",  "ridge",
                                         "arete",     "earth_bank", "valley", "gully"};
    return std::none_of(std::begin(linear), std::end(linear),
                        [&](const char* l) { return std::strcmp(n, l) == 0; });
  }
  if (is(tags, "waterway", "riverbank") || is(tags, "waterway", "dock")) return true;
  if (is(tags, "place", "square")) return true;
  if (is(tags, "area", "yes")) return true;
  return false;
}

/// Kinds that are areas whatever their shape: an unclosed way with one is a broken area.
bool must_be_area(const osmium::TagList& tags) {
  return (has(tags, "building") && !is(tags, "building", "no")) ||
         (has(tags, "building:part") && !is(tags, "building:part", "no")) || has(tags, "landuse");
}

Tags tags_of(const osmium::TagList& list) {
  Tags tags;
  tags.reserve(list.size());
  for (const auto& t : list)
    tags.emplace_back(t.key(), t.value());
  std::stable_sort(tags.begin(), tags.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  tags.erase(std::unique(tags.begin(), tags.end(),
                         [](const auto& a, const auto& b) { return a.first == b.first; }),
             tags.end());
  return tags;
}

// ---- What the passes collect (WGS84) ---------------------------------------------------------

struct RawNode {
  std::int64_t id = 0;
  LonLat ll;
  Tags tags;
};
struct RawWay {
  std::int64_t id = 0;
  std::vector<std::int64_t> refs;
  std::vector<LonLat> ll;
  Tags tags;
};
struct RawPolygon {
  std::vector<LonLat> outer;
  std::vector<std::vector<LonLat>> holes;
};
struct RawArea {
  std::int64_t osm_id = 0;
  bool from_relation = false;
  std::vector<RawPolygon> polygons;
  Tags tags;
};

/// Up to five example ids per kind of skip, for the warnings.
struct Examples {
  std::vector<std::string> ids;
  void add(std::string id) {
    if (ids.size() < 5) ids.push_back(std::move(id));
  }
  std::string text() const {
    std::string s;
    for (const auto& id : ids)
      s += (s.empty() ? "" : ", ") + id;
    return s;
  }
};

struct Collected {
  std::vector<RawNode> nodes;
  std::vector<RawWay> ways;
  std::vector<RawArea> areas;
  ReadStats stats;
  double min_lon = 1e300, min_lat = 1e300, max_lon = -1e300, max_lat = -1e300;
  std::unordered_set<std::int64_t> ways_missing;  // Lookup only, never iterated into output.
  Examples missing_examples, invalid_examples, incomplete_examples;
};

class Collector : public osmium::handler::Handler {
 public:
  explicit Collector(Collected& out) : m_out(out) {}

  void node(const osmium::Node& node) {
    ++m_out.stats.nodes;
    const osmium::Location loc = node.location();
    if (!loc.valid()) return;
    const double lon = loc.lon_without_check();
    const double lat = loc.lat_without_check();
    m_out.min_lon = std::min(m_out.min_lon, lon);
    m_out.max_lon = std::max(m_out.max_lon, lon);
    m_out.min_lat = std::min(m_out.min_lat, lat);
    m_out.max_lat = std::max(m_out.max_lat, lat);
    if (node.tags().empty() || !node_wanted(node.tags())) return;
    m_out.nodes.push_back(RawNode{node.id(), {lon, lat}, tags_of(node.tags())});
  }

  void way(const osmium::Way& way) {
    ++m_out.stats.ways;
    const auto& nodes = way.nodes();
    for (const auto& nr : nodes) {
      if (!nr.location().valid()) {
        ++m_out.stats.ways_missing_nodes;
        m_out.ways_missing.insert(way.id());
        m_out.missing_examples.add("way " + std::to_string(way.id()) + " (node " +
                                   std::to_string(nr.ref()) + ")");
        return;
      }
    }
    const auto& tags = way.tags();
    if (tags.empty() || nodes.empty()) return;
    const bool closed = nodes.front().ref() == nodes.back().ref() ||
                        nodes.front().location() == nodes.back().location();
    if (!closed && must_be_area(tags) && !linear_wanted(tags)) {
      ++m_out.stats.areas_invalid;
      m_out.invalid_examples.add("way " + std::to_string(way.id()) + " (not closed)");
    }
    if (nodes.size() < 2 || !linear_wanted(tags)) return;
    RawWay w;
    w.id = way.id();
    w.refs.reserve(nodes.size());
    w.ll.reserve(nodes.size());
    for (const auto& nr : nodes) {
      w.refs.push_back(nr.ref());
      w.ll.emplace_back(nr.location().lon_without_check(), nr.location().lat_without_check());
    }
    w.tags = tags_of(tags);
    m_out.ways.push_back(std::move(w));
  }

  void relation(const osmium::Relation&) { ++m_out.stats.relations; }

 private:
  Collected& m_out;
};

std::vector<LonLat> ring_points(const osmium::NodeRefList& ring) {
  std::vector<LonLat> pts;
  pts.reserve(ring.size());
  for (const auto& nr : ring)
    pts.emplace_back(nr.location().lon_without_check(), nr.location().lat_without_check());
  return pts;
}

void collect_area(const osmium::Area& area, Collected& out) {
  const bool from_relation = !area.from_way();
  const std::int64_t id = area.orig_id();
  if (!from_relation && out.ways_missing.count(id)) return;  // Counted as a way already.
  if (!area_wanted(area.tags())) return;
  if (area.num_rings().first == 0) {
    ++out.stats.areas_invalid;
    out.invalid_examples.add((from_relation ? "relation " : "way ") + std::to_string(id));
    return;
  }
  RawArea a;
  a.osm_id = id;
  a.from_relation = from_relation;
  for (const auto& outer : area.outer_rings()) {
    RawPolygon poly;
    poly.outer = ring_points(outer);
    for (const auto& inner : area.inner_rings(outer))
      poly.holes.push_back(ring_points(inner));
    a.polygons.push_back(std::move(poly));
  }
  a.tags = tags_of(area.tags());
  out.areas.push_back(std::move(a));
}

// ---- Reading ---------------------------------------------------------------------------------

using Index = osmium::index::map::FlexMem<osmium::unsigned_object_id_type, osmium::Location>;
using LocationHandler = osmium::handler::NodeLocationsForWays<Index, Index>;

/// Reads `file` once into memory, puts its objects in (type, id) order, newest version first
/// and one version each (API downloads are not sorted; the relations manager needs sorted
/// ways), then makes both passes over them. Fills `out` and the header bounds (an invalid box
/// when the file has none).
void read_passes(const osmium::io::File& file, Collected& out, osmium::Box& header_box) {
  std::vector<osmium::memory::Buffer> buffers;
  osmium::ObjectPointerCollection objects;
  {
    osmium::thread::Pool pool{2};  // Bounded; the output does not depend on it.
    osmium::io::Reader reader{file, osmium::osm_entity_bits::nwr, pool, osmium::io::read_meta::no};
    header_box = reader.header().box();
    while (osmium::memory::Buffer buffer = reader.read()) {
      osmium::apply(buffer, objects);
      buffers.push_back(std::move(buffer));  // Moving keeps the objects where they are.
    }
    reader.close();
  }
  objects.sort(osmium::object_order_type_id_reverse_version{});
  objects.unique(osmium::object_equal_type_id{});

  osmium::area::Assembler::config_type config;
  config.create_empty_areas = true;  // A failed assembly shows as an area without rings.
  osmium::area::MultipolygonManager<osmium::area::Assembler> manager{config};

  // 1. Relations: which multipolygons exist and which ways they need.
  osmium::apply(objects.begin(), objects.end(), manager);
  manager.prepare_for_lookup();

  // 2. Everything: node locations, ways, areas.
  Index positive;
  Index negative;
  LocationHandler locations{positive, negative};
  locations.ignore_errors();
  Collector collector{out};
  osmium::apply(objects.begin(), objects.end(), locations, collector,
                manager.handler([&out](osmium::memory::Buffer&& buffer) {
                  for (const auto& area : buffer.select<osmium::Area>())
                    collect_area(area, out);
                }));
  manager.for_each_incomplete_relation([&out](const osmium::relations::RelationHandle& handle) {
    if (is(handle->tags(), "type", "multipolygon")) {
      ++out.stats.relations_incomplete;
      out.incomplete_examples.add("relation " + std::to_string(handle->id()));
    }
  });
}

std::string deg(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.7f", v);
  return buf;
}
std::string box_text(const GeoBox& b) {
  return "lon " + deg(b.min_lon) + ".." + deg(b.max_lon) + ", lat " + deg(b.min_lat) + ".." +
         deg(b.max_lat);
}

/// A PBF blob header's type and data size (0 when absent); throws protozero's errors.
void read_blob_header(const char* data, std::size_t size, std::string& type,
                      std::int64_t& datasize) {
  protozero::pbf_reader header(data, size);
  while (header.next()) {
    if (header.tag() == 1 && header.wire_type() == protozero::pbf_wire_type::length_delimited)
      type = header.get_string();
    else if (header.tag() == 3 && header.wire_type() == protozero::pbf_wire_type::varint)
      datasize = header.get_int32();
    else
      header.skip();
  }
}

/// Checks every PBF blob header (framing only, nothing inflated) before libosmium reads the
/// file: libosmium 2.19 hands a null pointer to strncmp for a header without a type (undefined
/// behaviour, found by the osm_pbf fuzz target). `read_at(offset, n, out)` reads n bytes at
/// offset into out, false past the end. Empty when sound, else "block N at byte P: why".
template <class ReadAt>
std::string check_blob_headers(std::uint64_t size, const ReadAt& read_at) {
  std::uint64_t pos = 0;
  std::string bytes;
  for (std::size_t block = 0; pos < size; ++block) {
    const std::string at = "block " + std::to_string(block) + " at byte " + std::to_string(pos);
    if (size - pos < 4 || !read_at(pos, 4, bytes)) return at + ": truncated blob header length";
    const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
    const std::uint64_t header_size = (std::uint64_t(p[0]) << 24) | (std::uint64_t(p[1]) << 16) |
                                      (std::uint64_t(p[2]) << 8) | std::uint64_t(p[3]);
    pos += 4;
    if (header_size > 64 * 1024 || header_size > size - pos ||
        !read_at(pos, static_cast<std::size_t>(header_size), bytes)) {
      return at + ": blob header size " + std::to_string(header_size) + " is too large";
    }
    std::string type;
    std::int64_t datasize = 0;
    try {
      read_blob_header(bytes.data(), bytes.size(), type, datasize);
    } catch (const std::exception& e) {
      return at + ": blob header does not decode (" + e.what() + ")";
    }
    pos += header_size;
    if (type.empty()) return at + ": blob header has no type (expected OSMHeader or OSMData)";
    if (datasize <= 0 || std::uint64_t(datasize) > size - pos)
      return at + " (" + type + "): blob size " + std::to_string(datasize) +
             " is missing or past the end";
    pos += std::uint64_t(datasize);
  }
  return {};
}

std::string check_blob_headers(std::string_view data) {
  return check_blob_headers(data.size(), [&](std::uint64_t at, std::size_t n, std::string& out) {
    if (at + n > data.size()) return false;
    out.assign(data.data() + at, n);
    return true;
  });
}

std::string check_blob_headers_of_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::error_code ec;
  const std::uintmax_t size = std::filesystem::file_size(path, ec);
  if (!in || ec) return {};  // Reading fails later with its own error.
  return check_blob_headers(size, [&](std::uint64_t at, std::size_t n, std::string& out) {
    out.resize(n);
    in.seekg(static_cast<std::streamoff>(at));
    return static_cast<bool>(in.read(out.data(), static_cast<std::streamsize>(n)));
  });
}

/// Finds the first PBF block that does not decode (blob header, zlib data, size), so the error
/// names it. Empty when every block's framing and compression are sound.
std::string diagnose_pbf(std::string_view data) {
  std::size_t pos = 0;
  for (std::size_t block = 0; pos < data.size(); ++block) {
    const std::string at = "block " + std::to_string(block) + " at byte " + std::to_string(pos);
    if (data.size() - pos < 4) return at + ": truncated blob header length";
    const auto* p = reinterpret_cast<const unsigned char*>(data.data() + pos);
    const std::size_t header_size = (std::size_t(p[0]) << 24) | (std::size_t(p[1]) << 16) |
                                    (std::size_t(p[2]) << 8) | std::size_t(p[3]);
    pos += 4;
    if (header_size > 64 * 1024 || header_size > data.size() - pos)
      return at + ": blob header size " + std::to_string(header_size) + " is too large";
    std::string type;
    std::int64_t datasize = -1;
    try {
      read_blob_header(data.data() + pos, header_size, type, datasize);
    } catch (const std::exception& e) {
      return at + ": blob header does not decode (" + e.what() + ")";
    }
    pos += header_size;
    const std::string what = at + " (" + (type.empty() ? "no type" : type) + ")";
    if (datasize < 0 || std::size_t(datasize) > data.size() - pos)
      return what + ": blob size " + std::to_string(datasize) + " is missing or past the end";
    std::int64_t raw_size = -1;
    std::string_view zdata;
    bool raw = false;
    try {
      protozero::pbf_reader blob(data.data() + pos, std::size_t(datasize));
      while (blob.next()) {
        if (blob.tag() == 1 && blob.wire_type() == protozero::pbf_wire_type::length_delimited) {
          raw = true;
          blob.skip();
        } else if (blob.tag() == 2 && blob.wire_type() == protozero::pbf_wire_type::varint) {
          raw_size = blob.get_int32();
        } else if (blob.tag() == 3 &&
                   blob.wire_type() == protozero::pbf_wire_type::length_delimited) {
          const auto v = blob.get_view();
          zdata = std::string_view(v.data(), v.size());
        } else {
          blob.skip();
        }
      }
    } catch (const std::exception& e) {
      return what + ": blob does not decode (" + e.what() + ")";
    }
    if (!raw && !zdata.empty()) {
      if (raw_size < 0 || raw_size > 32 * 1024 * 1024)
        return what + ": uncompressed size " + std::to_string(raw_size) +
               " is missing or too large";
      std::vector<unsigned char> out(std::size_t(raw_size) + 1);
      uLongf out_size = static_cast<uLongf>(out.size());
      const int rc = uncompress(out.data(), &out_size, reinterpret_cast<const Bytef*>(zdata.data()),
                                static_cast<uLong>(zdata.size()));
      if (rc != Z_OK) {
        return what + ": zlib data corrupt (" +
               (rc == Z_DATA_ERROR  ? "bad data or checksum"
                : rc == Z_BUF_ERROR ? "does not inflate to its stated size"
                                    : "error " + std::to_string(rc)) +
               ")";
      }
      if (out_size != uLongf(raw_size))
        return what + ": uncompressed to " + std::to_string(out_size) + " bytes, header says " +
               std::to_string(raw_size);
    }
    pos += std::size_t(datasize);
  }
  return {};
}

/// libosmium 2.19 parses XML coordinates with a signed 64-bit accumulator that overflows
/// (undefined behaviour, found by the fuzz target) on values like lat="1e99". Coordinates are
/// checked here first: any attribute named *lat or *lon whose numeric value lies beyond
/// +-1000 degrees, or that uses a character reference, is an error naming its line.
std::optional<Error> check_coordinates(std::string_view xml, const std::string& source) {
  for (std::size_t pos = 0; pos < xml.size();) {
    const std::size_t eq = xml.find('=', pos);
    if (eq == std::string_view::npos) break;
    pos = eq + 1;
    std::size_t name_end = eq;
    while (name_end > 0 && (xml[name_end - 1] == ' ' || xml[name_end - 1] == '\t' ||
                            xml[name_end - 1] == '\n' || xml[name_end - 1] == '\r'))
      --name_end;
    if (name_end < 3) continue;
    const std::string_view name = xml.substr(name_end - 3, 3);
    if (name != "lat" && name != "lon") continue;
    std::size_t v = eq + 1;
    while (v < xml.size() && (xml[v] == ' ' || xml[v] == '\t' || xml[v] == '\n' || xml[v] == '\r'))
      ++v;
    if (v >= xml.size() || (xml[v] != '"' && xml[v] != '\'')) continue;
    const std::size_t close = xml.find(xml[v], v + 1);
    const std::string_view value =
        xml.substr(v + 1, (close == std::string_view::npos ? xml.size() : close) - v - 1);
    bool bad = value.find('&') != std::string_view::npos;
    if (!bad) {
      // The longest prefix libosmium would read: sign, digits, fraction, exponent.
      std::size_t n = 0;
      auto digits = [&] {
        while (n < value.size() && value[n] >= '0' && value[n] <= '9')
          ++n;
      };
      if (n < value.size() && value[n] == '-') ++n;
      digits();
      if (n < value.size() && value[n] == '.') {
        ++n;
        digits();
      }
      if (n < value.size() && (value[n] == 'e' || value[n] == 'E')) {
        ++n;
        if (n < value.size() && value[n] == '-') ++n;
        digits();
      }
      double d = 0.0;
      const auto [ptr, ec] = std::from_chars(value.data(), value.data() + n, d);
      (void)ptr;
      bad = ec == std::errc::result_out_of_range || (ec == std::errc() && std::abs(d) > 1000.0);
    }
    if (bad) {
      const std::size_t line =
          1 + std::size_t(std::count(xml.begin(), xml.begin() + long(eq), '\n'));
      return Error::invalid_input(source, "coordinate " + std::string(xml.substr(name_end - 3, 3)) +
                                              "='" + std::string(value.substr(0, 40)) +
                                              "' at line " + std::to_string(line) +
                                              ": expected decimal degrees within [-180, 180]");
    }
    pos = v + 1;
  }
  return std::nullopt;
}

enum class Format { xml, pbf };

/// Reads with both passes and turns libosmium's exceptions into Errors naming `source`.
/// `pbf_bytes` gives the PBF's bytes, to name the bad block (empty: not a PBF, or not at hand).
Result<Collected> collect(const osmium::io::File& file, const std::string& source, Format format,
                          const std::function<std::string()>& pbf_bytes, osmium::Box& header_box) {
  Collected out;
  try {
    read_passes(file, out, header_box);
  } catch (const osmium::xml_error& e) {
    if (e.line > 0) {
      return Error::invalid_input(source, "malformed or truncated OSM XML at line " +
                                              std::to_string(e.line) + ", column " +
                                              std::to_string(e.column) + ": " + e.error_string +
                                              " (expected well-formed <osm> XML)");
    }
    return Error::invalid_input(source, std::string("malformed OSM XML: ") + e.what());
  } catch (const std::exception& e) {
    // libosmium throws pbf_error for bad framing and io_error for bad compression.
    if (format == Format::pbf) {
      const std::string where = pbf_bytes ? diagnose_pbf(pbf_bytes()) : std::string();
      return Error::invalid_input(source, "bad PBF data" + (where.empty() ? "" : " in " + where) +
                                              ": " + e.what() + " (expected an OSM PBF file)");
    }
    return Error::invalid_input(source,
                                std::string("could not read the OSM XML data: ") + e.what());
  }
  return out;
}

Ring project_ring(const std::vector<LonLat>& pts, const Projection& proj) {
  Ring ring;
  ring.reserve(pts.size());
  for (const auto& [lon, lat] : pts)
    ring.push_back(proj.to_local(lon, lat));
  if (ring.size() > 1 && ring.front().x == ring.back().x && ring.front().y == ring.back().y)
    ring.pop_back();
  return ring;
}

/// Fixes the bounds and the frame, keeps what lies inside, projects and sorts it.
Result<Extract> finish(Collected&& in, const std::string& source, const ReadOptions& options,
                       const osmium::Box& header_box) {
  Extract ex;
  ex.source = source;
  ex.stats = in.stats;

  // 1. Bounds: --bbox, else the header, else the node extent.
  std::string bounds_from;
  if (options.bbox) {
    ex.bounds = *options.bbox;
    bounds_from = "--bbox";
  } else if (header_box.valid()) {
    ex.bounds = GeoBox{header_box.bottom_left().lon(), header_box.bottom_left().lat(),
                       header_box.top_right().lon(), header_box.top_right().lat()};
    bounds_from = "the file's header bounds";
  }
  if (!ex.bounds.valid() && !options.bbox) {
    if (in.min_lon > in.max_lon) {
      return Error::invalid_input(source, "the file holds no node with a valid location (read " +
                                              std::to_string(in.stats.nodes) + " nodes)");
    }
    const double pad = 1e-6;  // A single node still makes a box.
    ex.bounds = GeoBox{in.min_lon, in.min_lat, in.max_lon, in.max_lat};
    if (ex.bounds.max_lon - ex.bounds.min_lon < pad) {
      ex.bounds.min_lon = std::max(-180.0, ex.bounds.min_lon - pad);
      ex.bounds.max_lon = std::min(180.0, ex.bounds.max_lon + pad);
    }
    if (ex.bounds.max_lat - ex.bounds.min_lat < pad) {
      ex.bounds.min_lat = std::max(-90.0, ex.bounds.min_lat - pad);
      ex.bounds.max_lat = std::min(90.0, ex.bounds.max_lat + pad);
    }
    bounds_from = "the extent of its nodes";
  }
  if (!ex.bounds.valid()) {
    return Error::invalid_input(source,
                                "invalid bounds from " + bounds_from + ": " + box_text(ex.bounds));
  }
  ex.lon0 = 0.5 * (ex.bounds.min_lon + ex.bounds.max_lon);
  ex.lat0 = 0.5 * (ex.bounds.min_lat + ex.bounds.max_lat);
  auto proj = Projection::around(ex.lon0, ex.lat0);
  // Bad bounds are the input's fault; a missing geodata module (internal) is not.
  if (!proj) return Error{proj.error().code, source, proj.error().to_string()};
  const GeoBox& b = ex.bounds;
  auto inside = [&b](const LonLat& ll) { return b.contains(ll.first, ll.second); };

  // 2. Tagged nodes inside.
  for (auto& n : in.nodes) {
    if (!inside(n.ll)) continue;
    ex.nodes.push_back(Node{n.id, n.ll.first, n.ll.second, proj->to_local(n.ll.first, n.ll.second),
                            std::move(n.tags)});
  }
  // 3. Linear ways with a node inside, with all their points.
  bool any_highway = false;
  for (auto& w : in.ways) {
    if (std::none_of(w.ll.begin(), w.ll.end(), inside)) continue;
    Way way;
    way.id = w.id;
    way.refs = std::move(w.refs);
    way.points.reserve(w.ll.size());
    for (const auto& [lon, lat] : w.ll)
      way.points.push_back(proj->to_local(lon, lat));
    way.tags = std::move(w.tags);
    any_highway = any_highway || !tag(way.tags, "highway").empty();
    ex.ways.push_back(std::move(way));
  }
  // 4. Areas with a ring vertex inside: outer rings counter-clockwise, holes clockwise.
  for (auto& a : in.areas) {
    const bool any_inside = std::any_of(a.polygons.begin(), a.polygons.end(), [&](const auto& p) {
      return std::any_of(p.outer.begin(), p.outer.end(), inside) ||
             std::any_of(p.holes.begin(), p.holes.end(),
                         [&](const auto& h) { return std::any_of(h.begin(), h.end(), inside); });
    });
    if (!any_inside) continue;
    Area area;
    area.osm_id = a.osm_id;
    area.from_relation = a.from_relation;
    for (const auto& p : a.polygons) {
      Polygon poly;
      poly.outer = project_ring(p.outer, *proj);
      for (const auto& h : p.holes)
        poly.holes.push_back(project_ring(h, *proj));
      poly = polygon_canonical(std::move(poly));
      if (poly.outer.size() >= 3) area.polygons.push_back(std::move(poly));
    }
    if (area.polygons.empty()) {
      ++ex.stats.areas_invalid;
      in.invalid_examples.add((a.from_relation ? "relation " : "way ") + std::to_string(a.osm_id) +
                              " (degenerate)");
      continue;
    }
    area.tags = std::move(a.tags);
    ex.areas.push_back(std::move(area));
  }
  if (!any_highway && ex.areas.empty()) {
    return Error::invalid_input(
        source, "the bounds (" + box_text(b) + ", from " + bounds_from +
                    ") hold no highway, building or other area (the file has " +
                    std::to_string(in.stats.nodes) + " nodes, " + std::to_string(in.stats.ways) +
                    " ways); expected a bbox over mapped streets or buildings");
  }

  // 5. Deterministic order: by id (areas: ways before relations of the same id).
  std::sort(ex.nodes.begin(), ex.nodes.end(),
            [](const Node& x, const Node& y) { return x.id < y.id; });
  std::sort(ex.ways.begin(), ex.ways.end(), [](const Way& x, const Way& y) { return x.id < y.id; });
  std::sort(ex.areas.begin(), ex.areas.end(), [](const Area& x, const Area& y) {
    return std::make_pair(x.osm_id, x.from_relation) < std::make_pair(y.osm_id, y.from_relation);
  });

  // 6. One warning per kind of skip.
  if (ex.stats.ways_missing_nodes) {
    ex.warnings.push_back(std::to_string(ex.stats.ways_missing_nodes) +
                          " ways reference nodes not in the file; skipped (e.g. " +
                          in.missing_examples.text() + ")");
  }
  if (ex.stats.areas_invalid) {
    ex.warnings.push_back(std::to_string(ex.stats.areas_invalid) +
                          " areas could not be assembled (not closed, self-intersecting or "
                          "degenerate); skipped (e.g. " +
                          in.invalid_examples.text() + ")");
  }
  if (ex.stats.relations_incomplete) {
    ex.warnings.push_back(std::to_string(ex.stats.relations_incomplete) +
                          " multipolygons have members outside the file; skipped (e.g. " +
                          in.incomplete_examples.text() + ")");
  }
  return ex;
}

std::string lower(std::string s) {
  for (auto& c : s)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}
bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

Status check_bbox(const ReadOptions& options) {
  if (options.bbox && !options.bbox->valid()) {
    return Error::invalid_input("--bbox",
                                "expected minlon < maxlon within [-180, 180] and minlat "
                                "< maxlat within [-90, 90], got " +
                                    box_text(*options.bbox));
  }
  return Ok{};
}

}  // namespace

Result<Extract> read_file(const std::string& path, const ReadOptions& options) {
  if (auto st = check_bbox(options); !st) return st.error();
  const std::string name = lower(std::filesystem::path(path).filename().string());
  Format format;
  std::string osmium_format;
  if (ends_with(name, ".osm.pbf") || ends_with(name, ".pbf")) {
    format = Format::pbf;
    osmium_format = "pbf";
  } else if (ends_with(name, ".osm")) {
    format = Format::xml;
    osmium_format = "osm";
  } else if (ends_with(name, ".osm.gz")) {
    format = Format::xml;
    osmium_format = "osm.gz";
  } else if (ends_with(name, ".osm.bz2")) {
    format = Format::xml;
    osmium_format = "osm.bz2";
  } else {
    return Error::invalid_input(path,
                                "unknown OSM file format: expected a name ending in .osm "
                                "(XML), .osm.gz, .osm.bz2, .osm.pbf or .pbf");
  }
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    return Error::io(path,
                     std::filesystem::exists(path, ec) ? "not a regular file" : "no such file");
  }
  if (!std::ifstream(path, std::ios::binary))
    return Error::io(path, "cannot open the file for reading");

  osmium::Box header_box;
  if (osmium_format == "osm") {  // Plain XML: checked, then read from memory.
    std::ifstream in(path, std::ios::binary);
    const std::string xml((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (!in.good() && !in.eof()) return Error::io(path, "could not read the file");
    if (xml.empty()) return Error::invalid_input(path, "empty file: expected OSM XML");
    if (auto bad = check_coordinates(xml, path)) return *bad;
    osmium::io::File file{xml.data(), xml.size(), "osm"};
    auto collected = collect(file, path, format, {}, header_box);
    if (!collected) return collected.error();
    return finish(std::move(*collected), path, options, header_box);
  }
  if (format == Format::pbf) {
    if (const std::string bad = check_blob_headers_of_file(path); !bad.empty())
      return Error::invalid_input(path, "bad PBF data in " + bad + " (expected an OSM PBF file)");
  }
  osmium::io::File file{path, osmium_format};
  const auto whole_file = [&path] {
    std::ifstream in(path, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  };
  auto collected = collect(file, path, format,
                           format == Format::pbf ? std::function<std::string()>(whole_file)
                                                 : std::function<std::string()>(),
                           header_box);
  if (!collected) return collected.error();
  return finish(std::move(*collected), path, options, header_box);
}

Result<Extract> read_xml(std::string_view xml, std::string_view name, const ReadOptions& options) {
  if (auto st = check_bbox(options); !st) return st.error();
  const std::string source(name);
  // An empty buffer would make libosmium read standard input.
  if (xml.empty()) return Error::invalid_input(source, "empty input: expected OSM XML");
  if (auto bad = check_coordinates(xml, source)) return *bad;
  osmium::Box header_box;
  osmium::io::File file{xml.data(), xml.size(), "osm"};
  auto collected = collect(file, source, Format::xml, {}, header_box);
  if (!collected) return collected.error();
  return finish(std::move(*collected), source, options, header_box);
}

Result<Extract> read_pbf(std::string_view pbf, std::string_view name, const ReadOptions& options) {
  if (auto st = check_bbox(options); !st) return st.error();
  const std::string source(name);
  // An empty buffer would make libosmium read standard input.
  if (pbf.empty()) return Error::invalid_input(source, "empty input: expected an OSM PBF file");
  if (const std::string bad = check_blob_headers(pbf); !bad.empty())
    return Error::invalid_input(source, "bad PBF data in " + bad + " (expected an OSM PBF file)");
  osmium::Box header_box;
  osmium::io::File file{pbf.data(), pbf.size(), "pbf"};
  auto collected = collect(
      file, source, Format::pbf, [pbf] { return std::string(pbf); }, header_box);
  if (!collected) return collected.error();
  return finish(std::move(*collected), source, options, header_box);
}

}  // namespace cityforge::osm
