# Sourced by the CI scripts: the environment every Vulkan-touching step uses.
# - LP_NUM_THREADS=2: lavapipe's rasterizer threads on the 2-core machines.
# - When PIPE_VK_DEVICE is unset, the lavapipe ICD alone is loaded, so CI
#   never depends on which other ICD manifests a machine happens to have.
export LP_NUM_THREADS="${LP_NUM_THREADS:-2}"
if [ -z "${PIPE_VK_DEVICE:-}" ] && [ -f /usr/share/vulkan/icd.d/lvp_icd.json ]; then
  export VK_DRIVER_FILES=/usr/share/vulkan/icd.d/lvp_icd.json
  export VK_ICD_FILENAMES=/usr/share/vulkan/icd.d/lvp_icd.json
fi
