/* Plan construction (see plan.h; the checker is plan_check.c).
 *
 * Algorithm after the OP2 plan builder (Giles et al., op_plan_core):
 *   1. blocks: contiguous ranges of block_size elements, or the caller's
 *      ranges (in->block_offset, e.g. the parts of a partition reordering);
 *   2. inds: distinct (dat_id, map_id) pairs among indirect args; per block and
 *      ind the sorted, de-duplicated target list and the local renumbering;
 *   3. thread colouring inside each block with block-local 32-bit masks,
 *      block colouring across blocks with global 32-bit masks; greedy
 *      first-free colour, further passes (colours 32.., 64.., ...) for what
 *      did not fit into 32 colours;
 *   4. block map (blocks grouped by colour) and statistics.
 *
 * Cost: O(references + sum of to_size) plus an O(k log k) sort of each
 * block's k targets per ind. Nothing is cleared per block over a whole
 * target set: the "seen" marker carries the block number as generation.
 *
 * Conflicts: two indirect args conflict when both are INC, RW or WRITE and
 * they reach the same target of the same dat (equal dat_id), whether through
 * the same map or not. When one dat is written through two different maps,
 * the block-local masks of a single ind cannot see the conflict, so that dat's
 * thread colouring falls back to masks indexed by global target (only the
 * entries touched by a block are reset afterwards). A vector arg (idx
 * UM_PLAN_ALL, every index of the map row) is never staged: when it writes, its
 * dat's group is coloured by global target too, through every index of the row.
 *
 * Calls go one way: plan.c calls plan_input.c (um__plan_analyse, the input's
 * inds and conflict groups); plan_input.c calls nothing here and reads only the
 * input type of plan.h.
 */
#include "plan.h"
#include "plan_internal.h"

#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FULL_MASK 0xFFFFFFFFu

/* ---- errors and allocation ---------------------------------------------- */

/* Allocation counter: lets tests make the (n+1)-th allocation fail. */
typedef struct {
  long fail_after; /* < 0: never fail */
  long nalloc;
} alloc_ctx;

static int alloc_refused(alloc_ctx *ac) {
  if (!ac || ac->fail_after < 0) return 0;
  if (ac->nalloc >= ac->fail_after) return 1;
  ac->nalloc++;
  return 0;
}

static void *ac_malloc(alloc_ctx *ac, size_t n, size_t size) {
  if (size != 0 && n > SIZE_MAX / size) return NULL;
  if (alloc_refused(ac)) return NULL;
  size_t bytes = n * size;
  return malloc(bytes ? bytes : 1);
}

static void *ac_calloc(alloc_ctx *ac, size_t n, size_t size) {
  if (alloc_refused(ac)) return NULL;
  return calloc(n ? n : 1, size ? size : 1);
}


static unsigned first_zero(uint32_t mask) { /* mask != FULL_MASK */
#if defined(__GNUC__) || defined(__clang__)
  return (unsigned)__builtin_ctz(~mask);
#else
  unsigned c = 0;
  while (mask & 1u) {
    mask >>= 1;
    c++;
  }
  return c;
#endif
}

/* ---- sorting of small int arrays (introsort) ----------------------------- */

static void insertion_sort(int *a, size_t n) {
  for (size_t i = 1; i < n; i++) {
    int v = a[i];
    size_t j = i;
    while (j > 0 && a[j - 1] > v) {
      a[j] = a[j - 1];
      j--;
    }
    a[j] = v;
  }
}

static void sift_down(int *a, size_t root, size_t n) {
  for (;;) {
    size_t child = 2 * root + 1;
    if (child >= n) return;
    if (child + 1 < n && a[child + 1] > a[child]) child++;
    if (a[root] >= a[child]) return;
    int t = a[root];
    a[root] = a[child];
    a[child] = t;
    root = child;
  }
}

