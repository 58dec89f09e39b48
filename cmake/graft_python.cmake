# Finds the Python whose `import torch` is the libtorch graft builds against,
# for the Python package (python/): an extension built against one torch and
# imported with another fails at import, or worse.
#
# GRAFT_PYTHON_EXECUTABLE (or, under pip, Python_EXECUTABLE, which scikit-build-core sets) names
# it; otherwise the first of these that imports a torch of the libtorch's
# version: the python of the virtual environment holding a pip torch, Debian's
# /usr/bin/python3 (its python3-torch is libtorch-dev's torch), python3 on PATH.
#
# graft_python_torch_query(<python> <version-var> <prefix-var>): the version
# and CMake prefix of the torch <python> imports, or "" when it has none. Inside pip's isolated build
# environment the user's packages are hidden behind PYTHONPATH: the torch is
# then looked for without it, since graft must build against the torch it
# will be imported with, not a copy in the build environment.

function(graft_python_torch_query python out_version out_prefix)
  set(query "import torch, torch.utils; print(torch.__version__.split('+')[0]); print(torch.utils.cmake_prefix_path)")
  execute_process(COMMAND "${python}" -c "${query}" RESULT_VARIABLE failed OUTPUT_VARIABLE found ERROR_QUIET
                  OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(failed AND DEFINED ENV{PYTHONPATH})
    execute_process(COMMAND ${CMAKE_COMMAND} -E env --unset=PYTHONPATH --unset=PYTHONNOUSERSITE "${python}" -c "${query}"
                    RESULT_VARIABLE failed OUTPUT_VARIABLE found ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
    if(NOT failed)
      message(STATUS "graft: ${python} imports torch only outside pip's build isolation; building against that torch")
    endif()
  endif()
  if(failed)
    set(${out_version} "" PARENT_SCOPE)
    set(${out_prefix} "" PARENT_SCOPE)
    return()
  endif()
  string(REPLACE "\n" ";" lines "${found}")
  list(GET lines 0 version)
  list(GET lines 1 prefix)
  set(${out_version} "${version}" PARENT_SCOPE)
  set(${out_prefix} "${prefix}" PARENT_SCOPE)
endfunction()

# Sets GRAFT_PYTHON_EXECUTABLE to a Python importing torch <torch_version>
# (major.minor compared: Debian's python3-torch says 1.13.0a0 where its
# libtorch says 1.13.1), or to "" with GRAFT_PYTHON_TRIED saying what was tried.
function(graft_find_python_for_torch torch_version torch_install_prefix)
  set(candidates)
  if(GRAFT_PYTHON_EXECUTABLE)
    list(APPEND candidates "${GRAFT_PYTHON_EXECUTABLE}")
  elseif(SKBUILD AND Python_EXECUTABLE)
    list(APPEND candidates "${Python_EXECUTABLE}")
  else()
    # site-packages/torch -> <venv>/lib/pythonX.Y/site-packages/torch
    get_filename_component(venv "${torch_install_prefix}/../../../.." ABSOLUTE)
    if(EXISTS "${venv}/pyvenv.cfg")
      list(APPEND candidates "${venv}/bin/python3")
    endif()
    if(EXISTS /usr/bin/python3)
      list(APPEND candidates /usr/bin/python3)
    endif()
    find_program(graft_path_python python3 NO_CACHE)
    if(graft_path_python)
      list(APPEND candidates "${graft_path_python}")
    endif()
  endif()
  string(REGEX MATCH "^[0-9]+\\.[0-9]+" wanted "${torch_version}")
  set(tried)
  foreach(python IN LISTS candidates)
    graft_python_torch_query("${python}" version prefix)
    string(REGEX MATCH "^[0-9]+\\.[0-9]+" has "${version}")
    if(has STREQUAL wanted)
      set(GRAFT_PYTHON_EXECUTABLE "${python}" PARENT_SCOPE)
      return()
    endif()
    if(version)
      list(APPEND tried "${python} (torch ${version})")
    else()
      list(APPEND tried "${python} (no torch)")
    endif()
  endforeach()
  list(JOIN tried ", " tried)
  set(GRAFT_PYTHON_EXECUTABLE "" PARENT_SCOPE)
  set(GRAFT_PYTHON_TRIED "${tried}" PARENT_SCOPE)
endfunction()
