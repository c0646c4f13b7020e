// SPDX-License-Identifier: Apache-2.0
// Tags and WGS84 boxes.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <string>

#include "cityforge/osm/osm.hpp"

namespace cityforge::osm {

std::string_view tag(const Tags& tags, std::string_view key) {
  auto it = std::lower_bound(tags.begin(), tags.end(), key,
                             [](const auto& kv, std::string_view k) { return kv.first < k; });
  if (it == tags.end() || it->first != key) return {};
  return it->second;
}

bool GeoBox::valid() const {
  return std::isfinite(min_lon) && std::isfinite(min_lat) && std::isfinite(max_lon) &&
         std::isfinite(max_lat) && min_lon < max_lon && min_lat < max_lat && min_lon >= -180.0 &&
         max_lon <= 180.0 && min_lat >= -90.0 && max_lat <= 90.0;
}

bool GeoBox::contains(double lon, double lat) const {
  return lon >= min_lon && lon <= max_lon && lat >= min_lat && lat <= max_lat;
}

Result<GeoBox> parse_bbox(std::string_view text, std::string_view where) {
  double v[4] = {};
  std::size_t pos = 0;
  for (int i = 0; i < 4; ++i) {
    const std::size_t end = i < 3 ? text.find(',', pos) : text.size();
    if (end == std::string_view::npos) {
      return Error::invalid_input(
          std::string(where),
          "expected minlon,minlat,maxlon,maxlat (4 numbers), got '" + std::string(text) + "'");
    }
    std::string_view part = text.substr(pos, end - pos);
    while (!part.empty() && part.front() == ' ')
      part.remove_prefix(1);
    while (!part.empty() && part.back() == ' ')
      part.remove_suffix(1);
    const auto [ptr, ec] = std::from_chars(part.data(), part.data() + part.size(), v[i]);
    if (ec != std::errc() || ptr != part.data() + part.size() || part.empty()) {
      return Error::invalid_input(std::string(where), "expected a number for value " +
                                                          std::to_string(i + 1) + ", got '" +
                                                          std::string(part) + "'");
    }
    pos = end + 1;
  }
  GeoBox box{v[0], v[1], v[2], v[3]};
  if (!box.valid()) {
    return Error::invalid_input(
        std::string(where),
        "expected minlon < maxlon within [-180, 180] and minlat < maxlat within [-90, 90], got '" +
            std::string(text) + "'");
  }
  return box;
}

}  // namespace cityforge::osm
