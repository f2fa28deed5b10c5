# Included by the check scripts that compare umrun's metrics (check_reproducible.cmake, check_same_bits.cmake).
# um_json_metrics(JSON SKIP OUT): the metrics of umrun's --json file JSON as a list of '"name": value' entries
# (the JSON writes them with 17 significant digits: equal text is equal bits), those whose names match the
# regex SKIP (the timings) left out; a file without metrics stops the script.
function(um_json_metrics json skip out)
  file(READ ${json} j)
  string(REGEX MATCH "\"metrics\": {[^}]*}" m "${j}")
  if(m STREQUAL "")
    message(FATAL_ERROR "${json}: no metrics")
  endif()
  string(REGEX REPLACE "^\"metrics\": {(.*)}$" "\\1" m "${m}")
  string(REPLACE ", \"" ";\"" entries "${m}")
  set(kept "")
  foreach(e ${entries})
    if(NOT e MATCHES "^\"[^\"]*(${skip})[^\"]*\":")
      list(APPEND kept "${e}")
    endif()
  endforeach()
  set(${out} "${kept}" PARENT_SCOPE)
endfunction()
