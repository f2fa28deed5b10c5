# Writes what `umrun --help-options=WHAT` prints (man, bash, zsh) to OUT, at build time (umrun/CMakeLists.txt).
#   cmake -DUMRUN=build/bin/umrun -DWHAT=man -DOUT=build/share/man/man1/umrun.1 -P cmake/um_help_file.cmake
cmake_minimum_required(VERSION 3.20)
get_filename_component(dir ${OUT} DIRECTORY)
file(MAKE_DIRECTORY ${dir})
execute_process(COMMAND ${UMRUN} --help-options=${WHAT} OUTPUT_FILE ${OUT}.tmp RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  file(REMOVE ${OUT}.tmp)
  message(FATAL_ERROR "${UMRUN} --help-options=${WHAT} failed (${rc}): ${err}")
endif()
file(RENAME ${OUT}.tmp ${OUT})
