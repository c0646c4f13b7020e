// SPDX-License-Identifier: Apache-2.0
// Reads lanes.json (docs/lanes.md, written by src/export/lanes_json.cpp) back into a lane graph
// and the controls of its junctions. Strict: every value is type checked, unknown tag and
// enum names are errors, each error names the file and the JSON pointer of the bad value.
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cityforge/core/json_parse.hpp"
#include "cityforge/traffic/network.hpp"

namespace cityforge::traffic {
namespace {

using nlohmann::json;

/// Reads values out of the document; the first failure is kept in `error`.
class Reader {
 public:
  explicit Reader(std::string name) : m_name(std::move(name)) {}

  std::optional<Error> error;

  bool fail(const std::string& where, const std::string& expected, const json* found) {
    if (!error) {
      error = Error::invalid_input(m_name + ": " + where,
                                   "expected " + expected + ", found " + describe(found));
    }
    return false;
  }
  bool fail_msg(const std::string& where, const std::string& message) {
    if (!error) error = Error::invalid_input(m_name + ": " + where, message);
    return false;
  }

  /// The member `key` of object `obj`, or nullptr (and an error when required).
  const json* member(const json& obj, const char* key, const std::string& where, bool required) {
    const auto it = obj.find(key);
    if (it == obj.end()) {
      if (required) fail(join(where, key), "field \"" + std::string(key) + "\"", nullptr);
      return nullptr;
    }
    return &*it;
  }

  bool number(const json& v, const std::string& where, double& out) {
    if (!v.is_number()) return fail(where, "a number", &v);
    out = v.get<double>();
    return true;
  }
  bool number(const json& obj, const char* key, const std::string& where, double& out,
              bool required = true) {
    const json* v = member(obj, key, where, required);
    return v == nullptr ? !required : number(*v, join(where, key), out);
  }
  bool integer(const json& v, const std::string& where, std::int64_t lo, std::int64_t hi,
               std::int64_t& out) {
    if (!v.is_number_integer()) return fail(where, "an integer", &v);
    if (v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(hi)) {
      return fail(where, "an integer <= " + std::to_string(hi), &v);
    }
    out = v.get<std::int64_t>();
    if (out < lo || out > hi) {
      return fail(where, "an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]",
                  &v);
    }
    return true;
  }
  bool lane_id(const json& v, const std::string& where, LaneId& out) {
    std::int64_t id = 0;
    if (!integer(v, where, 0, kNoLane - 1, id)) return false;
    out = static_cast<LaneId>(id);
    return true;
  }
  bool int32(const json& obj, const char* key, const std::string& where, std::int32_t& out,
             bool required) {
    const json* v = member(obj, key, where, required);
    if (v == nullptr) return !required;
    std::int64_t x = 0;
    if (!integer(*v, join(where, key), std::numeric_limits<std::int32_t>::min(),
                 std::numeric_limits<std::int32_t>::max(), x)) {
      return false;
    }
    out = static_cast<std::int32_t>(x);
    return true;
  }
  bool ids(const json& obj, const char* key, const std::string& where, std::vector<LaneId>& out) {
    const json* v = member(obj, key, where, true);
    if (v == nullptr) return false;
    const std::string w = join(where, key);
    if (!v->is_array()) return fail(w, "an array of lane ids", v);
    out.resize(v->size());
    for (std::size_t i = 0; i < v->size(); ++i) {
      if (!lane_id((*v)[i], w + "[" + std::to_string(i) + "]", out[i])) return false;
    }
    return true;
  }
  /// A lane id or null (kNoLane).
  bool optional_id(const json& obj, const char* key, const std::string& where, LaneId& out) {
    const json* v = member(obj, key, where, false);
    if (v == nullptr || v->is_null()) {
      out = kNoLane;
      return true;
    }
    return lane_id(*v, join(where, key), out);
  }
  bool array(const json& obj, const char* key, const std::string& where, const json*& out) {
    out = member(obj, key, where, true);
    if (out == nullptr) return false;
    if (!out->is_array()) return fail(join(where, key), "an array", out);
    return true;
  }
  bool object(const json& v, const std::string& where) {
    return v.is_object() || fail(where, "an object", &v);
  }

  static std::string join(const std::string& where, const char* key) {
    return where.empty() ? std::string(key) : where + "." + key;
  }

 private:
  static std::string describe(const json* v) {
    if (v == nullptr) return "nothing";
    std::string text = v->dump();
    if (text.size() > 60) text = text.substr(0, 57) + "...";
    return text + " (" + v->type_name() + ")";
  }

