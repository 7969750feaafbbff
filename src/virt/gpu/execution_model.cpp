#include "virt/gpu/execution_model.h"

#include <cstdlib>
#include <string_view>

namespace adreno::virt {

ExecutionModel ExecutionModel::from_environment() {
  const char* order = std::getenv("ADRENO_VIRTUAL_ORDER");
  ExecutionModel model = order != nullptr && std::string_view(order) == "strict" ? strict() : ExecutionModel{};
  if (const char* seed = std::getenv("ADRENO_VIRTUAL_SEED"); seed != nullptr && model.reorder) {
    model.seed = std::strtoull(seed, nullptr, 0);
  }
  model.hazards = hazard_mode_from_environment();
  return model;
}

}  // namespace adreno::virt
