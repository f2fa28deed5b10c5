/* What the host backends (seq, openmp) share: their strategy rule and their finalize (seq.c). */
#ifndef UM_BACKENDS_HOST_H
#define UM_BACKENDS_HOST_H

#include "um/backend.h"

/* Host backends run blocks by block colour: auto, coloured and hierarchical
 * (whose thread colours a CPU thread does not need) all run as coloured. */
int um__host_strategy(um_context *ctx, void *state, um_strategy want, um_strategy *out);
/* Frees the context's compiled host loops (hostc.c). */
void um__host_finalize(um_context *ctx, void *state);

#endif
