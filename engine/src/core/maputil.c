/* Map utilities shared by reordering, loop splitting and partitioning: the
 * inverse of a map as CSR, permutation checks, sorting by integer keys; and the
 * loop statistics that read maps (a loop's useful bytes: the distinct rows it
 * reaches through them). */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "maputil.h"

size_t um__map_first_outside(const int *data, size_t n, int limit, int nthreads) {
  size_t bad = n;
  if (nthreads < 2 || n < ((size_t)1 << 18)) nthreads = 1; /* a team costs more than a small map's pass */
#pragma omp parallel for schedule(static) num_threads(nthreads) reduction(min : bad)
  for (size_t i = 0; i < n; i++)
    if ((data[i] < 0 || data[i] >= limit) && i < bad) bad = i;
  return bad;
}

int um__is_bijection(const int *p, int n) {
  unsigned char *seen = calloc(n > 0 ? (size_t)n : 1, 1);
  if (!seen) return -1;
  int ok = 1;
  for (int i = 0; i < n && ok; i++) {
    if (p[i] < 0 || p[i] >= n || seen[p[i]]) ok = 0;
    else seen[p[i]] = 1;
  }
  free(seen);
  return ok;
}

/* ---- one-to-one columns ----------------------------------------------------------- */

int um__map_column_one_to_one(um_map *m, int idx) {
  if (idx < 0 || idx >= m->arity || idx >= 64) return 0;
  if (m->one_data != m->data) m->one_data = m->data, m->one_known = m->one_cols = 0;
  const unsigned long long bit = 1ull << idx;
  if (m->one_known & bit) return (m->one_cols & bit) != 0;
  m->one_known |= bit;
  const int rows = m->from->size + m->from->exec_halo, nt = um__set_total(m->to);
  unsigned char *seen = calloc(nt > 0 ? (size_t)nt : 1, 1);
  int ok = seen != NULL;
  for (int e = 0; ok && e < rows; e++) {
    const int t = m->data[(size_t)e * (size_t)m->arity + (size_t)idx];
    if (t < 0 || t >= nt || seen[t]) ok = 0;
    else seen[t] = 1;
  }
  free(seen);
  if (ok) m->one_cols |= bit;
  return ok;
}

/* Marks in the bitmap seen (nt targets, count of them marked already) the targets of columns col[0..nc) of the
 * map data (arity ar) over rows [0, rows), row by row: the map read once, in order, until every target is counted
 * (a mesh's maps often reach them all early). Returns the new count. */
static size_t mark_targets(unsigned long long *seen, size_t nt, size_t count, const int *data, size_t ar,
                           const int *col, size_t nc, size_t rows) {
  for (size_t e = 0; e < rows && count < nt; e++) {
    const int *row = data + e * ar;
    for (size_t k = 0; k < nc; k++) {
      const size_t t = (size_t)row[col[k]];
      const unsigned long long bit = 1ull << (t & 63);
      count += !(seen[t >> 6] & bit);
      seen[t >> 6] |= bit;
    }
  }
  return count;
}

size_t um__map_distinct_targets(um_map *m, unsigned long long cols, int rows) {
  if (m->distinct_data != m->data) m->distinct_data = m->data, m->ndistinct = 0;
  for (int i = 0; i < m->ndistinct; i++)
    if (m->distinct[i].cols == cols && m->distinct[i].rows == rows) return m->distinct[i].count;
  const size_t nt = (size_t)um__set_total(m->to), ar = (size_t)m->arity;
  unsigned long long *seen = calloc(nt / 64 + 1, sizeof *seen);
  if (!seen) return (size_t)-1;
  int col[64], nc = 0;
  for (size_t j = 0; j < ar && j < 64; j++)
    if (cols >> j & 1) col[nc++] = (int)j;
  const size_t count = mark_targets(seen, nt, 0, m->data, ar, col, (size_t)nc, (size_t)rows);
  free(seen);
  const int slot = m->ndistinct < 4 ? m->ndistinct++ : 3; /* the last slot is replaced when full */
  m->distinct[slot].cols = cols;
  m->distinct[slot].rows = rows;
  m->distinct[slot].count = count;
  return count;
}

