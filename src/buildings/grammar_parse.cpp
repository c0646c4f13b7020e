// SPDX-License-Identifier: Apache-2.0
// Parser of the facade shape grammar: `|`-separated buckets of module keys, `(...)` macros that
// repeat to fit, `[...]N` macros that repeat exactly N times, `*` for scalable buckets.
// Based on: the building generator talk (seeds/000, 27:59-28:43); DESIGN.md "Building definition
// files and the facade shape grammar".
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>

#include "cityforge/buildings/style.hpp"

namespace cityforge::buildings {
namespace {

bool is_letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
// Names are [a-z0-9_]+; `{W}` (a one-letter key in braces) is accepted too.
bool is_name_char(char c) { return is_letter(c) || (c >= '0' && c <= '9') || c == '_'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

// Limits that keep a hostile grammar from exhausting the stack or memory.
constexpr int kMaxDepth = 16;
constexpr double kMaxExpandedModules = 65536.0;

// Modules of one pass of `terms` (each (...) counted once).
double expanded_count(const std::vector<GrammarTerm>& terms) {
  double n = 0.0;
  for (const GrammarTerm& t : terms) {
    n += t.kind == GrammarTerm::Kind::module ? 1.0 : t.count * expanded_count(t.body);
  }
  return n;
}

std::string show_char(char c) {
  if (c >= 0x20 && c < 0x7F) return std::string("'") + c + "'";
  char buf[8];
  std::snprintf(buf, sizeof buf, "0x%02X", static_cast<unsigned>(static_cast<unsigned char>(c)));
  return buf;
}

// Recursive descent over the string; the first error found stops the parse.
class Parser {
 public:
  Parser(std::string_view text, std::string_view where, const std::vector<std::string>& keys)
      : m_text(text), m_where(where), m_keys(keys) {}

  Result<Grammar> run() {
    Grammar g;
    g.text = std::string(m_text);
    skip_spaces();
    if (m_pos == m_text.size())
      return fail(m_pos, "expected at least one module, got an empty grammar");
    // A leading bar is optional.
    if (peek() == '|') {
      ++m_pos;
      skip_spaces();
    }
    for (;;) {
      if (m_pos == m_text.size()) {
        // Trailing bar (or "|" alone): nothing more.
        if (g.buckets.empty()) return fail(m_pos, "expected at least one bucket, got none");
        break;
      }
      const std::size_t start = m_pos;
      GrammarBucket bucket;
      if (!parse_bucket(bucket)) return *m_error;
      if (bucket.terms.empty()) {
        return fail(start, "empty bucket: expected a module key, '(', '[' or '*' before '|'");
      }
      g.buckets.push_back(std::move(bucket));
      if (m_pos == m_text.size()) break;
      // parse_bucket stops only at '|' or the end.
      ++m_pos;
      skip_spaces();
    }
    return g;
  }

 private:
  char peek() const { return m_pos < m_text.size() ? m_text[m_pos] : '\0'; }
  void skip_spaces() {
    while (m_pos < m_text.size() && (m_text[m_pos] == ' ' || m_text[m_pos] == '\t'))
      ++m_pos;
  }

  Error fail(std::size_t pos, const std::string& message) {
    if (!m_error) {
      m_error = Error::invalid_input(
          std::string(m_where),
          "column " + std::to_string(pos + 1) + " of \"" + std::string(m_text) + "\": " + message);
    }
    return *m_error;
  }

  // Bucket: ['*'] term+ up to '|' or the end.
  bool parse_bucket(GrammarBucket& bucket) {
    skip_spaces();
    if (peek() == '*') {
      bucket.scalable = true;
      ++m_pos;
    }
    for (;;) {
      skip_spaces();
      if (m_pos == m_text.size() || peek() == '|') return true;
      const char c = peek();
      if (c == ')' || c == ']' || c == '}') {
        fail(m_pos, "unexpected " + show_char(c) + " with no matching opening bracket");
        return false;
      }
      if (!parse_term(bucket.terms, /*in_repeat=*/false, /*open_pos=*/0, '\0')) return false;
    }
  }

  // Parses one term and appends it. Inside a macro `closer` is its closing bracket.
  bool parse_term(std::vector<GrammarTerm>& out, bool in_repeat, std::size_t open_pos,
                  char closer) {
    const std::size_t at = m_pos;
    const char c = peek();
    if (is_letter(c)) {
      ++m_pos;
      return push_module(out, std::string(1, c), at);
    }
    if (c == '{') {
      ++m_pos;
      const std::size_t name_start = m_pos;
      while (m_pos < m_text.size() && is_name_char(m_text[m_pos]))
        ++m_pos;
      if (m_pos == m_text.size()) {
        fail(m_pos, "'{' opened at column " + std::to_string(at + 1) +
                        " is not closed: expected '}', got the end of the grammar");
        return false;
      }
      if (m_text[m_pos] != '}') {
        fail(m_pos,
             "expected a module name of [a-z0-9_] then '}', got " + show_char(m_text[m_pos]));
        return false;
      }
      if (m_pos == name_start) {
        fail(at, "empty module name '{}'");
        return false;
      }
      const std::string name(m_text.substr(name_start, m_pos - name_start));
      ++m_pos;
      return push_module(out, name, at);
    }
    if ((c == '(' || c == '[') && m_depth >= kMaxDepth) {
      fail(at, "macros nested deeper than " + std::to_string(kMaxDepth) + " levels");
      return false;
    }
    if (c == '(') {
      if (in_repeat) {
        fail(at, "nested '(' inside the '(' opened at column " + std::to_string(open_pos + 1) +
                     ": a repeat-to-fit macro may not contain another; use [...]N");
        return false;
      }
      ++m_pos;
      GrammarTerm t;
      t.kind = GrammarTerm::Kind::repeat;
      if (!parse_macro_body(t.body, at, ')', true)) return false;
      out.push_back(std::move(t));
      return true;
    }
    if (c == '[') {
      ++m_pos;
      GrammarTerm t;
      t.kind = GrammarTerm::Kind::fixed_repeat;
      if (!parse_macro_body(t.body, at, ']', in_repeat)) return false;
      // The count follows the bracket directly.
      const std::size_t count_pos = m_pos;
      std::uint64_t n = 0;
      while (m_pos < m_text.size() && is_digit(m_text[m_pos])) {
        n = n * 10 + static_cast<std::uint64_t>(m_text[m_pos] - '0');
        if (n > 1000000) {
          fail(count_pos, "repeat count after ']' is too large (max 1000000)");
          return false;
        }
        ++m_pos;
      }
      if (m_pos == count_pos) {
        fail(count_pos, "expected a repeat count N >= 1 after the ']' closing the '[' at column " +
                            std::to_string(at + 1) + ", got " +
                            (m_pos < m_text.size() ? show_char(m_text[m_pos]) : "the end"));
        return false;
      }
      if (n == 0) {
        fail(count_pos, "repeat count must be >= 1, got 0");
        return false;
      }
      t.count = static_cast<std::uint32_t>(n);
      if (t.count * expanded_count(t.body) > kMaxExpandedModules) {
        fail(count_pos, "[...]" + std::to_string(n) + " expands to more than " +
                            std::to_string(static_cast<int>(kMaxExpandedModules)) + " modules");
        return false;
      }
      out.push_back(std::move(t));
      return true;
    }
    if (c == '*') {
      fail(at, "'*' may only start a bucket (right after '|' or at the start)");
      return false;
    }
    (void)closer;
    fail(at, "unexpected " + show_char(c) +
                 ": expected a module key (letter or {name}), '(', '[', '*' or '|'");
    return false;
  }

  bool parse_macro_body(std::vector<GrammarTerm>& body, std::size_t open_pos, char closer,
                        bool in_repeat) {
    const char opener = closer == ')' ? '(' : '[';
    ++m_depth;
    const bool ok = parse_macro_body_inner(body, open_pos, closer, opener, in_repeat);
    --m_depth;
    return ok;
  }

  bool parse_macro_body_inner(std::vector<GrammarTerm>& body, std::size_t open_pos, char closer,
                              char opener, bool in_repeat) {
    for (;;) {
      skip_spaces();
      if (m_pos == m_text.size()) {
        fail(m_pos, std::string("'") + opener + "' opened at column " +
                        std::to_string(open_pos + 1) + " is not closed: expected '" + closer +
                        "', got the end of the grammar");
        return false;
      }
      const char c = peek();
      if (c == closer) {
        if (body.empty()) {
          fail(m_pos, std::string("empty macro '") + opener + closer + "': expected module keys");
          return false;
        }
        ++m_pos;
        return true;
      }
      if (c == '|' || c == ')' || c == ']' || c == '}') {
        fail(m_pos, std::string("'") + opener + "' opened at column " +
                        std::to_string(open_pos + 1) + " is not closed: expected '" + closer +
                        "', got " + show_char(c));
        return false;
      }
      if (!parse_term(body, in_repeat, open_pos, closer)) return false;
    }
  }

  bool push_module(std::vector<GrammarTerm>& out, const std::string& key, std::size_t at) {
    for (std::size_t i = 0; i < m_keys.size(); ++i) {
      if (m_keys[i] == key) {
        GrammarTerm t;
        t.kind = GrammarTerm::Kind::module;
        t.module = static_cast<std::uint32_t>(i);
        out.push_back(std::move(t));
        return true;
      }
    }
    std::string known;
    for (std::size_t i = 0; i < m_keys.size() && i < 24; ++i) {
      known +=
          (known.empty() ? "" : ", ") + (m_keys[i].size() == 1 ? m_keys[i] : "{" + m_keys[i] + "}");
    }
    if (m_keys.size() > 24) known += ", ...";
    const std::string shown = key.size() == 1 && is_letter(key[0]) ? key : "{" + key + "}";
    fail(at, "unknown module key '" + shown + "'; expected one of: " +
                 (known.empty() ? std::string("(no modules defined)") : known));
    return false;
  }

  std::string_view m_text;
  std::string_view m_where;
  const std::vector<std::string>& m_keys;
  std::size_t m_pos = 0;
  int m_depth = 0;
  std::optional<Error> m_error;
};

}  // namespace

Result<Grammar> parse_grammar(std::string_view text, std::string_view where,
                              const std::vector<std::string>& keys) {
  Parser p(text, where, keys);
  return p.run();
}

}  // namespace cityforge::buildings