static void heap_sort(int *a, size_t n) {
  for (size_t i = n / 2; i-- > 0;) sift_down(a, i, n);
  for (size_t end = n; end-- > 1;) {
    int t = a[0];
    a[0] = a[end];
    a[end] = t;
    sift_down(a, 0, end);
  }
}

static void intro_sort(int *a, size_t n, int depth) {
  while (n > 16) {
    if (depth-- == 0) {
      heap_sort(a, n);
      return;
    }
    /* median of the quartiles as pivot: target lists are often runs that are
     * sorted but for their ends, where first/middle/last would split badly */
    int x = a[n / 4], y = a[n / 2], z = a[n - 1 - n / 4];
    int pivot = (x < y) ? ((y < z) ? y : ((x < z) ? z : x)) : ((x < z) ? x : ((y < z) ? z : y));
    size_t i = 0, j = n - 1;
    for (;;) {
      while (a[i] < pivot) i++;
      while (a[j] > pivot) j--;
      if (i >= j) break;
      int t = a[i];
      a[i] = a[j];
      a[j] = t;
      i++;
      j--;
    }
    /* [0, j] <= pivot <= [j+1, n); recurse into the smaller part */
    size_t left = j + 1;
    if (left < n - left) {
      intro_sort(a, left, depth);
      a += left;
      n -= left;
    } else {
      intro_sort(a + left, n - left, depth);
      n = left;
    }
  }
  insertion_sort(a, n);
}

static void sort_ints(int *a, size_t n) {
  int depth = 0;
  for (size_t m = n; m > 1; m >>= 1) depth += 2;
  intro_sort(a, n, depth);
}


/* ---- free ------------------------------------------------------------------ */

void um_plan_free(um_plan *p) {
  if (!p) return;
  free(p->block_offset);
  free(p->arg_ind);
  free(p->ind_dim);
  free(p->ind_esize);
  free(p->ind_inc);
  if (p->ind_offset)
    for (int i = 0; i < p->ninds; i++) free(p->ind_offset[i]);
  if (p->ind_targets)
    for (int i = 0; i < p->ninds; i++) free(p->ind_targets[i]);
  free(p->ind_offset);
  free(p->ind_targets);
  if (p->loc)
    for (int a = 0; a < p->nargs; a++) free(p->loc[a]);
  free(p->loc);
  free(p->thread_colour);
  free(p->nthread_colours);
  free(p->block_colour);
  free(p->colour_offset);
  free(p->block_order);
  free(p);
}

/* ---- staging: target lists and local renumbering -------------------------- */

/* Sorted set of map indices used by ind i, for detecting inds with equal lists. */
static int ind_idx_set(const um_plan_input *in, const loop_info *li, int i, int *out) {
  int n = 0;
  for (int k = li->ind_arg_off[i]; k < li->ind_arg_off[i + 1]; k++) {
    int idx = in->args[li->ind_arg[k]].idx, j = 0;
    while (j < n && out[j] < idx) j++;
    if (j < n && out[j] == idx) continue;
    memmove(out + j + 1, out + j, (size_t)(n - j) * sizeof(int));
    out[j] = idx;
    n++;
  }
  return n;
}

