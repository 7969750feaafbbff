// Test helper: the number of global operator new calls in this test binary so far, so a test
// can prove that a region of code allocates nothing.
#pragma once

#include <cstddef>

namespace adreno::pm4::testing {
std::size_t heap_allocations();
}
