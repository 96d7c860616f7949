# SPDX-License-Identifier: BSD-3-Clause
# The project's version in generated files. The version is set in one place, project() in the
# top-level CMakeLists.txt; files that carry it are configured from templates here:
#   symmer_configure_version(<template> <output>)
# substitutes @PROJECT_VERSION@ and @PROJECT_VERSION_MAJOR@, _MINOR@, _PATCH@.
function(symmer_configure_version template output)
  configure_file(${template} ${output} @ONLY)
endfunction()