static int stage(alloc_ctx *ac, um_plan *p, const um_plan_input *in, const loop_info *li, char *err,
                 size_t errlen) {
  const int nb = p->nblocks, set_size = in->set_size;
  int max_to = 0;
  for (int i = 0; i < li->ninds; i++)
    if (in->args[li->ind_first[i]].to_size > max_to) max_to = in->args[li->ind_first[i]].to_size;
  int *mark = NULL, *local = NULL;
  if (li->ninds > 0 && max_to > 0) {
    mark = ac_malloc(ac, (size_t)max_to, sizeof(int));
    local = ac_malloc(ac, (size_t)max_to, sizeof(int));
    if (!mark || !local) {
      free(mark);
      free(local);
      return um_format_error(err, errlen, UM_ERR_ALLOC, "plan: out of memory for staging work arrays (%d targets)",
                       max_to);
    }
  }
  int rc = UM_SUCCESS;
  int idxs[UM_PLAN_MAX_ARGS][UM_PLAN_MAX_ARGS], nidx[UM_PLAN_MAX_ARGS];
  for (int i = 0; i < li->ninds && rc == UM_SUCCESS; i++) {
    const um_plan_arg *x = &in->args[li->ind_first[i]];
    nidx[i] = ind_idx_set(in, li, i, idxs[i]);
    /* an earlier ind through the same map with the same indices has the same lists */
    int twin = -1;
    for (int j = 0; j < i && twin < 0; j++) {
      const um_plan_arg *y = &in->args[li->ind_first[j]];
      if (y->map == x->map && y->arity == x->arity && y->to_size == x->to_size && nidx[j] == nidx[i] &&
          memcmp(idxs[j], idxs[i], (size_t)nidx[i] * sizeof(int)) == 0)
        twin = j;
    }
    p->ind_offset[i] = ac_malloc(ac, (size_t)nb + 1, sizeof(int));
    if (!p->ind_offset[i]) {
      rc = um_format_error(err, errlen, UM_ERR_ALLOC, "plan: out of memory for block offsets of ind %d", i);
      break;
    }
    if (twin >= 0) {
      size_t total = (size_t)p->ind_offset[twin][nb];
      memcpy(p->ind_offset[i], p->ind_offset[twin], ((size_t)nb + 1) * sizeof(int));
      p->ind_targets[i] = ac_malloc(ac, total, sizeof(int));
      if (!p->ind_targets[i]) {
        rc = um_format_error(err, errlen, UM_ERR_ALLOC, "plan: out of memory for %zu targets of ind %d", total, i);
        break;
      }
      memcpy(p->ind_targets[i], p->ind_targets[twin], total * sizeof(int));
      for (int k = li->ind_arg_off[i]; k < li->ind_arg_off[i + 1]; k++) {
        int a = li->ind_arg[k], src = -1;
        for (int kk = li->ind_arg_off[twin]; kk < li->ind_arg_off[twin + 1] && src < 0; kk++)
          if (in->args[li->ind_arg[kk]].idx == in->args[a].idx) src = li->ind_arg[kk];
        memcpy(p->loc[a], p->loc[src], (size_t)set_size * sizeof(int));
      }
      continue;
    }

    /* capacity: at most one staged target per reference, and the total must fit in an int */
    size_t nargs_i = (size_t)(li->ind_arg_off[i + 1] - li->ind_arg_off[i]);
    size_t cap = nargs_i * (size_t)set_size;
    if (cap > (size_t)INT_MAX) cap = (size_t)INT_MAX;
    int *tg = ac_malloc(ac, cap, sizeof(int));
    if (!tg) {
      rc = um_format_error(err, errlen, UM_ERR_ALLOC, "plan: out of memory for %zu targets of ind %d", cap, i);
      break;
    }
    p->ind_targets[i] = tg;
    for (int t = 0; t < x->to_size; t++) mark[t] = -1;
    size_t n = 0;
    p->ind_offset[i][0] = 0;
    for (int b = 0; b < nb; b++) {
      const int e0 = p->block_offset[b], e1 = p->block_offset[b + 1];
      const size_t start = n;
      if (cap - n < nargs_i * (size_t)(e1 - e0)) {
        rc = um_format_error(err, errlen, UM_ERR_ARG,
                       "plan: ind %d stages more than INT_MAX targets; use fewer elements per loop", i);
        break;
      }
      for (int k = li->ind_arg_off[i]; k < li->ind_arg_off[i + 1]; k++) {
        const um_plan_arg *y = &in->args[li->ind_arg[k]];
        const int *m = y->map + y->idx;
        const size_t ar = (size_t)y->arity;
        for (int e = e0; e < e1; e++) {
          int t = m[(size_t)e * ar];
          if (mark[t] != b) {
            mark[t] = b;
            tg[n++] = t;
          }
        }
      }
      sort_ints(tg + start, n - start);
      for (size_t j = start; j < n; j++) local[tg[j]] = (int)(j - start);
      for (int k = li->ind_arg_off[i]; k < li->ind_arg_off[i + 1]; k++) {
        const int a = li->ind_arg[k];
        const um_plan_arg *y = &in->args[a];
        const int *m = y->map + y->idx;
        const size_t ar = (size_t)y->arity;
        int *lo = p->loc[a];
        for (int e = e0; e < e1; e++) lo[e] = local[m[(size_t)e * ar]];
      }
      p->ind_offset[i][b + 1] = (int)n;
    }
    if (rc == UM_SUCCESS && n < cap) { /* give back the unused tail; keep the block if that fails */
      int *shrunk = realloc(tg, (n ? n : 1) * sizeof(int));
      if (shrunk) p->ind_targets[i] = shrunk;
    }
  }
  free(mark);
  free(local);
  return rc;
}

