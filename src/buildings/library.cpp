// SPDX-License-Identifier: Apache-2.0
// The style library: styles in load order with one global module numbering.
#include <algorithm>
#include <map>
#include <string>

#include "cityforge/buildings/buildings.hpp"
#include "cityforge/buildings/style.hpp"
#include "cityforge/core/assert.hpp"

namespace cityforge::buildings {

std::uint32_t StyleLibrary::module_count() const {
  if (styles.empty() || first_module.size() != styles.size()) return 0;
  return first_module.back() + static_cast<std::uint32_t>(styles.back().modules.size());
}

std::uint32_t StyleLibrary::style_of(std::uint32_t global) const {
  CF_ASSERT(global < module_count(), "global module number out of range");
  // The last style whose first module is <= global (styles without modules share a start).
  const auto it = std::upper_bound(first_module.begin(), first_module.end(), global);
  auto s = static_cast<std::uint32_t>(it - first_module.begin()) - 1U;
  while (s > 0 && global - first_module[s] >= styles[s].modules.size())
    --s;
  return s;
}

const ModuleDef& StyleLibrary::module(std::uint32_t global) const {
  const std::uint32_t s = style_of(global);
  return styles[s].modules[global - first_module[s]];
}

std::int32_t StyleLibrary::find(std::string_view name) const {
  for (std::size_t i = 0; i < styles.size(); ++i) {
    if (styles[i].name == name) return static_cast<std::int32_t>(i);
  }
  return -1;
}

Result<StyleLibrary> make_library(std::vector<Style> styles) {
  StyleLibrary lib;
  std::map<std::string, std::size_t, std::less<>> names;
  std::map<std::string, std::pair<std::size_t, std::size_t>, std::less<>> ids;
  std::uint64_t next = 0;
  for (std::size_t s = 0; s < styles.size(); ++s) {
    const Style& st = styles[s];
    const auto [it, inserted] = names.emplace(st.name, s);
    if (!inserted) {
      return Error::invalid_input(st.file + ": /name",
                                  "style name \"" + st.name + "\" is already used by " +
                                      styles[it->second].file + "; style names must be unique");
    }
    for (std::size_t m = 0; m < st.modules.size(); ++m) {
      const auto [mit, minserted] = ids.emplace(st.modules[m].id, std::make_pair(s, m));
      if (!minserted) {
        const Style& other = styles[mit->second.first];
        return Error::invalid_input(st.file + ": /modules/" + st.modules[m].key + "/id",
                                    "module id \"" + st.modules[m].id + "\" is already used by " +
                                        other.file + ": /modules/" +
                                        other.modules[mit->second.second].key +
                                        "; module ids must be unique in the library");
      }
    }
    if (next + st.modules.size() > 0xFFFFFFFFULL) {
      return Error::invalid_input(st.file, "too many modules in the library");
    }
    lib.first_module.push_back(static_cast<std::uint32_t>(next));
    next += st.modules.size();
  }
  lib.styles = std::move(styles);
  return lib;
}

Result<StyleLibrary> builtin_library() {
  std::vector<Style> styles;
  for (const auto& [file, text] : builtin_style_sources()) {
    Result<Style> s = parse_style(text, file);
    if (!s.ok()) return s.error();
    styles.push_back(std::move(s.value()));
  }
  return make_library(std::move(styles));
}

std::vector<lots::StyleRule> lot_style_rules(const buildings::StyleLibrary& library) {
  std::vector<lots::StyleRule> rules;
  rules.reserve(library.styles.size());
  for (const buildings::Style& s : library.styles) {
    lots::StyleRule r;
    r.name = s.name;
    r.source = s.file + ": /min_wall_m";
    r.min_wall_m = s.min_wall_m;
    r.zone_mask = s.zone_mask;
    r.min_height_m = s.min_height_m;
    r.max_height_m = s.max_height_m;
    r.weight = s.weight;
    r.ground_floor_m = s.ground.height_m;
    r.floor_m = s.typical.height_m;
    r.cubified_share = s.cubified_share;
    r.staggered_share = s.staggered_share;
    if (!s.shapes.empty()) {
      r.shape_mask = 0;
      for (const std::string& name : s.shapes) {
        lots::FootprintShape shape{};
        if (lots::footprint_shape_from_string(name, &shape))
          r.shape_mask |= 1U << static_cast<unsigned>(shape);
      }
    }
    rules.push_back(std::move(r));
  }
  return rules;
}

}  // namespace cityforge::buildings
