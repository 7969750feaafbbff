#!/usr/bin/env bash
# consumer_test.sh BUILD_DIR SOURCE_DIR SCRATCH CASE
# Installs the library into a scratch prefix and exercises it as a user would. CASE:
#   cmake       a consumer that sets no C++ standard and links adreno::adreno alone, built
#               through the CMake package
#   pkg-config  the same consumer built through pkg-config
#   kit         a test that sets no C++ standard and links the test kit component
#   tool        every installed tool links the installed libadreno.so.0 and runs with no loader
#               path set, also after the tree moved
set -euo pipefail
build=$1 source=$2 scratch=$3 case=$4
rm -rf "$scratch" && mkdir -p "$scratch"
prefix=$scratch/prefix
cmake --install "$build" --prefix "$prefix" >/dev/null
unset LD_LIBRARY_PATH
# A standard the consumers set through the environment would hide a package that forgot C++20.
unset CXXFLAGS

case $case in
  cmake)
    # No CMAKE_CXX_STANDARD, no compile feature in the consumer: the compiler's default (C++17
    # for GCC 12) fails on the public headers, so the C++20 flag must come from the package's
    # INTERFACE_COMPILE_FEATURES — and be on the consumer's compile line.
    cmake -S "$source/consumer" -B "$scratch/cmake" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
    cmake --build "$scratch/cmake" >/dev/null
    grep -Eq -- '-std=(gnu|c)\+\+(20|2a)' "$scratch/cmake/CMakeFiles/consumer.dir/flags.make" ||
      { echo "the consumer compiled without C++20 from the package"; exit 1; }
    LD_LIBRARY_PATH=$prefix/lib "$scratch/cmake/consumer"
    ;;
  pkg-config)
    libdir=$(ls -d "$prefix"/lib*/pkgconfig | head -n 1)
    std=$(PKG_CONFIG_PATH=$libdir pkg-config --variable=cxx_std adreno)
    flags=$(PKG_CONFIG_PATH=$libdir pkg-config --cflags --libs adreno)
    # shellcheck disable=SC2086
    g++ -std="$std" "$source/consumer/consumer.cpp" $flags -o "$scratch/consumer-pc"
    LD_LIBRARY_PATH=$(dirname "$libdir") "$scratch/consumer-pc"
    ;;
  kit)
    # Also no standard set: adreno::testing brings adreno::adreno and its C++20 requirement.
    cmake -S "$source/kit_consumer" -B "$scratch/kit" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
    cmake --build "$scratch/kit" >/dev/null
    LD_LIBRARY_PATH=$prefix/lib "$scratch/kit/kit_consumer"
    ;;
  tool)
    # Every installed tool is a user of the installed library: libadreno.so.0 is NEEDED, and the
    # loader finds it in this prefix through the relative run path, with no LD_LIBRARY_PATH —
    # before and after the whole tree moved.
    kernel=$source/../../examples/kernels/vector_add.s
    run_tools() {
      local bin=$1 root=$2 count=0
      for tool in "$bin"/adreno-*; do
        readelf -d "$tool" | grep -q 'NEEDED.*\[libadreno\.so\.0\]' ||
          { echo "$tool does not link libadreno.so.0"; exit 1; }
        resolved=$(ldd "$tool" | awk '$1 == "libadreno.so.0" {print $3}')
        [[ $resolved == "$root"/* ]] ||
          { echo "$tool loads libadreno.so.0 from '$resolved', not from $root"; exit 1; }
        "$tool" --help >/dev/null
        count=$((count + 1))
      done
      [ "$count" -ge 5 ] || { echo "only $count tools installed in $bin"; exit 1; }
      "$bin/adreno-info" --virtual --json >/dev/null
      # The tool that dispatches: vector add of iota and iota, element i is 2i.
      "$bin/adreno-run" --virtual "$kernel" -a buf:1024xu32 -a buf:1024xu32:iota -a buf:1024xu32:iota -g 16 \
        --print 0 -n 4 | grep -q '0 2 4 6' || { echo "adreno-run from $bin printed the wrong sums"; exit 1; }
      "$bin/adreno-asm" "$kernel" -o "$scratch/vector_add.bin" >/dev/null
      "$bin/adreno-disasm" "$scratch/vector_add.bin" | grep -q 'add.u' ||
        { echo "adreno-disasm from $bin did not disassemble what adreno-asm assembled"; exit 1; }
      echo "$count tools in $bin link and load $root's libadreno.so.0"
    }
    run_tools "$prefix/bin" "$prefix"
    mv "$prefix" "$scratch/moved"
    run_tools "$scratch/moved/bin" "$scratch/moved"
    ;;
  *)
    echo "unknown case $case" >&2
    exit 2
    ;;
esac
