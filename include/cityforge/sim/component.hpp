// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace cityforge::sim {

/// Dense id of a registered component type, in registration order (0, 1, ...).
using ComponentId = std::uint32_t;

/// At most this many component types per world (one bit each in a `ComponentMask`).
inline constexpr std::size_t kMaxComponents = 64;

/// A component: a small, trivially copyable struct without padding bytes (its bytes are copied
/// and hashed as they are), e.g. `struct Position { float x_m, y_m; };`.
template <class T>
concept Component =
    std::is_trivially_copyable_v<T> && std::is_standard_layout_v<T> && !std::is_empty_v<T> &&
    alignof(T) <= 16 && sizeof(T) <= 256;

/// A set of component types; an archetype is one such set (bits are ids, so it is sorted).
struct ComponentMask {
  std::uint64_t bits = 0;

  [[nodiscard]] constexpr bool has(ComponentId id) const { return ((bits >> id) & 1U) != 0; }
  constexpr ComponentMask& set(ComponentId id) {
    bits |= std::uint64_t{1} << id;
    return *this;
  }
  constexpr ComponentMask& reset(ComponentId id) {
    bits &= ~(std::uint64_t{1} << id);
    return *this;
  }
  [[nodiscard]] constexpr bool contains(ComponentMask o) const { return (bits & o.bits) == o.bits; }
  [[nodiscard]] constexpr bool intersects(ComponentMask o) const { return (bits & o.bits) != 0; }
  [[nodiscard]] constexpr bool empty() const { return bits == 0; }
  [[nodiscard]] constexpr int count() const { return std::popcount(bits); }
  friend constexpr ComponentMask operator|(ComponentMask a, ComponentMask b) {
    return {a.bits | b.bits};
  }
  friend constexpr bool operator==(ComponentMask, ComponentMask) = default;
};

/// What the world knows about one component type.
struct ComponentInfo {
  std::string name;         ///< For messages and docs only; not hashed.
  std::uint32_t size = 0;   ///< sizeof, bytes.
  std::uint32_t align = 0;  ///< alignof, bytes (<= 16).
  const void* key = nullptr;
};

namespace detail {
/// One distinct address per type (inline variable: the same object in every translation unit).
/// Only used as a lookup key, never ordered or hashed.
template <class T>
inline constexpr char kTypeKey = 0;
}  // namespace detail

/// Maps component types to dense ids, assigned in registration order (so registering the same
/// types in the same order gives the same ids on every run).
class ComponentRegistry {
 public:
  /// Registers T (idempotent: a second call returns the first id). At most `kMaxComponents`.
  template <Component T>
  ComponentId add(std::string name) {
    return add_raw(&detail::kTypeKey<T>, std::move(name), sizeof(T), alignof(T));
  }
  /// The id of T, or nothing when T is not registered.
  template <Component T>
  [[nodiscard]] std::optional<ComponentId> find() const {
    return find_raw(&detail::kTypeKey<T>);
  }
  /// The id of a registered T (asserts registration).
  template <Component T>
  [[nodiscard]] ComponentId id() const {
    return id_raw(&detail::kTypeKey<T>);
  }
  [[nodiscard]] const ComponentInfo& info(ComponentId id) const { return m_infos[id]; }
  [[nodiscard]] std::size_t size() const { return m_infos.size(); }

 private:
  ComponentId add_raw(const void* key, std::string name, std::uint32_t size, std::uint32_t align);
  [[nodiscard]] std::optional<ComponentId> find_raw(const void* key) const;
  [[nodiscard]] ComponentId id_raw(const void* key) const;

  std::vector<ComponentInfo> m_infos;
};

}  // namespace cityforge::sim
