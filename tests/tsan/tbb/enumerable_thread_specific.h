// SPDX-License-Identifier: Apache-2.0
// ThreadSanitizer build only: see cityforge_fork_join.h. One value per thread id, made on first
// use (default-constructed, or by the function given to the constructor); a later thread that
// reuses a joined thread's id reuses its value, as TBB may.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <type_traits>
#include <utility>

namespace tbb {

template <typename T>
class enumerable_thread_specific {
 public:
  enumerable_thread_specific() = default;
  template <typename Finit, typename = std::enable_if_t<std::is_invocable_r_v<T, Finit>>>
  explicit enumerable_thread_specific(Finit finit) : m_make(std::move(finit)) {}
  /// A copy starts with no values (each thread makes its own again); a move takes them.
  enumerable_thread_specific(const enumerable_thread_specific& other) : m_make(other.m_make) {}
  enumerable_thread_specific& operator=(const enumerable_thread_specific& other) {
    if (this != &other) {
      const std::scoped_lock lock(m_mutex, other.m_mutex);
      m_make = other.m_make;
      m_values.clear();
    }
    return *this;
  }
  enumerable_thread_specific(enumerable_thread_specific&& other) noexcept {
    const std::lock_guard<std::mutex> lock(other.m_mutex);
    m_make = std::move(other.m_make);
    m_values.swap(other.m_values);
  }
  enumerable_thread_specific& operator=(enumerable_thread_specific&& other) noexcept {
    if (this != &other) {
      const std::scoped_lock lock(m_mutex, other.m_mutex);
      m_make = std::move(other.m_make);
      m_values.swap(other.m_values);
      other.m_values.clear();
    }
    return *this;
  }
  ~enumerable_thread_specific() = default;

  T& local() {
    const std::lock_guard<std::mutex> lock(m_mutex);
    std::unique_ptr<T>& slot = m_values[std::this_thread::get_id()];
    if (!slot) slot = m_make ? std::unique_ptr<T>(new T(m_make())) : make_default();
    return *slot;
  }

  void clear() {
    const std::lock_guard<std::mutex> lock(m_mutex);
    m_values.clear();
  }

 private:
  static std::unique_ptr<T> make_default() {
    if constexpr (std::is_default_constructible_v<T>) {
      return std::make_unique<T>();
    } else {
      return nullptr;  // TBB would not compile this use either.
    }
  }

  mutable std::mutex m_mutex;
  std::function<T()> m_make;
  std::map<std::thread::id, std::unique_ptr<T>> m_values;
};

}  // namespace tbb