  std::string m_name;
};

bool read_tags(Reader& r, const json& lane, const std::string& where, std::uint32_t& out) {
  static constexpr std::pair<std::uint32_t, const char*> kNames[] = {
      {roads::kVehicle, "vehicle"},     {roads::kSidewalk, "sidewalk"},
      {roads::kCrosswalk, "crosswalk"}, {roads::kIntersection, "intersection"},
      {roads::kFreeway, "freeway"},     {roads::kRamp, "ramp"},
      {roads::kParking, "parking"},     {roads::kYield, "yield"}};
  const json* tags = nullptr;
  if (!r.array(lane, "tags", where, tags)) return false;
  out = 0;
  for (std::size_t i = 0; i < tags->size(); ++i) {
    const json& t = (*tags)[i];
    const std::string w = where + ".tags[" + std::to_string(i) + "]";
    if (!t.is_string()) return r.fail(w, "a tag name", &t);
    std::uint32_t bit = 0;
    for (const auto& [b, name] : kNames) {
      if (t.get_ref<const std::string&>() == name) bit = b;
    }
    if (bit == 0) {
      return r.fail(w,
                    "a tag name (vehicle, sidewalk, crosswalk, intersection, freeway, ramp, "
                    "parking, yield)",
                    &t);
    }
    out |= bit;
  }
  return true;
}

bool read_turn(Reader& r, const json& lane, const std::string& where, roads::Turn& out) {
  static constexpr std::pair<roads::Turn, const char*> kNames[] = {
      {roads::Turn::none, "none"},
      {roads::Turn::through, "through"},
      {roads::Turn::right, "right"},
      {roads::Turn::left, "left"},
      {roads::Turn::u_turn, "u_turn"}};
  const json* v = r.member(lane, "turn", where, false);
  out = roads::Turn::none;
  if (v == nullptr) return true;
  if (v->is_string()) {
    for (const auto& [t, name] : kNames) {
      if (v->get_ref<const std::string&>() == name) {
        out = t;
        return true;
      }
    }
  }
  return r.fail(where + ".turn", "one of none, through, right, left, u_turn", v);
}

bool read_points(Reader& r, const json& lane, const std::string& where, std::vector<Vec3>& out) {
  const json* pts = nullptr;
  if (!r.array(lane, "points", where, pts)) return false;
  out.resize(pts->size());
  for (std::size_t i = 0; i < pts->size(); ++i) {
    const json& p = (*pts)[i];
    if (!p.is_array() || p.size() != 3 || !p[0].is_number() || !p[1].is_number() ||
        !p[2].is_number()) {
      return r.fail(where + ".points[" + std::to_string(i) + "]", "[x, y, z] numbers", &p);
    }
    out[i] = {p[0].get<double>(), p[1].get<double>(), p[2].get<double>()};
  }
  return true;
}

bool read_lane(Reader& r, const json& v, std::size_t index, roads::Lane& l) {
  const std::string w = "lanes[" + std::to_string(index) + "]";
  if (!r.object(v, w)) return false;
  const json* id = r.member(v, "id", w, true);
  if (id == nullptr || !r.lane_id(*id, w + ".id", l.id)) return false;
  if (l.id != index) return r.fail(w + ".id", "the lane's index " + std::to_string(index), id);
  if (!read_tags(r, v, w, l.tags)) return false;
  if (!r.number(v, "width_m", w, l.width_m, false)) return false;
  if (!r.number(v, "length_m", w, l.length_m)) return false;
  if (!r.number(v, "speed_limit_mps", w, l.speed_limit_mps)) return false;
  if (!r.int32(v, "section", w, l.section, false)) return false;
  if (!r.int32(v, "intersection", w, l.intersection, false)) return false;
  if (!r.int32(v, "lane_index", w, l.lane_index, false)) return false;
  if (const json* f = r.member(v, "forward", w, false)) {
    if (!f->is_boolean()) return r.fail(w + ".forward", "true or false", f);
    l.forward = f->get<bool>();
  }
  if (!read_turn(r, v, w, l.turn)) return false;
  if (!r.number(v, "traffic_density", w, l.traffic_density, false)) return false;
  if (!r.number(v, "pedestrian_density", w, l.pedestrian_density, false)) return false;
  if (!r.optional_id(v, "left_neighbour", w, l.left_neighbour)) return false;
  if (!r.optional_id(v, "right_neighbour", w, l.right_neighbour)) return false;
  if (!r.ids(v, "successors", w, l.successors)) return false;
  if (!r.ids(v, "predecessors", w, l.predecessors)) return false;
  return read_points(r, v, w, l.points);
}

bool read_control(Reader& r, const json& v, std::size_t index, roads::Control& out) {
  const std::string w = "intersections[" + std::to_string(index) + "]";
  if (!r.object(v, w)) return false;
  const json* id = r.member(v, "id", w, true);
  std::int64_t x = 0;
  if (id == nullptr || !r.integer(*id, w + ".id", 0, std::numeric_limits<std::int32_t>::max(), x)) {
    return false;
  }
  if (x != static_cast<std::int64_t>(index)) {
    return r.fail(w + ".id", "the junction's index " + std::to_string(index), id);
  }
  const json* c = r.member(v, "control", w, true);
  if (c == nullptr) return false;
  for (roads::Control k : {roads::Control::none, roads::Control::yield, roads::Control::stop,
                           roads::Control::signal}) {
    if (c->is_string() && c->get_ref<const std::string&>() == roads::to_string(k)) {
      out = k;
      return true;
    }
  }
  return r.fail(w + ".control", "one of none, yield, stop, signal", c);
}

bool read_signal(Reader& r, const json& v, std::size_t index, roads::SignalPlan& plan) {
  const std::string w = "signals[" + std::to_string(index) + "]";
  if (!r.object(v, w)) return false;
  const json* x = r.member(v, "intersection", w, true);
  std::int64_t junction = 0;
  if (x == nullptr ||
      !r.integer(*x, w + ".intersection", 0, std::numeric_limits<std::int32_t>::max(), junction)) {
    return false;
  }
  plan.intersection = static_cast<std::uint32_t>(junction);
  if (!r.number(v, "offset_s", w, plan.offset_s)) return false;
  const json* phases = nullptr;
  if (!r.array(v, "phases", w, phases)) return false;
  plan.phases.resize(phases->size());
  for (std::size_t p = 0; p < phases->size(); ++p) {
    const json& ph = (*phases)[p];
    roads::Phase& out = plan.phases[p];
    const std::string wp = w + ".phases[" + std::to_string(p) + "]";
    if (!r.object(ph, wp) || !r.number(ph, "green_s", wp, out.green_s) ||
        !r.number(ph, "yellow_s", wp, out.yellow_s) ||
        !r.number(ph, "all_red_s", wp, out.all_red_s) || !r.ids(ph, "green", wp, out.green) ||
        !r.ids(ph, "walk", wp, out.walk)) {
      return false;
    }
  }
  return true;
}

/// The parser's events for lanes.json: the document is built as usual (json_detail::DomBuilder)
/// except the elements of its top-level "lanes" array, which are built one at a time, read
/// into lanes (read_lane) and dropped. A city's lanes.json is mostly its lanes, and the whole
/// of it as a JSON document took 2.5x the memory `simulate` then runs in (327 MB at its peak
/// for the 4x5 km example's 51 MB file, 93 MB after). The first bad lane is kept as an error
/// for read_document to report after the document's own checks, in the order a whole
/// document is read; a repeated "lanes" key starts them again (the last one counts, as in a
/// document).
class LanesEvents {
 public:
  using Builder = json_detail::DomBuilder<json>;

