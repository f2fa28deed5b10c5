# The um Debian package's copyright file (/usr/share/doc/um/copyright), machine-readable (Debian's copyright format
# 1.0): um's own files under LICENSE, and a Files paragraph for each third-party row of THIRD_PARTY.md that the
# package ships, with its copyright and licence text (the texts as validation/<app>/LICENSE.upstream holds them;
# the GPL's full text by Debian's /usr/share/common-licenses/GPL-3 and the shipped LICENSE.upstream). Written at
# configure time to ${PROJECT_BINARY_DIR}/debian/copyright; UmInstall.cmake installs it. Test: package.deb.

# the text of FILE between the line starting with MARKER (or the file's start when MARKER is "") and the next
# marker line "================" (or the end), as a copyright file's licence text: each line indented by one space,
# an empty line written " ."
function(_um_dep5_text out file marker)
  file(STRINGS ${file} lines)
  set(inside FALSE)
  if(marker STREQUAL "")
    set(inside TRUE)
  endif()
  set(text "")
  foreach(line IN LISTS lines)
    if(line MATCHES "^================")
      if(inside)
        break()
      elseif(line MATCHES "^=+ ${marker}$")
        set(inside TRUE)
      endif()
      continue()
    endif()
    if(inside)
      if(line STREQUAL "")
        string(APPEND text "\n .")
      else()
        string(APPEND text "\n ${line}")
      endif()
    endif()
  endforeach()
  string(REGEX REPLACE "^\n" "" text "${text}")
  string(REGEX REPLACE "(\n \\.)+$" "" text "${text}") # no empty lines at the end
  if(text STREQUAL "")
    message(FATAL_ERROR "um: no licence text in ${file} (after a line '=== ${marker}')")
  endif()
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

set(_um_v ${PROJECT_SOURCE_DIR}/validation)
set(_um_d usr/share/um/validation) # the paths as the package installs them
set_property(DIRECTORY ${PROJECT_SOURCE_DIR} APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/LICENSE
             ${_um_v}/bookleaf/LICENSE.upstream ${_um_v}/miniaero/LICENSE.upstream ${_um_v}/volna/LICENSE.upstream)
_um_dep5_text(_um_own ${PROJECT_SOURCE_DIR}/LICENSE "")
_um_dep5_text(_um_bookleaf ${_um_v}/bookleaf/LICENSE.upstream LICENSE.txt)
_um_dep5_text(_um_miniaero ${_um_v}/miniaero/LICENSE.upstream "")
_um_dep5_text(_um_volna ${_um_v}/volna/LICENSE.upstream LICENSE)
file(WRITE ${PROJECT_BINARY_DIR}/debian/copyright "\
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: um
Comment: um is under the BSD 3-Clause licence. The validation data it ships under
 /usr/share/um/validation named below comes from other projects (their decks, gold files and
 outputs) and keeps its own licence; each of those folders also holds the licence text as
 LICENSE.upstream. /usr/share/doc/um/THIRD_PARTY.md lists them with their provenance.

Files: *
Copyright: 2026, the um authors
License: BSD-3-Clause
${_um_own}

Files: ${_um_d}/bookleaf/decks/* ${_um_d}/bookleaf/upstream/*
Copyright: Crown Copyright 2018 AWE
Comment: BookLeaf_F90 (UK-MAC): its decks and its outputs.
License: GPL-3+
${_um_bookleaf}
 .
 On Debian systems, the full text of the GNU General Public License version 3 is in
 /usr/share/common-licenses/GPL-3, and with BookLeaf's notice in
 /${_um_d}/bookleaf/LICENSE.upstream.

Files: ${_um_d}/miniaero/*.inp ${_um_d}/miniaero/*.results.gold ${_um_d}/miniaero/*.results.ref
Copyright: 2014 Sandia Corporation
Comment: miniAero (Mantevo): its decks, gold files and outputs.
License: BSD-3-Clause
${_um_miniaero}

Files: ${_um_d}/volna/decks/* ${_um_d}/volna/upstream/*
Copyright: 2018, Frederic Dias, Serge Guillas, Istvan Reguly
Comment: Volna: its decks and its outputs.
License: BSD-2-Clause
${_um_volna}
")
