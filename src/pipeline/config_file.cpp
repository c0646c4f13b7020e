// SPDX-License-Identifier: Apache-2.0
// A city JSON read from disk with the style and biome files it names (stages never read files).
#include "cityforge/pipeline/config_file.hpp"

#include <filesystem>
#include <utility>
#include <vector>

#include "cityforge/core/json_parse.hpp"
#include "cityforge/core/text_file.hpp"
#include "cityforge/pipeline/default_city.hpp"

namespace cityforge::pipeline {

namespace fs = std::filesystem;

Result<std::string> read_text_file(const std::string& path) {
  return read_file_text(path, JsonLimits{}.max_bytes);
}

std::string city_config_source(const std::string& path) {
  return path.empty() ? std::string(kBuiltInCitySource) : path;
}

Error with_config_source(Error error, const std::string& source) {
  if (error.code == ErrorCode::invalid_input && error.where.rfind(source, 0) != 0) {
    error.where = source + ": " + error.where;
  }
  return error;
}

Result<CityConfig> load_city_config_file(const std::string& path) {
  std::string text;
  if (path.empty()) {
    text = std::string(default_city_json());
  } else {
    Result<std::string> t = read_text_file(path);
    if (!t) return t.error();
    text = std::move(*t);
  }
  Result<CityConfig> cfg = parse_city_config(text, city_config_source(path));
  if (!cfg) return cfg.error();
  const fs::path base = path.empty() ? fs::current_path() : fs::path(path).parent_path();
  const auto read_all = [&](const std::vector<std::string>& files,
                            std::vector<std::pair<std::string, std::string>>& sources) -> Status {
    if (files.empty()) return Ok{};
    sources.clear();
    for (const std::string& file : files) {
      const fs::path p = fs::path(file).is_absolute() ? fs::path(file) : base / file;
      Result<std::string> t = read_text_file(p.string());
      if (!t) return t.error();
      // A file that is not JSON at all stops the run here, whatever its stage would make of
      // its content (a biome the dressing cannot place is only a warning).
      if (Result<nlohmann::json> j = parse_json(*t, p.string()); !j) return j.error();
      sources.emplace_back(p.string(), std::move(*t));
    }
    return Ok{};
  };
  if (Status st = read_all(cfg->buildings.style_files, cfg->buildings.style_sources); !st) {
    return st.error();
  }
  if (Status st = read_all(cfg->dressing.biome_files, cfg->dressing.biome_sources); !st) {
    return st.error();
  }
  return cfg;
}

}  // namespace cityforge::pipeline
