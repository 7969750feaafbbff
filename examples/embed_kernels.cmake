# Writes OUTPUT, a header with each KERNEL_DIR/*.s as `kernels::<file name>` for C++ and as
# `kernels_<file name>` for C (a string literal each languages reads, so C never meets a C++ raw
# string even in a skipped block).
file(GLOB SOURCES ${KERNEL_DIR}/*.s)
list(SORT SOURCES)
set(cpp "#ifdef __cplusplus\nnamespace kernels {\n")
set(c "#else\n")
foreach(source IN LISTS SOURCES)
  get_filename_component(name ${source} NAME_WE)
  file(READ ${source} body)
  string(REPLACE "\\" "\\\\" literal "${body}")
  string(REPLACE "\"" "\\\"" literal "${literal}")
  string(REPLACE "\n" "\\n\"\n  \"" literal "${literal}")
  string(APPEND cpp "inline constexpr const char* ${name} =\n  \"${literal}\";\n")
  string(APPEND c "static const char kernels_${name}[] =\n  \"${literal}\";\n")
endforeach()
file(WRITE ${OUTPUT} "// Generated from examples/kernels/*.s by embed_kernels.cmake; edit those files.\n#pragma once\n\n"
                     "${cpp}}  // namespace kernels\n${c}#endif\n")
