# Provenance and like with like (issue 59), on single runs of jacobi (fast, deterministic: no timing is judged,
# the load is injected by editing a run's JSON, never by loading the machine):
#   cmake -DUMRUN=<umrun> -DCFG=<jacobi.yaml> -DWORK=<scratch> [-DPYTHON=<python3>] -P check_provenance.cmake
#   1. a run's JSON lists every key of the options table in effect (the one umrun prints) with its value and
#      source: config file, UM_OPTIONS, --set, default; the files it read with their SHA-256 (those options name,
#      and one only a deck names: um_app_input); the machine, the load, the threads and ranks; umrun prints
#      threads, ranks, device and load at the start;
#   2. --compare of (a) two runs with the same settings: compared; (b) a params.* difference: NOT COMPARABLE
#      (exit 4), naming the key; (c) --allow of that key: compared, the difference shown; (d) a loaded side: no
#      faster/slower verdict, where the same pair unloaded is called SLOWER;
#   3. --repeat N for a single run: median and spread per loop, in the output and the JSON;
#   4. every JSON file written here validates against docs/schema.
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")

include(${CMAKE_CURRENT_LIST_DIR}/umrun_checks.cmake) # run(), check_schemas()

# 1. every option in effect with its source
execute_process(COMMAND ${CMAKE_COMMAND} -E env "UM_OPTIONS=run.block_size=32"
                        ${UMRUN} ${CFG} --set run.backend=seq --json ${WORK}/a.json
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "jacobi run: exit ${rc}\n${out}${err}")
endif()
if(NOT out MATCHES "where: 1 rank x 1 thread per rank \\(seq backend\\), device none \\(CPU\\); load average [0-9.-]+ on [0-9]+ cores")
  message(FATAL_ERROR "the run does not say where it runs (ranks, threads, device, load) at its start:\n${out}")
endif()
file(READ ${WORK}/a.json a)
string(JSON fmt GET "${a}" format)
if(NOT fmt STREQUAL "um-run-2")
  message(FATAL_ERROR "a.json: format '${fmt}'")
endif()
# the table of options in effect, as umrun prints it: "  key = value  [origin]"
string(REGEX REPLACE ".*options in effect:\n" "" table "${out}")
string(REGEX REPLACE "\nrunning jacobi.*" "" table "${table}")
string(REGEX MATCHALL "  [A-Za-z_.0-9]+ += [^\n]*\\[[^]\n]*\\]" rows "${table}")
list(LENGTH rows nrows)
if(nrows LESS 10)
  message(FATAL_ERROR "fewer than 10 rows in the printed options table:\n${table}")
endif()
foreach(row IN LISTS rows)
  string(REGEX MATCH "^  ([A-Za-z_.0-9]+) += .*\\[([^]]*)\\]$" m "${row}")
  set(key "${CMAKE_MATCH_1}")
  set(origin "${CMAKE_MATCH_2}")
  string(JSON src ERROR_VARIABLE miss GET "${a}" options ${key} source)
  if(miss)
    message(FATAL_ERROR "a.json's options lack '${key}', in effect ([${origin}]): ${miss}")
  endif()
  if(origin MATCHES "^file " AND NOT src STREQUAL "config" OR origin STREQUAL "default" AND NOT src STREQUAL "default"
     OR origin STREQUAL "--set" AND NOT src STREQUAL "--set" OR origin STREQUAL "UM_OPTIONS" AND NOT src STREQUAL "UM_OPTIONS")
    message(FATAL_ERROR "a.json: ${key} from [${origin}] recorded with source '${src}'")
  endif()
endforeach()
foreach(expect "run.backend;seq;--set" "run.block_size;32;UM_OPTIONS" "params.tolerance;1.0e-13;config"
               "run.strategy;auto;default" "run.split;auto;default")
  list(GET expect 0 key)
  list(GET expect 1 value)
  list(GET expect 2 source)
  string(JSON v GET "${a}" options ${key} value)
  string(JSON s GET "${a}" options ${key} source)
  if(NOT v STREQUAL value OR NOT s STREQUAL source)
    message(FATAL_ERROR "a.json: ${key} = '${v}' from '${s}' (expected '${value}' from '${source}')")
  endif()
endforeach()
# the files read, with their content hashes
string(JSON role GET "${a}" inputs 0 role)
string(JSON hash GET "${a}" inputs 0 sha256)
file(SHA256 ${CFG} want)
if(NOT role STREQUAL "config" OR NOT hash STREQUAL want)
  message(FATAL_ERROR "a.json: inputs[0] is '${role}' with sha256 ${hash} (the config's is ${want})")
endif()
string(JSON role GET "${a}" inputs 1 role)
if(NOT role STREQUAL "validation.reference")
  message(FATAL_ERROR "a.json: inputs[1] is '${role}', not the validation reference")
