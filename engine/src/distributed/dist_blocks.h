/* dist_blocks.h: private to dist_blocks.c and dist_blocks_rows.c, um_distribute on a context declared by blocks
 * (design: the comment at the top of dist_blocks.c): the per-set state of the distribution, a hash map of global
 * numbers (64-bit) to local indices, and the collective steps the two files share. */
#ifndef UM_DIST_DIST_BLOCKS_H
#define UM_DIST_DIST_BLOCKS_H

#include "dist_impl.h"

#include <limits.h>

#ifdef UM_HAVE_MPI

/* Global number -> int (keys >= 0, -1: absent), in one of three forms that umd_gmap_init_span chooses from the
 * span of the keys against their count:
 *   dense  an array over the span (4 bytes a number of the span, one read a lookup);
 *   paged  the span cut in pages of UMD_GMAP_PAGE numbers, a page allocated when a key falls in it (a lookup reads
 *          the page table, then the page): a rank's part of a structured mesh whose numbers run in rows across
 *          the global range (a box of a cube numbered plane by plane) touches few pages;
 *   hash   open addressing with linear probing, at most 2/3 full: 1.5 slots of 12 bytes a key. The table is cut in
 *          lines of 8 slots: the numbers g with the same g / 8 hash to one line, each at its place g % 8 in it, so
 *          neighbours in the global numbering share a cache line. A lookup costs 15 to 25 ns against 1 in the
 *          other two forms, so the hash is the last resort, for numbers spread thinly over a wide span. */
#define UMD_GMAP_PAGE_BITS 8
#define UMD_GMAP_PAGE (1 << UMD_GMAP_PAGE_BITS)
typedef struct {
  long long *k;
  int *v;
  size_t cap, n; /* cap: a multiple of 8 */
  int *dense; /* dense[g - lo] for g in [lo, lo + span), -1 when absent; no k, v */
  int **page; /* [npages]: page[(g - lo) >> UMD_GMAP_PAGE_BITS], NULL until a key falls in it; no k, v */
  size_t npages;
  long long lo, span;
} umd_gmap;

static inline size_t umd_gmap_slot(const umd_gmap *h, long long g) {
  uint64_t x = ((uint64_t)g >> 3) + 0x9e3779b97f4a7c15ULL; /* splitmix64's finaliser of g's line */
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return ((size_t)(((unsigned __int128)x * (h->cap >> 3)) >> 64) << 3) | (size_t)(g & 7); /* line in [0, cap/8) */
}
static inline size_t umd_gmap_next(const umd_gmap *h, size_t i) { return i + 1 == h->cap ? 0 : i + 1; }
/* Room for `expect` keys without growing; 0 or UM_ERR_ALLOC. */
static inline int umd_gmap_init(umd_gmap *h, size_t expect) {
  h->cap = (expect + expect / 2 + 16 + 7) & ~(size_t)7;
  h->n = 0;
  h->dense = NULL, h->page = NULL, h->npages = 0, h->lo = h->span = 0;
  h->k = malloc(h->cap * sizeof *h->k);
  h->v = malloc(h->cap * sizeof *h->v);
  if (!h->k || !h->v) {
    free(h->k), free(h->v);
    h->k = NULL, h->v = NULL;
    return UM_ERR_ALLOC;
  }
  for (size_t i = 0; i < h->cap; i++) h->k[i] = -1;
  return UM_SUCCESS;
}
/* The paged form over [lo, hi] (lo <= hi), no page made yet; 0 or UM_ERR_ALLOC. */
static inline int umd_gmap_init_paged(umd_gmap *h, long long lo, long long hi) {
  memset(h, 0, sizeof *h);
  h->lo = lo, h->span = hi - lo + 1;
  h->npages = ((size_t)h->span + UMD_GMAP_PAGE - 1) >> UMD_GMAP_PAGE_BITS;
  return (h->page = calloc(h->npages, sizeof *h->page)) ? UM_SUCCESS : UM_ERR_ALLOC;
}
/* Room for `expect` keys, all in [lo, hi]: dense when the span is at most 6 numbers a key (4 bytes a number,
 * against 18 a key hashed), paged up to 64 numbers a key (a walk over the slots then checks at most 64 a key; the
 * page table 8 bytes a page), else the hash. Keys outside [lo, hi] are refused by umd_gmap_add (UM_ERR_INTERNAL);
 * 0 or UM_ERR_ALLOC. */
