# cmake -DUMRUN=... -DCFG=<jacobi.yaml> -DWORK=<empty dir> -P check_no_shell.cmake
# Fault 1 of issue 15: no string from a config or the command line reaches a
# shell. A config whose app name carries a shell command, and a sweep folder
# whose name does, must run no command: the first is refused (exit 1) before
# anything runs; the second sweeps and plots with the folder taken literally.
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
file(WRITE ${WORK}/evil.yaml "app: \"jacobi'; touch PWNED_APP; '\"\nmesh: {N: 8}\nsweep: [\"app=jacobi\", \"run.block_size=16,32\"]\n")
execute_process(COMMAND ${UMRUN} evil.yaml WORKING_DIRECTORY ${WORK} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                ERROR_VARIABLE err)
message("${out}${err}")
if(NOT rc EQUAL 1 OR NOT "${err}" MATCHES "app: unknown value")
  message(FATAL_ERROR "a config with a bad app name must be refused with exit status 1 before the sweep, got ${rc}")
endif()
set(dir "o' && touch PWNED_DIR && '$(touch PWNED_SUB)`touch PWNED_BQ`")
execute_process(COMMAND ${UMRUN} ${CFG} --quiet --set mesh.N=8 --set validation.reference= --sweep run.block_size=16,32
                --sweep-out ${dir} WORKING_DIRECTORY ${WORK} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the sweep into a folder with quotes in its name failed: ${rc}")
endif()
if(NOT EXISTS "${WORK}/${dir}/sweep.csv")
  message(FATAL_ERROR "no sweep.csv in the folder named literally")
endif()
if(EXISTS ${WORK}/PWNED_APP OR EXISTS ${WORK}/PWNED_DIR OR EXISTS ${WORK}/PWNED_SUB OR EXISTS ${WORK}/PWNED_BQ)
  message(FATAL_ERROR "a shell ran a command from the config or the command line")
endif()
