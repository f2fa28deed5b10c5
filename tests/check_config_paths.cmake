# Paths in a config resolved from the config's folder (umrun/paths.c, docs/library.md "Paths in a config"):
#   cmake -DUMRUN=build/bin/umrun -DSRC=<source tree> -DWORK=<scratch folder> -P tests/check_config_paths.cmake
# 1. a config of the tree (configs/volna_lake_at_rest.yaml: its deck and reference named validation/...), run
#    from an empty folder outside the tree, finds both (the data folder) and validates;
# 2. a config beside its own deck (mesh.file: deck.vln), run from another folder, reads that deck;
# 3. the same deck name in the current folder and beside the config: the config's folder wins;
# 4. a missing mesh: exit status 1, the message names the key, the value, and the folders looked in;
# 5. --set mesh.file=X is relative to the current folder (as a typed path is).
cmake_minimum_required(VERSION 3.20)
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK}/cwd ${WORK}/case)
file(REAL_PATH ${WORK} WORK)

function(run_in dir expect_rc regex)
  execute_process(COMMAND ${UMRUN} ${ARGN} WORKING_DIRECTORY ${dir} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                  ERROR_VARIABLE err)
  set(all "${out}${err}")
  if(NOT rc EQUAL expect_rc)
    message(FATAL_ERROR "(in ${dir}) umrun ${ARGN}: expected exit status ${expect_rc}, got ${rc}\n${all}")
  endif()
  if(NOT all MATCHES "${regex}")
    message(FATAL_ERROR "(in ${dir}) umrun ${ARGN}: output does not match '${regex}'\n${all}")
  endif()
  message(STATUS "ok: (in ${dir}) umrun ${ARGN}")
endfunction()

set(deck ${SRC}/validation/volna/decks/lake_at_rest.vln)
# 1. the tree's config from an unrelated folder
run_in(${WORK}/cwd 0 "VALIDATION PASS" ${SRC}/configs/volna_lake_at_rest.yaml --quiet)

# 2. a config with its deck beside it; the reference from the data folder
file(READ ${SRC}/configs/volna_lake_at_rest.yaml cfg)
string(REPLACE "validation/volna/decks/lake_at_rest.vln" "deck.vln" cfg "${cfg}")
if(NOT cfg MATCHES "file: deck.vln")
  message(FATAL_ERROR "configs/volna_lake_at_rest.yaml no longer names its deck as expected:\n${cfg}")
endif()
file(WRITE ${WORK}/case/case.yaml "${cfg}")
file(COPY_FILE ${deck} ${WORK}/case/deck.vln)
run_in(${WORK}/cwd 0 "VALIDATION PASS" ${WORK}/case/case.yaml --quiet)
run_in(${WORK}/case 0 "VALIDATION PASS" case.yaml --quiet)

# 3. a different deck of the same name in the current folder: the config's own is read (this one, of another
#    case, would fail the lake's validation)
file(COPY_FILE ${SRC}/validation/volna/decks/dambreak_1d.vln ${WORK}/cwd/deck.vln)
run_in(${WORK}/cwd 0 "VALIDATION PASS" ${WORK}/case/case.yaml --quiet)

# 4. a missing mesh: the message names the key, the value, the config's folder and the current folder
string(REPLACE "deck.vln" "nowhere.vln" missing "${cfg}")
file(WRITE ${WORK}/case/missing.yaml "${missing}")
run_in(${WORK}/cwd 1
       "mesh.file 'nowhere.vln' \\(file [^)]*missing.yaml:[0-9]+\\): no such file or folder; looked in ${WORK}/case \\(the config's folder\\), .*${WORK}/cwd \\(the current folder\\)"
       ${WORK}/case/missing.yaml --quiet)

# 5. --set: relative to the current folder (the lake's deck copied there under another name)
file(COPY_FILE ${deck} ${WORK}/cwd/typed.vln)
run_in(${WORK}/cwd 0 "VALIDATION PASS" ${WORK}/case/missing.yaml --quiet --set mesh.file=typed.vln)
run_in(${WORK}/case 1 "cannot|not found|no such|does not exist" ${WORK}/case/case.yaml --quiet --set mesh.file=typed.vln)
file(REMOVE_RECURSE ${WORK})
