#!/usr/bin/env bash
# Installs what is missing from Debian 12 / Ubuntu 24.04 packages, then configures and
# builds Warpscope with a CMake preset (default: "default", into build/).
#   cmake/setup.sh [preset]
# CUDA is used when nvcc is on PATH or in /usr/local/cuda; nothing else is needed for it.
set -euo pipefail
preset=${1:-default}
cd "$(dirname "$0")/.."

packages=(cmake ninja-build g++ pkg-config qt6-base-dev libqt6opengl6-dev qt6-qpa-plugins
          libqcustomplot-dev libgtest-dev libgl-dev libegl-dev libgl1-mesa-dri libglx-mesa0
          libegl-mesa0 xvfb xauth fonts-dejavu-core clang libclang-rt-dev libcfitsio-dev
          zlib1g-dev libseccomp-dev libopenmpi-dev openmpi-bin libqscintilla2-qt6-dev ccache
          libboost-context-dev libdw-dev
          python3-numpy) # the tests read --export-field's .npy files with NumPy
missing=()
for p in "${packages[@]}"; do
    dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "Installing: ${missing[*]}"
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

cmake --preset "$preset"
cmake --build --preset "$preset" --parallel "$(nproc)"