static inline int umd_gmap_init_span(umd_gmap *h, size_t expect, long long lo, long long hi) {
  memset(h, 0, sizeof *h);
  if (hi < lo || (unsigned long long)(hi - lo) >= 64ULL * expect + 1024) return umd_gmap_init(h, expect);
  if ((unsigned long long)(hi - lo) >= 6ULL * expect + 1024) return umd_gmap_init_paged(h, lo, hi);
  h->lo = lo, h->span = hi - lo + 1;
  if (!(h->dense = malloc((size_t)h->span * sizeof *h->dense))) return UM_ERR_ALLOC;
  memset(h->dense, 0xff, (size_t)h->span * sizeof *h->dense); /* -1 */
  return UM_SUCCESS;
}
/* As umd_gmap_init_span, for keys that all avoid [hole_lo, hole_hi] (a rank's own block, inside the span of its
 * halo's numbers): paged where the hole is most of the span and the rest would be dense (only the pages of keys
 * are then made, not a dense array over the hole). */
static inline int umd_gmap_init_span_hole(umd_gmap *h, size_t expect, long long lo, long long hi, long long hole_lo,
                                          long long hole_hi) {
  const long long a = hole_lo > lo ? hole_lo : lo, b = hole_hi < hi ? hole_hi : hi;
  const unsigned long long span = hi >= lo ? (unsigned long long)(hi - lo) + 1 : 0,
                           hole = b >= a ? (unsigned long long)(b - a) + 1 : 0;
  if (span == 0 || 2 * hole < span || span - hole >= 6ULL * expect + 1024) return umd_gmap_init_span(h, expect, lo, hi);
  return umd_gmap_init_paged(h, lo, hi);
}
static inline void umd_gmap_free(umd_gmap *h) {
  for (size_t i = 0; h->page && i < h->npages; i++) free(h->page[i]);
  free(h->k), free(h->v), free(h->dense), free(h->page);
  h->k = NULL, h->v = NULL, h->dense = NULL, h->page = NULL;
  h->cap = h->n = h->npages = 0;
  h->lo = h->span = 0;
}
/* Whether the map was made (by umd_gmap_init or umd_gmap_init_span) and not freed. */
static inline int umd_gmap_made(const umd_gmap *h) { return h->cap || h->dense || h->page; }
/* The slots of the map, and slot i's value (-1: empty) and key *g: for a walk over every key (ascending numbers
 * when dense or paged). */
static inline size_t umd_gmap_slots(const umd_gmap *h) {
  return h->dense ? (size_t)h->span : h->page ? h->npages << UMD_GMAP_PAGE_BITS : h->cap;
}
static inline int umd_gmap_at(const umd_gmap *h, size_t i, long long *g) {
  if (h->dense) return *g = h->lo + (long long)i, h->dense[i];
  if (h->page) {
    const int *p = h->page[i >> UMD_GMAP_PAGE_BITS];
    return *g = h->lo + (long long)i, p ? p[i & (UMD_GMAP_PAGE - 1)] : -1;
  }
  return *g = h->k[i], h->k[i] >= 0 ? h->v[i] : -1;
}
/* Slot i's value set to v (a slot umd_gmap_at found holding a key). */
static inline void umd_gmap_put_at(umd_gmap *h, size_t i, int v) {
  if (h->dense)
    h->dense[i] = v;
  else if (h->page)
    h->page[i >> UMD_GMAP_PAGE_BITS][i & (UMD_GMAP_PAGE - 1)] = v;
  else
    h->v[i] = v;
}
/* The paged form's slot of g (g in the span), or NULL when its page is not there. */
static inline int *umd_gmap_paged(const umd_gmap *h, long long g) {
  const size_t o = (size_t)(g - h->lo);
  int *p = h->page[o >> UMD_GMAP_PAGE_BITS];
  return p ? p + (o & (UMD_GMAP_PAGE - 1)) : NULL;
}
/* The span [*lo, *hi] of n numbers (every `stride`-th of v from v[0]; *hi < *lo when none) outside [b0, b1), and
 * how many: for umd_gmap_init_span. */
