/* Compiled host loops: the generated code (hostc_gen.c). */
#ifndef UM_CORE_HOSTC_GEN_H
#define UM_CORE_HOSTC_GEN_H

#include <stdint.h>

#include "core/internal.h"

/* The module's source for this loop: its scalar range and, where the loop
 * allows one, its SIMD range (malloc'ed; NULL when out of memory). */
char *um__hostc_generate(const um_loop *loop);

/* Continue hash k over each argument's shape: what the generated code depends on. */
uint64_t um__hostc_hash_shapes(uint64_t k, const um_loop *loop);

#endif