endif()
foreach(path "machine;cpu" "machine;cores" "machine;memory_gib" "load;start" "load;busy" "load;threads" "load;ranks"
             "build;c_flags" "build;build_type" "build;commit")
  string(JSON v ERROR_VARIABLE miss GET "${a}" ${path})
  if(miss)
    message(FATAL_ERROR "a.json lacks ${path}: ${miss}")
  endif()
endforeach()
string(JSON gpu TYPE "${a}" machine gpu)
string(JSON note ERROR_VARIABLE no_note GET "${a}" machine gpu_note)
if(gpu STREQUAL "NULL" AND no_note)
  message(FATAL_ERROR "a.json: machine.gpu is null without a gpu_note saying why")
endif()

# a file no option names, read by the app (a Volna deck's Gmsh mesh: um_app_input), listed with its hash too
get_filename_component(msh ${CMAKE_CURRENT_LIST_DIR}/../apps/volna/tests/data/gmsh_square.msh ABSOLUTE)
file(WRITE ${WORK}/deck.vln "Time { end = 0.01 }\nMesh \"${msh}\"\nPhysicalParams { g = 9.81 }\n"
                            "NumericalParams { cfl = .45 }\nInit { istart = 0 iend = 0 } Bathymetry { return -1;}\n")
file(WRITE ${WORK}/volna.yaml "app: volna\nmesh: {file: ${WORK}/deck.vln}\nrun: {backend: seq}\n")
run(0 "volna finished" ${WORK}/volna.yaml --json ${WORK}/volna.json --quiet)
file(READ ${WORK}/volna.json vj)
string(JSON role GET "${vj}" inputs 2 role)
string(JSON path GET "${vj}" inputs 2 path)
string(JSON hash GET "${vj}" inputs 2 sha256)
file(SHA256 ${msh} want)
if(NOT role STREQUAL "read by the app" OR NOT path STREQUAL msh OR NOT hash STREQUAL want)
  message(FATAL_ERROR "volna.json: inputs[2] is '${role}' '${path}' sha256 ${hash} (the deck's mesh ${msh}: ${want})")
endif()

# 2. like with like
execute_process(COMMAND ${CMAKE_COMMAND} -E env "UM_OPTIONS=run.block_size=32"
                        ${UMRUN} ${CFG} --set run.backend=seq --json ${WORK}/b.json --quiet OUTPUT_QUIET RESULT_VARIABLE rc)
execute_process(COMMAND ${CMAKE_COMMAND} -E env "UM_OPTIONS=run.block_size=32"
                        ${UMRUN} ${CFG} --set run.backend=seq --set params.tolerance=1e-12 --json ${WORK}/c.json --quiet
                OUTPUT_QUIET RESULT_VARIABLE rc2)
if(NOT rc EQUAL 0 OR NOT rc2 EQUAL 0)
  message(FATAL_ERROR "the runs b, c: exit ${rc}, ${rc2}")
endif()
# (a) the same settings: compared, no setting listed as differing
run(0 "1 runs compared; 0 correctness regressions" --compare ${WORK}/a.json ${WORK}/b.json --json ${WORK}/cmp_ab.json)
if(last_output MATCHES "Settings that differ|NOT COMPARABLE")
  message(FATAL_ERROR "--compare of two runs with the same settings lists settings that differ:\n${last_output}")
endif()
# (a'') runs without a validation reference have no tolerances: a metric that differs is listed and counted, not
# judged (exit 0), and never silently passed
run(0 "" ${CFG} --no-validate --set run.backend=seq --json ${WORK}/nv1.json --quiet)
run(0 "" ${CFG} --no-validate --set run.backend=seq --set params.tolerance=1e-6 --json ${WORK}/nv2.json --quiet)
run(0 "[1-9][0-9]* metrics? differs? between A and B with no tolerance to judge.*not called" --compare ${WORK}/nv1.json
    ${WORK}/nv2.json --allow params.tolerance)
run(0 "0 correctness regressions" --compare ${WORK}/nv1.json ${WORK}/nv1.json)
if(last_output MATCHES "no tolerance to judge")
  message(FATAL_ERROR "a run compared with itself has metrics that differ:\n${last_output}")
endif()
# (a') runs of two apps: refused (no loop, metric or setting of one is the other's), not "not run in B"
run(1 "is a run of jacobi and .*volna.json' a run of volna: compare runs of one app" --compare ${WORK}/a.json
    ${WORK}/volna.json)
# (b) a params.* difference: not comparable, the key named first
run(4 "^# um --compare.*## Settings that differ.*\\| jacobi \\| params.tolerance \\| 1.0e-13 \\(config\\) \\| 1e-12 \\(--set\\) \\| \\*\\*differs: not comparable\\*\\* \\|.*## Verdict.*0 runs compared.*1 pair NOT COMPARABLE"
    --compare ${WORK}/a.json ${WORK}/c.json --json ${WORK}/cmp_ac.json)
