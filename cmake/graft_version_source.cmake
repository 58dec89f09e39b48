# graft_add_version_source(TARGET ROOT VERSION) builds graft::version() into
# TARGET: its source is written by graft_version.cmake on every build, so that
# the version names the commit built without a reconfigure. ROOT is the
# checkout, VERSION project()'s version.
function(graft_add_version_source target root version)
  set(source ${CMAKE_CURRENT_BINARY_DIR}/generated/graft_version.cpp)
  add_custom_target(${target}_version_source
    COMMAND ${CMAKE_COMMAND} -DSOURCE_DIR=${root} -DOUTPUT=${source} -DVERSION=${version}
            -P ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/graft_version.cmake
    BYPRODUCTS ${source}
    COMMENT "graft version"
    VERBATIM)
  target_sources(${target} PRIVATE ${source})
  add_dependencies(${target} ${target}_version_source)
endfunction()
