// SPDX-License-Identifier: Apache-2.0
// Fitting a facade grammar to a wall: every `(...)` macro repeats the same n times (symmetric
// facades), n as large as fits; the remaining gap is absorbed by the `*` buckets, else by all
// modules. choose_grammar picks the grammar with the smallest non-negative gap.
// Based on: the building generator talk (seeds/000, 28:43-29:14).
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "cityforge/buildings/style.hpp"
#include "cityforge/core/assert.hpp"

namespace cityforge::buildings {
namespace {

constexpr double kEps = 1e-9;
// No facade needs more modules than this; it bounds memory for absurd lengths.
constexpr double kMaxModules = 1 << 20;

// Natural length and module count of a term list as linear functions of n:
// fixed + n * per_repeat.
struct Linear {
  double fixed_m = 0.0;
  double repeat_m = 0.0;
  double fixed_count = 0.0;
  double repeat_count = 0.0;
};

Linear measure(const std::vector<GrammarTerm>& terms, const std::vector<double>& widths) {
  Linear sum;
  for (const GrammarTerm& t : terms) {
    switch (t.kind) {
      case GrammarTerm::Kind::module:
        CF_ASSERT(t.module < widths.size(), "grammar module index outside widths");
        sum.fixed_m += widths[t.module];
        sum.fixed_count += 1.0;
        break;
      case GrammarTerm::Kind::repeat: {
        // A (...) body holds no (...), so it is all fixed.
        const Linear b = measure(t.body, widths);
        sum.repeat_m += b.fixed_m;
        sum.repeat_count += b.fixed_count;
        break;
      }
      case GrammarTerm::Kind::fixed_repeat: {
        const Linear b = measure(t.body, widths);
        sum.fixed_m += t.count * b.fixed_m;
        sum.repeat_m += t.count * b.repeat_m;
        sum.fixed_count += t.count * b.fixed_count;
        sum.repeat_count += t.count * b.repeat_count;
        break;
      }
    }
  }
  return sum;
}

Linear measure(const Grammar& g, const std::vector<double>& widths) {
  Linear sum;
  for (const GrammarBucket& b : g.buckets) {
    const Linear l = measure(b.terms, widths);
    sum.fixed_m += l.fixed_m;
    sum.repeat_m += l.repeat_m;
    sum.fixed_count += l.fixed_count;
    sum.repeat_count += l.repeat_count;
  }
  return sum;
}

// The largest n >= 0 with fixed + n * repeat <= length (0 when nothing repeats or n = 0 is
// already too long).
std::uint64_t repeats_that_fit(const Linear& l, double length_m) {
  if (l.repeat_m <= 0.0 || l.fixed_m > length_m + kEps) return 0;
  double n = std::floor((length_m - l.fixed_m) / l.repeat_m);
  if (l.repeat_count > 0.0) {
    n = std::min(n, std::floor((kMaxModules - l.fixed_count) / l.repeat_count));
  }
  n = std::max(n, 0.0);
  auto k = static_cast<std::uint64_t>(n);
  // Division rounding: settle exactly on the tolerance.
  while (l.fixed_m + static_cast<double>(k + 1) * l.repeat_m <= length_m + kEps &&
         l.fixed_count + static_cast<double>(k + 1) * l.repeat_count <= kMaxModules) {
    ++k;
  }
  while (k > 0 && l.fixed_m + static_cast<double>(k) * l.repeat_m > length_m + kEps)
    --k;
  return k;
}

// As repeats_that_fit, but a grammar made only of (...) macros places at least one pass (then
// shrunk by the fallback when it is too long), so every wall gets modules.
std::uint64_t repeats_to_place(const Linear& l, double length_m) {
  const std::uint64_t k = repeats_that_fit(l, length_m);
  return k == 0 && l.fixed_count == 0.0 && l.repeat_count > 0.0 ? 1 : k;
}

void emit(const std::vector<GrammarTerm>& terms, const std::vector<double>& widths, std::uint64_t n,
          bool scalable, std::vector<FittedModule>& out, std::vector<char>& out_scalable) {
  for (const GrammarTerm& t : terms) {
    switch (t.kind) {
      case GrammarTerm::Kind::module:
        out.push_back(FittedModule{t.module, 0.0, widths[t.module]});
        out_scalable.push_back(scalable ? 1 : 0);
        break;
      case GrammarTerm::Kind::repeat:
        for (std::uint64_t i = 0; i < n; ++i)
          emit(t.body, widths, n, scalable, out, out_scalable);
        break;
      case GrammarTerm::Kind::fixed_repeat:
        for (std::uint32_t i = 0; i < t.count; ++i) {
          emit(t.body, widths, n, scalable, out, out_scalable);
        }
        break;
    }
  }
}

}  // namespace

GrammarFit fit_grammar(const Grammar& grammar, const std::vector<double>& widths, double length_m) {
  GrammarFit fit;
  // 1. Choose n, the common repeat count of every (...) macro.
  const Linear l = measure(grammar, widths);
  const std::uint64_t n = repeats_to_place(l, length_m);
  const double natural_m = l.fixed_m + static_cast<double>(n) * l.repeat_m;
  fit.gap_m = length_m - natural_m;
  fit.fits = natural_m <= length_m + kEps;
  if (fit.fits && fit.gap_m < 0.0) fit.gap_m = 0.0;

  // 2. Place the modules at their natural widths.
  std::vector<char> scalable;
  for (const GrammarBucket& b : grammar.buckets) {
    emit(b.terms, widths, n, b.scalable, fit.modules, scalable);
  }
  if (fit.modules.empty() || natural_m <= 0.0) return fit;

  // 3. Absorb the gap: `*` buckets when the grammar fits and has any, else every module.
  double scalable_m = 0.0;
  for (std::size_t i = 0; i < fit.modules.size(); ++i) {
    if (scalable[i] != 0) scalable_m += fit.modules[i].width_m;
  }
  const bool only_scalable = fit.fits && scalable_m > 0.0;
  fit.scale =
      only_scalable ? (scalable_m + fit.gap_m) / scalable_m : std::max(length_m, 0.0) / natural_m;
  double offset_m = 0.0;
  for (std::size_t i = 0; i < fit.modules.size(); ++i) {
    FittedModule& m = fit.modules[i];
    if (!only_scalable || scalable[i] != 0) m.width_m *= fit.scale;
    m.offset_m = offset_m;
    offset_m += m.width_m;
  }
  // Rounding: the last module ends exactly at the facade end.
  FittedModule& last = fit.modules.back();
  last.width_m = std::max(0.0, std::max(length_m, 0.0) - last.offset_m);
  return fit;
}

std::size_t choose_grammar(const std::vector<Grammar>& grammars, const std::vector<double>& widths,
                           double length_m, GrammarFit* fit) {
  CF_ASSERT(!grammars.empty(), "choose_grammar needs at least one grammar");
  std::size_t best_fit = grammars.size();
  double best_gap = 0.0;
  std::size_t best_over = grammars.size();
  double best_overshoot = 0.0;
  for (std::size_t i = 0; i < grammars.size(); ++i) {
    const Linear l = measure(grammars[i], widths);
    const double natural_m =
        l.fixed_m + static_cast<double>(repeats_to_place(l, length_m)) * l.repeat_m;
    const double gap_m = length_m - natural_m;
    if (natural_m <= length_m + kEps) {
      const double g = std::max(gap_m, 0.0);
      if (best_fit == grammars.size() || g < best_gap) {
        best_fit = i;
        best_gap = g;
      }
    } else if (best_over == grammars.size() || -gap_m < best_overshoot) {
      best_over = i;
      best_overshoot = -gap_m;
    }
  }
  const std::size_t chosen = best_fit != grammars.size() ? best_fit : best_over;
  if (fit != nullptr) *fit = fit_grammar(grammars[chosen], widths, length_m);
  return chosen;
}

}  // namespace cityforge::buildings
