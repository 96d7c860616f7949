# find_package(Symmer) / find_package(TSAR) configs and pkg-config files for installs.
include(CMakePackageConfigHelpers)
set(SYMMER_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake)

# symmer_install_package(<Package> <pkg-config name> <export set> <libs for .pc>)
function(symmer_install_package package pcname exportset pclibs)
  install(EXPORT ${exportset} NAMESPACE ${package}:: DESTINATION ${SYMMER_CMAKE_DIR}/${package})
  configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/${package}Config.cmake.in
    ${PROJECT_BINARY_DIR}/${package}Config.cmake INSTALL_DESTINATION ${SYMMER_CMAKE_DIR}/${package})
  write_basic_package_version_file(${PROJECT_BINARY_DIR}/${package}ConfigVersion.cmake
    COMPATIBILITY SameMinorVersion)
  install(FILES ${PROJECT_BINARY_DIR}/${package}Config.cmake
                ${PROJECT_BINARY_DIR}/${package}ConfigVersion.cmake
          DESTINATION ${SYMMER_CMAKE_DIR}/${package})
  set(PC_NAME ${pcname})
  set(PC_LIBS ${pclibs})
  configure_file(${PROJECT_SOURCE_DIR}/cmake/${pcname}.pc.in ${PROJECT_BINARY_DIR}/${pcname}.pc @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/${pcname}.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endfunction()

symmer_install_package(Symmer symmer SymmerTargets "-lsymmer -lsymmer-topology")
if(TARGET tsar)
  symmer_install_package(TSAR tsar TSARTargets "-ltsar")
endif()