static inline size_t umd_span_outside(const long long *v, size_t n, long long b0, long long b1, long long *lo,
                                      long long *hi) {
  size_t k = 0;
  *lo = LLONG_MAX, *hi = LLONG_MIN;
  for (size_t i = 0; i < n; i++)
    if (v[i] < b0 || v[i] >= b1) {
      k++;
      *lo = v[i] < *lo ? v[i] : *lo, *hi = v[i] > *hi ? v[i] : *hi;
    }
  return k;
}
/* The value of g, or -1. */
static inline int umd_gmap_get(const umd_gmap *h, long long g) {
  if (h->dense) return g >= h->lo && g - h->lo < h->span ? h->dense[g - h->lo] : -1;
  if (h->page) {
    const int *p = g >= h->lo && g - h->lo < h->span ? umd_gmap_paged(h, g) : NULL;
    return p ? *p : -1;
  }
  if (!h->cap) return -1;
  for (size_t i = umd_gmap_slot(h, g);; i = umd_gmap_next(h, i)) {
    if (h->k[i] == g) return h->v[i];
    if (h->k[i] < 0) return -1;
  }
}
/* g's value set to v when g is there. */
static inline void umd_gmap_set(umd_gmap *h, long long g, int v) {
  if (h->dense) {
    if (g >= h->lo && g - h->lo < h->span && h->dense[g - h->lo] >= 0) h->dense[g - h->lo] = v;
    return;
  }
  if (h->page) {
    int *p = g >= h->lo && g - h->lo < h->span ? umd_gmap_paged(h, g) : NULL;
    if (p && *p >= 0) *p = v;
    return;
  }
  for (size_t i = h->cap ? umd_gmap_slot(h, g) : 0; h->cap && h->k[i] >= 0; i = umd_gmap_next(h, i))
    if (h->k[i] == g) {
      h->v[i] = v;
      return;
    }
}
/* g -> v unless g is there already (its value kept); grows; 0 or UM_ERR_ALLOC. */
static inline int umd_gmap_add(umd_gmap *h, long long g, int v) {
  if (h->dense) {
    if (g < h->lo || g - h->lo >= h->span) return UM_ERR_INTERNAL;
    if (h->dense[g - h->lo] < 0) h->dense[g - h->lo] = v, h->n++;
    return UM_SUCCESS;
  }
  if (h->page) {
    if (g < h->lo || g - h->lo >= h->span) return UM_ERR_INTERNAL;
    int **pp = &h->page[(size_t)(g - h->lo) >> UMD_GMAP_PAGE_BITS];
    if (!*pp) {
      if (!(*pp = malloc(UMD_GMAP_PAGE * sizeof **pp))) return UM_ERR_ALLOC;
      memset(*pp, 0xff, UMD_GMAP_PAGE * sizeof **pp); /* -1 */
    }
    int *p = *pp + ((size_t)(g - h->lo) & (UMD_GMAP_PAGE - 1));
    if (*p < 0) *p = v, h->n++;
    return UM_SUCCESS;
  }
  if (3 * (h->n + 1) > 2 * h->cap) {
    umd_gmap o = *h, nh;
    if (umd_gmap_init(&nh, 2 * h->n + 1) != UM_SUCCESS) return UM_ERR_ALLOC;
    for (size_t i = 0; i < o.cap; i++)
      if (o.k[i] >= 0) umd_gmap_add(&nh, o.k[i], o.v[i]);
    umd_gmap_free(&o);
    *h = nh;
  }
  size_t i = umd_gmap_slot(h, g);
  for (; h->k[i] >= 0; i = umd_gmap_next(h, i))
    if (h->k[i] == g) return UM_SUCCESS;
  h->k[i] = g;
  h->v[i] = v;
  h->n++;
  return UM_SUCCESS;
}

/* One set during the distribution. A record is one element's row as it travels: its global number, then the rows
 * of the maps from the set (global targets), rec bytes. The dats' rows travel after, dat by dat, from their homes
 * straight into the local order (dist_blocks_rows.c's pull_dats). */