size_t um__loop_distinct_targets(const um_loop *loop, const um_dat *d) {
  const size_t nt = (size_t)um__set_total(d->set), rows = (size_t)loop->set->size;
  unsigned long long *seen = calloc(nt / 64 + 1, sizeof *seen);
  if (!seen) return (size_t)-1;
  size_t count = 0;
  for (int i = 0; i < loop->nargs && count != (size_t)-1 && count < nt; i++) {
    const um_arg *a = &loop->args[i];
    if (a->kind != UM_ARG_DAT || a->dat != d || !a->map) continue;
    int seen_map = 0; /* a map's columns are all counted at its first reference */
    for (int k = 0; k < i && !seen_map; k++)
      seen_map = loop->args[k].kind == UM_ARG_DAT && loop->args[k].dat == d && loop->args[k].map == a->map;
    if (seen_map) continue;
    const size_t ar = (size_t)a->map->arity;
    int *col = malloc(ar * sizeof *col);
    unsigned char *use = calloc(ar, 1);
    if (!col || !use) count = (size_t)-1;
    for (int k = i; k < loop->nargs && use; k++) {
      const um_arg *b = &loop->args[k];
      if (b->kind != UM_ARG_DAT || b->dat != d || b->map != a->map) continue;
      if (b->idx == UM_ALL) memset(use, 1, ar);
      else use[b->idx] = 1;
    }
    size_t nc = 0;
    for (size_t j = 0; use && j < ar; j++)
      if (use[j]) col[nc++] = (int)j;
    if (col && use) count = mark_targets(seen, nt, count, a->map->data, ar, col, nc, rows);
    free(col);
    free(use);
  }
  free(seen);
  return count;
}

/* ---- loop statistics: useful bytes ----------------------------------------------------- */

/* Useful bytes per call: every dat once (twice if RW or INC), every map once.
 * A dat reached through maps counts only the targets the loop touches (a loop
 * over boundary edges reads a few cells, not all of them); a vector argument
 * touches every target of each map row, and its map counts whole. */
double um__useful_bytes(const um_loop *loop) {
  double bytes = 0;
  for (int i = 0; i < loop->nargs; i++) {
    const um_arg *a = &loop->args[i];
    if (a->kind != UM_ARG_DAT) continue;
    int first = 1, mult = 0, map_first = a->map != NULL && !a->map->whole, direct = 0;
    for (int j = 0; j < loop->nargs; j++) {
      const um_arg *b = &loop->args[j];
      if (b->kind != UM_ARG_DAT) continue;
      if (b->dat == a->dat) {
        if (j < i) first = 0;
        int m = (b->acc == UM_RW || b->acc == UM_INC) ? 2 : 1;
        if (m > mult) mult = m;
        if (!b->map || b->map->whole) direct = 1; /* a whole dat: counted as every row once */
      }
      if (a->map && b->map == a->map && j < i) map_first = 0;
    }
    if (map_first) bytes += (double)a->map->from->size * a->map->arity * (double)sizeof(int);
    if (!first) continue;
    const size_t n = (size_t)a->dat->set->size, held = (size_t)um__set_total(a->dat->set); /* targets may be halo rows */
    size_t touched = n;
    /* every reference through one map of arity <= 64: its columns' distinct targets, counted once per map */
    unsigned long long cols = 0;
    um_map *one = NULL;
    int several = 0, counted = direct;
    for (int j = 0; j < loop->nargs && !direct; j++) {
      const um_arg *b = &loop->args[j];
      if (b->kind != UM_ARG_DAT || b->dat != a->dat) continue;
      if (one && b->map != one) several = 1;
      one = b->map;
      if (b->idx == UM_ALL) cols |= b->map->arity >= 64 ? ~0ull : (1ull << b->map->arity) - 1;
      else if (b->idx < 64) cols |= 1ull << b->idx;
      else several = 1;
    }
    if (!direct && held && one && !several && one->arity <= 64) {
      const size_t c = um__map_distinct_targets(one, cols, loop->set->size);
      if (c != (size_t)-1) counted = 1, touched = c;
    }
    if (!counted && held) { /* several maps, or columns past 64: every reference counted in one bitmap */
      const size_t c = um__loop_distinct_targets(loop, a->dat);
      if (c != (size_t)-1) touched = c;
    }
    bytes += (double)mult * (double)touched * a->dat->dim * (double)a->dat->esize;
  }
  return bytes;
}

double um__loop_rec_bytes(um_loop_rec *r) {
  if (r->bytes_due) {
    um_loop l;
    memset(&l, 0, sizeof l);
    l.set = r->bytes_set;
    l.nargs = r->bytes_nargs;
    l.args = r->bytes_args;
    r->bytes += um__useful_bytes(&l);
    r->bytes_due = 0;
  }
  return r->bytes;
}

int um__loop_one_to_one(const um_loop *loop) {
  if (!loop->has_conflicts || loop->has_vec) return 0;
  for (int i = 0; i < loop->nargs; i++) {
    const um_arg *a = &loop->args[i];
    if (a->kind != UM_ARG_DAT || !a->map || a->acc == UM_READ) continue;
    for (int j = 0; j < loop->nargs; j++) {
      const um_arg *b = &loop->args[j];
      if (b->kind == UM_ARG_DAT && b->dat == a->dat && (b->map != a->map || b->idx != a->idx)) return 0;
    }
    if (!um__map_column_one_to_one(a->map, a->idx)) return 0;
  }
  return 1;
}

