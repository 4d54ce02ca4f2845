# Finds what zeroflow builds with. Nothing is downloaded here: scripts/setup installs it all.
find_package(Threads REQUIRED)

# Header-only libraries (Debian: libfast-float-dev, libcli11-dev, nlohmann-json3-dev).
set(ZEROFLOW_DEP_INCLUDE_DIRS "")
foreach(header fast_float/fast_float.h CLI/CLI.hpp nlohmann/json.hpp)
  string(MAKE_C_IDENTIFIER "${header}" var)
  find_path(ZEROFLOW_${var}_DIR ${header} HINTS ${ZEROFLOW_EXTRA_INCLUDE_DIRS})
  if(NOT ZEROFLOW_${var}_DIR)
    message(FATAL_ERROR "zeroflow: header ${header} not found; run scripts/setup "
                        "(or pass -DZEROFLOW_EXTRA_INCLUDE_DIRS=<folder holding it>)")
  endif()
  list(APPEND ZEROFLOW_DEP_INCLUDE_DIRS ${ZEROFLOW_${var}_DIR})
endforeach()
list(REMOVE_DUPLICATES ZEROFLOW_DEP_INCLUDE_DIRS)

# CUDA: ON requires nvcc, AUTO takes it when present.
set(ZEROFLOW_HAS_CUDA OFF)
if(NOT ZEROFLOW_CUDA STREQUAL "OFF")
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    # Which GPUs the binary carries code for. CMAKE_CUDA_ARCHITECTURES, when given, wins;
    # otherwise ZEROFLOW_CUDA_ARCHITECTURES: portable (Ampere, Ada and Hopper as machine code, PTX
    # for newer GPUs to compile at load time), native (the GPUs of this machine, as nvidia-smi
    # reports them: a quick build for here; a machine without a GPU gets sm_90, so that the CUDA
    # code still compiles) or an explicit CMake list.
    set(ZEROFLOW_CUDA_ARCHITECTURES portable CACHE STRING "GPU code to build: portable, native or a CMake list (80;90)")
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
      if(ZEROFLOW_CUDA_ARCHITECTURES STREQUAL "portable")
        set(CMAKE_CUDA_ARCHITECTURES 80-real 86-real 89-real 90-real 90-virtual)
      elseif(ZEROFLOW_CUDA_ARCHITECTURES STREQUAL "native")
        execute_process(COMMAND nvidia-smi --query-gpu=compute_cap --format=csv,noheader
                        OUTPUT_VARIABLE zf_caps OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE zf_smi)
        string(REPLACE "." "" zf_caps "${zf_caps}")
        string(REGEX REPLACE "[\r\n]+" ";" zf_caps "${zf_caps}")
        list(REMOVE_DUPLICATES zf_caps)
        if(zf_smi EQUAL 0 AND zf_caps MATCHES "^[0-9]+(;[0-9]+)*$")
          set(CMAKE_CUDA_ARCHITECTURES ${zf_caps})
        else()
          set(CMAKE_CUDA_ARCHITECTURES 90)
        endif()
      else()
        set(CMAKE_CUDA_ARCHITECTURES ${ZEROFLOW_CUDA_ARCHITECTURES})
      endif()
    endif()
    enable_language(CUDA)
    if(NOT DEFINED CMAKE_CUDA20_STANDARD_COMPILE_OPTION)  # CMake < 3.26 does not know nvcc's C++20 flag
      set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20")
      set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20")
    endif()
    set(CMAKE_CUDA_STANDARD 20)
    set(CMAKE_CUDA_STANDARD_REQUIRED ON)
    find_package(CUDAToolkit REQUIRED)
    set(ZEROFLOW_HAS_CUDA ON)
    # What the binary carries, for `zeroflow info` and the check of a GPU at run time.
    string(REPLACE ";" "," ZEROFLOW_CUDA_ARCHITECTURES_BUILT "${CMAKE_CUDA_ARCHITECTURES}")
    # The same list as torch writes it (8.0;9.0+PTX), for LibTorch's CMake config.
    set(ZEROFLOW_TORCH_ARCH_LIST "")
    foreach(arch IN LISTS CMAKE_CUDA_ARCHITECTURES)
      string(REGEX MATCH "^([0-9]+)([0-9])(-real|-virtual)?$" zf_match "${arch}")
      if(zf_match)
        set(zf_version "${CMAKE_MATCH_1}.${CMAKE_MATCH_2}")
        if(CMAKE_MATCH_3 STREQUAL "-virtual")
          list(REMOVE_ITEM ZEROFLOW_TORCH_ARCH_LIST ${zf_version})
          list(APPEND ZEROFLOW_TORCH_ARCH_LIST "${zf_version}+PTX")
        elseif(NOT "${zf_version}+PTX" IN_LIST ZEROFLOW_TORCH_ARCH_LIST)
          list(APPEND ZEROFLOW_TORCH_ARCH_LIST ${zf_version})
        endif()
      endif()
    endforeach()
  elseif(ZEROFLOW_CUDA STREQUAL "ON")
    message(FATAL_ERROR "zeroflow: ZEROFLOW_CUDA=ON but no CUDA compiler was found")
  endif()
