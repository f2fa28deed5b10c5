/* umd_gmap (engine/src/distributed/dist_blocks.h) in each of its forms against a plain array: the keys of a box of a
 * cube numbered plane by plane (the numbers a rank's part of LULESH's cube holds), chosen so that
 * umd_gmap_init_span picks the dense, the paged and the hash form, and the hash form from umd_gmap_init. Called by
 * tests/test_mpi_blocks.cpp's GlobalMap.* (the header is C and MPI's). */
#include <stdio.h>
#include <string.h>

#include "distributed/dist_blocks.h"

/* The keys of the box [0, bx) x [0, by) x [0, bz) of a cube of side n, in z, y, x order (keys[i] gets value i). */
static long long *box_keys(int n, int bx, int by, int bz, size_t *nk, long long *lo, long long *hi) {
  long long *k = malloc((size_t)bx * by * bz * sizeof *k);
  size_t m = 0;
  for (int z = 0; k && z < bz; z++)
    for (int y = 0; y < by; y++)
      for (int x = 0; x < bx; x++) k[m++] = ((long long)z * n + y) * n + x;
  *nk = m, *lo = m ? k[0] : 0, *hi = m ? k[m - 1] : -1;
  return k;
}

static int form(const umd_gmap *h) { return h->dense ? 'd' : h->page ? 'p' : 'h'; }

/* One map of the box's keys (want: the form expected, 'd', 'p' or 'h'; spanned: made by umd_gmap_init_span) checked
 * key by key, for numbers that are not keys, by umd_gmap_set and by a walk over its slots; 0 or 1 with err. */
static int check_box(int n, int bx, int by, int bz, int spanned, int want, char *err, size_t el) {
  size_t nk = 0;
  long long lo = 0, hi = 0;
  long long *k = box_keys(n, bx, by, bz, &nk, &lo, &hi);
  umd_gmap h;
  if (!k || (spanned ? umd_gmap_init_span(&h, nk, lo, hi) : umd_gmap_init(&h, 16)) != UM_SUCCESS)
    return snprintf(err, el, "out of memory"), free(k), 1;
  int bad = form(&h) != want ? (snprintf(err, el, "box %dx%dx%d: form %c, not %c", bx, by, bz, form(&h), want), 1) : 0;
  for (size_t i = 0; !bad && i < nk; i++) bad = umd_gmap_add(&h, k[i], (int)i) != UM_SUCCESS;
  for (size_t i = 0; !bad && i < nk; i++) bad = umd_gmap_add(&h, k[i], -5) != UM_SUCCESS; /* kept, not replaced */
  if (bad && !err[0]) snprintf(err, el, "box %dx%dx%d (%c): an add failed", bx, by, bz, form(&h));
  for (size_t i = 0; !bad && i < nk; i++)
    if (umd_gmap_get(&h, k[i]) != (int)i)
      bad = 1, snprintf(err, el, "key %lld: %d, not %zu", k[i], umd_gmap_get(&h, k[i]), i);
  if (!bad && h.n != nk) bad = 1, snprintf(err, el, "%zu keys counted, not %zu", h.n, nk);
  /* numbers of the span that are not keys (x past the box), and numbers outside the span */
  for (long long g = lo; !bad && bx < n && g <= hi; g += n)
    if (umd_gmap_get(&h, g + bx) != -1)
      bad = 1, snprintf(err, el, "%lld is not a key but maps to %d", g + bx, umd_gmap_get(&h, g + bx));
  if (!bad && (umd_gmap_get(&h, hi + 1) != -1 || (lo > 0 && umd_gmap_get(&h, lo - 1) != -1)))
    bad = 1, snprintf(err, el, "a number outside the span maps to a value");
  for (size_t i = 0; !bad && i < nk; i += 3) umd_gmap_set(&h, k[i], -2 - (int)i);
  if (!bad && bx < n) umd_gmap_set(&h, lo + bx, 7); /* not a key: stays absent */
  if (!bad && bx < n && umd_gmap_get(&h, lo + bx) != -1) bad = 1, snprintf(err, el, "umd_gmap_set added a key");
  size_t seen = 0;
  for (size_t s = 0; !bad && s < umd_gmap_slots(&h); s++) {
    long long g = -1;
    const int v = umd_gmap_at(&h, s, &g);
    if (v == -1) continue;
    const int i = v <= -2 ? -2 - v : v;
    if (i < 0 || (size_t)i >= nk || k[i] != g || (v <= -2) != (i % 3 == 0))
      bad = 1, snprintf(err, el, "slot %zu: key %lld value %d", s, g, v);
    if (!bad) umd_gmap_put_at(&h, s, i), seen++;
  }
  if (!bad && seen != nk) bad = 1, snprintf(err, el, "the walk found %zu keys of %zu", seen, nk);
  for (size_t i = 0; !bad && i < nk; i++)
    if (umd_gmap_get(&h, k[i]) != (int)i)
      bad = 1, snprintf(err, el, "after umd_gmap_put_at, key %lld: %d", k[i], umd_gmap_get(&h, k[i]));
  umd_gmap_free(&h);
  free(k);
  return bad;
}

