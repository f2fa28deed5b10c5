# um_embed(<out.c> <symbol> <input>): a C file defining `const char <symbol>[]`
# holding the input file's text, regenerated when the input changes. Used to
# carry kernel headers inside the binary for run-time compilation, and the
# default config inside umrun.
set(UM_EMBED_SCRIPT ${CMAKE_CURRENT_LIST_DIR}/UmEmbedRun.cmake)
function(um_embed out symbol input)
  add_custom_command(OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} -DIN=${input} -DOUT=${out} -DSYM=${symbol} -P ${UM_EMBED_SCRIPT}
    DEPENDS ${input} ${UM_EMBED_SCRIPT}
    COMMENT "Embedding ${input} as ${symbol}" VERBATIM)
endfunction()
