#!/bin/sh
# Installs a hipfuse build into a scratch prefix, builds tests/consumer against it, and
# runs it. Registered in CTest as consumer_cmake and consumer_pkgconfig.
#   usage: run.sh cmake|pkgconfig <hipfuse build dir> <scratch dir>
set -eu
mode=$1
build=$2
work=$3
src=$(cd "$(dirname "$0")" && pwd)

rm -rf "$work"
mkdir -p "$work"
cmake --install "$build" --prefix "$work/prefix" > "$work/install.log"

case "$mode" in
  cmake)
    cmake -S "$src" -B "$work/build" -DCMAKE_PREFIX_PATH="$work/prefix" -DCMAKE_BUILD_TYPE=Release
    cmake --build "$work/build"
    exe="$work/build/consumer"
    ;;
  pkgconfig)
    PKG_CONFIG_PATH="$work/prefix/lib/pkgconfig"
    export PKG_CONFIG_PATH
    echo "pkg-config hipfuse: $(pkg-config --cflags --libs hipfuse)"
    # shellcheck disable=SC2046  # the flags are meant to be split
    ${CXX:-c++} -std=c++17 -O2 -Wall -Wextra -Werror "$src/main.cpp" -o "$work/consumer" \
      $(pkg-config --cflags --libs hipfuse)
    exe="$work/consumer"
    ;;
  *)
    echo "usage: $0 cmake|pkgconfig <hipfuse build dir> <scratch dir>" >&2
    exit 2
    ;;
esac

"$exe"
