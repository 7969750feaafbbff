# Shared by scripts/demo, scripts/test and scripts/bench: install what the build needs, configure
# and build one build tree. Sourced, not run.
set -euo pipefail

ADRENO_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ADRENO_PACKAGES=(g++ cmake make pkg-config libdrm-dev libspdlog-dev libfmt-dev catch2
                 libbenchmark-dev libcli11-dev nlohmann-json3-dev
                 python3-pytest python3-numpy)  # the Python package's tests (numpy: optional paths)

# Installs the Debian packages that are missing (as root, or through sudo).
adreno_install_packages() {
  local missing=()
  for package in "${ADRENO_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" ||
      missing+=("$package")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "Installing: ${missing[*]}"
  local sudo=()
  [ "$(id -u)" -eq 0 ] || sudo=(sudo)
  "${sudo[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

# adreno_build DIR [cmake options...]: configures (once) and builds DIR with two jobs.
adreno_build() {
  local dir=$1; shift
  cmake -S "$ADRENO_ROOT" -B "$dir" "$@" >/dev/null
  cmake --build "$dir" -j "${ADRENO_JOBS:-2}"
}
