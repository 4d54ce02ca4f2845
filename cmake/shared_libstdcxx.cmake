# zeroflow_shared_libstdcxx(<out-var>): the shared C++ runtime (libstdc++.so) to link next to LibTorch.
#
# LibTorch, Python, its other extensions and zeroflow must share one libstdc++. A compiler that only
# ships libstdc++.a (the GPU machine's /opt/gcc wrapper does) makes `-lstdc++` link a private static
# copy into the Python module, with its own locale and iostream state: the first std::ostringstream
# in an error message then crashed (codecvt::do_unshift), and torch aborted with "free(): invalid
# pointer" when imported after the module. So: the compiler's own libstdc++.so when it has one,
# otherwise the system's, by full path. Empty (link as the compiler does) for non-GNU toolchains.
function(zeroflow_shared_libstdcxx out)
  set(${out} "" PARENT_SCOPE)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "GNU" OR APPLE OR WIN32)
    return()
  endif()
  execute_process(COMMAND ${CMAKE_CXX_COMPILER} -print-file-name=libstdc++.so
                  OUTPUT_VARIABLE candidate OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(IS_ABSOLUTE "${candidate}" AND EXISTS "${candidate}")
    set(${out} "${candidate}" PARENT_SCOPE)
    return()
  endif()
  find_library(ZEROFLOW_SYSTEM_LIBSTDCXX NAMES libstdc++.so.6 libstdc++.so
               DOC "the shared libstdc++ (the compiler offers only a static one)")
  if(NOT ZEROFLOW_SYSTEM_LIBSTDCXX)
    message(FATAL_ERROR "zeroflow: ${CMAKE_CXX_COMPILER} has no shared libstdc++ and none was found on the "
                        "system; LibTorch needs one (set ZEROFLOW_SYSTEM_LIBSTDCXX=/path/to/libstdc++.so.6)")
  endif()
  message(STATUS "zeroflow: ${CMAKE_CXX_COMPILER} offers only a static libstdc++; linking ${ZEROFLOW_SYSTEM_LIBSTDCXX}")
  set(${out} "${ZEROFLOW_SYSTEM_LIBSTDCXX}" PARENT_SCOPE)
endfunction()
