# cmake -DUMRUN=... -DCFG=<jacobi.yaml> -DWORK=<dir> -P check_sweep_plot.cmake
# Issue 26 (the first hour): the sweep's plots print '_' in loop and variant
# names as written (gnuplot's enhanced text would make it a subscript) and
# start their y axis (useful GB/s) at 0.
file(REMOVE_RECURSE ${WORK})
execute_process(COMMAND ${UMRUN} ${CFG} --quiet --set mesh.N=8 --set validation.reference=
                --sweep run.block_size=16,32 --sweep run.layout=aos,soa --sweep-out ${WORK}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the sweep failed: ${rc}")
endif()
file(READ ${WORK}/sweep.gp gp)
string(REGEX MATCHALL "set terminal [^\n]*" terms "${gp}")
list(LENGTH terms nterms)
if(nterms EQUAL 0)
  message(FATAL_ERROR "sweep.gp sets no terminal:\n${gp}")
endif()
foreach(t IN LISTS terms)
  if(NOT t MATCHES "noenhanced")
    message(FATAL_ERROR "'${t}': without noenhanced, gnuplot prints '_' in names as a subscript")
  endif()
endforeach()
if(NOT gp MATCHES "set yrange \\[0:")
  message(FATAL_ERROR "sweep.gp does not start the y axis at 0:\n${gp}")
endif()
