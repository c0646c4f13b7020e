// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>

#include <limits>

#include "cityforge/export/export.hpp"
#include "export/fixture.hpp"

namespace cityforge::exporter {
namespace {

using fixture::small_city;

std::size_t count(const std::string& s, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) {
    ++n;
  }
  return n;
}

TEST(MapSvg, DrawsRoadsByClassZonesBlocksAndFurniture) {
  const std::string svg = map_svg(small_city());
  EXPECT_EQ(svg.rfind("<?xml", 0), 0U);
  EXPECT_NE(svg.find("<svg xmlns=\"http://www.w3.org/2000/svg\""), std::string::npos);
  EXPECT_EQ(svg.substr(svg.size() - 7), "</svg>\n");
  // Class colours: artery, main, local (each in its road group and in the legend).
  EXPECT_NE(svg.find("class=\"road-artery\" stroke=\"#e0533d\""), std::string::npos);
  EXPECT_NE(svg.find("class=\"road-main\" stroke=\"#f2a93b\""), std::string::npos);
  EXPECT_NE(svg.find("class=\"road-local\" stroke=\"#8c8c8c\""), std::string::npos);
  // Roads are stroked at their width in metres.
  EXPECT_NE(svg.find("stroke-width=\"22\""), std::string::npos);
  EXPECT_NE(svg.find("stroke-width=\"14\""), std::string::npos);
  EXPECT_EQ(count(svg, "stroke-width=\"9\""), 2U);
  // Zone tint (downtown), four blocks, boundary, scale bar, legend.
  EXPECT_NE(svg.find("fill=\"#e7a3a8\""), std::string::npos);
  EXPECT_NE(svg.find("id=\"boundary\""), std::string::npos);
  EXPECT_NE(svg.find("id=\"scale-bar\""), std::string::npos);
  EXPECT_NE(svg.find(" m</text>"), std::string::npos);
  EXPECT_NE(svg.find("id=\"legend\""), std::string::npos);
}

TEST(MapSvg, NorthIsUp) {
  // Boundary (0,0)-(300,300) with a 5 % (15 m) margin: the south-west corner (0, 0) lands at
  // the bottom-left, SVG (15, 315); the north-west corner (0, 300) at the top, (15, 15).
  const std::string svg = map_svg(small_city());
  EXPECT_NE(svg.find("id=\"boundary\" d=\"M15 315 L315 315 L315 15 L15 15 Z\""), std::string::npos)
      << svg;
}

TEST(MapSvg, DeterministicAndSkipsNonFiniteItems) {
  EXPECT_EQ(map_svg(small_city()), map_svg(small_city()));
  auto city = small_city();
  city.network.edges[1].points[0].x = std::numeric_limits<double>::quiet_NaN();
  const std::string svg = map_svg(city);
  EXPECT_EQ(svg.find("nan"), std::string::npos);
  EXPECT_EQ(svg.find("stroke-width=\"14\""), std::string::npos);
  EXPECT_NE(map_svg(layout::Output{}).find("</svg>"), std::string::npos);
}

}  // namespace
}  // namespace cityforge::exporter
