// SPDX-License-Identifier: Apache-2.0
// Weather: a table of factors on the drivers' desired speed and IDM parameters per weather kind
// (docs/traffic.md, "Weather", has the table and its reasoning), and Simulation::set_weather,
// which applies them to every vehicle type from the next tick.
// Based on: Highway Capacity Manual 2010, ch. 10 (free-flow speed reductions in rain, snow and
// low visibility); Hranac et al. (2006), "Empirical Studies on Traffic Flow in Inclement
// Weather", FHWA-HOP-07-073; Ibrahim & Hall (1994), "Effect of adverse weather conditions on
// speed-flow-occupancy relationships"; Treiber & Kesting (2013), "Traffic Flow Dynamics",
// where adverse conditions change the IDM's parameters, not the model.
#include <algorithm>
#include <array>
#include <cmath>

#include "traffic/detail/processors.hpp"

namespace cityforge::traffic {
namespace {

constexpr std::array<const char*, kWeatherKinds> kNames{"clear", "cloudy", "rain", "storm", "fog"};

/// speed, comfort_decel, time_gap, min_gap per kind (docs/traffic.md).
constexpr std::array<WeatherEffect, kWeatherKinds> kTable{{
    {1.00f, 1.00f, 1.00f, 1.00f},  // clear
    {1.00f, 1.00f, 1.00f, 1.00f},  // cloudy
    {0.90f, 0.80f, 1.20f, 1.10f},  // rain: wet road, lower speeds, longer gaps
    {0.80f, 0.65f, 1.40f, 1.25f},  // storm: heavy rain, spray, wind
    {0.85f, 0.90f, 1.30f, 1.20f},  // fog: short sight distance
}};

float clamped(float f, float hi) {
  if (!std::isfinite(f)) return 1.0f;
  return std::clamp(f, 0.1f, hi);
}

}  // namespace

const char* to_string(WeatherKind k) {
  const auto i = static_cast<std::size_t>(k);
  return i < kNames.size() ? kNames[i] : "?";
}

Result<WeatherKind> parse_weather(std::string_view name) {
  for (std::size_t i = 0; i < kNames.size(); ++i) {
    if (name == kNames[i]) return static_cast<WeatherKind>(i);
  }
  return Error::invalid_input(
      "weather", "expected clear, cloudy, rain, storm or fog, found \"" + std::string(name) + "\"");
}

WeatherEffect weather_effect(WeatherKind kind, bool fog) {
  const auto i = static_cast<std::size_t>(kind);
  WeatherEffect e = i < kTable.size() ? kTable[i] : WeatherEffect{};
  if (fog) {
    // Fog over rain or a storm: the worse of each factor.
    const WeatherEffect& f = kTable[static_cast<std::size_t>(WeatherKind::fog)];
    e.speed_factor = std::min(e.speed_factor, f.speed_factor);
    e.comfort_decel_factor = std::min(e.comfort_decel_factor, f.comfort_decel_factor);
    e.time_gap_factor = std::max(e.time_gap_factor, f.time_gap_factor);
    e.min_gap_factor = std::max(e.min_gap_factor, f.min_gap_factor);
  }
  return e;
}

void Simulation::set_weather(const WeatherEffect& effect) {
  Impl& m = *m_impl;
  WeatherEffect e;
  e.speed_factor = clamped(effect.speed_factor, 1.5f);
  e.comfort_decel_factor = clamped(effect.comfort_decel_factor, 4.0f);
  e.time_gap_factor = clamped(effect.time_gap_factor, 4.0f);
  e.min_gap_factor = clamped(effect.min_gap_factor, 4.0f);
  m.weather = e;
  for (std::size_t t = 0; t < kVehicleTypes; ++t) {
    const VehicleParams& base = m.config.params[t];
    VehicleParams& p = m.params[t];
    p = base;
    p.comfort_decel_mps2 =
        std::min(base.comfort_decel_mps2 * e.comfort_decel_factor, base.max_decel_mps2);
    p.time_gap_s = base.time_gap_s * e.time_gap_factor;
    p.min_gap_m = base.min_gap_m * e.min_gap_factor;
  }
}

const WeatherEffect& Simulation::weather() const { return m_impl->weather; }

}  // namespace cityforge::traffic
