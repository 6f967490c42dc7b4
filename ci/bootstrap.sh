#!/usr/bin/env bash
# Installs everything pipe-vk needs on a fresh Debian 12 (bookworm) machine:
# lavapipe from Mesa 25 (bookworm-backports), the Vulkan loader and tools, the
# Khronos validation layer and SPIRV-Tools. Idempotent: a second run only
# checks. Runs as root, or through sudo when not root.
set -euo pipefail

if [ "$(id -u)" -ne 0 ]; then
  SUDO=sudo
else
  SUDO=
fi

export DEBIAN_FRONTEND=noninteractive

codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
if [ "$codename" != "bookworm" ]; then
  echo "bootstrap: expected Debian 12 (bookworm), found '${codename:-unknown}'" >&2
  exit 1
fi

# 1. bookworm-backports, if no apt source names it yet.
if ! grep -rqs 'bookworm-backports' /etc/apt/sources.list /etc/apt/sources.list.d/; then
  echo "bootstrap: adding bookworm-backports"
  $SUDO tee /etc/apt/sources.list.d/pipe-vk-backports.sources >/dev/null <<'SRC'
Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
  need_update=1
fi

# 2. Packages. Mesa (lavapipe) must come from backports: bookworm's Mesa 22
#    lacks sparse binding and much of Vulkan 1.3.
BACKPORTS_PKGS=(mesa-vulkan-drivers)
PKGS=(libvulkan1 libvulkan-dev vulkan-tools vulkan-validationlayers spirv-tools pkg-config)

mesa_major() {
  dpkg-query -W -f='${Version}' mesa-vulkan-drivers 2>/dev/null | sed -E 's/^([0-9]+:)?([0-9]+).*/\2/'
}

missing=()
for p in "${PKGS[@]}"; do
  st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [[ "$st" == *'install ok installed'* ]] || missing+=("$p")
done
mm=$(mesa_major || true)
if [ -z "$mm" ] || [ "$mm" -lt 25 ]; then
  missing+=("mesa-vulkan-drivers")
fi

if [ "${#missing[@]}" -gt 0 ]; then
  echo "bootstrap: installing ${missing[*]}"
  if [ "${need_update:-0}" = 1 ] || [ -z "$(ls -A /var/lib/apt/lists 2>/dev/null | grep -v lock || true)" ] || \
     ! grep -q bookworm-backports <<<"$(apt-cache policy mesa-vulkan-drivers 2>/dev/null)"; then
    $SUDO apt-get update -q
  fi
  $SUDO apt-get install -y -q --no-install-recommends "${PKGS[@]}"
  $SUDO apt-get install -y -q --no-install-recommends -t bookworm-backports "${BACKPORTS_PKGS[@]}"
fi

# 3. Check what lavapipe reports.
ICD=/usr/share/vulkan/icd.d/lvp_icd.json
if [ ! -f "$ICD" ]; then
  ICD=$(ls /usr/share/vulkan/icd.d/lvp_icd.*.json 2>/dev/null | head -n1 || true)
fi
if [ -z "$ICD" ] || [ ! -f "$ICD" ]; then
  echo "bootstrap: FAILED: no lavapipe ICD manifest under /usr/share/vulkan/icd.d" >&2
  exit 1
fi
info=$(VK_DRIVER_FILES="$ICD" VK_ICD_FILENAMES="$ICD" LP_NUM_THREADS=2 vulkaninfo 2>/dev/null || true)
fail=()
api=$(grep -m1 -E '^\s*apiVersion\s*=' <<<"$info" | sed -E 's/.*= *([0-9]+)\.([0-9]+).*/\1 \2/' || true)
if [ -z "$api" ]; then
  fail+=("vulkaninfo printed no apiVersion")
else
  read -r maj min <<<"$api"
  if [ "$maj" -lt 1 ] || { [ "$maj" -eq 1 ] && [ "$min" -lt 3 ]; }; then
    fail+=("lavapipe API is $maj.$min, need >= 1.3")
  fi
fi
# Here-strings, not `printf | grep -q`: under pipefail, grep -q closing
# the pipe early kills printf with SIGPIPE and the check fails at random.
grep -qE '^\s*sparseBinding\s*=\s*true' <<<"$info" || fail+=("sparseBinding is not true")
grep -qE '^\s*timelineSemaphore\s*=\s*true' <<<"$info" || fail+=("timelineSemaphore is not true")
command -v spirv-val >/dev/null || fail+=("spirv-val is not on PATH")
ls /usr/share/vulkan/explicit_layer.d/VkLayer_khronos_validation.json >/dev/null 2>&1 || fail+=("Khronos validation layer manifest missing")

if [ "${#fail[@]}" -gt 0 ]; then
  echo "bootstrap: FAILED:" >&2
  for f in "${fail[@]}"; do echo "  - $f" >&2; done
  exit 1
fi
echo "bootstrap: ok (lavapipe API ${maj}.${min}, mesa-vulkan-drivers $(dpkg-query -W -f='${Version}' mesa-vulkan-drivers))"
