# Automatic loop splitting in umrun's output:
#   cmake -DUMRUN=<umrun> -DCFG=<airfoil_small.yaml> -DOUT=<file.json> -P check_split.cmake
# 1. run.split=scatter: the per-loop table lists res_calc's generated loops indented under it
#    (":contrib", ":inc<arg>"), with their share in parentheses and the variant in the split
#    column; the loops of the app's shares add up to "all loops" (the generated loops are not
#    counted again), and the legend says so; the JSON gives every loop its split fields, the
#    generated ones their parent.
# 2. run.split=gather on seq validates against the reference (the gather adds in the sequential
#    order).
# hostc.compile=off: whether a background compile finishes within the run (and the rows get their
# marks, * or **) depends on the machine's load; the rows are checked here, the marks elsewhere
execute_process(COMMAND ${UMRUN} ${CFG} --no-validate --set run.split=scatter --set run.iterations=20
                        --set hostc.compile=off --set output.dir= --json ${OUT}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the run failed (${rc}):\n${out}${err}")
endif()
if(NOT out MATCHES "\nres_calc +40 [^\n]*  scatter\n  :contrib(\\*\\*?)? +40 [^\n]*\\([0-9.]+\\)[^\n]*\n  :inc[0-9]+")
  message(FATAL_ERROR "the per-loop table does not list res_calc's generated loops under it:\n${out}")
endif()
if(NOT out MATCHES "\nsplit: 2 loops ran as the loops indented under each[^\n]*\n[^\n]*\n[^\n]*not added to \"all loops\"")
  message(FATAL_ERROR "the per-loop table has no legend for the split rows:\n${out}")
endif()
# the shares of the app's loops (no parentheses) add up to the "all loops" share
string(REGEX MATCH "per-loop table[^\n]*\n(.*)\nall loops +([0-9.]+) +([0-9.]+)\n" m "${out}")
set(table "${CMAKE_MATCH_1}")
set(all_share "${CMAKE_MATCH_3}")
string(REPLACE "\n" ";" rows "${table}")
set(sum 0)
foreach(r IN LISTS rows)
  if(r MATCHES "^[A-Za-z_][^ ]* +[0-9]+ +[0-9.]+ +([0-9]+)\\.([0-9][0-9]) ") # hundredths of a percent
    math(EXPR sum "${sum} + 100 * ${CMAKE_MATCH_1} + 1${CMAKE_MATCH_2} - 100")
  endif()
endforeach()
string(REPLACE "." "" all100 "${all_share}")
math(EXPR diff "${sum} - ${all100}")
if(diff GREATER 6 OR diff LESS -6)
  message(FATAL_ERROR "the loops' shares add up to ${sum}/100 %, \"all loops\" says ${all_share} %:\n${out}")
endif()
file(READ ${OUT} json)
string(JSON n LENGTH "${json}" loops)
math(EXPR last "${n} - 1")
set(children 0)
foreach(i RANGE ${last})
  string(JSON name GET "${json}" loops ${i} name)
  string(JSON ptype TYPE "${json}" loops ${i} parent)
  string(JSON split GET "${json}" loops ${i} split)
  string(JSON tb GET "${json}" loops ${i} temp_bytes)
  if(name MATCHES "^(b?res_calc):")
    string(JSON parent GET "${json}" loops ${i} parent)
    if(NOT parent STREQUAL CMAKE_MATCH_1)
      message(FATAL_ERROR "JSON: loop ${name} has parent '${parent}'")
    endif()
    math(EXPR children "${children} + 1")
  elseif(NOT ptype STREQUAL "NULL")
    message(FATAL_ERROR "JSON: loop ${name} has a parent (${ptype})")
  endif()
  if(name STREQUAL "res_calc" AND (NOT split STREQUAL "scatter" OR tb LESS_EQUAL 0))
    message(FATAL_ERROR "JSON: res_calc split '${split}', temp_bytes ${tb}")
  endif()
  string(JSON why GET "${json}" loops ${i} split_reason)
  if(name STREQUAL "res_calc" AND NOT why MATCHES "scatter")
    message(FATAL_ERROR "JSON: res_calc's split_reason is '${why}'")
  endif()
endforeach()
if(children LESS 5)
  message(FATAL_ERROR "JSON: ${children} generated loops (expected res_calc's 3 and bres_calc's 2)")
endif()

execute_process(COMMAND ${UMRUN} ${CFG} --quiet --set run.split=gather --set run.backend=seq --set output.dir=
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT out MATCHES "VALIDATION PASS")
  message(FATAL_ERROR "run.split=gather on seq: exit ${rc}\n${out}${err}")
endif()
