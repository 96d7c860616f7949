# SPDX-License-Identifier: BSD-3-Clause
# find_package(Symmer) / find_package(TSAR) configs and pkg-config files for installs.
# Included last by the top-level CMakeLists.txt, so it sees every target the parts defined:
# a library joins a package by `install(TARGETS <lib> EXPORT SymmerTargets)` (or TSARTargets)
# and is named in the pkg-config file below when its target exists.
include(CMakePackageConfigHelpers)
set(SYMMER_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake)

# pkg-config files locate the prefix from their own place, so `cmake --install --prefix`
# anywhere gives a working file.
file(RELATIVE_PATH SYMMER_PC_TO_PREFIX "/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/")
string(REGEX REPLACE "/$" "" SYMMER_PC_TO_PREFIX "${SYMMER_PC_TO_PREFIX}")

# symmer_install_package(<Package> <pkg-config name> <export set> COMPONENT <component>
#                        LIBRARIES <target...> [REQUIRES <pc...>] [REQUIRES_PRIVATE <pc...>])
# Installs <Package>Config.cmake + version file and <pcname>.pc naming the LIBRARIES that
# exist as targets, as part of the install component (Debian package) <component>.
function(symmer_install_package package pcname exportset)
  cmake_parse_arguments(ARG "" "COMPONENT" "LIBRARIES;REQUIRES;REQUIRES_PRIVATE" ${ARGN})
  install(EXPORT ${exportset} NAMESPACE ${package}:: DESTINATION ${SYMMER_CMAKE_DIR}/${package}
          COMPONENT ${ARG_COMPONENT})
  configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/${package}Config.cmake.in
    ${PROJECT_BINARY_DIR}/${package}Config.cmake INSTALL_DESTINATION ${SYMMER_CMAKE_DIR}/${package})
  write_basic_package_version_file(${PROJECT_BINARY_DIR}/${package}ConfigVersion.cmake
    COMPATIBILITY SameMinorVersion)
  install(FILES ${PROJECT_BINARY_DIR}/${package}Config.cmake
                ${PROJECT_BINARY_DIR}/${package}ConfigVersion.cmake
          DESTINATION ${SYMMER_CMAKE_DIR}/${package} COMPONENT ${ARG_COMPONENT})
  set(PC_LIBS "")
  foreach(lib IN LISTS ARG_LIBRARIES)
    if(TARGET ${lib})
      string(APPEND PC_LIBS " -l${lib}")
    endif()
  endforeach()
  set(PC_NAME ${pcname})
  list(JOIN ARG_REQUIRES " " PC_REQUIRES)
  list(JOIN ARG_REQUIRES_PRIVATE " " PC_REQUIRES_PRIVATE)
  configure_file(${PROJECT_SOURCE_DIR}/cmake/${pcname}.pc.in ${PROJECT_BINARY_DIR}/${pcname}.pc @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/${pcname}.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig
          COMPONENT ${ARG_COMPONENT})
endfunction()

symmer_install_package(Symmer symmer SymmerTargets COMPONENT symmer_dev
  LIBRARIES symmer symmer-topology
  REQUIRES nlohmann_json
  REQUIRES_PRIVATE hwloc)
if(TARGET tsar)
  # tsar.pc's offload_cflags / offload_libs: tsar_enable_offload's flags (TsarOffload.cmake)
  # where this build's compiler offloads; elsewhere target regions stay on the host.
  if(TSAR_OFFLOAD_ENABLED)
    list(JOIN TSAR_OFFLOAD_FLAGS " " TSAR_PC_OFFLOAD_FLAGS)
    set(TSAR_PC_OFFLOAD_LIBS "${TSAR_PC_OFFLOAD_FLAGS} -foffload-options=-lm -Wl,-z,notext")
  else()
    set(TSAR_PC_OFFLOAD_FLAGS -foffload=disable)
    set(TSAR_PC_OFFLOAD_LIBS -foffload=disable)
  endif()
  # libtsar uses libsymmer-topology privately: its users need no symmer development files.
  symmer_install_package(TSAR tsar TSARTargets COMPONENT tsar_dev LIBRARIES tsar)
endif()

# Documentation beside the programs, and the Debian packages (cpack --preset package).
install(FILES ${PROJECT_SOURCE_DIR}/README.md ${PROJECT_SOURCE_DIR}/LICENSE
              ${PROJECT_SOURCE_DIR}/NOTICE ${PROJECT_SOURCE_DIR}/docs/architecture.md
        DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT runtime)
include(SymmerDebian)
