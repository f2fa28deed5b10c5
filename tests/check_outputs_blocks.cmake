# cmake -DUMRUN=<umrun> -DLAUNCHER=<mpiexec,...> -DCFG=<config> -DWORK=<dir> "-DARGS=a,b,..." -DFILES=<n>
#       -P check_outputs_blocks.cmake
# An app's outputs written by blocks (HDF5 fields and their XDMF, text field files) on 1, 2 and 3 ranks: the same
# bytes (issue 57). The output folder of each run is compared file by file with the one rank's; FILES is how many
# files (*.h5, *.xmf, *.txt, results.0) the one rank's folder must hold, so that a run writing nothing fails.
string(REPLACE "," ";" launcher "${LAUNCHER}")
string(REPLACE "," ";" args "${ARGS}")
file(REMOVE_RECURSE ${WORK})
foreach(np 1 2 3)
  execute_process(COMMAND ${launcher} -np ${np} ${UMRUN} ${CFG} --quiet ${args} --set output.dir=${WORK}/np${np}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${np} ranks: exit ${rc}\n${out}")
  endif()
endforeach()
file(GLOB files RELATIVE ${WORK}/np1 ${WORK}/np1/*.h5 ${WORK}/np1/*.xmf ${WORK}/np1/*.txt ${WORK}/np1/results.0)
list(LENGTH files n)
if(NOT n EQUAL FILES)
  message(FATAL_ERROR "one rank wrote ${n} output files (${files}), expected ${FILES}")
endif()
foreach(np 2 3)
  foreach(f ${files})
    execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${WORK}/np1/${f} ${WORK}/np${np}/${f} RESULT_VARIABLE d)
    if(NOT d EQUAL 0)
      message(FATAL_ERROR "${f} written on ${np} ranks differs from the one rank's")
    endif()
  endforeach()
endforeach()
message(STATUS "the same bytes on 1, 2 and 3 ranks: ${n} files (${files})")
file(REMOVE_RECURSE ${WORK})
