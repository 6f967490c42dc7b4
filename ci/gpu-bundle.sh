#!/bin/bash
# Packs what a pipe-cts run on a bare NVIDIA machine needs into .gpu/ and
# .gl/ (both ignored through .git/info/exclude), for machines that have the
# NVIDIA driver but no Vulkan loader, validation layer or Rust toolchain:
#   - .gl/: Debian's Vulkan loader and the GL vendor-neutral libraries the
#     NVIDIA ICD (libGLX_nvidia.so.0) links against; without libglvnd the
#     loader finds the ICD but cannot get vkCreateInstance from it
#     (ERROR_INCOMPATIBLE_DRIVER);
#   - .gpu/: a release pipe-cts, the validation layer with a manifest that
#     names it by a relative path, and run.sh.
# On the GPU machine, from the repository root: `bash .gpu/run.sh [ARGS]`
# unpacks .gl, points the loader at NVIDIA's ICD and the carried layer, and
# runs `pipe-cts run --validation -j 16 --output /tmp/o-full ARGS`.
# Seen on an H100 (driver 580.159.04): a few tests per full run find no
# driver on their first try ("libnvidia-tls.so: cannot allocate memory in
# static TLS block" while the loader opens the ICD) and pass on the
# runner's retry (reported as Flake).
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .git/info
for p in /.gl/ /.gpu/; do
  grep -qxF "$p" .git/info/exclude 2>/dev/null || echo "$p" >> .git/info/exclude
done
rm -rf .gl .gpu
mkdir -p .gl .gpu/layer /tmp/amd64/partial
o='-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 -oDir::State::Lists=/tmp/amd64'
# shellcheck disable=SC2086
apt-get $o update >/dev/null
# shellcheck disable=SC2086
(cd .gl && apt-get $o download libvulkan1 libegl1 libglvnd0 libopengl0 libgl1 libglx0 libgles2 2>&1 | grep -v '^W:' || true)
cargo build --release -p pipe-cts
cp target/release/pipe-cts .gpu/
layer=$(dpkg -L vulkan-validationlayers | grep 'libVkLayer_khronos_validation.so$')
cp "$layer" .gpu/layer/
sed 's#"library_path": "libVkLayer_khronos_validation.so"#"library_path": "./libVkLayer_khronos_validation.so"#' \
  /usr/share/vulkan/explicit_layer.d/VkLayer_khronos_validation.json > .gpu/layer/VkLayer_khronos_validation.json
cat > .gpu/run.sh <<'RUN'
#!/bin/bash
# Written by ci/gpu-bundle.sh.
set -u
for f in .gl/*.deb; do dpkg -x "$f" /; done
ldconfig
icd=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
[ -f $icd ] && export VK_DRIVER_FILES=$icd
export VK_LAYER_PATH=$PWD/.gpu/layer
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
.gpu/pipe-cts run --validation -j "${J:-16}" --output /tmp/o-full "$@"
RUN
chmod +x .gpu/run.sh
du -sh .gl .gpu
