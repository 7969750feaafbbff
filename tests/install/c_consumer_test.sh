#!/usr/bin/env bash
# c_consumer_test.sh BUILD_DIR CONSUMER_SOURCE SCRATCH [PYTHON]
# Installs the library into a scratch prefix, builds a C consumer of adreno.h against it through
# the CMake package and through pkg-config (C11, warnings as errors), runs both, then imports the
# installed Python package — which must find the installed libadreno.so by itself — and runs a
# write through it.
set -euo pipefail
build=$1 source=$2 scratch=$3 python=${4:-}
rm -rf "$scratch" && mkdir -p "$scratch"
prefix=$scratch/prefix
cmake --install "$build" --prefix "$prefix" >/dev/null
libdir=$(dirname "$(ls -d "$prefix"/lib*/pkgconfig | head -n 1)")

echo "== C consumer, CMake package"
cmake -S "$source" -B "$scratch/cmake" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$scratch/cmake" >/dev/null
LD_LIBRARY_PATH=$libdir "$scratch/cmake/c_consumer"

echo "== C consumer, pkg-config"
flags=$(PKG_CONFIG_PATH=$libdir/pkgconfig pkg-config --cflags --libs adreno)
# shellcheck disable=SC2086
cc -std=c11 -Wall -Wextra -Werror -pedantic "$source/consumer.c" $flags -o "$scratch/c-consumer-pc"
LD_LIBRARY_PATH=$libdir "$scratch/c-consumer-pc"

if [ -n "$python" ]; then
  echo "== installed Python package"
  package_dir=$(dirname "$(find "$prefix" -path '*/adreno/__init__.py' | head -n 1)")
  env -u ADRENO_LIBRARY -u LD_LIBRARY_PATH PYTHONPATH="$(dirname "$package_dir")" "$python" -c '
import adreno, os, random, sys
rng = random.Random(2026)
values = [rng.getrandbits(32) for _ in range(64)]
with adreno.Device.open("virtual-msm") as device, device.allocate(4096) as buffer, device.queue() as queue:
    queue.write(buffer, values)
    queue.finish()
    seen = list(buffer.view().cast("I")[:64]) == values
print("adreno", adreno.__version__, "(Python, installed):", "GPU write seen" if seen else "wrong",
      "- library", os.path.relpath(adreno._native.lib._name, os.path.dirname(adreno.__file__)))
sys.exit(0 if seen else 1)'
fi
