# A CUDA libtorch up to 2.7 links its targets to CUDA::nvToolsExt, a library
# that CUDA 12.9 and later no longer ship; against such a toolkit the
# configure step fails on a missing target. NVTX 3 (header-only, the same
# API) stands in for it. Without a CUDA toolkit, or with one that still has
# the library, this does nothing; a CPU libtorch never asks for the target.
find_package(CUDAToolkit QUIET)
if(CUDAToolkit_FOUND AND NOT TARGET CUDA::nvToolsExt AND TARGET CUDA::nvtx3)
  add_library(CUDA::nvToolsExt INTERFACE IMPORTED)
  target_link_libraries(CUDA::nvToolsExt INTERFACE CUDA::nvtx3)
  message(STATUS "graft: CUDA::nvToolsExt is not in CUDA ${CUDAToolkit_VERSION}; NVTX 3 stands in for it")
endif()
