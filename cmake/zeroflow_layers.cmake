# One library target per layer of docs/architecture.md (zeroflow::core, zeroflow::memory, ...), so
# that the build itself keeps the layering: a layer's sources see the headers of the layers it links
# and no others, and a layer may link only layers below it.
#
# How the headers are kept apart while they all live in include/zeroflow/<layer>/: each layer gets
# a folder of its own in the build tree, <build>/layers/<layer>/zeroflow/<layer>, a link to its
# headers; that folder is the layer's only public include directory. A source of core that
# includes "zeroflow/pipeline/..." then fails to compile ("No such file or directory").

# Lowest first; a layer may depend on those before it in this list (signal and synth share a rank
# in docs/development.md, neither uses the other).
set(ZEROFLOW_LAYERS core memory interop io signal synth classify holter model eval pipeline report)

# zeroflow_add_layer(<layer> [DEPENDS <layer>...] [SOURCES <file>...] [EXCLUDE <regex>])
#   Adds the library zeroflow_<layer> (alias zeroflow::<layer>, installed as zeroflow::<layer>) from
#   src/<layer>/ and its subfolders (*.cpp, and *.cu when the CUDA paths are on), minus the files
#   matching EXCLUDE, plus SOURCES; links the layers in DEPENDS publicly.
function(zeroflow_add_layer layer)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "EXCLUDE" "DEPENDS;SOURCES")
  list(FIND ZEROFLOW_LAYERS ${layer} rank)
  if(rank EQUAL -1)
    message(FATAL_ERROR "zeroflow: '${layer}' is not a layer (cmake/zeroflow_layers.cmake: ZEROFLOW_LAYERS)")
  endif()
  foreach(dep IN LISTS arg_DEPENDS)
    list(FIND ZEROFLOW_LAYERS ${dep} dep_rank)
    if(dep_rank EQUAL -1 OR NOT dep_rank LESS rank)
      message(FATAL_ERROR "zeroflow: the ${layer} layer may link only layers below it, not '${dep}'")
    endif()
    if(NOT TARGET zeroflow_${dep})
      message(FATAL_ERROR "zeroflow: the ${layer} layer needs ${dep}, which this build does not have")
    endif()
  endforeach()

  set(dir ${PROJECT_SOURCE_DIR}/src/${layer})
  file(GLOB_RECURSE sources CONFIGURE_DEPENDS ${dir}/*.cpp)
  if(ZEROFLOW_HAS_CUDA)
    file(GLOB_RECURSE cuda_sources CONFIGURE_DEPENDS ${dir}/*.cu)
    # A unity build (scripts/demo) joins host sources only: CUDA's are kept one per compiler run,
    # as the kernels' per-file flags (-fmad=false) and device-side helpers are written for that.
    set_source_files_properties(${cuda_sources} PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON)
    list(APPEND sources ${cuda_sources})
  endif()
  if(arg_EXCLUDE)
    list(FILTER sources EXCLUDE REGEX "${arg_EXCLUDE}")
  endif()
  list(APPEND sources ${arg_SOURCES})

  set(target zeroflow_${layer})
  add_library(${target} ${sources})
  add_library(zeroflow::${layer} ALIAS ${target})
  set_target_properties(${target} PROPERTIES EXPORT_NAME ${layer})

  set(layer_include ${PROJECT_BINARY_DIR}/layers/${layer})
  file(MAKE_DIRECTORY ${layer_include}/zeroflow)
  if(NOT IS_SYMLINK ${layer_include}/zeroflow/${layer})
    file(CREATE_LINK ${PROJECT_SOURCE_DIR}/include/zeroflow/${layer} ${layer_include}/zeroflow/${layer} SYMBOLIC)
  endif()
  target_include_directories(${target}
    PUBLIC $<BUILD_INTERFACE:${layer_include}> $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>
    PRIVATE ${ZEROFLOW_DEP_INCLUDE_DIRS})
  target_compile_features(${target} PUBLIC cxx_std_20)
  foreach(dep IN LISTS arg_DEPENDS)
    target_link_libraries(${target} PUBLIC zeroflow_${dep})
  endforeach()
  zeroflow_warnings(${target})
  if(ZEROFLOW_HAS_CUDA)
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:--expt-relaxed-constexpr --extended-lambda>)
  endif()
  set_property(GLOBAL APPEND PROPERTY ZEROFLOW_BUILT_LAYERS ${layer})
endfunction()
