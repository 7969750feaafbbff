#!/usr/bin/env bash
# consumer_test.sh BUILD_DIR CONSUMER_SOURCE SCRATCH
set -euo pipefail
build=$1 source=$2 scratch=$3
rm -rf "$scratch" && mkdir -p "$scratch"
prefix=$scratch/prefix
cmake --install "$build" --prefix "$prefix" >/dev/null

echo "== CMake package"
cmake -S "$source" -B "$scratch/cmake" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$scratch/cmake" >/dev/null
LD_LIBRARY_PATH=$prefix/lib "$scratch/cmake/consumer"

echo "== pkg-config"
libdir=$(ls -d "$prefix"/lib*/pkgconfig | head -n 1)
flags=$(PKG_CONFIG_PATH=$libdir pkg-config --cflags --libs adreno)
# shellcheck disable=SC2086
g++ -std=c++20 "$source/consumer.cpp" $flags -o "$scratch/consumer-pc"
LD_LIBRARY_PATH=$(dirname "$libdir") "$scratch/consumer-pc"
