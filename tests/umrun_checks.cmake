# What the umrun end-to-end checks share (include()d by check_suite.cmake and check_provenance.cmake):
#   run(EXPECT_RC REGEX ARGS...)  umrun ARGS must exit EXPECT_RC with output (stdout and stderr) matching REGEX;
#                                 the output is left in last_output
#   check_schemas(DIR [FILE...])  with PYTHON set: every JSON file under DIR that names a format of um's (or
#                                 each FILE, which must) validates against docs/schema (tests/check_schema.py)
function(run expect_rc regex)
  execute_process(COMMAND ${UMRUN} ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  set(all "${out}${err}")
  if(NOT rc EQUAL expect_rc)
    message(FATAL_ERROR "umrun ${ARGN}: expected exit status ${expect_rc}, got ${rc}\n${all}")
  endif()
  if(NOT all MATCHES "${regex}")
    message(FATAL_ERROR "umrun ${ARGN}: output does not match '${regex}'\n${all}")
  endif()
  set(last_output "${all}" PARENT_SCOPE)
endfunction()

function(check_schemas dir)
  if(NOT PYTHON)
    message(STATUS "PYTHON not given: the JSON files are not validated against docs/schema")
    return()
  endif()
  set(what --scan ${dir})
  if(ARGN)
    set(what ${ARGN})
  endif()
  execute_process(COMMAND ${PYTHON} ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/check_schema.py
                          ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/../docs/schema ${what}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE so ERROR_VARIABLE se)
  if(rc EQUAL 77)
    message(STATUS "${so}")
  elseif(NOT rc EQUAL 0)
    message(FATAL_ERROR "JSON files that do not validate against docs/schema:\n${so}${se}")
  else()
    string(REGEX MATCHALL ": valid um-" valid "${so}")
    list(LENGTH valid nvalid)
    message(STATUS "${nvalid} JSON files validated against docs/schema")
  endif()
endfunction()
