#!/usr/bin/env bash
# consumer_test.sh BUILD_DIR SOURCE_DIR SCRATCH CASE
# Installs the library into a scratch prefix and exercises it as a user would. CASE:
#   cmake       a consumer built through the CMake package
#   pkg-config  the same consumer built through pkg-config
#   no-std      a consumer that sets no C++ standard and links the test kit component
#   tool        an installed tool runs with no loader path set, also after the tree moved
set -euo pipefail
build=$1 source=$2 scratch=$3 case=$4
rm -rf "$scratch" && mkdir -p "$scratch"
prefix=$scratch/prefix
cmake --install "$build" --prefix "$prefix" >/dev/null
unset LD_LIBRARY_PATH

case $case in
  cmake)
    cmake -S "$source/consumer" -B "$scratch/cmake" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
    cmake --build "$scratch/cmake" >/dev/null
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
  no-std)
    # No CMAKE_CXX_STANDARD, no compile feature in the consumer: the compiler's default (C++17
    # for GCC 12) would fail on the public headers unless the package carries C++20.
    cmake -S "$source/kit_consumer" -B "$scratch/kit" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
    cmake --build "$scratch/kit" >/dev/null
    LD_LIBRARY_PATH=$prefix/lib "$scratch/kit/kit_consumer"
    ;;
  tool)
    "$prefix/bin/adreno-info" --virtual
    # The run path is relative: the moved tree still works.
    mv "$prefix" "$scratch/moved"
    "$scratch/moved/bin/adreno-info" --virtual --json >/dev/null
    echo "adreno-info runs from the moved tree"
    ;;
  *)
    echo "unknown case $case" >&2
    exit 2
    ;;
esac
