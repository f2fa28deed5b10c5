/* The options the OpenMP backend reads (um/option_decl.h): declared here, once, in a file every build
 * compiles (a config that sets them is valid in a build without OpenMP, where they do nothing). */
#include "core/option_tables.h"

const um_option um_openmp_options[] = {
    {.key = "openmp.parallel_threshold", .type = UM_OPT_INT, .def = "4096", .min = 0, .max = 2147483647,
     .range_hint = "use 0 (always parallel) or more elements", .flags = UM_OPT_RANGE,
     .help = "loops over fewer elements run on one thread (same plan and colour order); 0: always parallel",
     .component = "openmp", .to_options = um_option_to_setting},
    {.key = "run.parallel_threshold", .type = UM_OPT_STRING, .renamed_to = "openmp.parallel_threshold",
     .help = "the earlier spelling of openmp.parallel_threshold, still read (with a note)", .component = "openmp"},
};
const int um_openmp_noptions = (int)(sizeof um_openmp_options / sizeof um_openmp_options[0]);

int um__openmp_threshold(const um_options *o) {
  um_option_value v;
  return um_options_get(o, "openmp.parallel_threshold", &v) == UM_SUCCESS ? v.i : 4096;
}
