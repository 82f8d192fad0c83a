#!/usr/bin/env bash
# Installs hipfuse's build dependencies from Debian's packages (idempotent) and builds it.
#   scripts/setup.sh [BUILD_DIR] [extra cmake args...]
# Needs root (or sudo) for apt-get, and the CUDA toolkit (CUDA_PATH or /usr/local/cuda).
set -euo pipefail

build_dir=${1:-build}
shift || true
packages=(cmake g++ libamdhip64-dev libcli11-dev libtomlplusplus-dev libfmt-dev doctest-dev pkg-config)

cuda_root=${CUDA_PATH:-/usr/local/cuda}
if [[ ! -x "$cuda_root/bin/nvcc" || ! -e "$cuda_root/include/nvrtc.h" ]]; then
  echo "error: the CUDA toolkit was not found at $cuda_root (need nvcc, NVRTC and cudart)." >&2
  echo "       Install CUDA 12 or 13, or point CUDA_PATH at it." >&2
  exit 1
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "installing: ${missing[*]}"
  sudo_cmd=""
  [[ $(id -u) -ne 0 ]] && sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

cmake -S "$(dirname "$0")/.." -B "$build_dir" -DCMAKE_BUILD_TYPE=Release \
  -DCUDAToolkit_ROOT="$cuda_root" "$@"
cmake --build "$build_dir" -j"$(nproc)"
