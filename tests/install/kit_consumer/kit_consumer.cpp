// Outside the tree, against the installed headers only: an allocation the kit makes fail is
// seen by the application, and the kit's ledger is empty once the device closed.
#include <adreno/adreno.hpp>
#include <adreno/error.hpp>
#include <adreno/testing.hpp>

#include <cerrno>
#include <cstdio>

int main() {
  adreno::testing::VirtualDevice test({.driver = adreno::testing::Driver::msm});
  test.fail_call(adreno::testing::Operation::alloc, ENOMEM);
  bool refused = false;
  try {
    test.device().allocate({.size = 1 << 20, .exportable = true});
  } catch (const adreno::Error& error) {
    refused = error.sys_errno() == ENOMEM;
  }
  const bool allocated_after = test.device().allocate({.size = 1 << 20, .exportable = true}).size() == 1 << 20;
  const bool clean = test.close().empty();
  std::printf("kit consumer: refused %d, allocated after %d, no leaks %d\n", refused, allocated_after, clean);
  return refused && allocated_after && clean ? 0 : 1;
}
