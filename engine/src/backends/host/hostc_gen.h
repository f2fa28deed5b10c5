/* Compiled host loops: the generated code (hostc_gen.c). */
#ifndef UM_CORE_HOSTC_GEN_H
#define UM_CORE_HOSTC_GEN_H

#include <stdint.h>

#include "core/internal.h"

/* The module's source for this loop: its scalar range and, where the loop
 * allows one, its SIMD range (malloc'ed; NULL when out of memory). */
char *um__hostc_generate(const um_loop *loop);

/* What names the copy of a kernel with its READ parameters const in the compiler's messages (um__hostc_kernel_text). */
#define UM_HOSTC_READ_MARK "with its READ parameters const"

/* The kernel header text the module compiles: the kernel's own, with a copy of the kernel after it whose READ
 * pointer parameters are const (never called: a write through one is the compiler's error at the kernel's line, in a
 * file named "<source>: <kernel> " UM_HOSTC_READ_MARK); note: those parameters ("a (argument 0), ..."), "" where no
 * copy was made. malloc'ed; NULL when out of memory. */
char *um__hostc_kernel_text(const um_loop *loop, char *note, size_t n);

/* Continue hash k over each argument's shape: what the generated code depends on. */
uint64_t um__hostc_hash_shapes(uint64_t k, const um_loop *loop);

#endif
