# The report fits a laptop (issue 26): rendered by headless chromium in a 1366 px wide window, with every
# <details> opened, the page scrolls no wider than 1366 px and no table or chart is wider.
#   cmake -DCHROMIUM=<browser> -DPAGE=<report.html> -DWORK=<scratch> -P check_report_width.cmake
# Without a browser the check is skipped with a message (scripts/install-deps.sh installs chromium).
if(NOT CHROMIUM)
  message(STATUS "SKIPPED: no chromium found (scripts/install-deps.sh installs it): the report's width is not checked")
  return()
endif()
file(READ "${PAGE}" html)
# a copy with a script that opens every <details>, measures, and writes the result into the DOM
string(REPLACE "</body>" "<script>
document.querySelectorAll('details').forEach(function (d) { d.open = true; });
var wide = [];
document.querySelectorAll('table, svg').forEach(function (e) {
  var w = e.getBoundingClientRect().width;
  if (w > 1366) wide.push(e.tagName + ' ' + Math.round(w) + 'px: ' + (e.textContent || '').slice(0, 60));
});
var out = document.createElement('pre');
out.id = 'width-check';
out.textContent = 'scrollWidth=' + document.documentElement.scrollWidth + ' tables_and_charts=' +
  document.querySelectorAll('table, svg').length + ' too_wide=' + wide.length + ' ' + wide.slice(0, 5).join(' | ');
document.body.appendChild(out);
</script></body>" probe "${html}")
get_filename_component(name "${PAGE}" NAME_WE)
file(WRITE "${WORK}/${name}_width_probe.html" "${probe}")
execute_process(COMMAND ${CHROMIUM} --headless --no-sandbox --disable-gpu --window-size=1366,900
                        --dump-dom "file://${WORK}/${name}_width_probe.html"
                RESULT_VARIABLE rc OUTPUT_VARIABLE dom ERROR_QUIET TIMEOUT 180)
if(NOT dom MATCHES "scrollWidth=([0-9]+) tables_and_charts=([0-9]+) too_wide=([0-9]+)([^<]*)")
  message(FATAL_ERROR "${CHROMIUM} did not render ${PAGE} (exit ${rc}): no width-check in its DOM")
endif()
set(sw ${CMAKE_MATCH_1})
set(n ${CMAKE_MATCH_2})
set(wide ${CMAKE_MATCH_3})
if(sw GREATER 1366 OR wide GREATER 0 OR n LESS 5)
  message(FATAL_ERROR "${PAGE} at 1366 px: the page scrolls ${sw} px wide; ${wide} of ${n} tables and charts are "
                      "wider than 1366 px:${CMAKE_MATCH_4}")
endif()
message(STATUS "${PAGE} at 1366 px: scrollWidth ${sw}, ${n} tables and charts, none wider")
