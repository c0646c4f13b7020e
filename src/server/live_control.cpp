// SPDX-License-Identifier: Apache-2.0
// The messages a live client sends (docs/live.md, "Messages"): parsed and checked before the
// simulation sees them.
#include <cmath>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>

#include "cityforge/core/json_parse.hpp"
#include "cityforge/server/live.hpp"

namespace cityforge::server {
namespace {

using json = nlohmann::json;

/// How errors name a message: its first 60 bytes.
std::string message_name(std::string_view text) {
  return "live message '" + std::string(text.substr(0, 60)) + (text.size() > 60 ? "...'" : "'");
}

Error bad(std::string_view text, const std::string& what) {
  return Error::invalid_input(message_name(text), what);
}

/// Live messages are small: a frame of the viewer's controls.
constexpr JsonLimits kMessageLimits{std::uint64_t{1} << 16, 16};

Result<double> number(const json& j, std::string_view text, const char* name) {
  const auto it = j.find(name);
  if (it == j.end()) return bad(text, std::string("expected a number \"") + name + "\"");
  if (!it->is_number()) {
    return bad(text, std::string("\"") + name + "\" must be a number, got " + it->type_name());
  }
  const double v = it->get<double>();
  if (!std::isfinite(v)) return bad(text, std::string("\"") + name + "\" must be finite");
  return v;
}

/// An optional number: absent is fine, present must be a finite number.
Result<std::optional<double>> maybe_number(const json& j, std::string_view text, const char* name) {
  if (!j.contains(name)) return std::optional<double>{};
  Result<double> v = number(j, text, name);
  if (!v) return v.error();
  return std::optional<double>{*v};
}

}  // namespace

Result<Control> parse_control(std::string_view text) {
  Result<json> parsed = parse_json(text, message_name(text), kMessageLimits);
  if (!parsed) return parsed.error();
  const json& j = *parsed;
  if (!j.is_object()) return bad(text, std::string("expected a JSON object, got ") + j.type_name());
  const auto t = j.find("type");
  if (t == j.end() || !t->is_string()) return bad(text, "expected a string \"type\"");
  const std::string type = t->get<std::string>();
  Control c;
  const auto num = [&](const char* name, double* out) -> Status {
    Result<double> v = number(j, text, name);
    if (!v) return v.error();
    *out = *v;
    return Ok{};
  };
  if (type == "viewer") {
    c.kind = Control::Kind::viewer;
    for (auto [name, out] :
         {std::pair{"x", &c.x}, {"y", &c.y}, {"z", &c.z}, {"yaw_deg", &c.yaw_deg}})
      if (Status s = num(name, out); !s) return s.error();
  } else if (type == "player") {
    c.kind = Control::Kind::player;
    for (auto [name, out] : {std::pair{"x", &c.x},
                             {"y", &c.y},
                             {"z", &c.z},
                             {"heading_rad", &c.heading_rad},
                             {"speed_mps", &c.speed_mps}})
      if (Status s = num(name, out); !s) return s.error();
  } else if (type == "player_off") {
    c.kind = Control::Kind::player_off;
  } else if (type == "hit") {
    c.kind = Control::Kind::hit;
    double id = 0;
    if (Status s = num("id", &id); !s) return s.error();
    if (id < 0 || id > 4294967295.0 || id != std::floor(id)) {
      return bad(text, "\"id\" must be a pedestrian's id (an integer >= 0)");
    }
    c.id = static_cast<std::uint32_t>(id);
  } else if (type == "weather") {
    c.kind = Control::Kind::weather;
    const auto k = j.find("kind");
    if (k == j.end() || !k->is_string()) {
      return bad(text, "expected a string \"kind\" (clear, cloudy, rain, storm or fog)");
    }
    Result<traffic::WeatherKind> w = traffic::parse_weather(k->get<std::string>());
    if (!w) return bad(text, "\"kind\" must be clear, cloudy, rain, storm or fog");
    c.weather = *w;
    if (const auto f = j.find("fog"); f != j.end()) {
      if (!f->is_boolean()) return bad(text, "\"fog\" must be true or false");
      c.fog = f->get<bool>();
    }
  } else if (type == "density") {
    c.kind = Control::Kind::density;
    Result<std::optional<double>> p = maybe_number(j, text, "pedestrians");
    if (!p) return p.error();
    Result<std::optional<double>> v = maybe_number(j, text, "vehicles");
    if (!v) return v.error();
    if (!*p && !*v) return bad(text, "expected \"pedestrians\" or \"vehicles\" (numbers >= 0)");
    if ((*p && **p < 0) || (*v && **v < 0)) return bad(text, "counts must be >= 0");
    c.pedestrians = *p;
    c.vehicles = *v;
  } else if (type == "time") {
    c.kind = Control::Kind::time;
    Result<std::optional<double>> h = maybe_number(j, text, "hour");
    if (!h) return h.error();
    Result<std::optional<double>> d = maybe_number(j, text, "day_length_s");
    if (!d) return d.error();
    if (!*h && !*d) return bad(text, "expected \"hour\" or \"day_length_s\" (numbers)");
    if (*d && !(**d > 0)) return bad(text, "\"day_length_s\" must be > 0");
    c.hour = *h;
    c.day_length_s = *d;
  } else {
    return bad(text, "unknown \"type\" '" + type +
                         "' (expected viewer, weather, density, time, player, player_off or "
                         "hit)");
  }
  return c;
}
}  // namespace cityforge::server
