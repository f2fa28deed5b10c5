# umrun --suite / --compare / --report end to end:
#   cmake -DUMRUN=<umrun> -DWORK=<scratch> -DMODE=quick|tools [-DCHROMIUM=<browser>] -P check_suite.cmake
# MODE quick: the quick CPU subset of validation/suite.yaml passes, and its results file holds
#   what --compare and --report need (machine, build, per run metrics with tolerances, loops); its
#   report tells the truth (check_report_truth.py).
# MODE tools (the jacobi cases only, fast):
#   1. a suite run A passes; a run B with a changed parameter (params.tolerance) fails
#      validation and exits 3; --compare A B flags the CORRECTNESS REGRESSION (exit 3) and
#      --compare A A does not (exit 0); --validate passes A's run JSON and finds B's not comparable
#      with the reference (exit 3), and refuses a results file, another app's reference and a missing one;
#   2. --report writes a self-contained HTML page (SVG plots and pictures, no script, nothing fetched
#      from the network) and its markdown; with CHROMIUM set, a headless browser renders it
#      to a PNG screenshot;
#   3. bad suites stop with exit 1 and a message: unknown key, missing config, unknown tag.
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")

include(${CMAKE_CURRENT_LIST_DIR}/umrun_checks.cmake) # run(), check_schemas()

# every run of a results file passed and carries metrics, tolerances and loops
function(check_results path expect_runs_min)
  file(READ "${path}" j)
  string(JSON fmt GET "${j}" format)
  if(NOT fmt STREQUAL "um-suite-results-1")
    message(FATAL_ERROR "${path}: format '${fmt}'")
  endif()
  string(JSON runs GET "${j}" summary runs)
  string(JSON pass GET "${j}" summary pass)
  string(JSON cpu GET "${j}" machine cpu)
  string(JSON commit GET "${j}" um commit)
  if(runs LESS expect_runs_min OR NOT pass EQUAL runs OR cpu STREQUAL "" OR commit STREQUAL "")
    message(FATAL_ERROR "${path}: ${pass} of ${runs} runs pass (expected at least ${expect_runs_min}), cpu '${cpu}', commit '${commit}'")
  endif()
  math(EXPR last "${runs} - 1")
  foreach(i RANGE ${last})
    string(JSON id GET "${j}" cases ${i} id)
    string(JSON nloops LENGTH "${j}" cases ${i} run loops)
    string(JSON nmetrics LENGTH "${j}" cases ${i} run validation metrics)
    string(JSON tol GET "${j}" cases ${i} run validation metrics 0 rel_tol)
    string(JSON nargs LENGTH "${j}" cases ${i} run loops 0 args)
    string(JSON nsets LENGTH "${j}" cases ${i} run mesh sets)
    if(nloops EQUAL 0 OR nmetrics EQUAL 0 OR nargs EQUAL 0 OR nsets EQUAL 0)
      message(FATAL_ERROR "${path}: run ${id} lacks loops (${nloops}), metrics (${nmetrics}), args (${nargs}) or sets (${nsets})")
    endif()
  endforeach()
  set(nruns ${runs} PARENT_SCOPE)
endfunction()

