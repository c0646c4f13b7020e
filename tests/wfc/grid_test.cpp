// SPDX-License-Identifier: Apache-2.0
// Square grids: labels per dimension, boundary sides, and the checks a user-built graph passes.
#include <gtest/gtest.h>

#include "cityforge/wfc/wfc.hpp"

namespace cityforge::wfc {
namespace {

std::size_t boundary_sides(const Grid& g) {
  std::size_t n = 0;
  for (const Side& s : g.sides)
    n += s.cell == kBoundary ? 1 : 0;
  return n;
}

TEST(WfcSquareGrid, LabelsFollowTheDimensionsAndEveryOffGridSideIsBoundary) {
  const Grid line = square_grid(6, 1, 1);
  EXPECT_EQ(line.label_count, 2U);
  EXPECT_EQ(boundary_sides(line), 2U);
  const Grid plane = square_grid(6, 6, 1);
  EXPECT_EQ(plane.label_count, 4U);
  EXPECT_EQ(boundary_sides(plane), 4U * 6U);
  const Grid cube = square_grid(3, 3, 3);
  EXPECT_EQ(cube.label_count, 6U);
  EXPECT_EQ(boundary_sides(cube), 6U * 9U);
  for (const Grid* g : {&line, &plane, &cube})
    EXPECT_TRUE(validate_grid(*g).ok());
  // Cell (1, 2, 0) of the 6 x 6 plane: +y leads to (1, 3, 0).
  const CellId c = 1 + 6 * 2;
  EXPECT_EQ(plane.sides[plane.offsets[c] + 2].cell, 1U + 6U * 3U);
  EXPECT_EQ(plane.sides[plane.offsets[c] + 2].label, kPosY);
}

TEST(WfcSquareGrid, OneLayerForAThreeDimensionalModelHasAllZSidesOnTheBoundary) {
  const Grid g = square_grid(4, 4, 1, 3);
  EXPECT_EQ(g.label_count, 6U);
  EXPECT_TRUE(validate_grid(g).ok());
  EXPECT_EQ(boundary_sides(g), 4U * 4U + 2U * 16U);
}

TEST(WfcSquareGrid, ValidateNamesABrokenSide) {
  Grid g = square_grid(2, 1, 1);
  g.sides[0].cell = 7;
  const Status s = validate_grid(g);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("cell 0 side 0"), std::string::npos) << s.error().message;
}

}  // namespace
}  // namespace cityforge::wfc