typedef struct {
  long long gsize;
  long long *begin; /* [P + 1]: rank q is home to [begin[q], begin[q + 1]) (its declared block) */
  int count; /* this rank's block */
  int *own_home; /* [count]: the owner of each element this rank is home to */
  size_t rec; /* bytes of a record */
  int w; /* bytes of each of its numbers: 8, or 4 where umd_blocks_layout was let narrow them and all fit in 32 bits */
  char *own; /* [nown] records this rank owns, ascending global number */
  int nown;
  unsigned char *core; /* [nown]: 1 when every map target of the element is owned here */
  char *ex, *nx; /* exec and non-exec halo records, sorted by owner then global number (ranges: nx the global
                  * numbers alone, 8 bytes each) */
  int nex, nnx;
  int *ex_owner, *nx_owner;
  umd_gmap held; /* global number -> local index (owned in record order, then exec, then non-exec) */
  /* "ranges" (dist_ranges.c): the owned rows are the declared block, in place */
  int *pos; /* [count]: the local index of each element of the block (NULL with keep_order: pos[e] == e) */
  /* both ways: the core rows are one run of the owned, [core_begin, core_begin + their count) (none or all too):
   * the owned keep their order, the core a range within them (um_set core_begin) */
  int keep_order, core_begin;
  int *sent_ex, *sent_ex_cnt; /* the elements sent as exec halo rows, grouped by rank ascending ([P] counts) */
  int *sent_nx, *sent_nx_cnt; /* the elements sent as non-exec halo rows, grouped by asker, as asked ([P]) */
  umd_gmap halo; /* the halo rows' global numbers -> their local indices */
  long long *rg; /* [rn] ([rcap] of room) the targets in this set outside this rank's block of the owned rows that */
  size_t rn, rcap; /* are not core (repeats and all: exec_ranges), rlo the least of them, rhi the greatest */
  long long rlo, rhi;
} umd_bset;

/* A halo key: a global number and its owner. */
typedef struct {
  int owner;
  long long g;
} umd_bkey;
/* qsort's and bsearch's order of long longs, ascending (dist_blocks.c). */
int umd_cmp_ll(const void *a, const void *b);

typedef struct {
  um_context *ctx;
  struct um_dist *D;
  int P, rank, ns;
  umd_bset *S; /* [ns] */
  size_t *moff; /* [nmaps]: where each map's row sits in its from-set's record */
  int ranges; /* "ranges": every set's owners are its homes (each rank owns what it declared) */
} umd_blocks;

