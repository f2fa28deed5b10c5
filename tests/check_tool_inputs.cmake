# umrun's tools on inputs a script gets wrong (an empty variable, an output named like an input, a file without its
# last newline): each refused with status 1 and a message, or handled, never a crash or a file lost.
#   cmake -DUMRUN=... -DCFG=jacobi.yaml -DAIRFOIL=airfoil_small.yaml -DWORK=dir -P check_tool_inputs.cmake
include(${CMAKE_CURRENT_LIST_DIR}/umrun_checks.cmake)
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
# app: with no value (a segfault): refused, naming the apps
file(WRITE ${WORK}/noapp.yaml "app: ~\nmesh: {generator: grid, N: 16}\n")
run(1 "app: no app named; give one of: airfoil" ${WORK}/noapp.yaml)
run(1 "app: no app named" ${CFG} --set app=null)
run(1 "--set app=: an empty value" ${CFG} --set app=) # an unset variable: said as such
# empty paths from unset variables: --suite --out '' wrote into /, --restart '' started afresh
# (a list drops empty items: these two are spelled out)
execute_process(COMMAND ${UMRUN} --suite ${WORK}/none.yaml --out "" RESULT_VARIABLE rc OUTPUT_VARIABLE o ERROR_VARIABLE e)
if(NOT rc EQUAL 1 OR NOT "${o}${e}" MATCHES "--out '': an empty value")
  message(FATAL_ERROR "--suite --out '': status ${rc}\n${o}${e}")
endif()
execute_process(COMMAND ${UMRUN} ${CFG} --restart "" RESULT_VARIABLE rc OUTPUT_VARIABLE o ERROR_VARIABLE e)
if(NOT rc EQUAL 1 OR NOT "${o}${e}" MATCHES "--restart '': no path given")
  message(FATAL_ERROR "--restart '': status ${rc}\n${o}${e}")
endif()
run(1 "checkpoint.restart: '${WORK}/nothing' does not exist" ${CFG} --restart ${WORK}/nothing)
# the hint names where this run writes its checkpoints only when it writes some (it said "writes its own into
# checkpoints" of a run that writes none), and ./checkpoints as such
if(last_output MATCHES "writes its own")
  message(FATAL_ERROR "--restart of a missing path, a run that writes no checkpoints:\n${last_output}")
endif()
run(1 "does not exist .*\\(this run writes its own into ./checkpoints\\)" ${CFG} --set output.dir=
    --set checkpoint.every=10 --restart ${WORK}/nothing)
# an output that is an input: refused before anything is written, the input whole
configure_file(${CFG} ${WORK}/cfg.yaml COPYONLY)
file(SHA256 ${WORK}/cfg.yaml before)
run(1 "--json '.*cfg.yaml' is the config file" ${WORK}/cfg.yaml --json ${WORK}/cfg.yaml)
file(SHA256 ${WORK}/cfg.yaml after)
if(NOT before STREQUAL after)
  message(FATAL_ERROR "the config was overwritten")
endif()
run(0 "" ${CFG} --quiet --set output.dir= --json ${WORK}/a.json)
run(1 "--json '.*a.json' is one of the files compared" --compare ${WORK}/a.json ${WORK}/a.json --json ${WORK}/a.json)
run(1 "--md '.*a.json' is one of the files compared" --compare ${WORK}/a.json ${WORK}/a.json --md ${WORK}/a.json)
run(1 "is the run or the reference it checks" --validate ${WORK}/a.json validation/jacobi/grid16.ref.yaml
    --json ${WORK}/a.json)
file(READ ${WORK}/a.json js)
if(NOT js MATCHES "\"format\": \"um-run-")
  message(FATAL_ERROR "a.json is no longer the run's JSON")
endif()
# a sweep writes its own files: --json / --csv with it were ignored silently
run(1 "--sweep writes each run's JSON .* leave out --json" ${CFG} --sweep run.block_size=32,64 --json ${WORK}/s.json)
# --csv onto a file whose last line has no newline: the new rows start on their own line
run(0 "" ${CFG} --quiet --set output.dir= --csv ${WORK}/t.csv)
file(READ ${WORK}/t.csv csv)
string(REGEX REPLACE "\n$" "" csv "${csv}")
file(WRITE ${WORK}/t.csv "${csv}")
run(0 "" ${CFG} --quiet --set output.dir= --csv ${WORK}/t.csv)
file(STRINGS ${WORK}/t.csv rows)
list(GET rows 0 header)
string(REGEX MATCHALL "," hc "${header}")
list(LENGTH hc want)
foreach(row IN LISTS rows)
  string(REGEX MATCHALL "," c "${row}")
  list(LENGTH c got)
  if(NOT got EQUAL want)
    message(FATAL_ERROR "t.csv: a row of ${got} commas, the header has ${want}: ${row}")
  endif()
