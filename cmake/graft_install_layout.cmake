# Where `cmake --install` puts graft's tools and their data, relative to the
# prefix. The programs are compiled with the same relative paths
# (harness/src/install_layout), so that an installed graft finds its worker,
# plugins and fixtures from where its executable lies, wherever the tree is
# copied or moved.
#
#   bin/graft                          the CLI, on the user's PATH
#   libexec/graft/graft_worker         programs graft runs itself (a scenario's
#   libexec/graft/graft_model          ranks, localize's built-in model)
#   lib/graft/transforms/*.so          the sample transform plugins
#   share/graft/fixtures/              scenarios/, snapshots/ and localize/
set(GRAFT_INSTALL_TOOLSDIR ${CMAKE_INSTALL_BINDIR})
set(GRAFT_INSTALL_HELPERSDIR ${CMAKE_INSTALL_LIBEXECDIR}/graft)
set(GRAFT_INSTALL_PLUGINSDIR ${CMAKE_INSTALL_LIBDIR}/graft/transforms)
set(GRAFT_INSTALL_FIXTURESDIR ${CMAKE_INSTALL_DATADIR}/graft/fixtures)

foreach(dir BINDIR LIBEXECDIR LIBDIR DATADIR)
  if(IS_ABSOLUTE "${CMAKE_INSTALL_${dir}}")
    message(FATAL_ERROR "graft: CMAKE_INSTALL_${dir} is absolute (${CMAKE_INSTALL_${dir}}), but the installed "
                        "graft finds its files relative to its own executable: give a path relative to the "
                        "prefix, or configure with -DGRAFT_BUILD_TOOLS=OFF")
  endif()
endforeach()

# graft_install_rpath(<target>...): installed, the targets still find the
# libraries they link from outside the project. CMake's install RPATH keeps
# only link directories (INSTALL_RPATH_USE_LINK_PATH), not the folder of
# libtorch, which is linked by full path: a pip torch's lib folder, and the
# nvidia wheels' folders beside it (the CUDA runtime graft links), are on no
# system path. System folders stay out.
function(graft_install_rpath)
  get_filename_component(torch_lib_dir "${TORCH_LIBRARY}" DIRECTORY)
  file(GLOB wheel_lib_dirs LIST_DIRECTORIES true "${TORCH_INSTALL_PREFIX}/../nvidia/*/lib")
  set(rpath "")
  foreach(dir IN LISTS torch_lib_dir wheel_lib_dirs)
    get_filename_component(dir "${dir}" ABSOLUTE)
    if(NOT dir IN_LIST CMAKE_CXX_IMPLICIT_LINK_DIRECTORIES AND NOT dir IN_LIST CMAKE_PLATFORM_IMPLICIT_LINK_DIRECTORIES)
      list(APPEND rpath "${dir}")
    endif()
  endforeach()
  set_target_properties(${ARGN} PROPERTIES INSTALL_RPATH "${rpath}" INSTALL_RPATH_USE_LINK_PATH ON)
endfunction()