/* ---- inverse maps and sorting ----------------------------------------------------- */

int um__inverse_build(const um_map *m, um__inverse *inv) {
  int nt = m->to->size, nf = m->from->size, ar = m->arity;
  size_t nref = (size_t)nf * (size_t)ar;
  inv->n = nt;
  inv->off = calloc((size_t)nt + 1, sizeof *inv->off);
  inv->elem = malloc(nref ? nref * sizeof *inv->elem : 1);
  if (!inv->off || !inv->elem || nref > INT_MAX) {
    um__inverse_free(inv);
    return UM_ERR_ALLOC;
  }
  for (size_t i = 0; i < nref; i++) inv->off[m->data[i] + 1]++;
  for (int t = 0; t < nt; t++) inv->off[t + 1] += inv->off[t];
  int *fill = malloc((size_t)nt * sizeof *fill + 1);
  if (!fill) {
    um__inverse_free(inv);
    return UM_ERR_ALLOC;
  }
  memcpy(fill, inv->off, (size_t)nt * sizeof *fill);
  for (int e = 0; e < nf; e++)
    for (int k = 0; k < ar; k++) inv->elem[fill[m->data[(size_t)e * ar + k]]++] = e;
  free(fill);
  return UM_SUCCESS;
}

void um__inverse_free(um__inverse *inv) {
  free(inv->off);
  free(inv->elem);
  inv->off = inv->elem = NULL;
}

static int key_less(const long *off, const int *key, int a, int b) {
  long ia = off[a], ea = off[a + 1], ib = off[b], eb = off[b + 1];
  for (; ia < ea && ib < eb; ia++, ib++)
    if (key[ia] != key[ib]) return key[ia] < key[ib];
  return (ea - ia) < (eb - ib) ? 1 : 0; /* a is a proper prefix of b */
}

int um__sort_by_keys(int n, const long *off, const int *key, int *order) {
  for (int i = 0; i < n; i++) order[i] = i;
  if (n < 2) return UM_SUCCESS;
  int *tmp = malloc((size_t)n * sizeof *tmp);
  if (!tmp) return UM_ERR_ALLOC;
  /* bottom-up merge sort: runs of 16 by insertion sort, then merges (stable) */
  const int RUN = 16;
  for (int lo = 0; lo < n; lo += RUN) {
    int hi = lo + RUN < n ? lo + RUN : n;
    for (int i = lo + 1; i < hi; i++) {
      int v = order[i], j = i - 1;
      while (j >= lo && key_less(off, key, v, order[j])) {
        order[j + 1] = order[j];
        j--;
      }
      order[j + 1] = v;
    }
  }
  int *src = order, *dst = tmp;
  for (int w = RUN; w < n; w *= 2) {
    for (int lo = 0; lo < n; lo += 2 * w) {
      int mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
      int i = lo, j = mid, o = lo;
      while (i < mid && j < hi) dst[o++] = key_less(off, key, src[j], src[i]) ? src[j++] : src[i++];
      while (i < mid) dst[o++] = src[i++];
      while (j < hi) dst[o++] = src[j++];
    }
    int *t = src;
    src = dst;
    dst = t;
  }
  if (src != order) memcpy(order, src, (size_t)n * sizeof *order);
  free(tmp);
  return UM_SUCCESS;
}

int um__order_by_targets(const um_map *m, const int *o2n_to, int *n2o_from) {
  int nf = m->from->size, ar = m->arity;
  size_t nref = (size_t)nf * (size_t)ar;
  long *off = malloc(((size_t)nf + 1) * sizeof *off);
  int *key = malloc(nref ? nref * sizeof *key : 1);
  if (!off || !key) {
    free(off);
    free(key);
    return UM_ERR_ALLOC;
  }
  for (int e = 0; e <= nf; e++) off[e] = (long)e * ar;
  for (int e = 0; e < nf; e++) {
    int *k = key + (size_t)e * ar;
    for (int j = 0; j < ar; j++) {
      int t = m->data[(size_t)e * ar + j];
      int v = o2n_to ? o2n_to[t] : t, i = j - 1;
      while (i >= 0 && k[i] > v) { /* insertion: the row's targets ascending */
        k[i + 1] = k[i];
        i--;
      }
      k[i + 1] = v;
    }
  }
  int rc = um__sort_by_keys(nf, off, key, n2o_from);
  free(off);
  free(key);
  return rc;
}