endforeach()
# a suite whose matrix lists a value twice: two runs of one name
file(WRITE ${WORK}/dup.yaml "cases:\n  - name: a\n    config: ${CFG}\n    tags: [quick]\n    matrix: {backend: [seq, seq]}\n")
run(1 "matrix.backend lists 'seq' twice" --suite ${WORK}/dup.yaml --out ${WORK}/dup)
# --repeat with --json /dev/stdout: the JSON alone on stdout; a failing sample still leaves its JSON
execute_process(COMMAND ${UMRUN} ${CFG} --quiet --set output.dir= --repeat 2 --json /dev/stdout
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_QUIET)
string(JSON fmt ERROR_VARIABLE jerr GET "${out}" format)
if(NOT rc EQUAL 0 OR jerr)
  message(FATAL_ERROR "--repeat --json /dev/stdout: status ${rc}, stdout is not the JSON alone (${jerr}):\n${out}")
endif()
run(1 "" ${CFG} --quiet --set output.dir= --repeat 2 --set mesh.N=1 --json ${WORK}/r.json)
file(READ ${WORK}/r.json rj)
string(JSON st GET "${rj}" status)
if(NOT st STREQUAL "config error")
  message(FATAL_ERROR "--repeat with a failing sample: status '${st}' in its JSON")
endif()
# a long Airfoil run: its rms metrics thinned to at most 100 (at 12,500 iterations the run failed at the metric cap)
run(0 "" ${AIRFOIL} --quiet --no-validate --set mesh.I=8 --set mesh.J=8 --set run.iterations=20000 --set output.dir=
    --set run.backend=seq --json ${WORK}/af.json)
file(READ ${WORK}/af.json af)
string(JSON nm LENGTH "${af}" metrics)
string(REGEX MATCHALL "\"rms_[0-9]+\"" rms "${af}")
list(LENGTH rms nrms)
if(NOT nrms EQUAL 100 OR NOT af MATCHES "\"rms_20000\"" OR af MATCHES "\"rms_100\"")
  message(FATAL_ERROR "Airfoil 20,000 iterations: ${nrms} rms_N metrics (want 100, every 200)")
endif()
# --sweep of a key nothing reads: refused before any run (each run failed alike); --no-validate reaches the runs
run(1 "--sweep nosuch.key: neither umrun nor jacobi nor a backend has an option of that name" ${CFG} --sweep nosuch.key=1,2
    --sweep-out ${WORK}/sw)
# --sweep: a misspelt key gets --set's "did you mean"; an empty value, a value twice, a key --set sets too and app
# are refused before any run (each had run: the empty value dropped, the same run twice, the --set replaced)
run(1 "--sweep run.blok_size: neither umrun nor jacobi .*; did you mean 'run.block_size'\\?" ${CFG}
    --sweep run.blok_size=64,128 --sweep-out ${WORK}/swr)
run(1 "--sweep run.block_size=64,,128: value 2 is empty" ${CFG} --sweep run.block_size=64,,128 --sweep-out ${WORK}/swr)
run(1 "--sweep run.block_size lists '64' twice" ${CFG} --sweep run.block_size=64,64 --sweep-out ${WORK}/swr)
run(1 "--sweep run.block_size and --set run.block_size=32 name the same key" ${CFG} --set run.block_size=32
    --sweep run.block_size=64,128 --sweep-out ${WORK}/swr)
run(1 "--sweep app: a sweep runs one app's config" ${CFG} --sweep app=jacobi,airfoil --sweep-out ${WORK}/swr)
# --suite --set of a key no selected case's app has: refused once, before any run, naming the closest key
run(1 "--set params.toleranc=1: neither umrun nor jacobi \\(case 'jacobi'\\) .*did you mean 'params.tolerance'"
    --suite validation/suite.yaml --only jacobi --out ${WORK}/swr --set params.toleranc=1)
