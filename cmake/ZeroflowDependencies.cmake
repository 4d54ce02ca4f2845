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
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
      set(CMAKE_CUDA_ARCHITECTURES 90)  # H100/H200; override for other GPUs
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
  elseif(ZEROFLOW_CUDA STREQUAL "ON")
    message(FATAL_ERROR "zeroflow: ZEROFLOW_CUDA=ON but no CUDA compiler was found")
  endif()
endif()

# LibTorch from the torch wheel of the Python that scripts/setup prepared (or Torch_DIR).
set(ZEROFLOW_HAS_TORCH OFF)
if(ZEROFLOW_TORCH)
  if(NOT Torch_DIR)
    find_program(ZEROFLOW_PYTHON_FOR_TORCH NAMES python3 python
                 HINTS ${CMAKE_CURRENT_SOURCE_DIR}/.venv/bin NO_DEFAULT_PATH)
    if(NOT ZEROFLOW_PYTHON_FOR_TORCH)
      find_program(ZEROFLOW_PYTHON_FOR_TORCH NAMES python3 python)
    endif()
    execute_process(COMMAND ${ZEROFLOW_PYTHON_FOR_TORCH} -c "import torch.utils; print(torch.utils.cmake_prefix_path)"
                    OUTPUT_VARIABLE torch_prefix OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE torch_rc)
    if(torch_rc EQUAL 0)
      list(APPEND CMAKE_PREFIX_PATH ${torch_prefix})
    endif()
  endif()
  # The torch wheel's config looks for the CUDA toolkit it was built against; it is only used
  # when zeroflow's own CUDA paths are on.
  # Naming the architecture skips the wheel's GPU-detection try_run, which fails on machines
  # without a GPU (and with CMake versions that do not know nvcc's C++20 flags).
  if(NOT DEFINED TORCH_CUDA_ARCH_LIST AND NOT DEFINED ENV{TORCH_CUDA_ARCH_LIST})
    set(TORCH_CUDA_ARCH_LIST "9.0")
  endif()
  find_package(Torch REQUIRED)
  set(ZEROFLOW_HAS_TORCH ON)
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
