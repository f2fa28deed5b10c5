/* The options loop splitting reads (um/option_decl.h): run.split and run.reproducible, declared once, beside
 * the pass that reads them (transform/split.c). */
#include "core/option_tables.h"
#include "core/internal.h"

static int opt_split(um_context *ctx, const um_option *d, const um_option_value *v, char *err, size_t len) {
  (void)d, (void)err, (void)len; /* the choices: um_split's order to auto, then on (gather), then fused */
  return um_context_set_split(ctx, v->i == 4 ? UM_SPLIT_GATHER : v->i == 5 ? UM_SPLIT_FUSED : (um_split)v->i);
}
static int opt_reproducible(um_context *ctx, const um_option *d, const um_option_value *v, char *err, size_t len) {
  (void)d, (void)err, (void)len;
  return um_context_set_reproducible(ctx, v->i);
}

/* run.split's values, and its default: the per-loop form (split.<loop>) takes the same */
static const char *const split_choices[] = {"off", "scatter", "gather", "auto", "on", "fused", NULL};
#define SPLIT_DEFAULT "auto"

const um_option um_transform_options[] = {
    {.key = "run.split", .type = UM_OPT_CHOICE, .def = SPLIT_DEFAULT, .choices = split_choices,
     .help = "automatic loop splitting: a loop that\n"
             "increments through maps runs as its kernel writing per-element\n"
             "contributions (no colouring, no atomics), then the increments: one\n"
             "loop per argument (scatter) or each target summing its elements'\n"
             "contributions in a fixed order (gather; on = gather). fused (cuda;\n"
             "elsewhere gather): both in one launch per block colour, the\n"
             "contributions in shared memory, a barrier, then the increments by\n"
             "thread colour (hierarchical colouring). auto: CPU backends keep\n"
             "loops whole; a GPU times both and keeps the faster",
     .component = "transform", .to_context = opt_split},
    {.key = "run.reproducible", .type = UM_OPT_BOOL, .def = "false",
     .help = "true: increments gathered in a fixed order (by global element number)\n"
             "and floating-point sums exact, so runs, strategies, backends and rank\n"
             "counts give the same bits (except loops that increment a vector\n"
             "argument, which a run names: SIAC's per_element)",
     .component = "transform", .to_context = opt_reproducible},
    /* set per loop by its caller (the runner: um_loop settings), as run.split is for every loop */
    {.key = "split.<loop>", .type = UM_OPT_CHOICE, .def = SPLIT_DEFAULT, .choices = split_choices,
     .help = "run.split for one loop: split: {res_calc: on}", .component = "transform"},
};
const int um_transform_noptions = (int)(sizeof um_transform_options / sizeof um_transform_options[0]);
