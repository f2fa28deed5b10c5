# End-to-end field validation with umrun on the jacobi app:
#   cmake -DUMRUN=<umrun> -DCFG=<jacobi.yaml> -DWORK=<scratch folder> -P check_fields.cmake
# 1. a run with output.dir writes the field u (jacobi_u.txt) and validates it;
# 2. a fields-only reference made from a copy of that file passes, the file
#    being written into a private temporary folder that is removed afterwards;
# 3. the same reference with one value changed fails (exit 3) naming the line;
# 4. a reference field the run does not produce fails as missing (exit 3);
# 5. a reference whose field file is missing stops before the run (exit 1).
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}/tmp")

function(umrun expect_rc regex)
  execute_process(COMMAND ${CMAKE_COMMAND} -E env TMPDIR=${WORK}/tmp ${UMRUN} ${CFG} --quiet ${ARGN}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  set(all "${out}${err}")
  if(NOT rc EQUAL expect_rc)
    message(FATAL_ERROR "umrun ${ARGN}: expected exit status ${expect_rc}, got ${rc}\n${all}")
  endif()
  if(NOT all MATCHES "${regex}")
    message(FATAL_ERROR "umrun ${ARGN}: output does not match '${regex}'\n${all}")
  endif()
  file(GLOB left "${WORK}/tmp/*")
  if(left)
    message(FATAL_ERROR "umrun ${ARGN}: the temporary field folder was not removed: ${left}")
  endif()
  set(output "${all}" PARENT_SCOPE)
endfunction()

function(write_ref name field file)
  file(WRITE "${WORK}/${name}"
       "app: jacobi\ncase: grid16\n"
       "provenance: {code: a copy of umrun's own output (test of the field comparison), command: check_fields.cmake}\n"
       "fields:\n  - {name: ${field}, file: ${file}, rel_tol: 1.0e-12}\n")
endfunction()

# 1
umrun(0 "VALIDATION PASS \\(3 metrics, 1 field\\)" --set output.dir=${WORK}/out)
if(NOT EXISTS "${WORK}/out/jacobi_u.txt")
  message(FATAL_ERROR "the run with output.dir wrote no ${WORK}/out/jacobi_u.txt")
endif()

# 2
file(READ "${WORK}/out/jacobi_u.txt" text)
file(WRITE "${WORK}/u.txt" "${text}")
write_ref(same.ref.yaml u u.txt)
umrun(0 "u +867 +0 .*PASS.*VALIDATION PASS \\(0 metrics, 1 field\\)" --set validation.reference=${WORK}/same.ref.yaml)

# 3: line 145 is the node x = y = 0.5; its u becomes 1.5
file(STRINGS "${WORK}/out/jacobi_u.txt" lines)
list(LENGTH lines n)
if(NOT n EQUAL 289)
  message(FATAL_ERROR "jacobi_u.txt has ${n} lines, expected 289 (17 x 17 nodes)")
endif()
list(GET lines 144 l)
if(NOT l MATCHES "^0.5 0.5 ")
  message(FATAL_ERROR "line 145 of jacobi_u.txt is '${l}', expected the node x = y = 0.5")
endif()
string(REGEX REPLACE " [^ ]+$" " 1.5" l "${l}")
list(REMOVE_AT lines 144)
list(INSERT lines 144 "${l}")
list(JOIN lines "\n" text)
file(WRITE "${WORK}/u_perturbed.txt" "${text}\n")
write_ref(perturbed.ref.yaml u u_perturbed.txt)
umrun(3 "worst line 145, column 3: reference 1.5, got 0.12[0-9]*, rel err 9.16[0-9]e-01 FAIL.*VALIDATION FAILED \\(0 of 0 metrics, 1 of 1 field\\)"
      --set validation.reference=${WORK}/perturbed.ref.yaml --json ${WORK}/perturbed.json)
file(READ "${WORK}/perturbed.json" json)
string(JSON line GET "${json}" validation fields 0 worst 0 line)
string(JSON col GET "${json}" validation fields 0 worst 0 column)
string(JSON failing GET "${json}" validation fields 0 failing)
string(JSON pass GET "${json}" validation pass)
if(NOT line EQUAL 145 OR NOT col EQUAL 3 OR NOT failing EQUAL 1 OR pass)
  message(FATAL_ERROR "JSON: worst at line ${line} column ${col}, ${failing} failing, pass ${pass}; expected 145, 3, 1, false")
endif()

# 4
write_ref(missing.ref.yaml v u.txt)
umrun(3 "v +0 +0 .*FAIL \\(not produced by the run\\)" --set validation.reference=${WORK}/missing.ref.yaml)

# 5
write_ref(bad.ref.yaml u nope.txt)
umrun(1 "bad.ref.yaml:5: fields\\[0\\] \\(u\\): cannot read reference file '[^']*/nope.txt'"
      --set validation.reference=${WORK}/bad.ref.yaml)
if(output MATCHES "running jacobi")
  message(FATAL_ERROR "a bad reference should stop umrun before the run:\n${output}")
endif()
message("field validation end to end: pass, perturbed (line 145), missing and bad reference all as expected")
