// How a test says it did not run. CTest marks a test SKIPPED when its output contains the marker
// (tests/CMakeLists.txt sets SKIP_REGULAR_EXPRESSION to it), so a skipped test is never counted
// as passed.
#pragma once

#include <iostream>

#define ADRENO_TEST_SKIP_MARKER "ADRENO_TEST_SKIPPED"

/// Ends the current test case, reported as skipped with `reason`.
#define ADRENO_SKIP(reason)                                              \
  do {                                                                   \
    std::cout << ADRENO_TEST_SKIP_MARKER ": " << (reason) << std::endl; \
    return;                                                              \
  } while (0)