endif()

if(NOT ZEROFLOW_TORCH_ARCH_LIST)
  set(ZEROFLOW_TORCH_ARCH_LIST "9.0")  # no GPU code: any name skips the torch config's GPU probe
endif()

# LibTorch (only the backend module needs it: the eager path, LibTorch interop, old model files)
# from the torch wheel of the python3 on PATH (scripts/build puts .venv's first), or Torch_DIR.
# ZEROFLOW_TORCH=AUTO builds the backend when that torch is there, ON requires it, OFF leaves it out.
set(ZEROFLOW_HAS_TORCH OFF)
if(ZEROFLOW_TORCH)
  if(NOT Torch_DIR)
    # The interpreter the build is for (scikit-build-core names it), else the python3 on PATH.
    if(Python_EXECUTABLE)
      set(ZEROFLOW_PYTHON_FOR_TORCH ${Python_EXECUTABLE})
    else()
      find_program(ZEROFLOW_PYTHON_FOR_TORCH NAMES python3 python)
    endif()
    execute_process(COMMAND ${ZEROFLOW_PYTHON_FOR_TORCH} -c "import torch.utils; print(torch.utils.cmake_prefix_path)"
                    OUTPUT_VARIABLE torch_prefix OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE torch_rc
                    ERROR_QUIET)
    if(torch_rc EQUAL 0)
      list(APPEND CMAKE_PREFIX_PATH ${torch_prefix})
    endif()
  endif()
  # The torch wheel's config looks for the CUDA toolkit it was built against; it is only used
  # when zeroflow's own CUDA paths are on.
  # Naming the architecture skips the wheel's GPU-detection try_run, which fails on machines
  # without a GPU (and with CMake versions that do not know nvcc's C++20 flags).
  if(NOT DEFINED TORCH_CUDA_ARCH_LIST AND NOT DEFINED ENV{TORCH_CUDA_ARCH_LIST})
    set(TORCH_CUDA_ARCH_LIST "${ZEROFLOW_TORCH_ARCH_LIST}")
  endif()
  if(ZEROFLOW_TORCH STREQUAL "AUTO")
    find_package(Torch QUIET)
  else()
    find_package(Torch REQUIRED)
  endif()
  if(Torch_FOUND)
    set(ZEROFLOW_HAS_TORCH ON)
  else()
    message(STATUS "zeroflow: no LibTorch found (ZEROFLOW_TORCH=AUTO): no LibTorch backend; "
                   "ZEROFLOW_TORCH=ON requires one")
  endif()
endif()

# cairo (optional, Debian: libcairo2-dev) draws the PNG figures of `zeroflow run --figures png`.
# Without it src/report/png_*.cpp are not compiled (the GPU machine may lack the headers) and
# png_unavailable.cpp says so instead.
set(ZEROFLOW_HAS_CAIRO OFF)
find_package(PkgConfig QUIET)
if(PkgConfig_FOUND)
  pkg_check_modules(CAIRO QUIET IMPORTED_TARGET GLOBAL cairo)
endif()
file(GLOB ZEROFLOW_PNG_SOURCES CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/src/report/png_*.cpp)
set(ZEROFLOW_PNG_FALLBACK ${CMAKE_CURRENT_SOURCE_DIR}/src/report/png_unavailable.cpp)
list(REMOVE_ITEM ZEROFLOW_PNG_SOURCES ${ZEROFLOW_PNG_FALLBACK})
if(CAIRO_FOUND)
  set(ZEROFLOW_HAS_CAIRO ON)
  set_source_files_properties(${ZEROFLOW_PNG_FALLBACK} PROPERTIES HEADER_FILE_ONLY ON)
  # The report layer links cairo (CMakeLists.txt), and so does the test program, which reads the
  # PNGs back (tests/CMakeLists.txt).
elseif(ZEROFLOW_PNG_SOURCES)
  set_source_files_properties(${ZEROFLOW_PNG_SOURCES} PROPERTIES HEADER_FILE_ONLY ON)
endif()

# Warnings on for our own code.
function(zeroflow_warnings target)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor>
    $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra>)
endfunction()

if(ZEROFLOW_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
endif()
include(ZeroflowKvikIO)