  LanesEvents(json& doc, const std::string& name) : m_doc(doc), m_reader(name) {}

  bool null() {
    return scalar([&](Builder& b) { return b.null(); });
  }
  bool boolean(bool v) {
    return scalar([&](Builder& b) { return b.boolean(v); });
  }
  bool number_integer(json::number_integer_t v) {
    return scalar([&](Builder& b) { return b.number_integer(v); });
  }
  bool number_unsigned(json::number_unsigned_t v) {
    return scalar([&](Builder& b) { return b.number_unsigned(v); });
  }
  bool number_float(json::number_float_t v, const json::string_t& text) {
    return scalar([&](Builder& b) { return b.number_float(v, text); });
  }
  bool string(json::string_t& v) {
    return scalar([&](Builder& b) { return b.string(v); });
  }
  bool binary(json::binary_t& v) {
    return scalar([&](Builder& b) { return b.binary(v); });
  }
  bool key(json::string_t& k) {
    if (m_element) return m_element->key(k);
    if (m_depth == 1) m_lanes_next = k == "lanes";
    return m_doc.key(k);
  }
  bool start_object(std::size_t n) {
    return open([&](Builder& b) { return b.start_object(n); });
  }
  bool start_array(std::size_t n) {
    if (m_depth == 1 && m_lanes_next) {
      m_in_lanes = true;  // The lanes array: its elements are read one at a time.
      m_lanes.clear();
      m_count = 0;
      m_reader.error.reset();
    }
    return open([&](Builder& b) { return b.start_array(n); });
  }
  bool end_object() {
    return close([&](Builder& b) { return b.end_object(); });
  }
  bool end_array() {
    return close([&](Builder& b) { return b.end_array(); });
  }
  bool parse_error(std::size_t position, const std::string& token,
                   const nlohmann::detail::exception& e) {
    return m_doc.parse_error(position, token, e);  // Kept by the document's builder.
  }

