# cmake -DSRC=<source tree> -P check_configs_linked.cmake
# The README's promise (issue 26, the first hour): configs/ links every app's configs, so
# `umrun configs/<name>.yaml` runs any of them; each link resolves to the app's file.
file(GLOB app_configs ${SRC}/apps/*/configs/*.yaml)
set(missing "")
foreach(c IN LISTS app_configs)
  get_filename_component(name ${c} NAME)
  if(NOT EXISTS ${SRC}/configs/${name})
    list(APPEND missing ${name})
  endif()
endforeach()
if(missing)
  message(FATAL_ERROR "configs/ has no link for: ${missing} (ln -s ../apps/<app>/configs/<name> configs/)")
endif()
list(LENGTH app_configs n)
message("configs/ links all ${n} app configs")