file(READ ${WORK}/cmp_ac.json j)
string(JSON comparable GET "${j}" cases 0 comparable)
string(JSON key GET "${j}" cases 0 differences 0 key)
string(JSON nloops LENGTH "${j}" cases 0 loops)
if(comparable OR NOT key STREQUAL "params.tolerance" OR NOT nloops EQUAL 0)
  message(FATAL_ERROR "cmp_ac.json: comparable ${comparable}, first difference '${key}', ${nloops} loops compared")
endif()
# (c) --allow of that key: compared, the difference shown
run(0 "## Settings that differ.*\\| jacobi \\| params.tolerance \\| 1.0e-13 \\(config\\) \\| 1e-12 \\(--set\\) \\| allowed \\(--allow\\) \\|.*1 runs compared.*## Correctness.*\\| jacobi \\| pass \\| pass \\| max_error \\|"
    --compare ${WORK}/a.json ${WORK}/c.json --allow params.tolerance)
run(0 "allowed \\(--allow\\)" --compare ${WORK}/a.json ${WORK}/c.json --allow "params.*")
# (d) a loaded side: the gather loop 3x slower in B, each side three samples with spreads apart: SLOWER when
# neither side is loaded; with B's recorded load above its cores, noisy (no verdict)
string(JSON nl LENGTH "${a}" loops)
math(EXPR last "${nl} - 1")
foreach(i RANGE ${last})
  string(JSON n GET "${a}" loops ${i} name)
  if(n STREQUAL "gather")
    set(gi ${i})
  endif()
endforeach()
set(base "${a}")
set(slow "${a}")
foreach(f "seconds" "seconds_min" "seconds_max")
  string(JSON base SET "${base}" loops ${gi} ${f} 1)
  string(JSON slow SET "${slow}" loops ${gi} ${f} 3)
endforeach()
string(JSON base SET "${base}" loops ${gi} samples 3)
string(JSON slow SET "${slow}" loops ${gi} samples 3)
string(JSON base SET "${base}" load busy false)
string(JSON slow SET "${slow}" load busy false)
file(WRITE ${WORK}/base.json "${base}")
file(WRITE ${WORK}/slow.json "${slow}")
run(0 "1 loop slower.*\\| jacobi \\| gather \\|[^\n]*\\| 3.000 \\|[^\n]*\\| SLOWER \\|" --compare ${WORK}/base.json ${WORK}/slow.json)
string(JSON loaded SET "${slow}" load busy true)
string(JSON loaded SET "${loaded}" load start 999)
file(WRITE ${WORK}/slow_loaded.json "${loaded}")
run(0 "0 loops slower and 0 faster.*noisy \\(0: one sample, no spread measured; 1: a side ran on a loaded machine\\).*\\| jacobi \\| gather \\|[^\n]*\\| 3.000 \\|[^\n]*\\| noisy \\(B loaded\\) \\|"
    --compare ${WORK}/base.json ${WORK}/slow_loaded.json --json ${WORK}/cmp_loaded.json)
if(last_output MATCHES "SLOWER|FASTER")
  message(FATAL_ERROR "--compare calls a timing of a loaded run:\n${last_output}")
endif()
# one side a single run, the other a suite's results: refused
file(WRITE ${WORK}/results.json "{\"format\": \"um-suite-results-1\", \"cases\": []}\n")
run(1 "a single run's --json and .* a results file of umrun --suite: compare like with like"
    --compare ${WORK}/a.json ${WORK}/results.json)

# 3. --repeat N for a single run
run(0 "repeat: sample 3 of 3: exit status 0.*VALIDATION PASS.*repeat: 3 samples; per loop the median and the spread.*  gather +1258 +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+%"
    ${CFG} --set run.backend=seq --repeat 3 --json ${WORK}/r.json)
file(READ ${WORK}/r.json r)
string(JSON rep GET "${r}" repeat)
string(JSON n GET "${r}" loops ${gi} samples)
string(JSON lo GET "${r}" loops ${gi} seconds_min)
string(JSON med GET "${r}" loops ${gi} seconds)
string(JSON hi GET "${r}" loops ${gi} seconds_max)
if(NOT rep EQUAL 3 OR NOT n EQUAL 3 OR lo GREATER med OR med GREATER hi)
  message(FATAL_ERROR "r.json of --repeat 3: repeat ${rep}, samples ${n}, ${lo} <= ${med} <= ${hi} does not hold")
endif()
run(1 "--repeat '0': expected a number of runs" ${CFG} --repeat 0)

# 4. the schemas
check_schemas(${WORK} ${WORK}/a.json ${WORK}/b.json ${WORK}/c.json ${WORK}/r.json ${WORK}/slow_loaded.json
              ${WORK}/volna.json)
