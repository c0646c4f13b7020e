// SPDX-License-Identifier: Apache-2.0
// The live clients' messages (docs/live.md, "Messages"): what parse_control takes and refuses.
#include <gtest/gtest.h>

#include <string>

#include "cityforge/server/live.hpp"

namespace cityforge::server {
namespace {

TEST(ParseControl, ReadsEveryKind) {
  Result<Control> v = parse_control(R"({"type":"viewer","x":1,"y":2,"z":3,"yaw_deg":90})");
  ASSERT_TRUE(v) << v.error().to_string();
  EXPECT_EQ(v->kind, Control::Kind::viewer);
  EXPECT_EQ(v->y, 2);
  EXPECT_EQ(v->yaw_deg, 90);

  Result<Control> p =
      parse_control(R"({"type":"player","x":1,"y":2,"z":0,"heading_rad":0.5,"speed_mps":-3})");
  ASSERT_TRUE(p) << p.error().to_string();
  EXPECT_EQ(p->kind, Control::Kind::player);
  EXPECT_EQ(p->speed_mps, -3);

  Result<Control> w = parse_control(R"({"type":"weather","kind":"rain","fog":true})");
  ASSERT_TRUE(w) << w.error().to_string();
  EXPECT_EQ(w->weather, traffic::WeatherKind::rain);
  EXPECT_TRUE(w->fog);

  Result<Control> d = parse_control(R"({"type":"density","vehicles":10})");
  ASSERT_TRUE(d) << d.error().to_string();
  EXPECT_TRUE(d->vehicles.has_value());
  EXPECT_FALSE(d->pedestrians.has_value());

  Result<Control> t = parse_control(R"({"type":"time","hour":7.5})");
  ASSERT_TRUE(t) << t.error().to_string();
  EXPECT_EQ(*t->hour, 7.5);

  Result<Control> off = parse_control(R"({"type":"player_off"})");
  ASSERT_TRUE(off);
  EXPECT_EQ(off->kind, Control::Kind::player_off);

  Result<Control> hit = parse_control(R"({"type":"hit","id":4021})");
  ASSERT_TRUE(hit) << hit.error().to_string();
  EXPECT_EQ(hit->kind, Control::Kind::hit);
  EXPECT_EQ(hit->id, 4021U);
}

TEST(ParseControl, RefusesWithAMessageThatSaysWhat) {
  const struct {
    const char* text;
    const char* says;
  } cases[] = {
      {"not json", "malformed JSON"},
      {R"({"type":"time","hour":1e400})", "/hour"},
      {"{\"type\":\"t\xFF\"}", "invalid UTF-8"},
      {"[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]", "nested deeper than 16"},
      {"[1]", "expected a JSON object"},
      {R"({"x":1})", "\"type\""},
      {R"({"type":"fly"})", "unknown \"type\" 'fly'"},
      {R"({"type":"viewer","x":1,"y":2,"z":3})", "yaw_deg"},
      {R"({"type":"viewer","x":"1","y":2,"z":3,"yaw_deg":0})", "must be a number"},
      {R"({"type":"weather","kind":"snow"})", "clear, cloudy, rain, storm or fog"},
      {R"({"type":"density"})", "expected \"pedestrians\" or \"vehicles\""},
      {R"({"type":"density","vehicles":-1})", ">= 0"},
      {R"({"type":"time","day_length_s":0})", "must be > 0"},
      {R"({"type":"hit"})", "expected a number \"id\""},
      {R"({"type":"hit","id":-1})", "pedestrian's id"},
      {R"({"type":"hit","id":1.5})", "pedestrian's id"},
      {R"({"type":"hit","id":5e9})", "pedestrian's id"},
  };
  for (const auto& c : cases) {
    Result<Control> r = parse_control(c.text);
    ASSERT_FALSE(r) << c.text;
    EXPECT_EQ(r.error().code, ErrorCode::invalid_input);
    EXPECT_NE(r.error().to_string().find(c.says), std::string::npos)
        << c.text << ": " << r.error().to_string();
  }
}

}  // namespace
}  // namespace cityforge::server
