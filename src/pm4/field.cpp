#include "pm4/field.h"

#include <fmt/format.h>

#include <adreno/error.hpp>

namespace adreno::pm4 {

void throw_field_out_of_range(const Field& field, std::uint64_t value) {
  std::string rule = field.shr == 0 ? fmt::format("at most {:#x}", field.max_value())
                                    : fmt::format("a multiple of {:#x} up to {:#x}", 1ull << field.shr,
                                                  field.max_value());
  throw Error(Errc::invalid_argument, "pack register field",
              fmt::format("{} = {:#x} does not fit bits [{}:{}]; the value must be {}", field.name, value,
                          field.high, field.low, rule));
}

void throw_no_such_field(const Register& reg, std::string_view field) {
  throw Error(Errc::not_found, "look up register field", fmt::format("{} has no field {}", reg.name, field));
}

}  // namespace adreno::pm4