/* A halo's keys: planes [0, a) and [a + hole, a + hole + c) of an n x n cross-section, the hole (a rank's own block)
 * in between; umd_gmap_init_span_hole with the hole must give form want and every key, none in the hole. */
static int check_hole(int n, int a, int hole, int c, int want, char *err, size_t el) {
  const long long p = (long long)n * n, lo = 0, hi = (a + hole + c) * p - 1, h0 = a * p, h1 = (a + hole) * p - 1;
  const size_t nk = (size_t)(a + c) * (size_t)p;
  umd_gmap h;
  if (umd_gmap_init_span_hole(&h, nk, lo, hi, h0, h1) != UM_SUCCESS) return snprintf(err, el, "out of memory"), 1;
  int bad = form(&h) != want
                ? (snprintf(err, el, "hole %d of %d planes: form %c, not %c", hole, a + hole + c, form(&h), want), 1)
                : 0;
  size_t i = 0;
  for (long long g = lo; !bad && g <= hi; g++)
    if (g < h0 || g > h1) bad = umd_gmap_add(&h, g, (int)i++) != UM_SUCCESS;
  i = 0;
  for (long long g = lo; !bad && g <= hi; g++) {
    const int want_v = g < h0 || g > h1 ? (int)i++ : -1;
    if (umd_gmap_get(&h, g) != want_v)
      bad = 1, snprintf(err, el, "hole map: %lld gives %d, not %d", g, umd_gmap_get(&h, g), want_v);
  }
  size_t seen = 0;
  for (size_t s = 0; !bad && s < umd_gmap_slots(&h); s++) {
    long long g;
    seen += umd_gmap_at(&h, s, &g) >= 0;
  }
  if (!bad && (seen != nk || h.n != nk))
    bad = 1, snprintf(err, el, "hole map: %zu keys walked, %zu counted, not %zu", seen, h.n, nk);
  umd_gmap_free(&h);
  return bad;
}

int um_test_gmap_forms(char *err, size_t el) {
  err[0] = 0;
  /* n = 151 (LULESH 150^3's nodes): a 76^3 box spans 3.9 numbers a key (dense), a 38 x 76 x 76 one 7.8 (paged), a
   * 3 x 3 x 76 one 2500 (hash) */
  return check_box(151, 76, 76, 76, 1, 'd', err, el) || check_box(151, 38, 76, 76, 1, 'p', err, el) ||
         check_box(151, 3, 3, 76, 1, 'h', err, el) || check_box(151, 38, 76, 76, 0, 'h', err, el) ||
         check_box(151, 151, 151, 2, 1, 'd', err, el) ||
         /* a halo of a plane on each side of 9 planes of its rank's own (LULESH 150^3 on 16 ranks): paged, not a
          * dense array over the 11 planes; a hole of 1 plane in 5: dense */
         check_hole(151, 1, 9, 1, 'p', err, el) || check_hole(151, 2, 1, 2, 'd', err, el);
}

/* Whether dat d's halo rows wait for the first loop that reads them to exchange them, and setting it: the tests
 * that hold two distributions to the bit give both the same halos left stale (tests/test_mpi_blocks.cpp). */
int um_test_halo_stale(const um_dat *d) { return d->halo_stale; }
void um_test_set_halo_stale(um_dat *d, int stale) { d->halo_stale = stale; }
