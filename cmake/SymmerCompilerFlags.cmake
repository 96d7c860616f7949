# SPDX-License-Identifier: BSD-3-Clause
# Warnings and sanitizers shared by every target of the project.
add_library(symmer_warnings INTERFACE)
target_compile_options(symmer_warnings INTERFACE
  $<$<COMPILE_LANGUAGE:C,CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion>
  $<$<AND:$<BOOL:${SYMMER_WARNINGS_AS_ERRORS}>,$<COMPILE_LANGUAGE:C,CXX>>:-Werror>)

# The fuzz preset: coverage for libFuzzer in every library, so the fuzz targets steer into
# the project's code (tests/fuzz).
if(SYMMER_FUZZ)
  add_compile_options(-fsanitize=fuzzer-no-link)
endif()
if(SYMMER_SANITIZE)
  add_compile_options(-fsanitize=${SYMMER_SANITIZE} -fno-omit-frame-pointer)
  add_link_options(-fsanitize=${SYMMER_SANITIZE})
endif()
