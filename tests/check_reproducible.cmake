# Reproducible mode (run.reproducible, engine/src/transform/split.c): the same config run on each of RANKS
# (0: one process without mpirun; n: under mpirun -np n) with each of BACKENDS (backend/layout) gives the
# same metrics, bit for bit (umrun's JSON writes them with 17 significant digits: equal text is equal
# bits). Timing metrics (names matching SKIP) are left out.
#   cmake -DUMRUN=<umrun> -DCFG=<config> -DWORK=<scratch> [-DMPIEXEC=<mpirun>] [-DRANKS=1,2,3]
#         [-DBACKENDS=seq/aos,openmp/soa] [-DPARTS=block,rcb,sfc] [-DSKIP=<regex>] [-DARGS=a,b,...]
#         -P check_reproducible.cmake
# PARTS: each run of several ranks once with each mpi.partitioner, which its log line must name (default: the
# config's partitioner only).
# ARGS: more umrun arguments, comma separated (e.g. --set,run.iterations=50). openmp runs 2 threads.
# Without run.reproducible the sums round differently (ARGS=--set,run.reproducible=false fails it).
if(NOT DEFINED RANKS)
  set(RANKS 1,2,3)
endif()
if(NOT DEFINED BACKENDS)
  set(BACKENDS seq/aos)
endif()
string(REPLACE "," ";" BACKENDS "${BACKENDS}")
if(NOT SKIP)
  set(SKIP "ms_per|seconds|per_second")
endif()
string(REPLACE "," ";" RANKS "${RANKS}")
if(NOT DEFINED PARTS)
  set(PARTS "-")
endif()
string(REPLACE "," ";" PARTS "${PARTS}")
include(${CMAKE_CURRENT_LIST_DIR}/json_metrics.cmake)
string(REPLACE "," ";" ARGS "${ARGS}")
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
set(ENV{OMPI_ALLOW_RUN_AS_ROOT} 1)
set(ENV{OMPI_ALLOW_RUN_AS_ROOT_CONFIRM} 1)
set(ENV{OMP_NUM_THREADS} 1)
set(ENV{OMP_WAIT_POLICY} passive) # threads that sleep at barriers: spinning ones crawl on a loaded machine

set(first "")
foreach(np ${RANKS})
  foreach(part ${PARTS})
    list(GET PARTS 0 p0)
    if(np LESS 2 AND NOT part STREQUAL p0)
      continue() # one process: nothing is partitioned, one run is enough
    endif()
    set(pargs "")
    if(NOT part STREQUAL "-" AND np GREATER 1)
      set(pargs --set mpi.partitioner=${part})
    endif()
    foreach(bl ${BACKENDS})
      string(REPLACE "/" ";" bl "${bl}")
      list(GET bl 0 backend)
      list(GET bl 1 layout)
      set(what "${backend} ${layout}")
      set(launch "")
      if(NOT np EQUAL 0)
        set(launch ${MPIEXEC} --oversubscribe -np ${np})
        set(what "${what} on ${np} ranks")
      endif()
      if(pargs)
        set(what "${what}, ${part}")
      endif()
      set(json ${WORK}/np${np}_${part}_${backend}_${layout}.json)
      execute_process(COMMAND ${launch} ${UMRUN} ${CFG} --quiet --no-validate --set output.dir= --set run.reproducible=true
                              --set run.backend=${backend} --set run.layout=${layout} --set run.threads=2 ${ARGS}
                              ${pargs} --json ${json}
                      RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
      if(NOT rc EQUAL 0)
        message(FATAL_ERROR "${what}: umrun exited with ${rc}\n${out}${err}")
      endif()
      if(np GREATER 1 AND NOT "${out}${err}" MATCHES "mpi: ${np} ranks")
        message(FATAL_ERROR "${what}: the run does not say it ran on ${np} ranks\n${out}${err}")
      endif()
      if("${out}${err}" MATCHES "ranks ran different loops")  # each rank decided a loop's split on its own rows
        message(FATAL_ERROR "${what}: the ranks ran different loops\n${out}${err}")
      endif()
      if(pargs AND NOT "${out}${err}" MATCHES "partitioned by ${part}")
        message(FATAL_ERROR "${what}: the run does not say it was partitioned by ${part}\n${out}${err}")
      endif()
      um_json_metrics(${json} "${SKIP}" kept)
      list(LENGTH kept n)
      if(n EQUAL 0)
        message(FATAL_ERROR "${json}: every metric was left out as a timing")
      endif()
      string(REPLACE ";" "\n  " text "${kept}")
      message("${what}:\n  ${text}")
      if(first STREQUAL "")
        set(first "${kept}")
        set(first_what "${what}")
      elseif(NOT kept STREQUAL first)
        string(REPLACE ";" "\n  " ftext "${first}")
        message(FATAL_ERROR "the metrics of ${what} differ from those of ${first_what}:\n  ${text}\nagainst\n  ${ftext}")
      endif()
    endforeach()
  endforeach()
endforeach()
message("the same ${n} metrics, bit for bit, in every run")