if(MODE STREQUAL "quick")
  run(0 "umrun --suite: ([0-9]+) of ([0-9]+) runs pass \\(" --suite validation/suite.yaml --tags quick --out ${WORK}/quick)
  check_results(${WORK}/quick/results.json 10)
  file(READ ${WORK}/quick/junit.xml x)
  string(REGEX MATCHALL "<testcase " cases "${x}")
  list(LENGTH cases n)
  if(NOT n EQUAL nruns)
    message(FATAL_ERROR "junit.xml has ${n} testcases for ${nruns} runs")
  endif()
  check_schemas(${WORK})
  # the report of the quick suite tells the truth (issue 61): SIAC visible and compute-bound alike, paragraphs
  # quoting their tables, spreads flagged, the loaded-machine banner, numbered roofline labels that do not overlap
  # in headless chromium (estimated from the SVG where there is no browser, said so)
  execute_process(COMMAND ${PYTHON} ${CMAKE_CURRENT_LIST_DIR}/check_report_truth.py --umrun ${UMRUN}
                          --results ${WORK}/quick/results.json --work ${WORK}/truth --chromium "${CHROMIUM}"
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message(STATUS "${out}${err}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "the quick suite's report does not tell the truth:\n${out}${err}")
  endif()
  # docs/teaching.md cannot go stale: every loop, column, row count, run and figure it cites is in this output
  execute_process(COMMAND ${PYTHON} ${CMAKE_CURRENT_LIST_DIR}/../scripts/teaching-docs.py --check --umrun ${UMRUN}
                          --results ${WORK}/quick/results.json --work ${WORK}/teaching
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message(STATUS "${out}${err}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "docs/teaching.md is stale against the quick suite's output:\n${out}${err}")
  endif()
  return()
endif()

# 1. --compare flags a correctness regression
run(0 "2 of 2 runs pass" --suite validation/suite.yaml --only jacobi --out ${WORK}/a)
check_results(${WORK}/a/results.json 2)
run(3 "0 of 2 runs pass, SOME FAILED" --suite validation/suite.yaml --only jacobi --out ${WORK}/b
    --set params.tolerance=1e-3)
file(READ ${WORK}/b/junit.xml x)
if(NOT x MATCHES "<failure message=\"validation failed: max_error")
  message(FATAL_ERROR "junit.xml of the failing suite has no <failure> naming the metric:\n${x}")
endif()
# B's runs differ from A's in params.tolerance: not comparable (exit 4), naming it, unless --allow names it
run(4 "## Settings that differ.*jacobi\\[seq\\] \\| params.tolerance \\| 1.0e-13 \\(config\\) \\| 1e-3 \\(--set\\) \\| \\*\\*differs: not comparable.*2 pairs NOT COMPARABLE"
    --compare ${WORK}/a/results.json ${WORK}/b/results.json)
run(3 "params.tolerance [^\n]*allowed \\(--allow\\).*jacobi\\[seq\\] \\| pass \\| fail .*REGRESSION.*2 CORRECTNESS REGRESSIONS"
    --compare ${WORK}/a/results.json ${WORK}/b/results.json --allow params.tolerance --md ${WORK}/compare.md
    --json ${WORK}/compare.json)
file(READ ${WORK}/compare.json cj)
string(JSON nreg GET "${cj}" regressions)
if(NOT nreg EQUAL 2)
  message(FATAL_ERROR "compare.json: ${nreg} regressions, expected 2")
endif()
run(0 "0 correctness regressions" --compare ${WORK}/a/results.json ${WORK}/a/results.json)
run(1 "a single run's --json: compare like with like" --compare ${WORK}/a/results.json ${WORK}/a/runs/0001_jacobi.json)
# a results file whose runs split loops (run.split) against one whose runs do not: the generated
# loops are listed under their loop, as "only in" the file that has them, and the suite's per-loop
# entries carry the split fields
run(0 "2 of 2 runs pass" --suite validation/suite.yaml --only jacobi --out ${WORK}/s --set run.split=gather)
check_results(${WORK}/s/results.json 2)
file(READ ${WORK}/s/results.json sj)
string(JSON nl LENGTH "${sj}" cases 0 run loops)
math(EXPR last "${nl} - 1")
set(generated 0)
foreach(i RANGE ${last})
  string(JSON split GET "${sj}" cases 0 run loops ${i} split)
  string(JSON ptype TYPE "${sj}" cases 0 run loops ${i} parent)
  string(JSON tb TYPE "${sj}" cases 0 run loops ${i} temp_bytes)
  string(JSON why TYPE "${sj}" cases 0 run loops ${i} split_reason)
  if(NOT tb STREQUAL "NUMBER" OR NOT (why STREQUAL "STRING" OR why STREQUAL "NULL"))
    message(FATAL_ERROR "results.json: loop ${i} lacks temp_bytes or split_reason")
  endif()
  if(ptype STREQUAL "STRING")
    math(EXPR generated "${generated} + 1")
  endif()
endforeach()
if(generated EQUAL 0)
  message(FATAL_ERROR "results.json of a run.split=gather suite has no generated loop")
endif()
# (run.split differs: --allow run.split; the loops in one file only say why: the split)
run(0 "Loops run in one file only: 0 in A, 8 in B.*\\| jacobi\\[seq\\] \\| gather \\(split: A off, B gather\\) [^\n]*\n\\| jacobi\\[seq\\] \\| gather:contrib \\(part of gather\\) \\| - \\|[^\n]*only in B: B ran gather split \\(gather\\), A whole \\|"
    --compare ${WORK}/a/results.json ${WORK}/s/results.json --allow run.split --json ${WORK}/compare_split.json)
run(0 "gather:gather \\(part of gather\\) \\| [0-9.e-]+ \\| - \\|[^\n]*only in A"
    --compare ${WORK}/s/results.json ${WORK}/a/results.json --allow run.split)
run(4 "run.split \\| auto \\(default\\) \\| gather \\(--set\\) \\| \\*\\*differs: not comparable"
    --compare ${WORK}/a/results.json ${WORK}/s/results.json)
run(0 "0 correctness regressions" --compare ${WORK}/s/results.json ${WORK}/s/results.json)
# the time in loops counts each loop once: comparing the split file with itself gives 1
file(READ ${WORK}/compare_split.json cj)
string(JSON nl LENGTH "${cj}" cases 0 loops)
if(nl LESS 8)
  message(FATAL_ERROR "compare.json lists ${nl} loops of jacobi[seq] (4 and 4 generated expected)")
endif()
# --compare prints its verdict before its tables, says that one sample measures no spread, and --top N
# lists only the N largest changes
run(0 "^# um --compare.*one sample per run in A and in B: no spread.*## Verdict.*## Correctness.*## Speed"
    --compare ${WORK}/a/results.json ${WORK}/s/results.json --allow run.split)
run(3 "## Verdict.*## Correctness.*REGRESSION.*## The 2 largest speed changes[^\n]*\n\n[^\n]*\n[^\n]*\n[^\n]*\n[^\n]*\n\n\\(the full comparison"
    --compare ${WORK}/a/results.json ${WORK}/b/results.json --top 2 --allow params.tolerance)
execute_process(COMMAND ${UMRUN} --compare ${WORK}/a/results.json ${WORK}/b/results.json --brief --allow params.tolerance
                OUTPUT_VARIABLE br)
if(br MATCHES "## Per run|## Speed")
  message(FATAL_ERROR "--compare --brief prints the full tables:\n${br}")
endif()
run(1 "--top '0': expected a number" --compare ${WORK}/a/results.json ${WORK}/b/results.json --top 0)

# --repeat N: each run N times; per loop the median and its spread, the load and threads recorded; a busy
# machine (load above the cores; UMRUN_LOADAVG stands in for /proc/loadavg) is warned about
file(WRITE ${WORK}/loadavg_busy "999.00 999.00 999.00 3/85 4474\n")
execute_process(COMMAND ${CMAKE_COMMAND} -E env UMRUN_LOADAVG=${WORK}/loadavg_busy
                        ${UMRUN} --suite validation/suite.yaml --only jacobi --repeat 3 --out ${WORK}/r
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT out MATCHES "PASS  [0-9.]+ s \\(median of 3: [0-9.]+, [0-9.]+, [0-9.]+ s\\)\n      warning: the machine was busy \\(load average 999.00"
   OR NOT out MATCHES "warning: 2 of 2 runs ran on a busy machine")
  message(FATAL_ERROR "--suite --repeat 3 on a busy machine: exit ${rc}, no median or no warning\n${out}${err}")
endif()
check_results(${WORK}/r/results.json 2)
file(READ ${WORK}/r/results.json rj)
string(JSON rep GET "${rj}" repeat)
string(JSON rrep GET "${rj}" cases 1 run repeat)
string(JSON busy GET "${rj}" cases 1 load busy)
string(JSON lstart GET "${rj}" cases 1 load start)
string(JSON thr GET "${rj}" cases 1 load threads)
string(JSON cores GET "${rj}" cases 1 load cores)
if(NOT rep EQUAL 3 OR NOT rrep EQUAL 3 OR NOT busy OR NOT lstart EQUAL 999 OR thr LESS 1 OR cores LESS 1)
  message(FATAL_ERROR "results.json of --repeat 3: repeat ${rep}, run repeat ${rrep}, load busy ${busy} start ${lstart} threads ${thr} cores ${cores}")
endif()
string(JSON nl LENGTH "${rj}" cases 1 run loops)
math(EXPR last "${nl} - 1")
foreach(i RANGE ${last})
  string(JSON n GET "${rj}" cases 1 run loops ${i} samples)
  string(JSON lo GET "${rj}" cases 1 run loops ${i} seconds_min)
  string(JSON med GET "${rj}" cases 1 run loops ${i} seconds)
  string(JSON hi GET "${rj}" cases 1 run loops ${i} seconds_max)
  if(NOT n EQUAL 3 OR lo GREATER med OR med GREATER hi)
    message(FATAL_ERROR "results.json: loop ${i}: samples ${n}, seconds ${lo} <= ${med} <= ${hi} does not hold")
  endif()
endforeach()
run(1 "--repeat '0': expected a number of runs" --suite validation/suite.yaml --only jacobi --repeat 0)
# --compare calls a change only beyond the measured spread and with neither side loaded: loop 0 of
# jacobi[openmp] made 3x slower in B, once with ranges that overlap A's (within spread), once with ranges
# apart (SLOWER), once apart but B on a loaded machine (noisy: no verdict). The samples above ran on a
# "busy" machine (UMRUN_LOADAVG): each file says not busy here, the last says busy (injected, never made)
string(JSON rj SET "${rj}" cases 1 load busy false)
string(JSON rj SET "${rj}" cases 1 run load busy false)
string(JSON calls GET "${rj}" cases 1 run loops 0 calls)
string(JSON name GET "${rj}" cases 1 run loops 0 name)
set(big 1000)
math(EXPR s_med "${big} * 3")
string(JSON wide SET "${rj}" cases 1 run loops 0 seconds ${s_med})
string(JSON wide SET "${wide}" cases 1 run loops 0 seconds_min 0)
string(JSON wide SET "${wide}" cases 1 run loops 0 seconds_max 99999)
string(JSON base SET "${rj}" cases 1 run loops 0 seconds ${big})
string(JSON base SET "${base}" cases 1 run loops 0 seconds_min ${big})
string(JSON base SET "${base}" cases 1 run loops 0 seconds_max ${big})
string(JSON apart SET "${rj}" cases 1 run loops 0 seconds ${s_med})
string(JSON apart SET "${apart}" cases 1 run loops 0 seconds_min ${s_med})
string(JSON apart SET "${apart}" cases 1 run loops 0 seconds_max ${s_med})
file(WRITE ${WORK}/spread_a.json "${base}")
file(WRITE ${WORK}/spread_wide.json "${wide}")
file(WRITE ${WORK}/spread_apart.json "${apart}")
run(0 "beyond the measured spread.*1 loop changed by more than 10% but within the measured spread.*jacobi\\[openmp\\] \\| ${name} \\|[^\n]*\\| 3.000 [^\n]*within spread"
    --compare ${WORK}/spread_a.json ${WORK}/spread_wide.json)
run(0 "1 loop slower .*jacobi\\[openmp\\] \\| ${name} \\|[^\n]*\\| 3.000 [^\n]*SLOWER"
    --compare ${WORK}/spread_a.json ${WORK}/spread_apart.json)
string(JSON loaded SET "${apart}" cases 1 run load busy true)
file(WRITE ${WORK}/spread_loaded.json "${loaded}")
run(0 "0 loops slower .*1 loop changed by more than 10% but is not called: noisy \\(0: one sample, no spread measured; 1: a side ran on a loaded machine\\).*jacobi\\[openmp\\] \\| ${name} \\|[^\n]*\\| 3.000 [^\n]*noisy \\(B loaded\\)"
    --compare ${WORK}/spread_a.json ${WORK}/spread_loaded.json)

# --validate: a finished run's JSON against a reference, without running it again
run(0 "max_error .*PASS.*VALIDATION PASS \\(" --validate ${WORK}/a/runs/0001_jacobi.json validation/jacobi/grid16.ref.yaml
    --json ${WORK}/revalidate.json)
file(READ ${WORK}/revalidate.json vj)
string(JSON vpass GET "${vj}" pass)
if(NOT vpass)
  message(FATAL_ERROR "revalidate.json: pass is ${vpass}")
endif()
# B's runs changed params.tolerance from --set: not comparable, as the suite's runs said, exit status 3
run(3 "NOT COMPARABLE.*params.tolerance = 1e-3 \\(from --set" --validate ${WORK}/b/runs/0001_jacobi.json validation/jacobi/grid16.ref.yaml)
run(1 "is a results file of umrun --suite" --validate ${WORK}/a/results.json validation/jacobi/grid16.ref.yaml)
run(1 "is for app 'bookleaf', but this run is app 'jacobi'" --validate ${WORK}/a/runs/0001_jacobi.json validation/bookleaf/sod_sm_lag_small.ref.yaml)
run(1 "nowhere.ref.yaml" --validate ${WORK}/a/runs/0001_jacobi.json validation/jacobi/nowhere.ref.yaml)

# 2. --report
run(0 "wrote .*report.html and .*report.md" --report ${WORK}/report.html ${WORK}/a/results.json ${WORK}/b/results.json)
file(READ ${WORK}/report.html h)
foreach(must "<svg" "</html>" "id=\"app-jacobi\"" "indirect increment" "Roofline" "Set-up by phase and memory per rank"
             "OP2's small teaching example") # the last: jacobi's own um_app.report_note
  string(FIND "${h}" "${must}" at)
  if(at LESS 0)
    message(FATAL_ERROR "report.html lacks '${must}'")
  endif()
endforeach()
# with a file whose runs split loops: the split column and its reasons, the generated loops under
# their loop, the table of loop splitting
run(0 "wrote .*report_split.html" --report ${WORK}/report_split.html ${WORK}/a/results.json ${WORK}/s/results.json)
file(READ ${WORK}/report_split.html hs)
foreach(must "<th>split</th>" "gather in 2 of 4 runs" "title=\"run.split: gather" "↳ :contrib" "Loop splitting"
        "part of gather")
  string(FIND "${hs}" "${must}" at)
  if(at LESS 0)
    message(FATAL_ERROR "report_split.html lacks '${must}'")
  endif()
endforeach()
# with a file whose runs tuned their loops (run.tune): the table of what each loop kept, measured
run(0 "2 of 2 runs pass" --suite validation/suite.yaml --only jacobi --out ${WORK}/t --set run.tune=always)
run(0 "wrote .*report_tune.html" --report ${WORK}/report_tune.html ${WORK}/t/results.json)
file(READ ${WORK}/report_tune.html ht)
foreach(must "<h3>Tuning</h3>" "<td>measured</td>" "block ")
  string(FIND "${ht}" "${must}" at)
  if(at LESS 0)
    message(FATAL_ERROR "report_tune.html lacks '${must}'")
  endif()
endforeach()
string(REPLACE "xmlns=\"http://www.w3.org/2000/svg\"" "" h_no_ns "${h}")
# a picture (umrun --draw) is an image inside the page (a data: URL of its SVG): nothing fetched
string(REGEX REPLACE "src=\"data:image/svg\\+xml;base64,[A-Za-z0-9+/=]*\"" "" h_no_ns "${h_no_ns}")
if(h_no_ns MATCHES "<script|https?://|<link |@import|src=")
  message(FATAL_ERROR "report.html is not self-contained (a script or something fetched): ${CMAKE_MATCH_0}")
endif()
if(CHROMIUM)
  execute_process(COMMAND ${CHROMIUM} --headless --no-sandbox --disable-gpu --screenshot=${WORK}/report.png
                          --window-size=1300,2000 file://${WORK}/report.html
                  RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET TIMEOUT 180)
  file(SIZE ${WORK}/report.png png_size)
  if(NOT rc EQUAL 0 OR png_size LESS 20000)
    message(FATAL_ERROR "${CHROMIUM} did not render report.html (exit ${rc}, screenshot ${png_size} bytes)")
  endif()
  message(STATUS "headless ${CHROMIUM} rendered report.html: ${WORK}/report.png (${png_size} bytes)")
endif()

# the teaching report (issue 26) on LULESH's quick cases, run twice (--repeat 2) and given as two results
# files of one CPU: the devices' columns named apart, side by side with the ratio; the eos_r* loops and the
# region sets one row each (the loops one by one in <details>); fixed colours per strategy; seq runs not
# called "coloured"; the share of loop time; the spread; the glossary; the paragraph from the figures
run(0 "4 of 4 runs pass" --suite validation/suite.yaml --tags quick --only lulesh --repeat 2 --out ${WORK}/l)
file(READ ${WORK}/l/results.json lj)
file(WRITE ${WORK}/l2/results.json "${lj}")
string(JSON cpu GET "${lj}" machine cpu)
run(0 "wrote .*lulesh.html" --report ${WORK}/lulesh.html ${WORK}/l/results.json ${WORK}/l2/results.json)
file(READ ${WORK}/lulesh.html lh)
foreach(must "<th>${cpu} (A: l) ms/call</th><th>${cpu} (B: l2) ms/call</th><th>B/A (${cpu} (B: l2) / ${cpu} (A: l))</th>"
        "Side by side" "<td>eos_r* (10 loops)</td>" "<details><summary>eos_r* (10 loops) one by one</summary>"
        "<td>eos_r2</td>" "region* (11 sets: region1 .. region11)" "fill=\"#7f7f7f\"><title>small seq aos"
        "fill=\"#1f77b4\"><title>small openmp coloured/aos" "lulesh_small seq/aos/none" "<th>share of loop time</th>"
        " ±" "id=\"glossary\"" "READ / WRITE / RW / INC" "class=\"gen\">From the loops table below"
        "of the loops&#39; time; " "<th>bound by</th>")
  string(FIND "${lh}" "${must}" at)
  if(at LESS 0)
    message(FATAL_ERROR "lulesh.html lacks '${must}'")
  endif()
endforeach()
# the paragraph names the heaviest loops with their shares; which of volume_force and the eos_r* family comes
# first depends on the machine (under the sanitizers they are within a point of each other)
if(NOT lh MATCHES "largest loops are [^<]*volume_force \\([0-9.]+% of the loops&#39; time; indirect")
  message(FATAL_ERROR "lulesh.html's paragraph does not name volume_force among the heaviest loops with its share")
endif()
if(lh MATCHES "seq/coloured|seq coloured")
  message(FATAL_ERROR "lulesh.html calls a seq run coloured: ${CMAKE_MATCH_0}")
endif()
string(REGEX MATCHALL "<tr><td>eos_r[0-9]+</td>" eos_rows "${lh}")
list(LENGTH eos_rows n_eos)
string(REGEX MATCHALL "<details><summary>eos_r" eos_details "${lh}")
list(LENGTH eos_details n_det)
if(NOT n_eos EQUAL 10 OR n_det LESS 1)
  message(FATAL_ERROR "lulesh.html: the eos_r* loops are listed ${n_eos} times one by one (10 expected: once, in <details>)")
endif()
# a copy bandwidth far below the loops' (as a small case in cache gives): the page says why
string(JSON slow SET "${lj}" machine host_copy_gb_per_s 0.001)
file(WRITE ${WORK}/l3/results.json "${slow}")
run(0 "wrote" --report ${WORK}/lulesh_cache.html ${WORK}/l3/results.json)
file(READ ${WORK}/lulesh_cache.html lc)
if(NOT lc MATCHES "above 100% of the copy bandwidth \\(up to [0-9]+%, [a-z_0-9]+\\) are not faster memory: the small case")
  message(FATAL_ERROR "lulesh_cache.html: no note for the figures above the copy bandwidth")
endif()
# a variant far off its backend's best (SoA made 10x slower than AoS): the page says so, and why
set(far "${lj}")
string(JSON nc LENGTH "${lj}" cases)
math(EXPR lastc "${nc} - 1")
foreach(c RANGE ${lastc})
  string(JSON layout GET "${lj}" cases ${c} layout)
  string(JSON nl LENGTH "${lj}" cases ${c} run loops)
  math(EXPR lastl "${nl} - 1")
  set(sec 1)
  if(layout STREQUAL "soa")
    set(sec 10)
  endif()
  foreach(l RANGE ${lastl})
    string(JSON far SET "${far}" cases ${c} run loops ${l} seconds ${sec})
  endforeach()
endforeach()
file(WRITE ${WORK}/l4/results.json "${far}")
run(0 "wrote" --report ${WORK}/lulesh_far.html ${WORK}/l4/results.json)
file(READ ${WORK}/lulesh_far.html lf)
if(NOT lf MATCHES "lulesh_small seq/soa/none moves its bytes 10x slower than lulesh_small seq/aos/none. SoA on a CPU")
  message(FATAL_ERROR "lulesh_far.html: no note for the SoA runs 10x slower than AoS")
endif()
# the roofline: CPU runs get the CPU's measured roofs (copy bandwidth and multiply-add rate); GPU runs (the same
# results as if from a card recording its peak FP64 rate) get the GPU's flat roof with its value and the CPU's
# beside it, and every point a number that the legend names
if(NOT lh MATCHES "CPU peak FP64 [0-9]+ GFLOP/s" OR NOT lh MATCHES "CPU copy [0-9]+ GB/s")
  message(FATAL_ERROR "lulesh.html: the CPU roofline has no measured CPU roofs")
endif()
set(gpu "${lj}")
foreach(c RANGE ${lastc})
  string(JSON gpu SET "${gpu}" cases ${c} backend "\"cuda\"")
  string(JSON gpu SET "${gpu}" cases ${c} run backend "\"cuda\"")
endforeach()
string(JSON gpu SET "${gpu}" machine gpu "{\"name\": \"Test GPU\", \"copy_gb_per_s\": 3000, \"peak_fp64_gflop_per_s\": 34000}")
file(WRITE ${WORK}/l5/results.json "${gpu}")
run(0 "wrote" --report ${WORK}/lulesh_gpu.html ${WORK}/l5/results.json)
file(READ ${WORK}/lulesh_gpu.html lg)
if(NOT lg MATCHES "peak FP64 34000 GFLOP/s")
  message(FATAL_ERROR "lulesh_gpu.html: no compute roof at the device's peak FP64 rate")
endif()
if(NOT lg MATCHES "CPU peak FP64 [0-9]+ GFLOP/s")
  message(FATAL_ERROR "lulesh_gpu.html: no CPU roof beside the GPU's")
endif()
string(REGEX MATCHALL "<text class=\"pt\" [^>]*>[0-9]+</text>" named "${lg}")
string(REGEX MATCHALL "<tr><td>[0-9]+</td><td>lulesh [a-z_0-9]+</td>" legend "${lg}")
list(LENGTH named n_named)
list(LENGTH legend n_legend)
if(n_named LESS 3 OR NOT n_named EQUAL n_legend)
  message(FATAL_ERROR "lulesh_gpu.html: ${n_named} roofline points numbered, ${n_legend} in the legend (every point, both)")
endif()
# the page fits 1366 px (headless chromium; skipped with a message where there is none)
execute_process(COMMAND ${CMAKE_COMMAND} -DCHROMIUM=${CHROMIUM} -DPAGE=${WORK}/lulesh.html -DWORK=${WORK}
                        -P ${CMAKE_CURRENT_LIST_DIR}/check_report_width.cmake RESULT_VARIABLE rc OUTPUT_VARIABLE wo ERROR_VARIABLE we)
message(STATUS "${wo}${we}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the report is wider than a laptop's screen:\n${wo}${we}")
endif()

# 3. bad suites
file(WRITE ${WORK}/bad_key.yaml "cases:\n  - name: x\n    config: configs/jacobi.yaml\n    tags: [quick]\n    matrx: {backend: [seq]}\n")
run(1 "cases.0.matrx .*bad_key.yaml:5.*unknown key" --suite ${WORK}/bad_key.yaml)
file(WRITE ${WORK}/no_config.yaml "cases:\n  - name: x\n    config: configs/nowhere.yaml\n    tags: [quick]\n")
run(1 "case 'x' .*config: .*nowhere.yaml" --suite ${WORK}/no_config.yaml)
run(1 "no case of .* has the tag 'nosuch'" --suite validation/suite.yaml --tags nosuch)
# a misspelt tag among good ones is refused too (it would select less, silently), the tags listed once each
run(1 "no case of .* has the tag 'nosuch'; its cases' tags are: quick split reproducible cpu" --suite validation/suite.yaml
    --tags quick,nosuch)
run(0 "airfoil_small\\[seq aos\\].*runs" --suite validation/suite.yaml --list)
check_schemas(${WORK}) # every JSON file written here that names a format of um's
