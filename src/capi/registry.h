// The table from C handles to objects. A handle is a number, never a pointer: it is looked up
// before anything is touched, so a NULL, released, made-up or other-type handle is refused with
// Error(invalid_argument) instead of being dereferenced. Numbers are never reused, so a stale
// handle cannot name a newer object. Lookups hand out shared ownership: an object released on
// another thread during a call lives until that call returns.
#pragma once

#include "capi/objects.h"

#include <cstdint>
#include <memory>
#include <typeindex>

namespace adreno::capi {

class Registry {
 public:
  /// Registers `object` and returns its new handle number.
  std::uintptr_t add(std::type_index type, const char* type_name, std::shared_ptr<void> object);
  /// The object `number` names if it has `type`, else throws Error(invalid_argument) saying
  /// which `role` (a parameter name) was wrong and why.
  std::shared_ptr<void> find(std::uintptr_t number, std::type_index type, const char* type_name,
                             const char* role) const;
  /// Removes and returns it (checked as find).
  std::shared_ptr<void> remove(std::uintptr_t number, std::type_index type, const char* type_name,
                               const char* role);
  /// Handles registered and not removed.
  std::size_t size() const;
};

/// The process' one registry (never destroyed: objects the application did not release are its
/// to release, and must not be torn down behind its back at exit).
Registry& registry();

/// Registers `object` and writes its handle to `*out`.
template <typename Handle>
void publish(std::shared_ptr<typename ObjectOf<Handle>::type> object, Handle* out) {
  using Object = typename ObjectOf<Handle>::type;
  *out = reinterpret_cast<Handle>(registry().add(typeid(Object), Object::kName, std::move(object)));
}

/// The object behind `handle`; `role` names the parameter in the error.
template <typename Handle>
std::shared_ptr<typename ObjectOf<Handle>::type> lookup(Handle handle, const char* role) {
  using Object = typename ObjectOf<Handle>::type;
  return std::static_pointer_cast<Object>(
      registry().find(reinterpret_cast<std::uintptr_t>(handle), typeid(Object), Object::kName, role));
}

/// Takes `handle` out of the registry; the object goes when its last user lets go.
template <typename Handle>
std::shared_ptr<typename ObjectOf<Handle>::type> withdraw(Handle handle, const char* role) {
  using Object = typename ObjectOf<Handle>::type;
  return std::static_pointer_cast<Object>(
      registry().remove(reinterpret_cast<std::uintptr_t>(handle), typeid(Object), Object::kName, role));
}

}  // namespace adreno::capi