/* ---- colouring ----------------------------------------------------------- */

static int colour_threads(alloc_ctx *ac, um_plan *p, const um_plan_input *in, const loop_info *li,
                          char *err, size_t errlen) {
  const int nb = p->nblocks;
  if (li->nconf == 0) {
    for (int e = 0; e < in->set_size; e++) p->thread_colour[e] = 0;
    for (int b = 0; b < nb; b++) p->nthread_colours[b] = 1;
    return UM_SUCCESS;
  }
  /* block-local masks: the largest block's targets over single-ind groups */
  size_t lmax = 0;
  for (int b = 0; b < nb; b++) {
    size_t s = 0;
    for (int g = 0; g < li->ngroups; g++)
      if (!li->group_multi[g]) {
        int i = li->group_ind[g];
        s += (size_t)(p->ind_offset[i][b + 1] - p->ind_offset[i][b]);
      }
    if (s > lmax) lmax = s;
  }
  uint32_t *lm = ac_calloc(ac, lmax, sizeof(uint32_t));
  uint32_t *gm[UM_PLAN_MAX_ARGS] = {0};
  int rc = UM_SUCCESS;
  if (!lm) rc = UM_ERR_ALLOC;
  for (int g = 0; g < li->ngroups && rc == UM_SUCCESS; g++)
    if (li->group_multi[g]) {
      gm[g] = ac_calloc(ac, (size_t)li->group_to_size[g], sizeof(uint32_t));
      if (!gm[g]) rc = UM_ERR_ALLOC;
    }
  if (rc != UM_SUCCESS) {
    free(lm);
    for (int g = 0; g < li->ngroups; g++) free(gm[g]);
    return um_format_error(err, errlen, UM_ERR_ALLOC, "plan: out of memory for thread colouring masks");
  }

  const int nconf = li->nconf;
  uint32_t *base[UM_PLAN_MAX_ARGS];
  const int *ix[UM_PLAN_MAX_ARGS];
  size_t stride[UM_PLAN_MAX_ARGS];
  int cnt[UM_PLAN_MAX_ARGS]; /* targets per element: 1, or a vector arg's arity */
  int multi_any = 0;
  for (int k = 0; k < nconf; k++) {
    int a = li->conf_arg[k], g = li->conf_group[k];
    const int vec = in->args[a].idx == UM_PLAN_ALL;
    cnt[k] = vec ? in->args[a].arity : 1;
    if (li->group_multi[g]) {
      ix[k] = in->args[a].map + (vec ? 0 : in->args[a].idx);
      stride[k] = (size_t)in->args[a].arity;
      base[k] = gm[g];
      multi_any = 1;
    } else {
      ix[k] = p->loc[a];
      stride[k] = 1;
    }
  }
  int *tc = p->thread_colour;
  for (int b = 0; b < nb; b++) {
    const int e0 = p->block_offset[b], e1 = p->block_offset[b + 1];
    size_t gbase[UM_PLAN_MAX_ARGS], nloc = 0;
    for (int g = 0; g < li->ngroups; g++)
      if (!li->group_multi[g]) {
        int i = li->group_ind[g];
        gbase[g] = nloc;
        nloc += (size_t)(p->ind_offset[i][b + 1] - p->ind_offset[i][b]);
      }
    for (int k = 0; k < nconf; k++)
      if (!li->group_multi[li->conf_group[k]]) base[k] = lm + gbase[li->conf_group[k]];
    for (int e = e0; e < e1; e++) tc[e] = -1;
    int remaining = e1 - e0, colbase = 0, maxc = -1;
    while (remaining > 0) {
      for (int e = e0; e < e1; e++) {
        if (tc[e] >= 0) continue;
        uint32_t mask = 0;
        for (int k = 0; k < nconf; k++)
          for (int j = 0; j < cnt[k]; j++) mask |= base[k][ix[k][(size_t)e * stride[k] + (size_t)j]];
        if (mask == FULL_MASK) continue; /* next pass */
        unsigned c = first_zero(mask);
        uint32_t bit = 1u << c;
        for (int k = 0; k < nconf; k++)
          for (int j = 0; j < cnt[k]; j++) base[k][ix[k][(size_t)e * stride[k] + (size_t)j]] |= bit;
        tc[e] = colbase + (int)c;
        if (tc[e] > maxc) maxc = tc[e];
        remaining--;
      }
      /* reset the masks this pass touched */
      memset(lm, 0, nloc * sizeof(uint32_t));
      if (multi_any)
        for (int k = 0; k < nconf; k++)
          if (li->group_multi[li->conf_group[k]])
            for (int e = e0; e < e1; e++)
              for (int j = 0; j < cnt[k]; j++) base[k][ix[k][(size_t)e * stride[k] + (size_t)j]] = 0;
      colbase += 32;
    }
    p->nthread_colours[b] = maxc + 1;
  }
  free(lm);
  for (int g = 0; g < li->ngroups; g++) free(gm[g]);
  return UM_SUCCESS;
}

