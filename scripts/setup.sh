#!/usr/bin/env bash
# Installs every Debian package Touchstone builds and tests with. Idempotent: packages already present
# are skipped by apt. Run as root (or with sudo available). The project downloads nothing else.
set -euo pipefail

PACKAGES=(
  build-essential pkg-config python3 python3-jsonschema bazel-bootstrap
  libflatbuffers-dev flatbuffers-compiler
  libabsl-dev libcli11-dev libfmt-dev libspdlog-dev
  libopencv-dev libstb-dev libjpeg-dev
  libvulkan-dev mesa-vulkan-drivers glslc
  libgtest-dev libbenchmark-dev
  libxnnpack-dev libpthreadpool-dev libeigen3-dev nlohmann-json3-dev
  clang-14 libclang-rt-14-dev libfuzzer-14-dev llvm-14
  chromium python3-yaml parallel  # headless-browser tests of the HTML pages; docs/cluster.md's manifests and example
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#PACKAGES[@]} packages present"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "setup: installing ${missing[*]}"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