# a backend's own setting (cuda.profile, docs/validation.md's --suite command) is taken by --suite --set and --sweep as
# a run takes it (both refused every cuda.*); an earlier spelling (run.profile) is offered by its name now
run(0 "runs" --suite validation/suite.yaml --only jacobi --out ${WORK}/swr --set cuda.profile=h100 --set cuda.fma=0
    --list)
run(1 "--set run.profil=h100: .*did you mean 'cuda.profile'" --suite validation/suite.yaml --only jacobi
    --out ${WORK}/swr --set run.profil=h100)
run(1 "--set seq.profile=h100: neither umrun nor jacobi" --suite validation/suite.yaml --only jacobi
    --out ${WORK}/swr --set seq.profile=h100) # seq, built, declares no settings: none of its own is a key
run(1 "--sweep cuda.profile and --set cuda.profile=h100 name the same key" ${CFG} --set cuda.profile=h100
    --sweep cuda.profile=h100,h200 --sweep-out ${WORK}/swr)
# --sweep "64, 64": the blanks around a value are not part of it (two identical runs; "run.layout= soa"; "64, " ran)
run(1 "--sweep run.block_size lists '64' twice" ${CFG} --sweep "run.block_size=64, 64" --sweep-out ${WORK}/swr)
run(1 "--sweep run.block_size=64, : value 2 is empty" ${CFG} --sweep "run.block_size=64, " --sweep-out ${WORK}/swr)
if(EXISTS ${WORK}/swr)
  message(FATAL_ERROR "a refused --sweep or --suite wrote ${WORK}/swr")
endif()
run(0 "2 runs, 0 failed" ${AIRFOIL} --sweep "params.scheme=edges , cells" --set run.iterations=10 --no-validate
    --set mesh.I=8 --set mesh.J=8 --sweep-out ${WORK}/sw2)
if(NOT last_output MATCHES "params.scheme=cells  ok")
  message(FATAL_ERROR "--sweep \"edges , cells\": the value ' cells' kept its blank:\n${last_output}")
endif()
# checkpoint.dir not set: the checkpoints go under output.dir (they went to ./checkpoints wherever the outputs went),
# the run says where, and --restart of that folder continues there; without outputs: ./checkpoints, said
file(MAKE_DIRECTORY ${WORK}/cwd)
foreach(step 20 30)
  set(more)
  if(step EQUAL 30)
    set(more --restart ${WORK}/ck_out/checkpoints)
  endif()
  execute_process(COMMAND ${UMRUN} ${CFG} --quiet --no-validate --set run.iterations=${step} --set checkpoint.every=10
                  --set output.dir=${WORK}/ck_out ${more} WORKING_DIRECTORY ${WORK}/cwd RESULT_VARIABLE rc
                  OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0 OR NOT out MATCHES "checkpoints go to ${WORK}/ck_out/checkpoints \\(output.dir/checkpoints"
     OR NOT EXISTS ${WORK}/ck_out/checkpoints/jacobi-step0000000${step}.h5 OR EXISTS ${WORK}/cwd/checkpoints)
    message(FATAL_ERROR "checkpoints with output.dir set (step ${step}): status ${rc}, not in output.dir/checkpoints "
                        "or in the current folder:\n${out}${err}")
  endif()
endforeach()
# --restart of an earlier run's output.dir: its checkpoints/ named (it said the folder holds none, and stopped there)
run(1 "--restart ${WORK}/ck_out: the folder holds no checkpoint of jacobi .*did you mean --restart ${WORK}/ck_out/checkpoints\\?"
    ${CFG} --no-validate --set run.iterations=40 --set output.dir= --restart ${WORK}/ck_out)