  std::size_t error_position() const { return m_doc.error_position(); }
  const std::string& error_token() const { return m_doc.error_token(); }
  int error_id() const { return m_doc.error_id(); }
  const std::string& error_what() const { return m_doc.error_what(); }
  /// The JSON pointer of the value being read when parsing stopped.
  std::string pointer() const {
    if (!m_element && !element_starts()) return m_doc.pointer();
    const std::string lane = "/lanes/" + std::to_string(m_count);
    if (!m_element) return lane;
    const std::string inner = m_element->pointer();
    return inner == "/" ? lane : lane + inner;
  }

  /// The first bad lane, if any.
  const std::optional<Error>& lane_error() const { return m_reader.error; }
  std::vector<roads::Lane> take_lanes() { return std::move(m_lanes); }

 private:
  /// The next value begins an element of the lanes array.
  bool element_starts() const { return m_in_lanes && m_depth == 2; }

  template <class Event>
  bool scalar(Event&& event) {
    if (m_element) return event(*m_element);
    if (element_starts()) {
      begin_element();
      const bool ok = event(*m_element);
      end_element();
      return ok;
    }
    m_lanes_next = false;
    return event(m_doc);
  }
  template <class Event>
  bool open(Event&& event) {
    if (!m_element && element_starts()) begin_element();
    m_lanes_next = false;
    ++m_depth;
    return event(m_element ? *m_element : m_doc);
  }
  template <class Event>
  bool close(Event&& event) {
    --m_depth;
    if (m_element) {
      const bool ok = event(*m_element);
      if (m_depth == 2) end_element();
      return ok;
    }
    if (m_in_lanes && m_depth == 1) m_in_lanes = false;  // The lanes array ends.
    return event(m_doc);
  }
  void begin_element() {
    m_element_doc = json();
    m_element.emplace(m_element_doc);
  }
  void end_element() {
    if (!m_reader.error) {
      roads::Lane lane;
      if (read_lane(m_reader, m_element_doc, m_count, lane)) m_lanes.push_back(std::move(lane));
    }
    ++m_count;
    m_element.reset();
    m_element_doc = json();
  }

  Builder m_doc;
  Reader m_reader;
  std::vector<roads::Lane> m_lanes;
  std::size_t m_count = 0;    ///< Elements of the lanes array seen so far.
  std::size_t m_depth = 0;    ///< Arrays and objects open, in the whole document.
  bool m_lanes_next = false;  ///< The last key of the top-level object was "lanes".
  bool m_in_lanes = false;    ///< Inside the top-level lanes array.
  json m_element_doc;         ///< The lane being built.
  std::optional<Builder> m_element;
};

bool read_document(Reader& r, const json& doc, LanesEvents& events, LanesFile& out) {
  if (!r.object(doc, "(document)")) return false;
  const json* format = r.member(doc, "format", "", true);
  if (format == nullptr) return false;
  if (*format != "cityforge-lanes") return r.fail("format", "\"cityforge-lanes\"", format);
  const json* version = r.member(doc, "version", "", true);
  if (version == nullptr) return false;
  if (*version != 1) return r.fail("version", "1", version);
  const json* lanes = nullptr;
  const json* junctions = nullptr;
  const json* signals = nullptr;
  if (!r.array(doc, "lanes", "", lanes) || !r.array(doc, "intersections", "", junctions) ||
      !r.array(doc, "signals", "", signals)) {
    return false;
  }
  // The lanes were read as they were parsed (LanesEvents), and are left out of `doc`.
  if (events.lane_error()) {
    r.error = events.lane_error();
    return false;
  }
  out.graph.lanes = events.take_lanes();
  out.controls.resize(junctions->size());
  for (std::size_t i = 0; i < junctions->size(); ++i) {
    if (!read_control(r, (*junctions)[i], i, out.controls[i])) return false;
  }
  out.graph.signals.resize(signals->size());
  for (std::size_t i = 0; i < signals->size(); ++i) {
    if (!read_signal(r, (*signals)[i], i, out.graph.signals[i])) return false;
  }
  return true;
}

/// The lanes file whose text `parse` runs through a LanesEvents (from text or from a file).
template <class Parse>
Result<LanesFile> read_lanes_file(const std::string& name, Parse&& parse) {
  json doc;
  LanesEvents events(doc, name);
  if (Status st = parse(events); !st) return st.error();
  Reader r(name);
  LanesFile out;
  if (!read_document(r, doc, events, out)) return *r.error;
  return out;
}

}  // namespace

Result<LanesFile> parse_lanes_json(const std::string& text, const std::string& name) {
  return read_lanes_file(name, [&](LanesEvents& events) {
    return parse_json_events<json>(text, name, kWrittenFileLimits, events);
  });
}

Result<LanesFile> load_lanes_json(const std::string& path) {
  // Read in pieces: a region's lanes.json is gigabytes, and its text is not needed whole.
  return read_lanes_file(path, [&](LanesEvents& events) {
    return parse_json_file_events<json>(path, kWrittenFileLimits, events);
  });
}

}  // namespace cityforge::traffic