/* Number i of w-byte numbers (a record's: 8, or 4 where umd_blocks_layout narrowed them) at r, as 64 bits. */
static inline long long umd_rec_num(const char *r, int w, size_t i) {
  if (w == 4) {
    int x;
    memcpy(&x, r + i * 4, 4);
    return x;
  }
  long long x;
  memcpy(&x, r + i * 8, 8);
  return x;
}
/* Record i of records of rec bytes (8-byte numbers): its global number, and entry a of the map row at offset off. */
static inline long long umd_rec_g(const char *recs, size_t rec, int i) {
  return umd_rec_num(recs + (size_t)i * rec, 8, 0);
}
static inline long long umd_rec_t(const char *recs, size_t rec, int i, size_t off, int a) {
  return umd_rec_num(recs + (size_t)i * rec + off, 8, (size_t)a);
}
/* The rank whose declared block holds g (blocks may be empty). */
static inline int umd_home(const umd_bset *S, int P, long long g) {
  int lo = 0, hi = P - 1; /* the largest q with begin[q] <= g */
  while (lo < hi) {
    const int mid = (lo + hi + 1) / 2;
    if (S->begin[mid] <= g)
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}

/* dist_blocks.c: n items of tsize bytes (MPI type t), sbuf grouped by destination with scnt[P] items each, to
 * their ranks: *rbuf (malloc) gets what every rank sent here grouped by source, rcnt[P] items each, *nr in all. */
int umd_a2a(umd_blocks *B, MPI_Datatype t, size_t tsize, const void *sbuf, const int *scnt, void **rbuf, int *rcnt,
            int *nr);
/* The order that groups n items by dest[i] (stable) into perm[n], and cnt[P] per rank. */
void umd_group(int n, const int *dest, int P, int *perm, int *cnt);
/* The owners of n global numbers g of set s, from their homes (collective). */
int umd_dir_owner(umd_blocks *B, int s, int n, const long long *g, int *out);

/* One outcome of a step on every rank: rc, or (when another rank failed) the largest code with a message naming
 * the step. */
int umd_agree(umd_blocks *B, int rc, const char *step);
/* umd_agree, and *n the largest *n of any rank in the same reduction (0: no rank has anything to send). */
int umd_agree_any(umd_blocks *B, int rc, const char *step, long long *n);
/* dist_blocks_graph.c: the primary set's owners at its homes (own_home), by dist_choose.c's chain from method
 * (PT-Scotch's parts of its graph, rcb or sfc of its points, or the declared blocks); the partition's words and edge
 * cut in D->info. */
int umd_blocks_partition(umd_blocks *B, int primary, const char *method);

/* dist_blocks_geom.c: the points (xyz[3 count]) of this rank's block of the primary set from coordinate dat d (on
 * it, or on via's to-set: the centroids of the targets, fetched from their homes). */
int umd_blocks_points(umd_blocks *B, int primary, const um_dat *d, const um_map *via, double *xyz);

/* The elements of each target of map mp (from a set into another) this rank is home to: lists *off [count + 1] into
 * *val (dist_blocks_graph.c; collective). */
int umd_target_lists(umd_blocks *B, const um_map *mp, int **off, long long **val);
/* dist_blocks_geom.c: union-find's root of x (paths halved); the components of this rank's part from pairs (g, h)
 * sent here (h == g: an element). */
int umd_uf_find(int *up, int x);
int umd_components(umd_blocks *B, const long long *v, int n, int *ncomp);
/* dist_blocks_quality.c: the edge cut and the parts not connected of a candidate part[count], from the lists of elements that
 * share a target (or a row of a map into the set, or a row of a map of the set to itself), never from the graph's
 * rows (collective). */
int umd_blocks_quality_lists(umd_blocks *B, int primary, const int *part, long *cut, int *disc);

/* dist_blocks_rows.c: the records' layout, the migration home -> owner, the exec and non-exec halos, and the
 * result: this rank's dats, maps, sets and halo lists (collective). */
/* narrow: a set whose global numbers and every map's declared rows are 32-bit gets 4-byte numbers in its records
 * (dist_ranges.c reads them so; the general steps' records are 8 bytes a number). */
int umd_blocks_layout(umd_blocks *B, int narrow);
int umd_blocks_migrate(umd_blocks *B);
int umd_blocks_halos(umd_blocks *B);
int umd_blocks_install(umd_blocks *B);
/* Records of set s packed by destination (sb, scnt[P] each) to their ranks: *out gets the ones sent here, by source
 * rank ascending, each source's in its order; *src (when asked) the source of each (collective). */
int umd_send_packed(umd_blocks *B, int s, const char *sb, const int *scnt, char **out, int *nout, int **src);
/* Set S's import lists (its halo rows from owned on, grouped by owner hown[], in local order), then its export
 * lists from what each owner is asked, the owned rows' local indices through g2l (collective). */
int umd_blocks_lists(umd_blocks *B, umd_set *S, int owned, const int *hown, const umd_gmap *g2l);
/* Dat k's rows in its set's local order (total rows, padded to the row alignment), zeros: *out. */
int umd_new_rows(umd_blocks *B, int k, int total, char **out, int *nrows);
/* Dat k's rows replaced by nd (nrows rows in the local order): its declared rows freed. */
void umd_install_rows(umd_blocks *B, int k, char *nd, int nrows);
/* For each dat of set s (of every set: s < 0; indexed by dat), 1 when it holds the zeros it was declared with on
 * every rank: such a dat is allocated in the local order, not moved. Collective; NULL on no memory (on every rank
 * alike). */
int *umd_zero_dats(umd_blocks *B, int s);
/* Every rank's counts of every set (um_set_partition), and the sets' sizes here (collective: one gather). */
int umd_set_counts(umd_blocks *B);
/* dist_ranges.c: um_distribute with "ranges" (every set owned as declared): the halos from the declared rows, each
 * rank's owned rows kept where they were declared (the maps' global rows turned into local ones in their own
 * buffers, the dats' rows kept or moved within theirs); the same layout, maps, dats and halo lists as the steps above
 * (collective). */
int umd_ranges_install(umd_blocks *B);
/* dist_ranges.c: out[e] |= 1 for each element e of set s's block with a target outside this rank's block of the
 * target's set, through any map from s (32-bit rows rewritten as offsets from their to-set's block); 0 or
 * UM_ERR_ALLOC. */
int umd_ranges_leaving(umd_blocks *B, int s, unsigned char *out);
/* dist_ranges_declared.c: whether this rank declared every set's halo (*declared; an error for some but not all),
 * and every set's halo taken from the declarations (collective). */
int umd_ranges_declared(umd_blocks *B, int *declared);
int umd_halos_from_declared(umd_blocks *B);

#endif /* UM_HAVE_MPI */
#endif
