// SPDX-License-Identifier: Apache-2.0
// `cityforge building`: one building from a style, for iterating on the style as an artist.
#include "cityforge/export/one_building.hpp"

#include <chrono>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "cityforge/buildings/buildings.hpp"
#include "cityforge/buildings/style.hpp"
#include "cityforge/core/format.hpp"
#include "cityforge/export/export.hpp"
#include "cityforge/lots/lots.hpp"
#include "cityforge/pipeline/city_pipeline.hpp"
#include "cityforge/pipeline/config_file.hpp"

namespace cityforge::exporter {

Result<OneBuildingReport> write_one_building(
    const OneBuildingOptions& opt, const std::function<void(const std::string&)>& warning) {
  const auto t_start = std::chrono::steady_clock::now();
  // 1. Styles: the built-in ones, or the one file when --style names a .json.
  std::vector<std::pair<std::string, std::string>> sources;
  const bool is_file = opt.style.find('/') != std::string::npos ||
                       (opt.style.size() > 5 && opt.style.ends_with(".json"));
  if (is_file) {
    Result<std::string> text = pipeline::read_text_file(opt.style);
    if (!text) return text.error();
    sources.emplace_back(opt.style, std::move(*text));
  } else {
    sources = buildings::builtin_style_sources();
  }
  Result<buildings::StyleLibrary> library = pipeline::load_styles(sources);
  if (!library) return library.error();
  const std::int32_t style = is_file ? 0 : library->find(opt.style);
  if (style < 0) {
    std::string names;
    for (const auto& st : library->styles)
      names += (names.empty() ? "" : ", ") + st.name;
    return Error::invalid_input("--style", "unknown style '" + opt.style + "'; built-in styles: " +
                                               names + " (or give a path to a .json BDF)");
  }
  const buildings::Style& st = library->styles[static_cast<std::size_t>(style)];
  // 2. The DNA: footprint, size, three height layers from the style's levels.
  lots::BuildingDNA dna;
  if (!lots::footprint_shape_from_string(opt.footprint, &dna.shape)) {
    std::string names;
    for (std::size_t i = 0; i < lots::kFootprintShapeCount; ++i)
      names += std::string(i ? ", " : "") + lots::to_string(static_cast<lots::FootprintShape>(i));
    return Error::invalid_input(
        "--footprint", "unknown footprint '" + opt.footprint + "'; expected one of: " + names);
  }
  double w = 0.0;
  double d = 0.0;
  char x = 0;
  char extra = 0;
  if (std::sscanf(opt.size.c_str(), "%lf%c%lf%c", &w, &x, &d, &extra) != 3 || x != 'x' ||
      !(w > 0.0 && w < 1000.0) || !(d > 0.0 && d < 1000.0)) {
    return Error::invalid_input(
        "--size",
        "expected WIDTHxDEPTH in metres, each in (0, 1000), e.g. 24x16; got '" + opt.size + "'");
  }
  if (!(opt.height_m >= st.ground.height_m && opt.height_m <= 1000.0)) {
    return Error::invalid_input("--height",
                                "expected a height in [" + format_g9(st.ground.height_m) +
                                    ", 1000] m (at least the style's ground floor), got " +
                                    format_g9(opt.height_m));
  }
  dna.size_x_m = w;
  dna.size_y_m = d;
  dna.shape_param = opt.shape_param;
  dna.style = static_cast<std::uint32_t>(style);
  dna.base_m = st.ground.height_m;
  const double above = opt.height_m - dna.base_m;
  dna.crown_m = above >= st.top.height_m + st.typical.height_m ? st.top.height_m : 0.0;
  dna.shaft_m = above - dna.crown_m;
  if (opt.massing == "staggered" || opt.massing == "cubified") {
    dna.massing = opt.massing == "staggered" ? lots::Massing::staggered : lots::Massing::cubified;
    dna.setback_steps = 3;
    dna.setback_m = st.setback_m;
  } else if (opt.massing != "plain") {
    return Error::invalid_input("--massing",
                                "expected plain, cubified or staggered, got '" + opt.massing + "'");
  }
  if (const double wall = lots::shortest_wall_m(dna.shape, w, d, dna.shape_param);
      wall < st.min_wall_m) {
    if (warning) {
      std::string text;
      append_printf(text,
                    "the shortest wall of this footprint is %.2f m, under the style's "
                    "min_wall_m %.2f m: the city would not build it",
                    wall, st.min_wall_m);
      warning(text);
    }
  }
  // 3. One lot, one parcel: the footprint's box, its front edge on the street.
  lots::Lot lot;
  lot.area.outer = {{-w / 2, -d / 2}, {w / 2, -d / 2}, {w / 2, d / 2}, {-w / 2, d / 2}};
  lots::Parcel parcel;
  parcel.area = lot.area;
  parcel.frontage = {1, 0, 0, 0};
  parcel.dna = dna;
  lot.parcels.push_back(parcel);
  Result<buildings::Output> out =
      buildings::generate_lot(lot, *library, {}, buildings::Config{}, opt.seed);
  if (!out) return out.error();
  Result<std::vector<std::uint8_t>> glb = building_glb(*out, *library);
  if (!glb) return glb.error();
  if (Status s = write_file_atomic(opt.out, glb->data(), glb->size()); !s) {
    return s.error();
  }
  const double ms =
      1000.0 * std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count();
  OneBuildingReport report;
  std::string& line = report.summary;
  const buildings::Stats& bs = out->stats;
  append_printf(line, "%s: %s %s %gx%g m, %g m high, %zu floors, %zu module instances (",
                opt.out.c_str(), st.name.c_str(), lots::to_string(dna.shape), w, d, opt.height_m,
                bs.floors, bs.instances);
  bool first = true;
  for (std::size_t k = 0; k < buildings::kModuleTagCount; ++k) {
    if (bs.modules_by_tag[k] == 0) continue;
    append_printf(line, "%s%zu %s", first ? "" : ", ", bs.modules_by_tag[k],
                  buildings::tag_name(k));
    first = false;
  }
  append_printf(line, "), %zu rooms, %zu entrances, %zu roof triangles; %.0f ms\n", bs.rooms,
                bs.entrances, bs.roof_triangles, ms);
  return report;
}

}  // namespace cityforge::exporter
