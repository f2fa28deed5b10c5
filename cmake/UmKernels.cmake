# Kernel headers as text inside the program, for run-time compilation (the
# CUDA backend's NVRTC, the compiled host loops): UM_KERNEL_DEFINE (um/kernel.h)
# names `<header basename>_source`. Installed with the package (umConfig.cmake
# includes it) and used by the tree itself; both run the um-embed tool
# (engine/tools/embed.c): um::embed when installed, um_embed_tool in the tree.
#
#   um_add_kernels(<target> <header.h>...)
#       embeds each header as `const char <basename>_source[]` into a generated
#       C file added to <target>'s sources, regenerated when the header changes.
#   um_embed(<out.c> <symbol> <input>)
#       the same for one file, any symbol (the tree's default config, ...).

function(um_embed out symbol input)
  if(TARGET um_embed_tool) # in the tree: the tool is built first
    set(tool $<TARGET_FILE:um_embed_tool>)
    set(dep um_embed_tool)
  elseif(TARGET um::embed)
    set(tool $<TARGET_FILE:um::embed>)
    set(dep "")
  else()
    message(FATAL_ERROR "um_embed: no um-embed tool (the target um::embed comes with find_package(um))")
  endif()
  get_filename_component(dir "${out}" DIRECTORY)
  file(MAKE_DIRECTORY "${dir}")
  add_custom_command(OUTPUT ${out}
    COMMAND ${tool} ${input} ${symbol} ${out}
    DEPENDS ${input} ${dep}
    COMMENT "Embedding ${input} as ${symbol}" VERBATIM)
endfunction()

function(um_add_kernels target)
  if(NOT TARGET ${target})
    message(FATAL_ERROR "um_add_kernels: '${target}' is not a target (call it after add_executable/add_library)")
  endif()
  if(NOT ARGN)
    message(FATAL_ERROR "um_add_kernels(${target}): name at least one kernel header")
  endif()
  foreach(h IN LISTS ARGN)
    get_filename_component(habs "${h}" ABSOLUTE)
    if(NOT EXISTS "${habs}")
      message(FATAL_ERROR "um_add_kernels(${target}): kernel header ${habs} does not exist")
    endif()
    get_filename_component(base "${habs}" NAME_WE)
    if(NOT base MATCHES "^[A-Za-z_][A-Za-z0-9_]*$")
      message(FATAL_ERROR "um_add_kernels(${target}): '${base}' is not a C identifier, so ${base}_source cannot "
                          "name its text; rename the header")
    endif()
    set(out ${CMAKE_CURRENT_BINARY_DIR}/um_kernels/${target}/${base}_src.c)
    um_embed(${out} ${base}_source ${habs})
    target_sources(${target} PRIVATE ${out})
  endforeach()
endfunction()
