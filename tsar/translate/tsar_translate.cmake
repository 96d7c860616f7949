# SPDX-License-Identifier: BSD-3-Clause
# tsar_translate(<target> <source>...)
#
# Builds <target> from the translations of the given sources instead of the sources
# themselves: each `#pragma tsar hetero(...)` loop becomes a TSAR region (tsar-translate(1)).
# A translation is <binary dir>/tsar-translated/<target>/<name>, remade when the source, a
# header it includes, or the tool changes; the parse sees the target's include directories
# and compile definitions. <target> is linked with TSAR::tsar. Sources not listed are left
# alone, so one target may mix translated and plain files.
#
# Uses TSAR_TRANSLATE_COMMAND (the tool), TSAR_TRANSLATE_DEPENDS (what a translation depends
# on besides its source) and TSAR_TRANSLATE_INCLUDE_DIR (where tsar/translated.h is, when
# not beside tsar/tsar.h), set by TSAR's CMakeLists (in-tree) or TsarTranslate.cmake
# (installed).
function(tsar_translate target)
  if(NOT TARGET ${target})
    message(FATAL_ERROR "tsar_translate: '${target}' is not a target")
  endif()
  get_target_property(source_dir ${target} SOURCE_DIR)
  get_target_property(sources ${target} SOURCES)
  if(NOT sources)
    set(sources "")
  endif()
  set(incs "$<TARGET_PROPERTY:${target},INCLUDE_DIRECTORIES>")
  set(defs "$<TARGET_PROPERTY:${target},COMPILE_DEFINITIONS>")
  foreach(src IN LISTS ARGN)
    get_filename_component(abs "${src}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    get_filename_component(name "${src}" NAME)
    set(out "${CMAKE_CURRENT_BINARY_DIR}/tsar-translated/${target}/${name}")
    set(language c++)
    if(name MATCHES "\\.c$")
      set(language c)
    endif()
    add_custom_command(
      OUTPUT "${out}"
      COMMAND ${TSAR_TRANSLATE_COMMAND} -x ${language} "${abs}" -o "${out}" --depfile "${out}.d"
              -- "$<$<BOOL:${incs}>:-I$<JOIN:${incs},;-I>>"
                 "$<$<BOOL:${defs}>:-D$<JOIN:${defs},;-D>>"
      DEPENDS "${abs}" ${TSAR_TRANSLATE_DEPENDS}
      DEPFILE "${out}.d"
      COMMENT "tsar-translate ${src}"
      COMMAND_EXPAND_LISTS VERBATIM)
    # `#include "x.h"` in the translation finds what it found beside the source.
    get_filename_component(dir "${abs}" DIRECTORY)
    set_property(SOURCE "${out}" APPEND PROPERTY COMPILE_OPTIONS "-iquote" "${dir}")
    # The target compiles the translation in place of the source.
    set(kept "")
    foreach(s IN LISTS sources)
      get_filename_component(s_abs "${s}" ABSOLUTE BASE_DIR "${source_dir}")
      if(NOT s_abs STREQUAL abs)
        list(APPEND kept "${s}")
      endif()
    endforeach()
    set(sources ${kept} "${out}")
  endforeach()
  set_property(TARGET ${target} PROPERTY SOURCES ${sources})
  target_link_libraries(${target} PRIVATE TSAR::tsar)
  if(TSAR_TRANSLATE_INCLUDE_DIR)
    target_include_directories(${target} PRIVATE "${TSAR_TRANSLATE_INCLUDE_DIR}")
  endif()
endfunction()
