# rightsize_stage(<name> [DEPENDS <stage>...] [LIBS <target>...])
#
# Declares one pipeline stage: the static library rightsize_<name> built from src/<name>/**.cpp,
# with the public headers in include/rightsize/<name>/. DEPENDS names the stages it may use; each
# must already be declared, so the stages form a DAG in declaration order and a cycle cannot be
# written down.
#
# The build enforces the direction. A stage does not get include/ on its include path: it gets an
# include view, a directory under the build tree holding one symbolic link per visible stage
# (rightsize/<stage> -> include/rightsize/<stage>), and it sees its own view plus the views of the
# stages it depends on, transitively. An include of a stage above it is "No such file or
# directory" at compile time, not a comment in review.
#
# GENERATED names sources that a build-time tool of the stage writes (the catalog's bundled data,
# docs/catalog.md). The tool needs the stage's own code but cannot link rightsize_<name>, whose
# library includes its output; so the stage's sources then compile once into the OBJECT library
# rightsize_<name>_objects, which the tool links, and rightsize_<name> is those objects plus the
# generated sources.
function(rightsize_stage name)
  cmake_parse_arguments(ARG "" "" "DEPENDS;LIBS;GENERATED" ${ARGN})
  set(visible ${name})
  foreach(dep IN LISTS ARG_DEPENDS)
    if(NOT TARGET rightsize_${dep})
      message(FATAL_ERROR "rightsize: stage '${name}' depends on '${dep}', which is not declared "
                          "before it in src/CMakeLists.txt (stages depend only on stages below)")
    endif()
    get_property(dep_visible GLOBAL PROPERTY RIGHTSIZE_STAGE_VISIBLE_${dep})
    list(APPEND visible ${dep_visible})
  endforeach()
  list(REMOVE_DUPLICATES visible)
  set_property(GLOBAL PROPERTY RIGHTSIZE_STAGE_VISIBLE_${name} ${visible})
  set_property(GLOBAL APPEND PROPERTY RIGHTSIZE_STAGES ${name})

  set(view ${PROJECT_BINARY_DIR}/include_views/${name})
  file(REMOVE_RECURSE ${view})
  file(MAKE_DIRECTORY ${view}/rightsize)
  if(IS_DIRECTORY ${PROJECT_SOURCE_DIR}/include/rightsize/${name})
    file(CREATE_LINK ${PROJECT_SOURCE_DIR}/include/rightsize/${name} ${view}/rightsize/${name}
         SYMBOLIC)
  endif()
  # The -I flags that this stage compiles with: its own view and those of every stage below it.
  set(flags "")
  foreach(stage IN LISTS visible)
    list(APPEND flags "-I${PROJECT_BINARY_DIR}/include_views/${stage}")
  endforeach()
  set_property(GLOBAL PROPERTY RIGHTSIZE_STAGE_INCLUDE_FLAGS_${name} ${flags})

  # The stage's sources, its sub-folders' included (src/model/families/, ...), but bundle/: the
  # build-time tool that writes the stage's bundled data has a target of its own.
  file(GLOB_RECURSE sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*.cpp)
  list(FILTER sources EXCLUDE REGEX "^${CMAKE_CURRENT_SOURCE_DIR}/bundle/")
  list(TRANSFORM ARG_DEPENDS PREPEND rightsize_ OUTPUT_VARIABLE dep_targets)
  if(ARG_GENERATED)
    add_library(rightsize_${name}_objects OBJECT ${sources})
    target_include_directories(rightsize_${name}_objects PUBLIC ${view})
    target_link_libraries(rightsize_${name}_objects PUBLIC ${dep_targets} ${ARG_LIBS}
                          PRIVATE rightsize_warnings)
    set(sources $<TARGET_OBJECTS:rightsize_${name}_objects> ${ARG_GENERATED})
  endif()
  add_library(rightsize_${name} STATIC ${sources})
  target_include_directories(rightsize_${name} PUBLIC ${view})
  target_link_libraries(rightsize_${name} PUBLIC ${dep_targets} ${ARG_LIBS}
                        PRIVATE rightsize_warnings)
endfunction()
