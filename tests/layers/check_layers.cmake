# Checks the one-way dependencies between the layers of ARCHITECTURE.md by reading every
# #include "layer/..." and #include <layer/...> of a project header in src/. Run as:
# cmake -DSRC=<src dir> -P check_layers.cmake
# Each rule: a layer, then the layers its files must not include. `common` (adreno::Error) is
# beneath every layer: any may include it, it includes none.
# The test kit (testing) is the top layer: it may include any other, none may include it. The C
# API (capi) sits on the public headers only: it includes no layer, and no layer includes it.
set(rules
  "common|core kernel sys kgsl msm alloc pm4 ir3 virt testing capi"
  "core|testing capi"
  "kernel|core kgsl msm alloc virt testing capi"
  "sys|core kernel kgsl msm alloc virt testing capi"
  "kgsl|core msm alloc virt testing capi"
  "msm|core kgsl alloc virt testing capi"
  "alloc|core kgsl msm virt testing capi"
  "pm4|core kernel kgsl msm alloc virt testing capi"
  "ir3|core kernel kgsl msm alloc virt testing capi"
  "virt/gpu|core kernel kgsl msm virt/kernels testing capi"
  "virt/kernels|core kernel testing capi"
  "testing|capi"
  "capi|core kernel sys kgsl msm pm4 alloc ir3 virt testing")
set(violations "")
get_filename_component(SRC "${SRC}" ABSOLUTE)
foreach(rule IN LISTS rules)
  string(REPLACE "|" ";" parts "${rule}")
  list(GET parts 0 layer)
  list(GET parts 1 forbidden)
  string(REPLACE " " ";" forbidden "${forbidden}")
  file(GLOB files ${SRC}/${layer}/*.h ${SRC}/${layer}/*.cpp)
  if(NOT files)
    message(FATAL_ERROR "layer ${layer}: no sources under ${SRC}/${layer}")
  endif()
  foreach(file IN LISTS files)
    file(STRINGS ${file} includes REGEX "^#include [\"<]")
    foreach(line IN LISTS includes)
      # src/ is on the include path, so <core/x.h> reaches a layer as "core/x.h" does; an
      # angle-bracket name counts when it is a file under src/ (<sys/mman.h> is the system's).
      if(line MATCHES "^#include <([^>]+)>")
        if(NOT EXISTS ${SRC}/${CMAKE_MATCH_1})
          continue()
        endif()
        string(REGEX REPLACE "^#include <([^>]+)>.*" "#include \"\\1\"" line "${line}")
      endif()
      foreach(other IN LISTS forbidden)
        if(line MATCHES "^#include \"${other}/")
          file(RELATIVE_PATH name ${SRC} ${file})
          string(APPEND violations "  ${name}: ${line} (${layer} must not depend on ${other})\n")
        endif()
      endforeach()
    endforeach()
  endforeach()
endforeach()
if(violations)
  message(FATAL_ERROR "layering violations:\n${violations}")
endif()
message(STATUS "layers: every include points down")
