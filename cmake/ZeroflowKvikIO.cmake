# KvikIO (optional): file -> device reads through cuFile / GPUDirect Storage, with KvikIO's POSIX
# compatibility mode where the nvidia-fs driver is absent. Only for CUDA builds. It comes from the
# PyPI wheels libkvikio-cu13 and rapids-logger (scripts/setup puts them in .venv), with cufile.h
# and libcufile.so.0 from nvidia-cufile (a dependency of the torch wheel) or the CUDA toolkit.
#
#   ZEROFLOW_KVIKIO       AUTO (default: used when found), ON (required), OFF
#   ZEROFLOW_KVIKIO_ROOT  a folder holding the wheels unpacked (libkvikio/, libkvikio_cu13.libs/,
#                         rapids_logger/, optionally nvidia/cu13/); also searched: the
#                         site-packages of the python3 on PATH (scripts/build puts .venv first)
#
# Found: src/io/kvikio_*.cpp are compiled with ZEROFLOW_HAS_KVIKIO=1 and the io layer links
# libkvikio.so (the build tree's RPATH finds it). Not found: they compile to stubs, and
# `--io kvikio` is refused with a line that says so.
set(ZEROFLOW_KVIKIO AUTO CACHE STRING "Build the KvikIO (GPUDirect Storage) file loading path: ON, OFF or AUTO")
set_property(CACHE ZEROFLOW_KVIKIO PROPERTY STRINGS ON OFF AUTO)
set(ZEROFLOW_KVIKIO_ROOT "" CACHE PATH "Folder holding the unpacked libkvikio and rapids_logger wheels")
set(ZEROFLOW_HAS_KVIKIO OFF)

if(ZEROFLOW_HAS_CUDA AND NOT ZEROFLOW_KVIKIO STREQUAL "OFF")
  set(zf_kvikio_roots ${ZEROFLOW_KVIKIO_ROOT})
  find_program(ZEROFLOW_KVIKIO_PYTHON NAMES python3)
  if(ZEROFLOW_KVIKIO_PYTHON)
    execute_process(COMMAND ${ZEROFLOW_KVIKIO_PYTHON} -c "import site; print(';'.join(site.getsitepackages()))"
                    OUTPUT_VARIABLE zf_py_sites OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    list(APPEND zf_kvikio_roots ${zf_py_sites})
  endif()
  find_path(ZEROFLOW_KVIKIO_INCLUDE_DIR kvikio/file_handle.hpp PATHS ${zf_kvikio_roots}
            PATH_SUFFIXES libkvikio/include NO_DEFAULT_PATH)
  find_library(ZEROFLOW_KVIKIO_LIBRARY kvikio PATHS ${zf_kvikio_roots} PATH_SUFFIXES libkvikio/lib64 NO_DEFAULT_PATH)
  find_path(ZEROFLOW_RAPIDS_LOGGER_INCLUDE_DIR rapids_logger/logger.hpp PATHS ${zf_kvikio_roots}
            PATH_SUFFIXES rapids_logger/include NO_DEFAULT_PATH)
  find_library(ZEROFLOW_RAPIDS_LOGGER_LIBRARY rapids_logger PATHS ${zf_kvikio_roots}
               PATH_SUFFIXES rapids_logger/lib64 NO_DEFAULT_PATH)
  find_path(ZEROFLOW_CUFILE_INCLUDE_DIR cufile.h PATHS ${zf_kvikio_roots} ${CUDAToolkit_INCLUDE_DIRS}
            PATH_SUFFIXES nvidia/cu13/include nvidia/cufile/include . NO_DEFAULT_PATH)
  # libcufile is loaded by KvikIO at run time (dlopen); zeroflow loads it first from here, so that
  # a libcufile outside the loader's search path is found too.
  find_file(ZEROFLOW_CUFILE_LIBRARY libcufile.so.0 PATHS ${zf_kvikio_roots} ${CUDAToolkit_LIBRARY_DIR}
            PATH_SUFFIXES nvidia/cu13/lib nvidia/cufile/lib . NO_DEFAULT_PATH)

  if(ZEROFLOW_KVIKIO_INCLUDE_DIR AND ZEROFLOW_KVIKIO_LIBRARY AND ZEROFLOW_RAPIDS_LOGGER_INCLUDE_DIR
     AND ZEROFLOW_RAPIDS_LOGGER_LIBRARY AND ZEROFLOW_CUFILE_INCLUDE_DIR)
    set(ZEROFLOW_HAS_KVIKIO ON)
    file(GLOB zf_kvikio_sources ${PROJECT_SOURCE_DIR}/src/io/kvikio_*.cpp)
    set(zf_kvikio_defs ZEROFLOW_HAS_KVIKIO=1 KVIKIO_CUFILE_FOUND KVIKIO_CUFILE_VERSION_API_FOUND)
    if(ZEROFLOW_CUFILE_LIBRARY)
      list(APPEND zf_kvikio_defs ZEROFLOW_CUFILE_LIBRARY="${ZEROFLOW_CUFILE_LIBRARY}")
    endif()
    # -isystem: KvikIO's headers are not held to zeroflow's warning flags.
    set_source_files_properties(${zf_kvikio_sources} PROPERTIES COMPILE_DEFINITIONS "${zf_kvikio_defs}"
      COMPILE_OPTIONS "-isystem;${ZEROFLOW_KVIKIO_INCLUDE_DIR};-isystem;${ZEROFLOW_RAPIDS_LOGGER_INCLUDE_DIR};-isystem;${ZEROFLOW_CUFILE_INCLUDE_DIR}")
    # The io layer's target is made after this file is read: link when the top-level file is done.
    # librapids_logger is needed by libkvikio, not by zeroflow: a program's RUNPATH serves only its
    # own direct dependencies, so it is linked as one (--no-as-needed) for the loader to find it.
    function(zeroflow_link_kvikio)
      target_link_libraries(zeroflow_io PRIVATE ${ZEROFLOW_KVIKIO_LIBRARY} ${ZEROFLOW_RAPIDS_LOGGER_LIBRARY}
        "-Wl,--no-as-needed,${ZEROFLOW_RAPIDS_LOGGER_LIBRARY},--as-needed" ${CMAKE_DL_LIBS})
    endfunction()
    cmake_language(DEFER CALL zeroflow_link_kvikio)
    message(STATUS "zeroflow: KvikIO ${ZEROFLOW_KVIKIO_LIBRARY} (cuFile: ${ZEROFLOW_CUFILE_LIBRARY})")
  elseif(ZEROFLOW_KVIKIO STREQUAL "ON")
    message(FATAL_ERROR "zeroflow: ZEROFLOW_KVIKIO=ON but KvikIO was not found; run scripts/setup, or pass "
                        "-DZEROFLOW_KVIKIO_ROOT=<folder with the unpacked libkvikio-cu13, rapids-logger and nvidia-cufile wheels>")
  else()
    message(STATUS "zeroflow: KvikIO not found (--io kvikio will be refused); see cmake/ZeroflowKvikIO.cmake")
  endif()
elseif(ZEROFLOW_KVIKIO STREQUAL "ON")
  message(FATAL_ERROR "zeroflow: ZEROFLOW_KVIKIO=ON needs a CUDA build")
endif()
