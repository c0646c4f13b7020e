// SPDX-License-Identifier: Apache-2.0
// The strict reader of vehicle files (data/vehicles/*.json, docs/scenarios.md "Vehicle files"):
// the car a driving-study scenario puts the driver in. Every key of the format is required and
// no other is allowed; every number is finite and > 0 except the brakes' front share; the cross
// rules (centre of gravity inside the wheelbase, a torque curve with rising rpm, falling gear
// ratios, shift points below the redline) are checked here so that the viewer's physics can
// trust the file.
#include <algorithm>
#include <nlohmann/json.hpp>

#include "cityforge/core/format.hpp"
#include "cityforge/core/json_parse.hpp"
#include "cityforge/server/scenario.hpp"
#include "server/scenario_detail.hpp"

namespace cityforge::server {
namespace {

using ojson = nlohmann::ordered_json;
using detail::Checker;

/// The groups whose members are all numbers > 0 (brakes.front_share is checked apart).
struct Group {
  const char* key;
  std::vector<const char*> numbers;
};
const std::vector<Group>& number_groups() {
  static const std::vector<Group> kGroups = {
      {"body",
       {"length_m", "width_m", "height_m", "mass_kg", "wheelbase_m", "track_m", "cg_height_m",
        "cg_to_front_axle_m", "front_overhang_m"}},
      {"suspension",
       {"rest_length_m", "max_travel_m", "stiffness", "damping_compression", "damping_relaxation"}},
      {"tyres", {"radius_m", "friction", "side_stiffness"}},
      {"steering", {"max_angle_deg"}},
  };
  return kGroups;
}

void check_engine(Checker& c, const ojson& e) {
  if (!c.all_keys(e, "/engine", {"idle_rpm", "redline_rpm", "torque_curve"})) return;
  const double idle = c.positive(e["idle_rpm"], "/engine/idle_rpm");
  const double red = c.positive(e["redline_rpm"], "/engine/redline_rpm");
  if (!c.failed() && idle >= red) {
    c.fail("/engine/idle_rpm",
           "expected a number < redline_rpm (" + format_g9(red) + "), got " + format_g9(idle));
  }
  if (c.failed()) return;
  const ojson& curve = e["torque_curve"];
  if (!curve.is_array() || curve.size() < 2) {
    c.fail("/engine/torque_curve",
           "expected an array of >= 2 [rpm, torque_nm] points, got " + Checker::describe(curve));
    return;
  }
  double last_rpm = 0;
  for (std::size_t i = 0; i < curve.size() && !c.failed(); ++i) {
    const std::string p = "/engine/torque_curve/" + std::to_string(i);
    const ojson& pt = curve[i];
    if (!pt.is_array() || pt.size() != 2) {
      c.fail(p, "expected an [rpm, torque_nm] pair, got " + Checker::describe(pt));
      return;
    }
    const double rpm = c.positive(pt[0], p + "/0");
    c.non_negative(pt[1], p + "/1");
    if (!c.failed() && i > 0 && rpm <= last_rpm) {
      c.fail(p + "/0", "expected an rpm > the previous point's (" + format_g9(last_rpm) +
                           "; strictly ascending), got " + format_g9(rpm));
    }
    last_rpm = rpm;
  }
}

void check_gearbox(Checker& c, const ojson& g, double redline_rpm) {
  const std::vector<const char*> numbers = {"reverse_ratio", "final_drive", "upshift_rpm",
                                            "downshift_rpm", "shift_time_s"};
  if (!c.all_keys(g, "/gearbox",
                  {"ratios", "reverse_ratio", "final_drive", "upshift_rpm", "downshift_rpm",
                   "shift_time_s"})) {
    return;
  }
  const ojson& ratios = g["ratios"];
  if (!ratios.is_array() || ratios.empty()) {
    c.fail("/gearbox/ratios",
           "expected an array of >= 1 gear ratios, got " + Checker::describe(ratios));
    return;
  }
  double last = 0;
  for (std::size_t i = 0; i < ratios.size() && !c.failed(); ++i) {
    const std::string p = "/gearbox/ratios/" + std::to_string(i);
    const double r = c.positive(ratios[i], p);
    if (!c.failed() && i > 0 && r >= last) {
      c.fail(p, "expected a ratio < the previous gear's (" + format_g9(last) +
                    "; strictly descending), got " + format_g9(r));
    }
    last = r;
  }
  for (const char* k : numbers)
    c.positive(g[k], std::string("/gearbox/") + k);
  if (c.failed()) return;
  const double up = g["upshift_rpm"].get<double>();
  const double down = g["downshift_rpm"].get<double>();
  if (down >= up) {
    c.fail("/gearbox/downshift_rpm",
           "expected a number < upshift_rpm (" + format_g9(up) + "), got " + format_g9(down));
  } else if (up > redline_rpm) {
    c.fail("/gearbox/upshift_rpm", "expected a number <= engine.redline_rpm (" +
                                       format_g9(redline_rpm) + "), got " + format_g9(up));
  }
}

}  // namespace

std::vector<std::string> shipped_vehicle_names() {
  std::vector<std::string> names;
  for (const auto& [path, text] : builtin_vehicle_sources()) {
    const std::size_t slash = path.rfind('/');
    const std::string file = path.substr(slash == std::string::npos ? 0 : slash + 1);
    names.push_back(file.substr(0, file.size() - 5));  // Less ".json".
  }
  std::sort(names.begin(), names.end());
  return names;
}

Result<std::string> check_vehicle(std::string_view text, const std::string& source,
                                  const std::string& stem) {
  Result<ojson> parsed = parse_json<ojson>(text, source);
  if (!parsed) return parsed.error();
  const ojson& v = *parsed;
  Checker c(source);
  // 1. The document and its plain keys.
  if (!c.all_keys(v, "",
                  {"format", "version", "name", "label", "drivetrain", "body", "suspension",
                   "tyres", "engine", "gearbox", "brakes", "steering"})) {
    return c.error();
  }
  c.literal(v["format"], "/format", "cityforge-vehicle");
  c.version(v["version"], "/version", 1);
  const std::string name = c.name(v["name"], "/name", "[a-z0-9_]+");
  if (!c.failed() && !stem.empty() && name != stem) {
    c.fail("/name", "expected \"" + stem + "\" (the file's name), got \"" + name + "\"");
  }
  c.string(v["label"], "/label");
  c.one_of(v["drivetrain"], "/drivetrain", {"rwd", "fwd", "awd"});
  // 2. The groups of numbers > 0, and the centre of gravity inside the wheelbase.
  for (const Group& g : number_groups()) {
    const std::string p = std::string("/") + g.key;
    const ojson& obj = v[g.key];
    if (!c.all_keys(obj, p, g.numbers)) break;
    for (const char* k : g.numbers)
      c.positive(obj[k], p + "/" + k);
  }
  if (c.failed()) return c.error();
  const double cg = v["body"]["cg_to_front_axle_m"].get<double>();
  const double wheelbase = v["body"]["wheelbase_m"].get<double>();
  if (cg >= wheelbase) {
    c.fail("/body/cg_to_front_axle_m",
           "expected a number < wheelbase_m (" + format_g9(wheelbase) + "), got " + format_g9(cg));
    return c.error();
  }
  // 3. Engine, gearbox, brakes.
  check_engine(c, v["engine"]);
  if (c.failed()) return c.error();
  check_gearbox(c, v["gearbox"], v["engine"]["redline_rpm"].get<double>());
  const ojson& brakes = v["brakes"];
  if (c.all_keys(brakes, "/brakes", {"max_torque_nm", "front_share"})) {
    c.positive(brakes["max_torque_nm"], "/brakes/max_torque_nm");
    c.in_range(brakes["front_share"], "/brakes/front_share", 0, 1);
  }
  if (c.failed()) return c.error();
  return v.dump();
}

}  // namespace cityforge::server
