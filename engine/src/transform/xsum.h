/* Exact sums (reproducible reductions, split.c): the fixed-point accumulator of um/backend.h (UM_XSUM_*),
 * 32-bit digits in int64 words, room for 2^30 additions before a normalisation carries their excess up;
 * non-finite values counted apart. Any order of additions gives the same words. */
#ifndef UM_CORE_XSUM_H
#define UM_CORE_XSUM_H
#include "um/backend.h"

typedef struct {
  long long w[UM_XSUM_WORDS];
  long adds;
} um_xsum;

/** Carry every digit's excess up (each digit back in [0, 2^32)). */
void um__xs_norm(um_xsum *x);
/** Add v exactly. */
void um__xs_add(um_xsum *x, double v);
/** The sum, rounded once to the nearest double. */
double um__xs_round(um_xsum *x);
#endif
