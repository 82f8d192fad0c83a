#!/bin/sh
# Installs a hipfuse build into a scratch prefix, builds a program against it as an
# application would, and runs it. Registered in CTest as consumer_cmake,
# consumer_pkgconfig and consumer_example.
#   usage: run.sh cmake|pkgconfig|example <hipfuse build dir> <scratch dir>
#   cmake, pkgconfig: tests/consumer, with find_package / with pkg-config; it must exit 0.
#   example: examples/conv_bias_relu with find_package; its binary goes to
#            <build dir>/examples/ (where scripts/gpu-check.sh runs it). It must print PASS
#            (exit 0) or, without a GPU, "no GPU" (exit 3).
set -eu
mode=$1
build=$2
work=$3
src=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$src/../.." && pwd)

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
  example)
    cmake -S "$root/examples/conv_bias_relu" -B "$work/build" -DCMAKE_PREFIX_PATH="$work/prefix" \
      -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS="-Wall -Wextra -Werror" \
      -DCMAKE_RUNTIME_OUTPUT_DIRECTORY="$build/examples"
    cmake --build "$work/build"
    exe="$build/examples/conv_bias_relu"
    set +e
    output=$("$exe")
    rc=$?
    set -e
    echo "$output"
    case "$rc" in
      0) echo "$output" | grep -q "^conv_bias_relu: PASS: " ;;
      3) echo "$output" | grep -q "^conv_bias_relu: no GPU: " ;;
      *) echo "run.sh: $exe exited with $rc (expected 0 PASS, or 3 without a GPU)" >&2; exit 1 ;;
    esac
    exit 0
    ;;
  *)
    echo "usage: $0 cmake|pkgconfig|example <hipfuse build dir> <scratch dir>" >&2
    exit 2
    ;;
esac

"$exe"
