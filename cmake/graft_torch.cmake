# Finds the libtorch graft builds against, any from Debian's 1.13 (CPU) to the
# newest pip torch (CUDA + NCCL), and refuses, before anything compiles, one
# that graft cannot use.
#
# Where: GRAFT_TORCH_PREFIX (cache or environment) names the folder holding
# Torch/TorchConfig.cmake, as a pip torch prints it:
#   python3 -c 'import torch; print(torch.utils.cmake_prefix_path)'
# Without it CMAKE_PREFIX_PATH and the system's folders are searched (Debian's
# libtorch-dev lives there).
#
# Sets GRAFT_TORCH_VERSION and GRAFT_TORCH_CUDA (ON for a CUDA build), and
# raises CMAKE_CXX_STANDARD to what the torch asks of its consumers (C++20 for
# torch >= 2.12), so that every graft target compiles alike.

set(GRAFT_TORCH_PREFIX "$ENV{GRAFT_TORCH_PREFIX}" CACHE PATH
    "Folder holding Torch/TorchConfig.cmake (a pip torch's torch.utils.cmake_prefix_path); empty: search the system")

string(CONCAT graft_torch_fix
    "Install Debian's libtorch-dev (ci/install-deps.sh) or a pip torch >= 2.7 (ci/install-torch.sh VERSION), and "
    "pass its prefix as -DGRAFT_TORCH_PREFIX=\"$(python3 -c 'import torch; print(torch.utils.cmake_prefix_path)')\".")

if(GRAFT_TORCH_PREFIX)
  if(NOT EXISTS "${GRAFT_TORCH_PREFIX}/Torch/TorchConfig.cmake")
    message(FATAL_ERROR "graft: GRAFT_TORCH_PREFIX is '${GRAFT_TORCH_PREFIX}', which holds no "
                        "Torch/TorchConfig.cmake. ${graft_torch_fix}")
  endif()
  list(PREPEND CMAKE_PREFIX_PATH "${GRAFT_TORCH_PREFIX}")
  # TorchConfig finds its libraries with find_library, which searches the
  # system's folders before the torch's own: with Debian's libtorch-dev also
  # installed, a pip torch's build would link Debian's libc10.
  get_filename_component(graft_torch_root "${GRAFT_TORCH_PREFIX}/../.." ABSOLUTE)
  list(PREPEND CMAKE_LIBRARY_PATH "${graft_torch_root}/lib")
  # What an earlier configure found for another torch stays in the cache:
  # forget it, so that a new GRAFT_TORCH_PREFIX takes effect in place.
  foreach(cached Torch_DIR Caffe2_DIR c10_LIBRARY C10_CUDA_LIBRARY TORCH_LIBRARY CAFFE2_NVRTC_LIBRARY)
    if(DEFINED CACHE{${cached}})
      string(FIND "$CACHE{${cached}}" "${graft_torch_root}/" graft_cached_at)
      if(NOT graft_cached_at EQUAL 0)
        unset(${cached} CACHE)
      endif()
    endif()
  endforeach()
endif()

# A CUDA libtorch enables CUDA itself: it needs nvcc (on PATH, CUDACXX, or
# the toolkit's usual place), and builds for TORCH_CUDA_ARCH_LIST, else for
# the GPUs it detects or, on a machine without one, a dozen architectures;
# it also turns CMAKE_CUDA_ARCHITECTURES off. graft's own kernels build for
# GRAFT_CUDA_ARCHITECTURES, and the torch is told the same.
if(NOT DEFINED CMAKE_CUDA_COMPILER AND NOT DEFINED ENV{CUDACXX} AND EXISTS /usr/local/cuda/bin/nvcc)
  set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc)
endif()
set(graft_default_cuda_architectures 90)  # H100/H200
if(CMAKE_CUDA_ARCHITECTURES)
  set(graft_default_cuda_architectures ${CMAKE_CUDA_ARCHITECTURES})
endif()
set(GRAFT_CUDA_ARCHITECTURES ${graft_default_cuda_architectures} CACHE STRING
    "CUDA architectures of graft's kernels, as CMAKE_CUDA_ARCHITECTURES takes them (90: H100/H200)")
if(NOT DEFINED TORCH_CUDA_ARCH_LIST AND NOT DEFINED ENV{TORCH_CUDA_ARCH_LIST})
  set(TORCH_CUDA_ARCH_LIST "")
  foreach(architecture IN LISTS GRAFT_CUDA_ARCHITECTURES)
    string(REGEX REPLACE "^([0-9]+)([0-9][a-z]?)(-real|-virtual)?$" "\\1.\\2" torch_architecture "${architecture}")
    list(APPEND TORCH_CUDA_ARCH_LIST ${torch_architecture})
  endforeach()
endif()

