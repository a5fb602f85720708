#!/usr/bin/env bash
# Installs the Debian 12 packages vkgemm needs to build, test and run (lavapipe as the CPU Vulkan device).
# Idempotent: does nothing when everything is present. Run as root (or with sudo available).
set -euo pipefail
packages=(
  cmake ninja-build g++ pkg-config
  libvulkan-dev mesa-vulkan-drivers vulkan-validationlayers vulkan-tools
  glslc glslang-tools glslang-dev libshaderc-dev spirv-tools spirv-headers
  googletest libgtest-dev libgmock-dev libbenchmark-dev
  libcli11-dev nlohmann-json3-dev
  clang libclang-rt-14-dev
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup-debian: all ${#packages[@]} packages present"
  exit 0
fi
echo "setup-debian: installing ${missing[*]}"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
echo "setup-debian: done"
