# cmake -DUMRUN=<umrun> -DCONFIG=<airfoil config> -DCSV=<file> -P check_csv_parent.cmake
# --csv rows name the parent of the loops automatic loop splitting generates (issue 24): the
# header ends with "status,parent", res_calc's generated loops end with ",res_calc", the app's own
# loops with an empty parent. A CSV that begins with another header is refused.
file(REMOVE ${CSV})
execute_process(COMMAND ${UMRUN} ${CONFIG} --quiet --set run.split=on --set run.backend=seq --set run.iterations=3
                        --set validation.reference= --set output.dir= --csv ${CSV}
                RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "umrun exited with ${rc}: ${err}")
endif()
file(STRINGS ${CSV} lines)
list(GET lines 0 header)
if(NOT header MATCHES ",status,parent$")
  message(FATAL_ERROR "the header does not end with status,parent: ${header}")
endif()
set(generated 0)
set(own 0)
foreach(l IN LISTS lines)
  if(l MATCHES ",res_calc:[a-z0-9]+,.*,res_calc$")
    math(EXPR generated "${generated} + 1")
  elseif(l MATCHES ",res_calc,.*,$")
    math(EXPR own "${own} + 1")
  endif()
endforeach()
if(generated LESS 2 OR NOT own EQUAL 1)
  message(FATAL_ERROR "expected res_calc with an empty parent and at least two res_calc:* rows naming it; got "
                      "${own} and ${generated}:\n${lines}")
endif()
message("csv parent column: res_calc and ${generated} generated loops naming it")
# a file that begins with another header is refused, untouched (rows appended would not be under their names)
file(WRITE ${CSV}.other "a,b,c\n1,2,3\n")
execute_process(COMMAND ${UMRUN} ${CONFIG} --quiet --set run.backend=seq --set run.iterations=1 --set validation.reference=
                        --set output.dir= --csv ${CSV}.other
                RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
file(READ ${CSV}.other other)
if(rc EQUAL 0 OR NOT err MATCHES "begins with another header \\(\"a,b,c\"\\)" OR NOT other STREQUAL "a,b,c\n1,2,3\n")
  message(FATAL_ERROR "--csv onto another program's CSV: exit ${rc}, file now:\n${other}\n${err}")
endif()
file(REMOVE ${CSV}.other)