/* What a block writes, per conflict group: the ind's list when every arg of the
 * ind writes, else the targets of each writing arg (a vector arg: every index of
 * the row). */

/* An arg's first map column and how many columns it reaches (1, or a vector arg's arity). */
static const int *arg_cols(const um_plan_arg *y, int *n) {
  *n = y->idx == UM_PLAN_ALL ? y->arity : 1;
  return y->map + (y->idx == UM_PLAN_ALL ? 0 : y->idx);
}
typedef struct {
  int ind;  /* >= 0: staged list of this ind */
  int arg;  /* otherwise: this arg's targets */
  int group;
} write_source;

static uint32_t block_mask(const um_plan *p, const um_plan_input *in, int b, const write_source *src, int nsrc,
                           uint32_t *const *bm) {
  uint32_t mask = 0;
  for (int s = 0; s < nsrc; s++) {
    const uint32_t *w = bm[src[s].group];
    if (src[s].ind >= 0) {
      const int *t = p->ind_targets[src[s].ind];
      for (int j = p->ind_offset[src[s].ind][b]; j < p->ind_offset[src[s].ind][b + 1]; j++) mask |= w[t[j]];
    } else {
      const um_plan_arg *y = &in->args[src[s].arg];
      int n;
      const int *m = arg_cols(y, &n);
      for (int e = p->block_offset[b]; e < p->block_offset[b + 1]; e++)
        for (int j = 0; j < n; j++) mask |= w[m[(size_t)e * (size_t)y->arity + (size_t)j]];
    }
    if (mask == FULL_MASK) break;
  }
  return mask;
}

