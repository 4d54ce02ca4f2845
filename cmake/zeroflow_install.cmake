# `cmake --install <build>` lays out a package that `find_package(zeroflow)` finds: the headers of
# every layer this build has, its libraries, and lib/cmake/zeroflow/ with the exported targets
# (zeroflow::core ... zeroflow::report, zeroflow::zeroflow), a version file, and a config that
# finds again what the build linked (Threads, the CUDA toolkit, LibTorch, cairo).
include(CMakePackageConfigHelpers)

get_property(zeroflow_installed_layers GLOBAL PROPERTY ZEROFLOW_BUILT_LAYERS)
set(zeroflow_install_targets zeroflow)
foreach(layer IN LISTS zeroflow_installed_layers)
  list(APPEND zeroflow_install_targets zeroflow_${layer})
  install(DIRECTORY include/zeroflow/${layer} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/zeroflow)
endforeach()
install(FILES ${PROJECT_BINARY_DIR}/include/zeroflow/config.hpp DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/zeroflow)

if(ZEROFLOW_HAS_TORCH)
  # The LibTorch backend the model layer loads on first use, found in this lib folder.
  set_target_properties(zeroflow_torch PROPERTIES INSTALL_RPATH_USE_LINK_PATH ON)
  install(TARGETS zeroflow_torch LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
endif()
install(TARGETS ${zeroflow_install_targets} EXPORT zeroflowTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
set(zeroflow_config_dir ${CMAKE_INSTALL_LIBDIR}/cmake/zeroflow)
install(EXPORT zeroflowTargets NAMESPACE zeroflow:: DESTINATION ${zeroflow_config_dir})

# What the config must find again on the consumer's side, as this build found it.
set(ZEROFLOW_CONFIG_TORCH_DIR "")
if(ZEROFLOW_HAS_TORCH)
  set(ZEROFLOW_CONFIG_TORCH_DIR "${Torch_DIR}")
endif()
configure_package_config_file(cmake/zeroflowConfig.cmake.in ${PROJECT_BINARY_DIR}/zeroflowConfig.cmake
  INSTALL_DESTINATION ${zeroflow_config_dir})
# 0.x: a minor version may change the interface.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/zeroflowConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/zeroflowConfig.cmake ${PROJECT_BINARY_DIR}/zeroflowConfigVersion.cmake
  DESTINATION ${zeroflow_config_dir})
