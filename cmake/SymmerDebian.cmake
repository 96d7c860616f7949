# SPDX-License-Identifier: BSD-3-Clause
# Debian packages of the project (CPack DEB), one per install component:
#
#   component   package        contents
#   runtime     symmer         symmer-run, the PMPI shims, libsymmer, libsymmer-topology,
#                              /etc/symmer/symmer.toml, symmer-run(1), the documentation
#   daemon      symmerd        symmerd, symmerctl, the systemd unit, /etc/symmer/symmerd.toml,
#                              their manual pages
#   tsar        libtsar0       libtsar.so.0
#   tsar_dev    libtsar-dev    TSAR's headers, find_package(TSAR), tsar.pc, tsar-translate
#   symmer_dev  libsymmer-dev  symmer's headers, find_package(Symmer), symmer.pc
#
# Install rules name their component (install(... COMPONENT <component>)); anything without
# one (the benchmarks) is installed by cmake --install but packaged nowhere. The configuration
# files are conffiles. Build them with the package preset, whose prefix is /usr and sysconfdir /etc:
#   cmake --preset package && cmake --build --preset package && cpack --preset package
# Dependencies on Debian's libraries come from dpkg-shlibdeps; those between the project's
# packages are stated here. The package preset builds TSAR as the release preset does (the
# same compiler flags, so the build reuses ccache's objects); a libtsar built with TSAR_CUDA
# loads NVIDIA's CUDA runtime when a CUDA device is used (no Debian package provides it, and
# no Depends names it).
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME symmer)
set(CPACK_PACKAGE_VENDOR "The symmer and TSAR authors")
set(CPACK_PACKAGE_CONTACT "The symmer and TSAR authors")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_PACKAGE_DIRECTORY ${PROJECT_BINARY_DIR}/packages)
set(CPACK_PACKAGING_INSTALL_PREFIX ${CMAKE_INSTALL_PREFIX})
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL runtime daemon tsar tsar_dev symmer_dev)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# dpkg-shlibdeps finds the project's own libraries in the build tree (they are on no system
# yet); it names no package for them, so the Depends between our packages are set below.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS ${CMAKE_LIBRARY_OUTPUT_DIRECTORY})

set(_symmer_deb_version "${PROJECT_VERSION}")
# symmer_debian_package(<component> <package> <description> [DEPENDS <package...>]
#                       [CONFFILES <file under sysconfdir...>])
function(symmer_debian_package component name description)
  cmake_parse_arguments(ARG "" "" "DEPENDS;CONFFILES" ${ARGN})
  string(TOUPPER ${component} C)
  set(CPACK_DEBIAN_${C}_PACKAGE_NAME ${name} PARENT_SCOPE)
  set(CPACK_COMPONENT_${C}_DESCRIPTION "${description}" PARENT_SCOPE)
  if(ARG_DEPENDS)
    list(JOIN ARG_DEPENDS ", " depends)
    set(CPACK_DEBIAN_${C}_PACKAGE_DEPENDS "${depends}" PARENT_SCOPE)
  endif()
  if(ARG_CONFFILES)  # dpkg keeps a site's edits of these across upgrades
    list(TRANSFORM ARG_CONFFILES PREPEND "${CMAKE_INSTALL_FULL_SYSCONFDIR}/")
    list(JOIN ARG_CONFFILES "\n" conffiles)
    file(WRITE ${PROJECT_BINARY_DIR}/debian/${component}/conffiles "${conffiles}\n")
    set(CPACK_DEBIAN_${C}_PACKAGE_CONTROL_EXTRA ${PROJECT_BINARY_DIR}/debian/${component}/conffiles
        PARENT_SCOPE)
  endif()
  # Every package carries the licence where Debian looks for it.
  install(FILES ${PROJECT_SOURCE_DIR}/LICENSE DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/doc/${name}
          RENAME copyright COMPONENT ${component} EXCLUDE_FROM_ALL)
endfunction()

set(_same "(= ${_symmer_deb_version})")
symmer_debian_package(runtime symmer
  "symmer: autonomic rank placement for MPI jobs (launcher, PMPI monitor, libraries)
 symmer-run starts an unmodified MPI application with symmer's PMPI monitor, which measures
 communication idleness, out-of-sync communication and locality per rank and moves ranks to
 better cores while the job runs."
  CONFFILES symmer/symmer.toml)
symmer_debian_package(daemon symmerd
  "symmer's node daemon: analyses and places every MPI job on the node
 symmerd does for every job on the node what symmer's embedded analyzer does inside one job;
 symmerctl inspects the node and controls the daemon."
  DEPENDS "symmer ${_same}"
  CONFFILES symmer/symmerd.toml)
symmer_debian_package(tsar libtsar0
  "TSAR: one loop split across every CPU core and GPU of a node (library)
 The Task-Size Adapting Runtime learns each device's speed while the program runs and
 moves only the data each device needs."
  DEPENDS "symmer ${_same}")
symmer_debian_package(tsar_dev libtsar-dev
  "TSAR: one loop split across every CPU core and GPU of a node (development files)
 Headers (tsar/tsar.h, tsar/tsar.hpp), find_package(TSAR), pkg-config tsar, and
 tsar-translate, which turns annotated OpenMP target loops into TSAR regions."
  DEPENDS "libtsar0 ${_same}")
# tsar-translate is Python on libclang's bindings; the headers and libraries work without.
set(CPACK_DEBIAN_TSAR_DEV_PACKAGE_RECOMMENDS "python3, python3-clang-14")
symmer_debian_package(symmer_dev libsymmer-dev
  "symmer: node model and monitor libraries (development files)
 Headers, find_package(Symmer) and pkg-config symmer."
  DEPENDS "symmer ${_same}" "libhwloc-dev" "nlohmann-json3-dev")

include(CPack)