include(torch_nvtx_shim)
find_package(Torch QUIET)
set(CMAKE_CUDA_ARCHITECTURES ${GRAFT_CUDA_ARCHITECTURES})
if(NOT Torch_FOUND)
  message(FATAL_ERROR "graft: no libtorch found (searched GRAFT_TORCH_PREFIX, CMAKE_PREFIX_PATH and the system). "
                      "${graft_torch_fix}")
endif()

# Two torches on one machine (Debian's and a pip one) must not mix: every
# library the torch's package found has to be its own.
get_filename_component(graft_torch_install_prefix "${TORCH_INSTALL_PREFIX}" ABSOLUTE)
foreach(library c10_LIBRARY C10_CUDA_LIBRARY TORCH_LIBRARY)
  if(${library} AND NOT ${library} MATCHES "NOTFOUND$")
    get_filename_component(graft_library_path "${${library}}" ABSOLUTE)
    string(FIND "${graft_library_path}" "${graft_torch_install_prefix}/" graft_library_at)
    if(NOT graft_library_at EQUAL 0)
      message(FATAL_ERROR "graft: the libtorch at ${graft_torch_install_prefix} found ${library} at "
                          "${graft_library_path}, another torch's. Pass the torch's prefix as -DGRAFT_TORCH_PREFIX rather "
                          "than CMAKE_PREFIX_PATH (graft then searches its lib folder first), or set -D${library}= to the library "
                          "under ${graft_torch_install_prefix}/lib.")
    endif()
  endif()
endforeach()

set(GRAFT_TORCH_VERSION "${Torch_VERSION}")
if(NOT GRAFT_TORCH_VERSION)
  message(FATAL_ERROR "graft: the libtorch at ${Torch_DIR} does not say its version (no TorchConfigVersion.cmake). "
                      "${graft_torch_fix}")
endif()
if(GRAFT_TORCH_VERSION VERSION_LESS 1.13)
  message(FATAL_ERROR "graft: libtorch ${GRAFT_TORCH_VERSION} at ${Torch_DIR} is older than 1.13, the oldest graft "
                      "builds against (its c10d API differs). ${graft_torch_fix}")
endif()

# graft's other dependencies (RE2, GoogleTest, Google Benchmark, Gloo) come
# from Debian, built with the C++11 ABI; a libtorch without it (pip torch
# 2.6 and older) would fail only at link time, with pages of undefined symbols.
if(TORCH_CXX_FLAGS MATCHES "_GLIBCXX_USE_CXX11_ABI=0")
  message(FATAL_ERROR "graft: libtorch ${GRAFT_TORCH_VERSION} at ${Torch_DIR} uses the pre-C++11 ABI "
                      "(_GLIBCXX_USE_CXX11_ABI=0), graft's dependencies the C++11 ABI. Use pip torch >= 2.7, or a "
                      "cxx11-abi libtorch. ${graft_torch_fix}")
endif()

# The exchange is c10d's TCPStore and ProcessGroupGloo: a libtorch built
# without distributed support has neither.
find_file(GRAFT_TORCH_GLOO_HEADER torch/csrc/distributed/c10d/ProcessGroupGloo.hpp
          PATHS ${TORCH_INCLUDE_DIRS} NO_DEFAULT_PATH NO_CACHE)
if(NOT GRAFT_TORCH_GLOO_HEADER)
  message(FATAL_ERROR "graft: libtorch ${GRAFT_TORCH_VERSION} at ${Torch_DIR} has no c10d Gloo headers "
                      "(torch/csrc/distributed/c10d/ProcessGroupGloo.hpp): it was built without distributed "
                      "support, which graft's exchange needs. ${graft_torch_fix}")
endif()

# A torch that needs a newer standard says so on its target, as a compile
# feature (torch >= 2.12: cxx_std_20) or, where CMake did not know the
# feature, as a -std flag. graft follows it everywhere, not only in the
# targets that link torch, so that inline code is compiled alike.
get_target_property(graft_torch_features torch INTERFACE_COMPILE_FEATURES)
get_target_property(graft_torch_options torch INTERFACE_COMPILE_OPTIONS)
foreach(standard 20 23)
  if("cxx_std_${standard}" IN_LIST graft_torch_features OR graft_torch_options MATCHES "-std=c\\+\\+${standard}")
    if(CMAKE_CXX_STANDARD LESS ${standard})
      set(CMAKE_CXX_STANDARD ${standard})
    endif()
  endif()
endforeach()

set(GRAFT_TORCH_CUDA OFF)
if(TORCH_CUDA_LIBRARIES)
  set(GRAFT_TORCH_CUDA ON)
endif()
message(STATUS "graft: libtorch ${GRAFT_TORCH_VERSION} at ${Torch_DIR} (CUDA: ${GRAFT_TORCH_CUDA}), "
               "C++${CMAKE_CXX_STANDARD}")