# output.dir with trailing slashes: every one dropped (./rel3// gave ./rel3//checkpoints)
run(0 "checkpoints go to ${WORK}/ck_sl/checkpoints \\(" ${CFG} --no-validate --set run.iterations=10
    --set checkpoint.every=10 --set output.dir=${WORK}/ck_sl//)
execute_process(COMMAND ${UMRUN} ${CFG} --quiet --no-validate --set run.iterations=10 --set checkpoint.every=10
                --set output.dir= WORKING_DIRECTORY ${WORK}/cwd RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT out MATCHES "checkpoints go to ./checkpoints \\(checkpoint.dir is not set, and output.dir is empty"
   OR NOT EXISTS ${WORK}/cwd/checkpoints/jacobi-step000000010.h5)
  message(FATAL_ERROR "checkpoints without outputs: status ${rc}, not in ./checkpoints or not said:\n${out}${err}")
endif()
# a run refused by its app leaves no output folder it made (an empty one, made before the app read its mesh)
run(1 "mesh.N = 1" ${CFG} --set output.dir=${WORK}/made/sub --set mesh.N=1)
if(EXISTS ${WORK}/made)
  message(FATAL_ERROR "a refused run left ${WORK}/made behind")
endif()
# a run failing after its checkpoints folder was made in output.dir: both go (output.dir/checkpoints kept it)
file(WRITE ${WORK}/dry.vln "Time { end = 1 }\nMesh Rectangle 0 10 0 10 10 10\n"
           "Init { istart = 0 iend = 0 } Bathymetry { return -1;}\nInit { istart = 1 iend = 2 } U { return 1e30;}\n")
run(1 "no cell has water any more" configs/volna_landslide_small.yaml --set mesh.file=${WORK}/dry.vln
    --set validation.reference= --set output.dir=${WORK}/made/sub --set checkpoint.every=100)
if(EXISTS ${WORK}/made)
  message(FATAL_ERROR "a run failing after it made output.dir/checkpoints left ${WORK}/made behind")
endif()
# BookLeaf's field files under an output folder whose name leaves no room for theirs: refused, never a cut path
set(long ${WORK}/long)
string(REPEAT "d" 200 part)
string(LENGTH "${long}" n)
while(n LESS 3880)
  string(APPEND long "/${part}")
  string(LENGTH "${long}" n)
endwhile()
math(EXPR rest "4085 - ${n} - 1")
string(REPEAT "e" ${rest} last)
string(APPEND long "/${last}")
run(2 "field elements.txt: the output folder's name is too long" ${BOOKLEAF} --quiet --set output.dir=${long})
file(REMOVE_RECURSE ${WORK}/long)
# --draw writes SVG: a file named otherwise (x.png held SVG) is refused
run(1 "the picture is SVG; name the file .svg" ${CFG} --draw plan ${WORK}/plan.png)
# a run's JSON of a format this umrun does not read (a later one): refused, not validated as if it were this one's
file(READ ${WORK}/a.json js)
string(REPLACE "\"um-run-2\"" "\"um-run-99\"" js "${js}")
file(WRITE ${WORK}/a99.json "${js}")
run(1 "is of format 'um-run-99'; this umrun reads um-run-2" --validate ${WORK}/a99.json validation/jacobi/grid16.ref.yaml)
run(0 "VALIDATION PASS" --validate ${WORK}/a.json validation/jacobi/grid16.ref.yaml)
# --validate of a run whose command line changed its config's problem: NOT COMPARABLE, as the run itself says,
# with its exit status (3); the table of failed metrics is not shown, as at the end of the run
run(0 "" ${CFG} --quiet --no-validate --set run.iterations=10 --set output.dir= --json ${WORK}/short.json)
run(3 "validation against validation/jacobi/grid16.ref.yaml: NOT COMPARABLE.*run.iterations = 10 \\(from --set; the config has 20000\\)"
    --validate ${WORK}/short.json validation/jacobi/grid16.ref.yaml)
if(last_output MATCHES "VALIDATION FAILED|max_error ")
  message(FATAL_ERROR "--validate of a changed run shows the failed table, not only NOT COMPARABLE:\n${last_output}")
endif()
# NOT COMPARABLE only when the run's config is at hand and names the reference given; else judged on the metrics (a
# config moved since the run, or naming no reference, made it NOT COMPARABLE, the failed metrics hidden)
file(WRITE ${WORK}/v8.ref.yaml "app: jacobi\ncase: grid8\nprovenance: {code: analytic, command: umrun --set mesh.N=8}\n"
           "metrics:\n  - {name: nodes, value: 81, abs_tol: 0}\n  - {name: max_error, value: 0.0, abs_tol: 1.0e-20}\n")
file(READ ${CFG} j)
file(WRITE ${WORK}/vj.yaml "${j}")
run(0 "" ${WORK}/vj.yaml --quiet --no-validate --set mesh.N=8 --set output.dir= --json ${WORK}/v8.json)
run(3 "max_error .* FAIL.*VALIDATION FAILED \\(1 of 2" --validate ${WORK}/v8.json ${WORK}/v8.ref.yaml)
file(RENAME ${WORK}/vj.yaml ${WORK}/vj_moved.yaml)
run(3 "config .*vj.yaml is not at hand .*\\(mesh.N = 8 \\(from --set\\)\\).*max_error .* FAIL.*VALIDATION FAILED \\(1 of 2"
    --validate ${WORK}/v8.json ${WORK}/v8.ref.yaml)
string(REGEX REPLACE "validation:[^\n]*\n" "" j0 "${j}")
file(WRITE ${WORK}/vj0.yaml "${j0}")
run(0 "" ${WORK}/vj0.yaml --quiet --set mesh.N=8 --set output.dir= --json ${WORK}/v80.json)
run(3 "max_error .* FAIL.*VALIDATION FAILED \\(1 of 2" --validate ${WORK}/v80.json ${WORK}/v8.ref.yaml)
if(last_output MATCHES "NOT COMPARABLE|not at hand")
  message(FATAL_ERROR "--validate of a run whose config names no reference:\n${last_output}")
endif()
# a run's JSON given as the reference: said, not YAML's complaint about dotted keys; the arguments swapped: said
run(1 "'.*a.json' is a run's --json, not a reference \\(a .ref.yaml with app: and metrics:" --validate ${WORK}/a.json
    ${WORK}/a.json)
run(1 "the run's JSON comes first, then the reference" --validate validation/jacobi/grid16.ref.yaml ${WORK}/a.json)
# --report of single runs' --json: each read as the results of its one run (it was refused as not a results file)
run(0 "wrote .*rep.html and .*rep.md \\(2 files read\\)" --report ${WORK}/rep.html ${WORK}/a.json ${WORK}/short.json)
file(READ ${WORK}/rep.md md)
if(NOT md MATCHES "from 2 files \\(2 of them single runs' `--json`\\)" OR NOT md MATCHES "## jacobi")
  message(FATAL_ERROR "--report of two runs' --json: the page does not say what it read or has no jacobi:\n${md}")
endif()
# a single run on a loaded machine: the banner speaks of the run, not of a suite ("before the suite")
file(READ ${WORK}/a.json js)
string(JSON js SET "${js}" load "{\"start\": 9, \"end\": 9, \"cores\": 2, \"busy\": true}")
file(WRITE ${WORK}/busy.json "${js}")
run(0 "" --report ${WORK}/rep3.html ${WORK}/busy.json)
file(READ ${WORK}/rep3.md md)
if(NOT md MATCHES "Loaded machine: the single run of .*busy.json ran while the load average .*9.00 at its start" OR md MATCHES "suite,")
  message(FATAL_ERROR "--report of a single run on a loaded machine: its banner is not the run's:\n${md}")
endif()
file(WRITE ${WORK}/other.json "{\"a\": 1}\n")
run(1 "'.*other.json' is not a results file of umrun --suite .* nor a run's --json" --report ${WORK}/rep2.html
    ${WORK}/other.json)
# another app's reference: the error alone, no header of a table that does not follow
run(1 "is for app 'lulesh', but this run is app 'jacobi'" --validate ${WORK}/a.json validation/lulesh/s10.ref.yaml)
if(last_output MATCHES "validation against|run .*a.json: jacobi")
  message(FATAL_ERROR "--validate with another app's reference prints a header with nothing under it:\n${last_output}")
endif()
# --json -: the JSON alone on stdout (it made a file named '-')
execute_process(COMMAND ${UMRUN} ${CFG} --quiet --set output.dir= --json - RESULT_VARIABLE rc OUTPUT_VARIABLE out
                ERROR_QUIET WORKING_DIRECTORY ${WORK})
string(JSON fmt ERROR_VARIABLE jerr GET "${out}" format)
if(NOT rc EQUAL 0 OR jerr OR EXISTS ${WORK}/-)
  message(FATAL_ERROR "--json -: status ${rc}, stdout not the JSON alone (${jerr}) or a file named '-'")
endif()
# shell completion offers the tools' flags too, and no flag that only a help text quotes (a compiler's)
execute_process(COMMAND ${UMRUN} --help-options=bash RESULT_VARIABLE rc OUTPUT_VARIABLE comp ERROR_QUIET)
foreach(flag --timeout --md --noise --top --brief --list --drift-fails)
  if(NOT comp MATCHES " ${flag}[ \"]")
    message(FATAL_ERROR "--help-options=bash offers no ${flag}")
  endif()
endforeach()
if(comp MATCHES "fmad|--oversubscribe")
  message(FATAL_ERROR "--help-options=bash offers a flag that is not umrun's")
endif()
