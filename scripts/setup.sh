#!/usr/bin/env bash
# Installs every Debian package Touchstone builds and tests with. Idempotent: packages already present
# are skipped by apt. Run as root (or with sudo available). The project downloads nothing else.
#
#   scripts/setup.sh            the host build and its tests
#   scripts/setup.sh --aarch64  also what --config=aarch64 / aarch64_static and the tests under
#                               emulation need (docs/arm64.md): Debian's arm64 cross compiler and
#                               qemu-user, the arm64 architecture with the -dev packages that can sit
#                               beside the host's, and Debian's arm64 XNNPACK and pthreadpool (whose
#                               packages cannot) unpacked into /opt/touchstone-aarch64
set -euo pipefail

AARCH64=0
for arg in "$@"; do
  case "$arg" in
    --aarch64) AARCH64=1 ;;
    *) echo "setup: unknown argument $arg (--aarch64)"; exit 2 ;;
  esac
done

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
# Multi-arch packages only (Multi-Arch: same): installing an arm64 package that is not would remove
# the host's, as libxnnpack-dev:arm64 removes libxnnpack-dev.
AARCH64_PACKAGES=(
  g++-aarch64-linux-gnu qemu-user file
  libc6-dev:arm64 libflatbuffers-dev:arm64 libjpeg62-turbo-dev:arm64 libstb-dev:arm64
  libvulkan-dev:arm64 libgtest-dev:arm64 libcpuinfo0:arm64 libabsl-dev:arm64
)
# Unpacked, not installed: the arm64 shared libraries and their link names.
AARCH64_UNPACKED=(libxnnpack0:arm64 libxnnpack-dev:arm64 libpthreadpool0:arm64 libpthreadpool-dev:arm64)
AARCH64_ROOT=/opt/touchstone-aarch64

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

if [ "$AARCH64" = "1" ]; then
  if ! dpkg --print-foreign-architectures | grep -qx arm64; then
    echo "setup: adding the arm64 architecture"
    $SUDO dpkg --add-architecture arm64
    UPDATED=0
  fi
  PACKAGES+=("${AARCH64_PACKAGES[@]}")
fi

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#PACKAGES[@]} packages present"
else
  echo "setup: installing ${missing[*]}"
  $SUDO apt-get update -qq
  UPDATED=1
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

if [ "$AARCH64" = "1" ] && [ ! -e "$AARCH64_ROOT/usr/lib/aarch64-linux-gnu/libXNNPACK.so" ]; then
  echo "setup: unpacking ${AARCH64_UNPACKED[*]} into $AARCH64_ROOT"
  [ "${UPDATED:-0}" = "1" ] || $SUDO apt-get update -qq
  debs="$(mktemp -d)"
  chmod 777 "$debs"  # apt's download user writes there
  (cd "$debs" && apt-get download -q "${AARCH64_UNPACKED[@]}" 2>&1 | grep -v '^W: Download is performed unsandboxed' || true)
  $SUDO mkdir -p "$AARCH64_ROOT"
  for deb in "$debs"/*.deb; do $SUDO dpkg -x "$deb" "$AARCH64_ROOT"; done
  rm -rf "$debs"
  [ -e "$AARCH64_ROOT/usr/lib/aarch64-linux-gnu/libXNNPACK.so" ] || { echo "setup: unpacking failed"; exit 1; }
fi