/* bits == 0: clear the entries */
static void block_mark(const um_plan *p, const um_plan_input *in, int b, const write_source *src, int nsrc,
                       uint32_t *const *bm, uint32_t bit) {
  for (int s = 0; s < nsrc; s++) {
    uint32_t *w = bm[src[s].group];
    if (src[s].ind >= 0) {
      const int *t = p->ind_targets[src[s].ind];
      for (int j = p->ind_offset[src[s].ind][b]; j < p->ind_offset[src[s].ind][b + 1]; j++)
        w[t[j]] = bit ? (w[t[j]] | bit) : 0;
    } else {
      const um_plan_arg *y = &in->args[src[s].arg];
      int n;
      const int *m = arg_cols(y, &n);
      for (int e = p->block_offset[b]; e < p->block_offset[b + 1]; e++)
        for (int j = 0; j < n; j++) {
          uint32_t *q = &w[m[(size_t)e * (size_t)y->arity + (size_t)j]];
          *q = bit ? (*q | bit) : 0;
        }
    }
  }
}

static int colour_blocks(alloc_ctx *ac, um_plan *p, const um_plan_input *in, const loop_info *li, char *err,
                         size_t errlen) {
  const int nb = p->nblocks;
  if (li->nconf == 0 || nb == 0) {
    for (int b = 0; b < nb; b++) p->block_colour[b] = 0;
    p->nblock_colours = nb > 0 ? 1 : 0;
    return UM_SUCCESS;
  }
  write_source src[UM_PLAN_MAX_ARGS];
  int nsrc = 0;
  for (int i = 0; i < li->ninds; i++) {
    if (li->ind_group[i] < 0) continue;
    if (li->ind_allconf[i]) {
      src[nsrc].ind = i;
      src[nsrc].arg = -1;
      src[nsrc].group = li->ind_group[i];
      nsrc++;
      continue;
    }
    for (int k = li->ind_arg_off[i]; k < li->ind_arg_off[i + 1]; k++) {
      int a = li->ind_arg[k];
      if (!um__plan_conflicting(in->args[a].acc)) continue;
      src[nsrc].ind = -1;
      src[nsrc].arg = a;
      src[nsrc].group = li->ind_group[i];
      nsrc++;
    }
  }
  for (int k = 0; k < li->nconf; k++) /* vector args: in no ind, each its own source */
    if (in->args[li->conf_arg[k]].idx == UM_PLAN_ALL) {
      src[nsrc].ind = -1;
      src[nsrc].arg = li->conf_arg[k];
      src[nsrc].group = li->conf_group[k];
      nsrc++;
    }
  uint32_t *bm[UM_PLAN_MAX_ARGS] = {0};
  for (int g = 0; g < li->ngroups; g++) {
    bm[g] = ac_calloc(ac, (size_t)li->group_to_size[g], sizeof(uint32_t));
    if (!bm[g]) {
      for (int h = 0; h < g; h++) free(bm[h]);
      return um_format_error(err, errlen, UM_ERR_ALLOC, "plan: out of memory for block colouring masks");
    }
  }
  int *bc = p->block_colour;
  for (int b = 0; b < nb; b++) bc[b] = -1;
  int remaining = nb, colbase = 0, maxc = -1;
  while (remaining > 0) {
    for (int b = 0; b < nb; b++) {
      if (bc[b] >= 0) continue;
      uint32_t mask = block_mask(p, in, b, src, nsrc, bm);
      if (mask == FULL_MASK) continue;
      unsigned c = first_zero(mask);
      block_mark(p, in, b, src, nsrc, bm, 1u << c);
      bc[b] = colbase + (int)c;
      if (bc[b] > maxc) maxc = bc[b];
      remaining--;
    }
    if (remaining > 0) /* fresh masks for the next 32 colours */
      for (int b = 0; b < nb; b++)
        if (bc[b] >= colbase && bc[b] < colbase + 32) block_mark(p, in, b, src, nsrc, bm, 0);
    colbase += 32;
  }
  p->nblock_colours = maxc + 1;
  for (int g = 0; g < li->ngroups; g++) free(bm[g]);
  return UM_SUCCESS;
}

/* ---- block map and statistics --------------------------------------------- */

