# cmake -DDOXYGEN=doxygen -DDOXYFILE=build/docs/Doxyfile.test -DOUT=build/docs/api_test -DSRC=<source dir> -P check_doxygen.cmake
# Builds the API reference into OUT and passes only when Doxygen exits 0 (WARN_AS_ERROR = FAIL_ON_WARNINGS),
# printed no warning at all and wrote the main page.
file(REMOVE_RECURSE ${OUT})
file(MAKE_DIRECTORY ${OUT})
execute_process(COMMAND ${DOXYGEN} ${DOXYFILE} WORKING_DIRECTORY ${SRC} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                ERROR_VARIABLE err)
message("${out}${err}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "doxygen exited with ${rc}: fix the warnings above (every public declaration needs a doc comment)")
endif()
if("${out}${err}" MATCHES "warning:|error:")
  message(FATAL_ERROR "doxygen printed warnings or errors (above)")
endif()
if(NOT EXISTS ${OUT}/html/index.html)
  message(FATAL_ERROR "doxygen wrote no ${OUT}/html/index.html")
endif()
file(READ ${OUT}/html/index.html index)
if(NOT index MATCHES "The first loop")
  message(FATAL_ERROR "the main page is not docs/api.md")
endif()
message("docs.doxygen: ${OUT}/html/index.html, no warnings")
