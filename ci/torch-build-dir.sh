# Sourced by the scripts that build against, or use the build of, a pip torch
# in .torch/VERSION: its build folder is build-torch2 for 2.11.0 (the GPU
# machine's torch) and build-torch-VERSION for any other.
torch_build_dir() {
  if [ "$1" = "2.11.0" ]; then echo build-torch2; else echo "build-torch-$1"; fi
}
