// SPDX-License-Identifier: Apache-2.0
#pragma once

// The field tables of the city JSON: one declaration per config field gives how it is parsed
// (type, range, the error messages), its row in the docs tables (docs/city-config.md), and its
// part of the cache key of the stages handed the struct that holds it (config_text). The tables
// themselves are in config_fields.cpp; config_schema.cpp walks them.

#include <array>
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "cityforge/core/json_reader.hpp"
#include "cityforge/pipeline/city_config.hpp"

namespace cityforge::pipeline::detail {

using json = nlohmann::json;
using Reader = cityforge::JsonReader;

/// What a field is; the kind picks its reader, its canonical text and its docs type.
enum class Kind : std::uint8_t {
  number,    ///< double in [lo, hi]
  integer,   ///< int in [lo, hi]
  count,     ///< std::uint32_t in [0, hi]
  uinteger,  ///< std::uint32_t read as an integer in [lo, hi]
  boolean,   ///< bool
  text,      ///< std::string
  choice,    ///< an enum, by the names in Field::names (index = enum value)
  free,      ///< any JSON, not kept (free text)
  custom,    ///< structured value with its own reader and canonical text
  nested,    ///< a struct with a table of its own (Field::table)
  hidden,    ///< not in the JSON: only part of the cache key
  check,     ///< a check across the fields read before it (no key)
  moved,     ///< a key that is no longer accepted here; Field::moved says where it went
};

struct Field;
struct Table;

/// Reads a field from `obj[key]` (`path`: the JSON pointer of `obj`) into `value`. `all` is the
/// config read so far (a freeway checks its points against the boundary).
using ReadFn = void (*)(const Field& f, Reader& r, const json& obj, const std::string& key,
                        const std::string& path, void* value, const CityConfig& all);
/// The canonical JSON of a value (hashed into the cache keys).
using TextFn = json (*)(const void* value);
/// A check across fields of the struct `s` of the object at `path`.
using CheckFn = void (*)(Reader& r, const std::string& path, const void* s);

/// A docs row under a structured value (`shepherds[].count`).
struct SubDoc {
  const char* key;
  const char* type;
  const char* default_text;
  const char* doc;
};

/// One field of a config struct.
struct Field {
  Kind kind = Kind::hidden;
  /// JSON key relative to the table's object ("block_short_m"; "classes/{class}" for a nested
  /// table), or absolute when it starts with '/' ("/layout/classes/{class}/corner_radius_m").
  /// {class} stands for artery, main and local: the member is indexed by layout::RoadClass.
  /// For hidden fields, the member's name (its key in the canonical text).
  const char* key = "";
  double lo = 0.0;
  double hi = 0.0;
  const char* doc = "";
  const char* stages = nullptr;  ///< The stages that read it, when not those of its table.
  /// The value inside the table's struct `s` (element `cls` of a member indexed by {class}).
  void* (*at)(void* s, std::size_t cls) = nullptr;
  ReadFn read = nullptr;
  TextFn text = nullptr;
  CheckFn check = nullptr;
  const Table& (*table)() = nullptr;   ///< nested: the member's table.
  std::span<const char* const> names;  ///< choice: the names of the enum values.
  const char* type = nullptr;          ///< custom: docs type.
  const char* default_text = nullptr;  ///< custom: docs default (else its canonical text).
  std::span<const SubDoc> sub;         ///< custom: docs rows of its parts.
  const char* moved = nullptr;         ///< moved: the message (names the new place).
  /// The member's byte offset in the struct and how many aggregate elements it is (a C array
  /// counts each element): every member of a table's struct must be declared (see
  /// undeclared_members).
  std::size_t (*offset)(const void* s) = nullptr;
  std::size_t weight = 0;
};

/// The fields of one config struct, in JSON order.
struct Table {
  const char* name;    ///< The struct, for messages ("roads::Config").
  const char* stages;  ///< The stages handed the struct (", "-separated; "" none; null: as the
                       ///< table holding it).
  std::size_t arity;   ///< Aggregate elements of the struct (aggregate_arity).
  std::vector<Field> fields;
};

template <class S>
const Table& table_of();
// The structs with a table (config_fields.cpp).
template <>
const Table& table_of<CityConfig>();
template <>
const Table& table_of<terrain::Config>();
template <>
const Table& table_of<layout::Config>();
template <>
const Table& table_of<layout::Inputs>();
template <>
const Table& table_of<layout::RoadClassSpec>();
template <>
const Table& table_of<roads::Config>();
template <>
const Table& table_of<lots::Config>();
template <>
const Table& table_of<buildings::Config>();
template <>
const Table& table_of<BuildingSettings>();
template <>
const Table& table_of<rooftops::RooftopConfig>();
template <>
const Table& table_of<DressingSettings>();
template <>
const Table& table_of<ExportSettings>();
template <>
const Table& table_of<dressing::Config>();
template <>
const Table& table_of<CrowdSettings>();
template <>
const Table& table_of<WanderingSetting>();

// ---- Cache keys -------------------------------------------------------------------------------

/// The canonical JSON of a struct with a table: every field, hidden ones too.
json canonical(const Table& table, const void* s);

/// The canonical text of a config value handed to a stage: its cache key (with the keys of the
/// stage's inputs). A struct with a table gives all its fields.
template <class S>
std::string config_text(const S& s) {
  return canonical(table_of<S>(), &s).dump();
}
std::string config_text(Seed seed);
std::string config_text(const Aabb2& box);
std::string config_text(const std::vector<freeway::FreewayCurve>& freeways);
std::string config_text(const std::vector<buildings::TagVolume>& volumes);
/// (file, text) pairs: the file names and a hash of each text.
std::string config_text(const std::vector<std::pair<std::string, std::string>>& sources);

// ---- Walking the tables ----------------------------------------------------------------------

/// A field placed in a document: its JSON pointer and where its value lives.
struct Slot {
  const Field* field;
  std::string pointer;  ///< "/layout/classes/artery/width_m"; a check: "<object>/"
  std::string pattern;  ///< The pointer with {class} unexpanded.
  void* value;          ///< The value (a check: its struct).
  std::size_t cls;      ///< The class index of a {class} field.
  const char* stages;   ///< The stages that read it.
};

/// Every field of `config` (nested tables expanded, {class} expanded), in JSON order.
std::vector<Slot> slots(CityConfig& config);

/// Reads the document `doc` into `config` by the tables (keys not in them are errors).
void read_document(Reader& r, const json& doc, CityConfig& config);

/// The tables' structs whose members are not all declared: "roads::Config: 20 of 21".
std::vector<std::string> undeclared_members();

// ---- Declaring fields (config_fields.cpp) -----------------------------------------------------

template <class M>
struct MemberOf;
template <class S, class T>
struct MemberOf<T S::*> {
  using Object = S;
  using Type = T;
};
template <auto M>
using ObjectOf = typename MemberOf<decltype(M)>::Object;
template <auto M>
using TypeOf = typename MemberOf<decltype(M)>::Type;

template <class T>
inline constexpr bool kIndexed = std::is_array_v<T>;
template <class T, std::size_t N>
inline constexpr bool kIndexed<std::array<T, N>> = true;
/// The element type of an array member, else the member's type.
template <class T>
struct ElementOf {
  using Type = std::remove_all_extents_t<T>;
};
template <class T, std::size_t N>
struct ElementOf<std::array<T, N>> {
  using Type = T;
};

/// The member M of `s`, or its element `cls` when `Index` and M is an array.
template <auto M, bool Index>
void* member_at(void* s, std::size_t cls) {
  auto& m = static_cast<ObjectOf<M>*>(s)->*M;
  if constexpr (Index && kIndexed<TypeOf<M>>) {
    return &m[cls];
  } else {
    (void)cls;
    return &m;
  }
}
template <auto M>
std::size_t member_offset(const void* s) {
  const auto* o = static_cast<const ObjectOf<M>*>(s);
  return static_cast<std::size_t>(reinterpret_cast<const char*>(&(o->*M)) -
                                  reinterpret_cast<const char*>(o));
}

/// Aggregate elements of T, the way aggregate initialisation counts them (each element of a C
/// array is one; a std::array or a struct member is one).
struct AnyValue {
  template <class T>
  constexpr operator T() const noexcept;  // NOLINT: only used unevaluated
};
template <class T, std::size_t... I>
constexpr bool aggregate_with(std::index_sequence<I...>) {
  return requires { T{(void(I), AnyValue{})...}; };
}
template <class T, std::size_t N = 0>
constexpr std::size_t aggregate_arity() {
  if constexpr (aggregate_with<T>(std::make_index_sequence<N + 1>{})) {
    return aggregate_arity<T, N + 1>();
  } else {
    return N;
  }
}

/// Canonical JSON of plain values (hidden fields).
template <class T>
json plain_json(const T& v) {
  if constexpr (std::is_enum_v<T>) {
    return static_cast<std::underlying_type_t<T>>(v);
  } else if constexpr (std::is_array_v<T> || kIndexed<T>) {
    json a = json::array();
    for (const auto& e : v)
      a.push_back(plain_json(e));
    return a;
  } else {
    return v;
  }
}
template <class T>
json plain_text(const void* v) {
  return plain_json(*static_cast<const T*>(v));
}

void read_number(const Field& f, Reader& r, const json& obj, const std::string& key,
                 const std::string& path, void* value, const CityConfig& all);
void read_integer(const Field& f, Reader& r, const json& obj, const std::string& key,
                  const std::string& path, void* value, const CityConfig& all);
void read_count(const Field& f, Reader& r, const json& obj, const std::string& key,
                const std::string& path, void* value, const CityConfig& all);
void read_uinteger(const Field& f, Reader& r, const json& obj, const std::string& key,
                   const std::string& path, void* value, const CityConfig& all);
void read_boolean(const Field& f, Reader& r, const json& obj, const std::string& key,
                  const std::string& path, void* value, const CityConfig& all);
void read_text(const Field& f, Reader& r, const json& obj, const std::string& key,
               const std::string& path, void* value, const CityConfig& all);
void read_choice(const Field& f, Reader& r, const json& obj, const std::string& key,
                 const std::string& path, void* value, const CityConfig& all);
json choice_text(const Field& f, const void* value);

template <auto M, Kind K>
Field leaf(const char* key, double lo, double hi, const char* doc) {
  Field f;
  f.kind = K;
  f.key = key;
  f.lo = lo;
  f.hi = hi;
  f.doc = doc;
  f.at = &member_at<M, true>;
  f.offset = &member_offset<M>;
  f.weight = std::is_array_v<TypeOf<M>> ? std::extent_v<TypeOf<M>> : 1;
  return f;
}

/// A number in [lo, hi] (`double` member, or `double[3]` with {class} in the key).
template <auto M>
Field number(const char* key, double lo, double hi, const char* doc) {
  Field f = leaf<M, Kind::number>(key, lo, hi, doc);
  f.read = &read_number;
  f.text = &plain_text<double>;
  return f;
}
/// An integer in [lo, hi] (`int` member).
template <auto M>
Field integer(const char* key, int lo, int hi, const char* doc) {
  Field f = leaf<M, Kind::integer>(key, lo, hi, doc);
  f.read = &read_integer;
  f.text = &plain_text<int>;
  return f;
}
/// A count in [0, hi] (`std::uint32_t` member).
template <auto M>
Field count(const char* key, std::uint32_t hi, const char* doc) {
  Field f = leaf<M, Kind::count>(key, 0, hi, doc);
  f.read = &read_count;
  f.text = &plain_text<std::uint32_t>;
  return f;
}
/// An integer in [lo, hi] kept in a `std::uint32_t` member.
template <auto M>
Field uinteger(const char* key, int lo, int hi, const char* doc) {
  Field f = leaf<M, Kind::uinteger>(key, lo, hi, doc);
  f.read = &read_uinteger;
  f.text = &plain_text<std::uint32_t>;
  return f;
}
template <auto M>
Field boolean(const char* key, const char* doc) {
  Field f = leaf<M, Kind::boolean>(key, 0, 0, doc);
  f.read = &read_boolean;
  f.text = &plain_text<bool>;
  return f;
}
template <auto M>
Field text(const char* key, const char* doc) {
  Field f = leaf<M, Kind::text>(key, 0, 0, doc);
  f.read = &read_text;
  f.text = &plain_text<std::string>;
  return f;
}
/// An enum member written as one of `names` (index = value).
template <auto M>
Field choice(const char* key, std::span<const char* const> names, const char* doc) {
  static_assert(std::is_enum_v<TypeOf<M>> && sizeof(TypeOf<M>) == 1, "a one-byte enum");
  Field f = leaf<M, Kind::choice>(key, 0, 0, doc);
  f.names = names;
  f.read = &read_choice;
  return f;
}
/// A structured value with its own reader and canonical text.
template <auto M>
Field custom(const char* key, ReadFn read, TextFn text, const char* type, const char* default_text,
             const char* doc, std::span<const SubDoc> sub = {}) {
  Field f = leaf<M, Kind::custom>(key, 0, 0, doc);
  f.at = &member_at<M, false>;
  f.read = read;
  f.text = text;
  f.type = type;
  f.default_text = default_text;
  f.sub = sub;
  return f;
}
/// A member that is not in the JSON: only hashed (set by callers: imports, tests).
template <auto M>
Field hidden(const char* name, TextFn text = &plain_text<TypeOf<M>>) {
  Field f = leaf<M, Kind::hidden>(name, 0, 0, "");
  f.at = &member_at<M, false>;
  f.text = text;
  return f;
}
/// A struct member with its own table, under `key` ("" = in this object; "classes/{class}":
/// one object per element of an array member).
template <auto M>
Field nested(const char* key, const char* stages = nullptr) {
  Field f = leaf<M, Kind::nested>(key, 0, 0, "");
  f.table = &table_of<typename ElementOf<TypeOf<M>>::Type>;
  f.stages = stages;
  return f;
}
Field check(CheckFn fn);
/// `f` read by `stages` rather than the stages of its table.
Field read_by(Field f, const char* stages);
/// A key that is no longer read here: rejected with `message` (which names its new place).
Field moved(const char* key, const char* message);
/// A key accepted and not kept (free text).
Field free_text(const char* key, const char* doc);

// ---- Structured values (config_values.cpp) ----------------------------------------------------

void read_seed(const Field&, Reader& r, const json& obj, const std::string& key,
               const std::string& path, void* value, const CityConfig& all);
void read_boundary(const Field&, Reader& r, const json& obj, const std::string& key,
                   const std::string& path, void* value, const CityConfig& all);
void read_arteries(const Field&, Reader& r, const json& obj, const std::string& key,
                   const std::string& path, void* value, const CityConfig& all);
void read_zones(const Field&, Reader& r, const json& obj, const std::string& key,
                const std::string& path, void* value, const CityConfig& all);
void read_water(const Field&, Reader& r, const json& obj, const std::string& key,
                const std::string& path, void* value, const CityConfig& all);
void read_freeways(const Field&, Reader& r, const json& obj, const std::string& key,
                   const std::string& path, void* value, const CityConfig& all);
void read_footprint_mix(const Field&, Reader& r, const json& obj, const std::string& key,
                        const std::string& path, void* value, const CityConfig& all);
void read_styles(const Field&, Reader& r, const json& obj, const std::string& key,
                 const std::string& path, void* value, const CityConfig& all);
void read_tag_volumes(const Field&, Reader& r, const json& obj, const std::string& key,
                      const std::string& path, void* value, const CityConfig& all);
void read_biomes(const Field&, Reader& r, const json& obj, const std::string& key,
                 const std::string& path, void* value, const CityConfig& all);
void read_light_spacing(const Field&, Reader& r, const json& obj, const std::string& key,
                        const std::string& path, void* value, const CityConfig& all);
void read_shepherds(const Field&, Reader& r, const json& obj, const std::string& key,
                    const std::string& path, void* value, const CityConfig& all);

json polygon_text(const void* value);
json arteries_text(const void* value);
json zones_text(const void* value);
json water_text(const void* value);
json freeways_text(const void* value);
json footprint_mix_text(const void* value);
json sources_text(const void* value);  ///< (file, text) pairs: file and hash of the text
json tag_volumes_text(const void* value);
json shepherds_text(const void* value);

/// The names of RoadModules, InstanceMode and TileCompression values (index = value).
inline constexpr std::array<const char*, 2> kRoadModuleNames{"baked", "instanced"};
inline constexpr std::array<const char*, 3> kInstanceModeNames{"ext", "nodes", "bake"};
inline constexpr std::array<const char*, 2> kTileCompressionNames{"none", "meshopt"};
inline constexpr std::array<const char*, 6> kTextureSizeNames{"none", "64",  "128",
                                                              "256",  "512", "1024"};

void check_narrow_widths(Reader& r, const std::string& path, const void* lots_config);
void check_wandering(Reader& r, const std::string& path, const void* wandering);

}  // namespace cityforge::pipeline::detail
