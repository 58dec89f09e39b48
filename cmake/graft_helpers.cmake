# Small helpers so that per-folder CMakeLists stay declarative.

# graft_warnings(<target>): the project's warning set, as errors under GRAFT_WERROR.
function(graft_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wno-unused-parameter)
  if(GRAFT_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()

# graft_add_gtest(<name> SOURCES <files...> LIBS <targets...> [LABELS <label>])
# Builds one GoogleTest executable and registers each of its tests with CTest.
function(graft_add_gtest name)
  cmake_parse_arguments(ARG "" "" "SOURCES;LIBS;LABELS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_LIBS} GTest::gtest GTest::gtest_main)
  graft_warnings(${name})
  # Discovery after the build hands PROPERTIES over as one flat list, in
  # which a second label would become a property name: more labels go on
  # the folder (set_property(DIRECTORY APPEND PROPERTY LABELS ...)).
  list(LENGTH ARG_LABELS label_count)
  if(label_count GREATER 1)
    message(FATAL_ERROR "graft_add_gtest(${name}): one label per executable (got ${ARG_LABELS}); put further "
                        "labels on the folder with set_property(DIRECTORY APPEND PROPERTY LABELS ...)")
  endif()
  gtest_discover_tests(${name}
    DISCOVERY_TIMEOUT 120
    PROPERTIES LABELS "${ARG_LABELS}" TIMEOUT 300)
endfunction()

# Sets OUT to the source folders (under src/) of COMPONENT: the caller's
# graft_src_<component>_dirs, or else the folder named as the component.
function(graft_component_dirs out component)
  if(DEFINED graft_src_${component}_dirs)
    set(${out} ${graft_src_${component}_dirs} PARENT_SCOPE)
  else()
    set(${out} ${component} PARENT_SCOPE)
  endif()
endfunction()

# Writes FILE, one line per component of a layer for the include check
# (tests/layering/check_includes.py): "component|FOLDER|source folders|linked
# targets". A component's sources are FOLDER/src/<component> unless the
# caller sets graft_src_<component>_dirs; its links are the caller's
# <DEPS_PREFIX><component>.
function(graft_layering_table file folder deps_prefix)
  set(text "")
  foreach(component IN LISTS ARGN)
    graft_component_dirs(dirs ${component})
    list(JOIN dirs "," dirs)
    set(links "")
    foreach(dep IN LISTS ${deps_prefix}${component})
      if(TARGET ${dep})
        list(APPEND links ${dep})
      endif()
    endforeach()
    list(JOIN links "," links)
    string(APPEND text "${component}|${folder}|${dirs}|${links}\n")
  endforeach()
  file(WRITE ${file} "${text}")
endfunction()
