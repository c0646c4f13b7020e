// SPDX-License-Identifier: Apache-2.0
#include "cityforge/roads/roads.hpp"

namespace cityforge::roads {

const char* to_string(Control c) {
  switch (c) {
    case Control::none:
      return "none";
    case Control::yield:
      return "yield";
    case Control::stop:
      return "stop";
    case Control::signal:
      return "signal";
  }
  return "?";
}

double SignalPlan::cycle_s() const {
  double total = 0.0;
  for (const Phase& p : phases)
    total += p.green_s + p.yellow_s + p.all_red_s;
  return total;
}

}  // namespace cityforge::roads
