# The layer check itself: on a copy of src/ with planted violations it must fail and name each —
# a quoted include and an angle-bracket include of a layer above, and the kernel interface
# including a backend that implements it — while a system header that
# shares a layer's name (<sys/mman.h> in the C API) is not one.
# Run as: cmake -DSRC=<src dir> -DSCRATCH=<dir> -DCHECK=<check_layers.cmake> -P check_layers_self_test.cmake
file(REMOVE_RECURSE ${SCRATCH})
file(COPY ${SRC}/ DESTINATION ${SCRATCH}/src)
file(WRITE ${SCRATCH}/src/kernel/planted_angle.h "#pragma once\n#include <core/device_impl.h>\n")
file(WRITE ${SCRATCH}/src/kernel/planted_backend.h "#pragma once\n#include \"kgsl/kgsl_kernel.h\"\n")
file(WRITE ${SCRATCH}/src/pm4/planted_quoted.h "#pragma once\n#include \"kernel/kernel.h\"\n")
file(WRITE ${SCRATCH}/src/capi/planted_system.h "#pragma once\n#include <sys/mman.h>\n")
execute_process(COMMAND ${CMAKE_COMMAND} -DSRC=${SCRATCH}/src -P ${CHECK}
                RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(result EQUAL 0)
  message(FATAL_ERROR "the layer check passed a tree with planted violations:\n${out}")
endif()
foreach(expected IN ITEMS "kernel/planted_angle.h: #include \"core/device_impl.h\" (kernel must not depend on core)"
                          "kernel/planted_backend.h: #include \"kgsl/kgsl_kernel.h\" (kernel must not depend on kgsl)"
                          "pm4/planted_quoted.h: #include \"kernel/kernel.h\" (pm4 must not depend on kernel)")
  string(FIND "${out}" "${expected}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "the layer check did not report '${expected}':\n${out}")
  endif()
endforeach()
string(FIND "${out}" "planted_system.h" at)
if(NOT at EQUAL -1)
  message(FATAL_ERROR "the layer check took <sys/mman.h> for the sys layer:\n${out}")
endif()
file(REMOVE_RECURSE ${SCRATCH})
message(STATUS "the layer check reports quoted and angle-bracket violations, not system headers")
