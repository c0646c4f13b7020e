// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cityforge/core/result.hpp"
#include "cityforge/materials/textures.hpp"

/// Building definition files (BDF, JSON) and the facade shape grammar (seeds/000, 26:39-29:14;
/// DESIGN.md "Building definition files"). Authoring guide: docs/styles.md.
namespace cityforge::buildings {

/// Module tags (bit flags). A module may carry several.
enum ModuleTag : std::uint32_t {
  kTagWall = 1U << 0U,
  kTagWindow = 1U << 1U,
  kTagEntrance = 1U << 2U,
  kTagCorner = 1U << 3U,
  kTagBalcony = 1U << 4U,
  kTagCornerCap = 1U << 5U,
  kTagCornice = 1U << 6U,
  kTagSignage = 1U << 7U,
  kTagStorefront = 1U << 8U,
  kTagFireEscape = 1U << 9U,
  kTagProp = 1U << 10U,
};
inline constexpr std::size_t kModuleTagCount = 11;
/// Tag names as written in BDFs and stats.json: "wall", "window", "entrance", "corner",
/// "balcony", "corner_cap", "cornice", "signage", "storefront", "fire_escape", "prop".
const char* tag_name(std::size_t bit);

/// Surface materials of the built-in kit; a style gives each a colour.
enum class Material : std::uint8_t { wall, trim, glass, frame, door, roof, metal, sign };
inline constexpr std::size_t kMaterialCount = 8;
const char* to_string(Material m);

/// Which procedural generator of the built-in kit makes the module mesh.
enum class MeshKind : std::uint8_t {
  wall,          ///< Flat wall panel.
  window,        ///< Wall panel with an inset window: frame, sill, lintel, glass, mullions.
  door,          ///< Entrance: recessed door, frame, canopy.
  storefront,    ///< Large shop window with a door and a sign band.
  curtain_wall,  ///< Full glass panel with mullions and spandrel band.
  corner,        ///< Pilaster column for a corner (slightly proud of the facade).
  pilaster,      ///< Thin vertical strip (split corners, bay dividers).
  cornice,       ///< Projecting moulded band, used on top floors.
  balcony,       ///< Window with a slab and railing in front.
  louvre,        ///< Industrial panel with horizontal slats / ribbed cladding.
  fire_escape,   ///< Steel platform, railing and ladder, hung in front of the facade.
  sign,          ///< Blade sign / awning prop near entrances (brand coloured).
};
inline constexpr std::size_t kMeshKindCount = 12;
const char* to_string(MeshKind k);

/// Parameters of the built-in generators; each kind reads those it needs (docs/styles.md).
struct MeshParams {
  double depth_m = 0.35;         ///< Wall panel thickness behind the facade plane.
  double inset_m = 0.15;         ///< How far glass sits behind the facade plane.
  double frame_m = 0.08;         ///< Frame / mullion width.
  double opening_w = 0.55;       ///< Opening width as a share of module width (0, 1).
  double opening_h = 0.55;       ///< Opening height as a share of module height (0, 1).
  double sill_h = 0.3;           ///< Sill height as a share of module height [0, 1).
  std::uint32_t mullions_x = 1;  ///< Vertical glazing bars.
  std::uint32_t mullions_y = 0;  ///< Horizontal glazing bars.
  double projection_m = 0.25;    ///< How far cornices, canopies, pilasters, balconies stick out.
};

/// One entry of the module dictionary.
struct ModuleDef {
  std::string key;         ///< Grammar key: one letter, or a name used as {name}.
  std::string id;          ///< Module id, unique in the library: "<style>.<key>" by default.
  double width_m = 1.0;    ///< Along the facade. [> 0]
  double height_m = 0.0;   ///< 0: the floor height (stretched per floor). [>= 0]
  std::uint32_t tags = 0;  ///< ModuleTag bits.
  MeshKind mesh = MeshKind::wall;
  MeshParams params;
};

// ---- Facade shape grammar ----------------------------------------------------------------------

/// A term of a grammar: a module, `(...)` repeated as many times as fits, or `[...]N`.
struct GrammarTerm {
  enum class Kind : std::uint8_t { module, repeat, fixed_repeat };
  Kind kind = Kind::module;
  std::uint32_t module = 0;       ///< Index into Style::modules (kind == module).
  std::uint32_t count = 1;        ///< fixed_repeat: N (>= 1).
  std::vector<GrammarTerm> body;  ///< repeat / fixed_repeat: the macro.
};
/// A `|`-separated bucket; `*` at its start lets its modules scale to absorb the gap.
struct GrammarBucket {
  bool scalable = false;
  std::vector<GrammarTerm> terms;
};
struct Grammar {
  std::string text;  ///< As written in the BDF.
  std::vector<GrammarBucket> buckets;
};

/// Parses a grammar string. Syntax (DESIGN.md): buckets separated by `|` (leading and trailing
/// bars optional), a letter or `{name}` is a module key, `(...)` repeats to fit, `[...]N` repeats
/// exactly N >= 1 times, `*` first in a bucket makes it scalable; spaces are ignored. Macros may
/// nest, but a `(...)` may not contain another `(...)`. `key_to_module` maps keys to
/// indices (returns -1 when unknown). Errors name `where` (file and JSON pointer) and the
/// 1-based column in the string, e.g. `column 7 of "|C|(WW|C|": '(' opened at column 4 is not
/// closed`. Empty grammars and empty macros are errors.
Result<Grammar> parse_grammar(std::string_view text, std::string_view where,
                              const std::vector<std::string>& keys);

/// One module placed by fit_grammar, in order along the facade.
struct FittedModule {
  std::uint32_t module = 0;  ///< Index into Style::modules.
  double offset_m = 0.0;     ///< Start along the facade.
  double width_m = 0.0;      ///< After scaling.
};
struct GrammarFit {
  bool fits = false;   ///< Natural length (repeats as many as fit) <= facade length.
  double gap_m = 0.0;  ///< facade length - natural length (>= 0 when fits).
  double scale = 1.0;  ///< Applied to the scalable modules (or all, see fit_grammar).
  std::vector<FittedModule> modules;  ///< Covers [0, length] exactly, no overlap.
};
/// Fits a grammar to a facade of `length_m`: every `(...)` macro repeats the same number n of
/// times, the largest n >= 0 for which the natural length <= length_m; the gap is then absorbed
/// by scaling the modules of `*` buckets (or, with no `*` bucket, all modules) so the placed
/// modules cover [0, length_m] exactly. When even n = 0 is too long, fits = false, gap < 0 and
/// all modules are scaled down uniformly to length_m (the fallback). A grammar made only of
/// `(...)` macros places at least n = 1 (shrunk by the fallback when one pass is too long), so
/// the modules always cover the wall. `widths` are per module (> 0).
GrammarFit fit_grammar(const Grammar& grammar, const std::vector<double>& widths, double length_m);
/// Picks the grammar whose natural length leaves the smallest non-negative gap (ties: the
/// earlier grammar); if none fits, the one with the smallest overshoot (ties: earlier). Returns
/// its index and writes its fit. `grammars` must be non-empty.
std::size_t choose_grammar(const std::vector<Grammar>& grammars, const std::vector<double>& widths,
                           double length_m, GrammarFit* fit);

// ---- Styles ------------------------------------------------------------------------------------

/// A level of the level dictionary: its floor height and the facade grammars it may use.
struct Level {
  double height_m = 3.2;          ///< [> 0]
  std::vector<Grammar> grammars;  ///< Non-empty.
};

/// Prop brands: a brand swaps which modules stand for the `sign` and `awning` props.
struct Brand {
  std::string name;
  std::uint32_t sign_module = 0;  ///< Index into Style::modules.
};

/// A building style (one BDF).
struct Style {
  std::string name;                ///< Unique in the library.
  std::string file;                ///< Where it was read from (for messages).
  std::uint32_t zone_mask = 0x1F;  ///< Bit per layout::ZoneKind ("zones": [...]).
  double min_height_m = 0.0;       ///< "height_m": [min, max] target band.
  double max_height_m = 1e9;
  double weight = 1.0;
  double min_wall_m = 3.0;      ///< Minimum wall length (checked against every module fit).
  double cubified_share = 0.0;  ///< "massing": {"cubified", "staggered", "setback_m"}.
  double staggered_share = 0.0;
  double setback_m = 3.0;
  std::vector<std::string> shapes;  ///< Allowed footprint shapes; empty = all.
  std::array<std::array<float, 3>, kMaterialCount> palette{};  ///< Linear-ish sRGB 0..1.
  /// The procedural texture of each material ("surfaces": {"wall": "brick", ...}; "none":
  /// plain colour); the exporters multiply the palette colour by it (docs/materials.md).
  std::array<std::optional<materials::Surface>, kMaterialCount> surfaces{
      materials::Surface::plaster, materials::Surface::concrete,
      materials::Surface::glass,   materials::Surface::metal,
      materials::Surface::wood,    materials::Surface::roofing,
      materials::Surface::metal,   std::nullopt};
  Level ground;
  Level typical;
  Level top;
  std::vector<ModuleDef> modules;
  /// Corner modules (index into modules, -1 = none): convex, concave, split (collinear within
  /// the tolerance), cap (wins over split when present).
  std::int32_t corner_convex = -1;
  std::int32_t corner_concave = -1;
  std::int32_t corner_split = -1;
  std::int32_t corner_cap = -1;
  double collinear_tolerance_deg = 10.0;
  std::int32_t entrance = -1;     ///< Module forced onto a street facade if none has one.
  std::int32_t fire_escape = -1;  ///< Module hung on facades touched by a fire_escape volume.
  // Roof settings.
  double parapet_height_m = 0.9;
  double parapet_width_m = 0.3;
  // Prop rules.
  std::vector<Brand> brands;        ///< Per facade: brands[(lot * 31 + building) % size].
  double signage_distance_m = 6.0;  ///< Signs go on ground-floor modules this close to an entrance.
};

/// All styles of a city, in load order, with a global module numbering: module m of style s is
/// number first_module[s] + m (instances carry that number).
struct StyleLibrary {
  std::vector<Style> styles;
  std::vector<std::uint32_t> first_module;
  std::uint32_t module_count() const;
  std::uint32_t global_module(std::uint32_t style, std::uint32_t module) const {
    return first_module[style] + module;
  }
  const ModuleDef& module(std::uint32_t global) const;
  std::uint32_t style_of(std::uint32_t global) const;
  /// Index of the style named `name`, or -1.
  std::int32_t find(std::string_view name) const;
};

/// Parses one BDF. `file` names it in errors. Strict: unknown keys, wrong types, missing
/// required members, non-positive widths, unknown module keys in grammars or corners, unbalanced
/// brackets are errors naming the file and JSON pointer (and the grammar column).
Result<Style> parse_style(std::string_view json_text, std::string_view file);
/// Builds a library from parsed styles: names must be unique, module ids unique.
Result<StyleLibrary> make_library(std::vector<Style> styles);
/// The built-in styles (data/styles/*.json embedded at build time), as (file name, JSON text).
std::vector<std::pair<std::string, std::string>> builtin_style_sources();
/// parse_style over builtin_style_sources() (sorted by file name), then make_library.
Result<StyleLibrary> builtin_library();

}  // namespace cityforge::buildings
