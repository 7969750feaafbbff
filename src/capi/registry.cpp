#include "capi/registry.h"

#include <adreno/error.hpp>

#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>

namespace adreno::capi {
namespace {

struct Entry {
  std::type_index type;
  const char* type_name;
  std::shared_ptr<void> object;
};

struct Table {
  mutable std::mutex mutex;
  std::unordered_map<std::uintptr_t, Entry> entries;
  std::uintptr_t next = 1;  // 0 is NULL
};

Table& table() {
  static Table* const instance = new Table;  // never destroyed, see registry()
  return *instance;
}

[[noreturn]] void refuse(const char* role, const char* type_name, const std::string& why) {
  throw Error(Errc::invalid_argument, std::string("look up ") + type_name, std::string(role) + " " + why);
}

const Entry& checked(const Table& t, std::uintptr_t number, std::type_index type, const char* type_name,
                     const char* role) {
  if (number == 0) refuse(role, type_name, "is NULL");
  auto found = t.entries.find(number);
  if (found == t.entries.end()) refuse(role, type_name, "is not a live handle (released, or never made)");
  if (found->second.type != type) {
    refuse(role, type_name, std::string("is an ") + found->second.type_name + " handle, not an " + type_name);
  }
  return found->second;
}

}  // namespace

std::uintptr_t Registry::add(std::type_index type, const char* type_name, std::shared_ptr<void> object) {
  Table& t = table();
  std::lock_guard lock(t.mutex);
  const std::uintptr_t number = t.next++;
  t.entries.emplace(number, Entry{type, type_name, std::move(object)});
  return number;
}

std::shared_ptr<void> Registry::find(std::uintptr_t number, std::type_index type, const char* type_name,
                                     const char* role) const {
  Table& t = table();
  std::lock_guard lock(t.mutex);
  return checked(t, number, type, type_name, role).object;
}

std::shared_ptr<void> Registry::remove(std::uintptr_t number, std::type_index type, const char* type_name,
                                       const char* role) {
  Table& t = table();
  std::lock_guard lock(t.mutex);
  std::shared_ptr<void> object = checked(t, number, type, type_name, role).object;
  t.entries.erase(number);
  return object;  // destroyed by the caller, outside the lock (a queue's destructor waits)
}

std::size_t Registry::size() const {
  Table& t = table();
  std::lock_guard lock(t.mutex);
  return t.entries.size();
}

Registry& registry() {
  static Registry instance;
  return instance;
}

}  // namespace adreno::capi