static int block_map(alloc_ctx *ac, um_plan *p, char *err, size_t errlen) {
  const int nc = p->nblock_colours, nb = p->nblocks;
  p->colour_offset = ac_calloc(ac, (size_t)nc + 1, sizeof(int));
  p->block_order = ac_malloc(ac, (size_t)nb, sizeof(int));
  if (!p->colour_offset || !p->block_order)
    return um_format_error(err, errlen, UM_ERR_ALLOC, "plan: out of memory for the block map");
  for (int b = 0; b < nb; b++) p->colour_offset[p->block_colour[b] + 1]++;
  for (int c = 0; c < nc; c++) p->colour_offset[c + 1] += p->colour_offset[c];
  int *fill = ac_malloc(ac, (size_t)nc, sizeof(int));
  if (!fill) return um_format_error(err, errlen, UM_ERR_ALLOC, "plan: out of memory for the block map");
  memcpy(fill, p->colour_offset, (size_t)nc * sizeof(int));
  for (int b = 0; b < nb; b++) p->block_order[fill[p->block_colour[b]]++] = b;
  free(fill);
  return UM_SUCCESS;
}

static void compute_stats(um_plan *p, const um_plan_input *in, const loop_info *li) {
  um_plan_stats *s = &p->stats;
  memset(s, 0, sizeof *s);
  const int nb = p->nblocks;
  s->nblocks = nb;
  s->nblock_colours = p->nblock_colours;
  if (nb == 0) return;
  double tc_sum = 0, sh_sum = 0, inc_sum = 0, lines_sum = 0, staged = 0, refs = 0;
  for (int a = 0; a < in->nargs; a++)
    if (li->arg_ind[a] >= 0) refs += (double)in->set_size;
  for (int i = 0; i < p->ninds; i++) staged += (double)p->ind_offset[i][nb];
  for (int b = 0; b < nb; b++) {
    tc_sum += p->nthread_colours[b];
    if (p->nthread_colours[b] > s->max_thread_colours) s->max_thread_colours = p->nthread_colours[b];
    long sh = 0, inc = 0, lines = 0;
    for (int i = 0; i < p->ninds; i++) {
      const int j0 = p->ind_offset[i][b], j1 = p->ind_offset[i][b + 1];
      const long long bytes = (long long)p->ind_dim[i] * p->ind_esize[i];
      sh += (long)((j1 - j0) * bytes);
      if (p->ind_inc[i]) inc += (long)((j1 - j0) * bytes);
      /* targets ascend, so their byte ranges do too: count lines not yet counted */
      const uint64_t w = (uint64_t)bytes;
      const int *tg = p->ind_targets[i];
      uint64_t next = 0; /* first line not yet counted */
      for (int j = j0; j < j1; j++) {
        uint64_t t = (uint64_t)tg[j];
        uint64_t lo = (t * w) >> 5, hi = ((t + 1) * w - 1) >> 5;
        if (lo < next) lo = next;
        if (hi >= lo) {
          lines += (long)(hi - lo + 1);
          next = hi + 1;
        }
      }
    }
    sh_sum += (double)sh;
    inc_sum += (double)inc;
    lines_sum += (double)lines;
    if (sh > s->shared_bytes_max) s->shared_bytes_max = sh;
    if (inc > s->shared_inc_bytes_max) s->shared_inc_bytes_max = inc;
  }
  s->mean_thread_colours = tc_sum / nb;
  s->shared_bytes_mean = sh_sum / nb;
  s->shared_inc_bytes_mean = inc_sum / nb;
  s->cache_lines_mean = lines_sum / nb;
  s->reuse_factor = staged > 0 ? refs / staged : 0.0;
}

/* ---- build ----------------------------------------------------------------- */

