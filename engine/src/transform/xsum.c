/* Exact sums of reproducible reductions (split.c, run.reproducible): the fixed-point accumulator of
 * um/backend.h (UM_XSUM_*), see xsum.h. */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "xsum.h"

/* The fixed-point accumulator of um/backend.h (UM_XSUM_*): 32-bit digits in int64 words, room for
 * 2^30 additions before a normalisation carries their excess up; non-finite values counted apart. */
#define XS_DIGITS UM_XSUM_DIGITS
#define XS_BIAS UM_XSUM_BIAS
#define XS_WORDS UM_XSUM_WORDS
void um__xs_norm(um_xsum *x) {
  for (int i = 0; i < XS_DIGITS - 1; i++) {
    const long long c = x->w[i] >> 32; /* floor: the digit keeps [0, 2^32) */
    x->w[i] -= c * (1LL << 32);
    x->w[i + 1] += c;
  }
  x->adds = 0;
}

void um__xs_add(um_xsum *x, double v) {
  uint64_t bits;
  memcpy(&bits, &v, sizeof bits);
  int ex = (int)((bits >> 52) & 0x7ff);
  uint64_t m = bits & ((1ULL << 52) - 1);
  if (ex == 0x7ff) {
    x->w[XS_DIGITS + (m ? 0 : (bits >> 63) ? 2 : 1)]++;
    return;
  }
  if (ex) m |= 1ULL << 52;
  else ex = 1;
  if (!m) return;
  const int sh = ex - 1075 + XS_BIAS, w = sh >> 5, b = sh & 31;
  const unsigned __int128 u = (unsigned __int128)m << b;
  const long long p0 = (long long)(u & 0xffffffffu), p1 = (long long)((u >> 32) & 0xffffffffu),
                  p2 = (long long)(u >> 64);
  if (bits >> 63) {
    x->w[w] -= p0;
    x->w[w + 1] -= p1;
    x->w[w + 2] -= p2;
  } else {
    x->w[w] += p0;
    x->w[w + 1] += p1;
    x->w[w + 2] += p2;
  }
  if (++x->adds == (1L << 30)) um__xs_norm(x);
}

/* The sum, rounded once to the nearest double. */
double um__xs_round(um_xsum *x) {
  const long long nan = x->w[XS_DIGITS], pinf = x->w[XS_DIGITS + 1], ninf = x->w[XS_DIGITS + 2];
  if (nan || (pinf && ninf)) return NAN;
  if (pinf) return INFINITY;
  if (ninf) return -INFINITY;
  um__xs_norm(x);
  int neg = x->w[XS_DIGITS - 1] < 0;
  if (neg) { /* magnitude: negate every digit and carry again */
    for (int i = 0; i < XS_DIGITS; i++) x->w[i] = -x->w[i];
    um__xs_norm(x);
  }
  int h = XS_DIGITS - 1;
  while (h >= 0 && x->w[h] == 0) h--;
  if (h < 0) return 0.0;
  unsigned __int128 u = 0;
  for (int i = h; i >= h - 2; i--) u = (u << 32) | (unsigned long long)(i >= 0 ? x->w[i] : 0);
  for (int i = h - 3; i >= 0; i--)
    if (x->w[i]) { /* sticky: u has at least 65 bits, so its last one decides no tie but this */
      u |= 1;
      break;
    }
  const double r = ldexp((double)u, 32 * (h - 2) - XS_BIAS);
  return neg ? -r : r;
}

