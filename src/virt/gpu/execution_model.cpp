#include "virt/gpu/execution_model.h"

#include <cstdlib>
#include <string_view>

namespace adreno::virt {

ExecutionModel ExecutionModel::from_environment() {
  const char* order = std::getenv("ADRENO_VIRTUAL_ORDER");
  if (order != nullptr && std::string_view(order) == "strict") return strict();
  ExecutionModel model;
  if (const char* seed = std::getenv("ADRENO_VIRTUAL_SEED")) model.seed = std::strtoull(seed, nullptr, 0);
  return model;
}

}  // namespace adreno::virt