static int plan_build(const um_plan_input *in, um_plan **out, char *err, size_t errlen, alloc_ctx *ac) {
  if (!out) return um_format_error(err, errlen, UM_ERR_ARG, "um_plan_build: output pointer is NULL");
  *out = NULL;
  loop_info li;
  int rc = um__plan_analyse(in, &li, err, errlen);
  if (rc != UM_SUCCESS) return rc;

  const int set_size = in->set_size, bs = in->block_size, nargs = in->nargs;
  const int nb = in->block_offset ? in->nblocks : (int)(((long long)set_size + bs - 1) / bs);
  um_plan *p = ac_calloc(ac, 1, sizeof *p);
  if (!p) return um_format_error(err, errlen, UM_ERR_ALLOC, "plan: out of memory");
  p->set_size = set_size;
  p->block_size = bs;
  p->nblocks = nb;
  p->nargs = nargs;
  p->ninds = li.ninds;

  p->block_offset = ac_malloc(ac, (size_t)nb + 1, sizeof(int));
  p->arg_ind = ac_malloc(ac, (size_t)nargs, sizeof(int));
  p->ind_dim = ac_malloc(ac, (size_t)li.ninds, sizeof(int));
  p->ind_esize = ac_malloc(ac, (size_t)li.ninds, sizeof(int));
  p->ind_inc = ac_malloc(ac, (size_t)li.ninds, sizeof(int));
  p->ind_offset = ac_calloc(ac, (size_t)li.ninds, sizeof(int *));
  p->ind_targets = ac_calloc(ac, (size_t)li.ninds, sizeof(int *));
  p->loc = ac_calloc(ac, (size_t)nargs, sizeof(int *));
  p->thread_colour = ac_malloc(ac, (size_t)set_size, sizeof(int));
  p->nthread_colours = ac_malloc(ac, (size_t)nb, sizeof(int));
  p->block_colour = ac_malloc(ac, (size_t)nb, sizeof(int));
  if (!p->block_offset || !p->arg_ind || !p->ind_dim || !p->ind_esize || !p->ind_inc || !p->ind_offset ||
      !p->ind_targets || !p->loc || !p->thread_colour || !p->nthread_colours || !p->block_colour) {
    rc = um_format_error(err, errlen, UM_ERR_ALLOC, "plan: out of memory for a plan of %d elements", set_size);
    goto fail;
  }
  for (int a = 0; a < nargs; a++) {
    p->arg_ind[a] = li.arg_ind[a];
    if (li.arg_ind[a] < 0) continue;
    p->loc[a] = ac_malloc(ac, (size_t)set_size, sizeof(int));
    if (!p->loc[a]) {
      rc = um_format_error(err, errlen, UM_ERR_ALLOC, "plan: out of memory for local indices of arg %d", a);
      goto fail;
    }
  }
  for (int i = 0; i < li.ninds; i++) {
    p->ind_dim[i] = in->args[li.ind_first[i]].dim;
    p->ind_esize[i] = in->args[li.ind_first[i]].esize;
    p->ind_inc[i] = li.ind_inc[i];
  }
  if (in->block_offset) {
    memcpy(p->block_offset, in->block_offset, ((size_t)nb + 1) * sizeof(int));
  } else {
    for (int b = 0; b < nb; b++) p->block_offset[b] = (int)((long long)b * bs);
    p->block_offset[nb] = set_size;
  }

  if ((rc = stage(ac, p, in, &li, err, errlen)) != UM_SUCCESS) goto fail;
  if ((rc = colour_threads(ac, p, in, &li, err, errlen)) != UM_SUCCESS) goto fail;
  if ((rc = colour_blocks(ac, p, in, &li, err, errlen)) != UM_SUCCESS) goto fail;
  if ((rc = block_map(ac, p, err, errlen)) != UM_SUCCESS) goto fail;
  compute_stats(p, in, &li);
  *out = p;
  return UM_SUCCESS;
fail:
  um_plan_free(p);
  return rc;
}

int um_plan_build(const um_plan_input *in, um_plan **out, char *err, size_t errlen) {
  return plan_build(in, out, err, errlen, NULL);
}

int um_plan_build_fail_after(const um_plan_input *in, int nallocs, um_plan **out, char *err, size_t errlen) {
  alloc_ctx ac = {nallocs < 0 ? -1 : nallocs, 0};
  return plan_build(in, out, err, errlen, &ac);
}
