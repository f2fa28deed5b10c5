/* The engine components' option tables (um/option_decl.h): each is defined in
 * the component's own source file, next to the code that reads the options, and
 * listed once here for the registry (core/option_decl.c). */
#ifndef UM_OPTION_TABLES_H
#define UM_OPTION_TABLES_H
#include "um/um.h"

#define UM_CHOICES(...) ((const char *const[]){__VA_ARGS__, NULL})

extern const um_option um_core_options[];        /* core/context.c: run.backend, run.block_size, ... */
extern const int um_core_noptions;
extern const um_option um_hostc_options[];       /* backends/host/hostc.c: hostc.compile, hostc.cc, ... */
extern const int um_hostc_noptions;
extern const um_option um_openmp_options[];      /* backends/openmp.c: openmp.parallel_threshold */
extern const int um_openmp_noptions;
int um__openmp_threshold(const um_options *o); /* openmp.parallel_threshold, as declared */
extern const um_option um_transform_options[];   /* transform/split.c: run.split, run.reproducible */
extern const int um_transform_noptions;
extern const um_option um_tune_options[];        /* tune/tune.c: run.tune */
extern const int um_tune_noptions;
extern const um_option um_distributed_options[]; /* distributed/dist_options.c: mpi.* */
extern const int um_distributed_noptions;

/* Fill o (zeroed first where `all`) / ctx with every declared default of its stage. */
void um__options_defaults(um_options *o);
int um__context_defaults(um_context *ctx);

#endif
