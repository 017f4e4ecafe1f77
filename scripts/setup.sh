#!/usr/bin/env bash
# Installs pimc's dependencies from Debian 12 packages, builds pimc, and
# compiles the bundled MLP with the built-in 144-core chip, printing its report.
set -euo pipefail
cd "$(dirname "$0")/.."

sudo=""
if [ "$(id -u)" != 0 ]; then sudo=sudo; fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends \
  cmake ninja-build ccache clang-19 lld-19 \
  llvm-19-dev llvm-19-tools libmlir-19-dev mlir-19-tools \
  libonnx-dev libonnx-testdata protobuf-compiler libprotobuf-dev \
  libgtest-dev libgmock-dev zlib1g-dev libzstd-dev libedit-dev libxml2-dev \
  libfuzzer-19-dev libclang-rt-19-dev libjemalloc-dev \
  libcurl4-openssl-dev libffi-dev libncurses-dev libssl-dev \
  python3 python3-numpy python3-onnx python3-torch python3-torchvision \
  python3-jsonschema python3-pil chromium \
  git dpkg-dev snakemake python3-yaml python3-matplotlib \
  >/dev/null

scripts/build.sh
build/bin/pimc compile -o build/out/default
