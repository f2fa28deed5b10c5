# cmake -DUMRUN=... -DWORK=<dir> -P check_outputs_safe.cmake   (run from the source root)
# Issue 15 faults 7 and 8: outputs are written through unique temporaries and
# renamed into place, so
#  1. two runs writing into one output folder at the same time both succeed and
#     leave complete files (with one shared "<file>.tmp" both failed, 6 of 6);
#  2. a --json that cannot be written (here the file size limit, as a full disk)
#     fails the run (exit status 2), says why and leaves the old file whole (it
#     was truncated to 0 bytes and the run exited 0).
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK}/out)
find_program(BASH bash REQUIRED)
string(JOIN " " run ${UMRUN} --quiet --set run.iterations=2 --set mesh.I=400 --set mesh.J=600 --set validation.reference=
       --set output.dir=${WORK}/out --set output.hdf5=true)
execute_process(COMMAND ${BASH} -c "${run} --json ${WORK}/a.json > ${WORK}/a.log 2>&1 & p=$!; ${run} --json ${WORK}/b.json > ${WORK}/b.log 2>&1; rb=$?; wait $p; echo \"$?;$rb\""
                OUTPUT_VARIABLE rcs OUTPUT_STRIP_TRAILING_WHITESPACE)
file(READ ${WORK}/a.log alog)
file(READ ${WORK}/b.log blog)
message("${alog}${blog}")
if(NOT rcs STREQUAL "0;0")
  message(FATAL_ERROR "two runs into one output folder: exit statuses ${rcs}, expected 0;0")
endif()
file(GLOB left ${WORK}/out/*)
foreach(f IN LISTS left)
  if(f MATCHES "\\.tmp")
    message(FATAL_ERROR "a temporary was left behind: ${f}")
  endif()
endforeach()
foreach(f airfoil.h5 airfoil.xmf)
  if(NOT EXISTS ${WORK}/out/${f})
    message(FATAL_ERROR "${f} missing after two runs")
  endif()
endforeach()
# the mesh the runs wrote reads back (a complete file)
execute_process(COMMAND ${UMRUN} --quiet --set run.iterations=10 --set validation.reference= --set output.dir=
                --set mesh.file=${WORK}/out/airfoil.h5 RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the airfoil.h5 the two runs wrote does not read back: ${out}${err}")
endif()

file(WRITE ${WORK}/old.json "{\"old\": true}\n")
execute_process(COMMAND ${BASH} -c "trap '' XFSZ; ulimit -f 0; exec \"$0\" --quiet --set run.iterations=10 --set validation.reference= --set output.dir= --json ${WORK}/old.json"
                ${UMRUN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT rc EQUAL 2)
  message(FATAL_ERROR "a --json that cannot be written must fail the run with exit status 2, got ${rc}")
endif()
if(NOT "${err}" MATCHES "--json: cannot write .*old.json.*file size limit")
  message(FATAL_ERROR "the message does not say why the --json file could not be written")
endif()
file(READ ${WORK}/old.json old)
if(NOT old STREQUAL "{\"old\": true}\n")
  message(FATAL_ERROR "the old --json file was damaged: '${old}'")
endif()
file(GLOB left ${WORK}/*.tmp*)
if(left)
  message(FATAL_ERROR "a temporary was left behind: ${left}")
endif()
