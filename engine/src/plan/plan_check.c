/* The plan checker (um_plan_check, see plan.h): proves a plan's invariants from
 * the plan and the loop's input alone, sharing no code with the builder beyond
 * the input analysis, so a builder bug cannot hide itself. */
#include "plan_internal.h"

#include <stdlib.h>
#include <string.h>

static int check_structure(const um_plan *p, const um_plan_input *in, const loop_info *li, char *err,
                           size_t errlen) {
  if (p->set_size != in->set_size || p->nargs != in->nargs || p->block_size != in->block_size)
    return um_format_error(err, errlen, UM_ERR_PLAN,
                     "plan check: plan is for set_size %d, nargs %d, block_size %d but the loop has %d, %d, %d",
                     p->set_size, p->nargs, p->block_size, in->set_size, in->nargs, in->block_size);
  const int nb = p->nblocks;
  if (in->block_offset) {
    if (nb != in->nblocks)
      return um_format_error(err, errlen, UM_ERR_PLAN, "plan check: %d blocks, the loop gives %d", nb, in->nblocks);
  } else {
    const int expect_nb = (int)(((long long)in->set_size + in->block_size - 1) / in->block_size);
    if (nb != expect_nb)
      return um_format_error(err, errlen, UM_ERR_PLAN, "plan check: %d blocks, expected ceil(%d / %d) = %d", nb,
                       in->set_size, in->block_size, expect_nb);
  }
  if (!p->block_offset || !p->arg_ind || !p->thread_colour || !p->nthread_colours || !p->block_colour ||
      !p->colour_offset || !p->block_order || (p->ninds > 0 && (!p->ind_offset || !p->ind_targets ||
      !p->ind_dim || !p->ind_esize || !p->ind_inc)) || (p->nargs > 0 && !p->loc))
    return um_format_error(err, errlen, UM_ERR_PLAN, "plan check: plan has a NULL array");
  /* blocks partition [0, set_size): every element in exactly one block */
  if (p->block_offset[0] != 0)
    return um_format_error(err, errlen, UM_ERR_PLAN, "plan check: block 0 starts at element %d, not 0",
                     p->block_offset[0]);
  for (int b = 0; b < nb; b++) {
    int n = p->block_offset[b + 1] - p->block_offset[b];
    if (n < 1 || n > in->block_size)
      return um_format_error(err, errlen, UM_ERR_PLAN,
                       "plan check: block %d has %d elements ([%d, %d)), expected 1..%d", b, n,
                       p->block_offset[b], p->block_offset[b + 1], in->block_size);
  }
  if (p->block_offset[nb] != in->set_size)
    return um_format_error(err, errlen, UM_ERR_PLAN, "plan check: blocks end at element %d, set size is %d",
                     p->block_offset[nb], in->set_size);
  if (in->block_offset)
    for (int b = 1; b < nb; b++)
      if (p->block_offset[b] != in->block_offset[b])
        return um_format_error(err, errlen, UM_ERR_PLAN, "plan check: block %d starts at element %d, the loop gives %d",
                         b, p->block_offset[b], in->block_offset[b]);
  /* inds */
  if (p->ninds != li->ninds)
    return um_format_error(err, errlen, UM_ERR_PLAN, "plan check: %d inds, the loop has %d distinct (dat, map) pairs",
                     p->ninds, li->ninds);
  for (int a = 0; a < in->nargs; a++) {
    const um_plan_arg *x = &in->args[a];
    int i = p->arg_ind[a];
    if (!x->map || x->idx == UM_PLAN_ALL) {
      if (i != -1)
        return um_format_error(err, errlen, UM_ERR_PLAN, "plan check: %s arg %d has ind %d, expected -1",
                               x->map ? "vector" : "direct", a, i);
      continue;
    }
    if (i < 0 || i >= p->ninds)
      return um_format_error(err, errlen, UM_ERR_PLAN, "plan check: arg %d has ind %d outside [0, %d)", a, i,
                       p->ninds);
    for (int b = 0; b < a; b++) {
      if (!in->args[b].map || in->args[b].idx == UM_PLAN_ALL) continue;
      int same = in->args[b].dat_id == x->dat_id && in->args[b].map_id == x->map_id;
      if (same != (p->arg_ind[b] == i))
        return um_format_error(err, errlen, UM_ERR_PLAN, "plan check: args %d and %d %s (dat_id, map_id) but inds %d and %d",
                         b, a, same ? "share" : "differ in", p->arg_ind[b], i);
    }
    if (p->ind_dim[i] != x->dim || p->ind_esize[i] != x->esize)
      return um_format_error(err, errlen, UM_ERR_PLAN, "plan check: ind %d has dim %d esize %d, arg %d has %d, %d", i,
                       p->ind_dim[i], p->ind_esize[i], a, x->dim, x->esize);
    if (x->acc != UM_INC && p->ind_inc[i])
      return um_format_error(err, errlen, UM_ERR_PLAN, "plan check: ind %d marked all-INC but arg %d is not INC", i, a);
    if (!p->loc[a])
      return um_format_error(err, errlen, UM_ERR_PLAN, "plan check: indirect arg %d has no local indices", a);
  }
  for (int i = 0; i < p->ninds; i++) {
    int all_inc = 1;
    for (int a = 0; a < in->nargs; a++)
      if (p->arg_ind[a] == i && in->args[a].acc != UM_INC) all_inc = 0;
    if (all_inc != (p->ind_inc[i] != 0))
      return um_format_error(err, errlen, UM_ERR_PLAN, "plan check: ind %d all-INC flag is %d, expected %d", i,
                       p->ind_inc[i], all_inc);
  }
  return UM_SUCCESS;
}

static int check_staging(const um_plan *p, const um_plan_input *in, char *err, size_t errlen) {
  const int nb = p->nblocks;
  int rc = UM_SUCCESS;
  unsigned char *used = NULL;
  size_t used_cap = 0;
  for (int i = 0; i < p->ninds && rc == UM_SUCCESS; i++) {
    const int *off = p->ind_offset[i], *tg = p->ind_targets[i];
    int first = -1;
    for (int a = 0; a < in->nargs && first < 0; a++)
      if (p->arg_ind[a] == i) first = a;
    const int to_size = in->args[first].to_size;
    if (!off || !tg) {
      rc = um_format_error(err, errlen, UM_ERR_PLAN, "plan check: ind %d has NULL target lists", i);
      break;
    }
    if (off[0] != 0) {
      rc = um_format_error(err, errlen, UM_ERR_PLAN, "plan check: ind %d: block 0's targets start at %d, not 0", i, off[0]);
      break;
    }
    for (int b = 0; b < nb && rc == UM_SUCCESS; b++) {
      const int j0 = off[b], j1 = off[b + 1];
      if (j1 < j0) {
        rc = um_format_error(err, errlen, UM_ERR_PLAN, "plan check: ind %d: block %d has target range [%d, %d)", i, b, j0,
                       j1);
        break;
      }
      for (int j = j0; j < j1; j++) {
        if (tg[j] < 0 || tg[j] >= to_size) {
          rc = um_format_error(err, errlen, UM_ERR_PLAN,
                         "plan check: ind %d: block %d stages target %d, outside [0, %d)", i, b, tg[j], to_size);
          break;
        }
        if (j > j0 && tg[j] <= tg[j - 1]) {
          rc = um_format_error(err, errlen, UM_ERR_PLAN,
                         "plan check: ind %d: block %d's targets not sorted and unique (local %d: %d after %d)", i,
                         b, j - j0, tg[j], tg[j - 1]);
          break;
        }
      }
      if (rc != UM_SUCCESS) break;
      const size_t n = (size_t)(j1 - j0);
      if (n > used_cap) {
        unsigned char *u = realloc(used, n);
        if (!u) {
          rc = um_format_error(err, errlen, UM_ERR_ALLOC, "plan check: out of memory");
          break;
        }
        used = u;
        used_cap = n;
      }
      if (n) memset(used, 0, n);
      for (int a = 0; a < in->nargs && rc == UM_SUCCESS; a++) {
        if (p->arg_ind[a] != i) continue;
        const um_plan_arg *x = &in->args[a];
        for (int e = p->block_offset[b]; e < p->block_offset[b + 1]; e++) {
          const int l = p->loc[a][e], t = x->map[(size_t)e * (size_t)x->arity + (size_t)x->idx];
          if (l < 0 || (size_t)l >= n) {
            rc = um_format_error(err, errlen, UM_ERR_PLAN,
                           "plan check: arg %d element %d (block %d): local index %d outside [0, %zu)", a, e, b, l,
                           n);
            break;
          }
          if (tg[j0 + l] != t) {
            rc = um_format_error(err, errlen, UM_ERR_PLAN,
                           "plan check: arg %d element %d (block %d): local index %d maps to target %d, "
                           "but the map gives %d",
                           a, e, b, l, tg[j0 + l], t);
            break;
          }
          used[l] = 1;
        }
      }
      for (size_t l = 0; l < n && rc == UM_SUCCESS; l++)
        if (!used[l])
          rc = um_format_error(err, errlen, UM_ERR_PLAN,
                         "plan check: ind %d: block %d stages target %d (local %zu) that none of its elements uses", i,
                         b, tg[(size_t)j0 + l], l);
    }
  }
  free(used);
  return rc;
}

static int check_block_map(const um_plan *p, char *err, size_t errlen) {
  const int nb = p->nblocks, nc = p->nblock_colours;
  if (nc < 0 || (nb > 0 && nc < 1) || nc > nb)
    return um_format_error(err, errlen, UM_ERR_PLAN, "plan check: %d block colours for %d blocks", nc, nb);
  for (int b = 0; b < nb; b++)
    if (p->block_colour[b] < 0 || p->block_colour[b] >= nc)
      return um_format_error(err, errlen, UM_ERR_PLAN, "plan check: block %d has block colour %d outside [0, %d)", b,
                       p->block_colour[b], nc);
  if (p->colour_offset[0] != 0 || p->colour_offset[nc] != nb)
    return um_format_error(err, errlen, UM_ERR_PLAN, "plan check: block map spans [%d, %d), expected [0, %d)",
                     p->colour_offset[0], p->colour_offset[nc], nb);
  for (int c = 0; c < nc; c++) {
    if (p->colour_offset[c + 1] < p->colour_offset[c])
      return um_format_error(err, errlen, UM_ERR_PLAN, "plan check: block map: colour %d has range [%d, %d)", c,
                       p->colour_offset[c], p->colour_offset[c + 1]);
    for (int j = p->colour_offset[c]; j < p->colour_offset[c + 1]; j++) {
      int b = p->block_order[j];
      if (b < 0 || b >= nb)
        return um_format_error(err, errlen, UM_ERR_PLAN, "plan check: block map entry %d is block %d, outside [0, %d)", j,
                         b, nb);
      if (p->block_colour[b] != c)
        return um_format_error(err, errlen, UM_ERR_PLAN,
                         "plan check: block map lists block %d under colour %d but its block colour is %d", b, c,
                         p->block_colour[b]);
      if (j > p->colour_offset[c] && p->block_order[j - 1] >= b)
        return um_format_error(err, errlen, UM_ERR_PLAN,
                         "plan check: block map: colour %d lists block %d after block %d (must ascend)", c, b,
                         p->block_order[j - 1]);
    }
  }
  /* Every entry lies in its own colour's segment and segments ascend strictly, so no block is
   * listed twice; colour_offset[nc] == nb entries then list every block exactly once. */
  return UM_SUCCESS;
}

/* Per conflict group and target: who last wrote it under the current key. */
typedef struct {
  long long *key;
  int *elem, *arg, *block;
} owner_table;

static int check_colours(const um_plan *p, const um_plan_input *in, const loop_info *li, char *err, size_t errlen) {
  const int nb = p->nblocks;
  for (int b = 0; b < nb; b++) {
    if (p->nthread_colours[b] < 1)
      return um_format_error(err, errlen, UM_ERR_PLAN, "plan check: block %d has %d thread colours", b,
                       p->nthread_colours[b]);
    for (int e = p->block_offset[b]; e < p->block_offset[b + 1]; e++)
      if (p->thread_colour[e] < 0 || p->thread_colour[e] >= p->nthread_colours[b])
        return um_format_error(err, errlen, UM_ERR_PLAN,
                         "plan check: element %d (block %d) has thread colour %d outside [0, %d)", e, b,
                         p->thread_colour[e], p->nthread_colours[b]);
  }
  if (li->nconf == 0) return UM_SUCCESS;

  owner_table ot[UM_PLAN_MAX_ARGS];
  memset(ot, 0, sizeof ot);
  int rc = UM_SUCCESS;
  for (int g = 0; g < li->ngroups && rc == UM_SUCCESS; g++) {
    size_t n = (size_t)li->group_to_size[g];
    ot[g].key = malloc((n ? n : 1) * sizeof(long long));
    ot[g].elem = malloc((n ? n : 1) * sizeof(int));
    ot[g].arg = malloc((n ? n : 1) * sizeof(int));
    ot[g].block = malloc((n ? n : 1) * sizeof(int));
    if (!ot[g].key || !ot[g].elem || !ot[g].arg || !ot[g].block)
      rc = um_format_error(err, errlen, UM_ERR_ALLOC, "plan check: out of memory");
    else
      for (size_t t = 0; t < n; t++) ot[g].key[t] = -1;
  }
  /* thread colours: key = (block, thread colour), unique over the whole plan */
  long long kbase = 0;
  for (int b = 0; b < nb && rc == UM_SUCCESS; b++) {
    for (int e = p->block_offset[b]; e < p->block_offset[b + 1] && rc == UM_SUCCESS; e++) {
      const long long key = kbase + p->thread_colour[e];
      for (int k = 0; k < li->nconf && rc == UM_SUCCESS; k++) {
        const int a = li->conf_arg[k], g = li->conf_group[k];
        const um_plan_arg *x = &in->args[a];
        const int j0 = x->idx == UM_PLAN_ALL ? 0 : x->idx, j1 = x->idx == UM_PLAN_ALL ? x->arity : x->idx + 1;
        for (int q = j0; q < j1; q++) { /* a vector arg writes every target of the row */
          const int t = x->map[(size_t)e * (size_t)x->arity + (size_t)q];
          if (ot[g].key[t] == key && ot[g].elem[t] != e) {
            rc = um_format_error(err, errlen, UM_ERR_PLAN,
                           "plan check: thread colour conflict in block %d: elements %d (arg %d) and %d (arg %d) "
                           "both have thread colour %d and write target %d of dat %d",
                           b, ot[g].elem[t], ot[g].arg[t], e, a, p->thread_colour[e], t, x->dat_id);
            break;
          }
          ot[g].key[t] = key;
          ot[g].elem[t] = e;
          ot[g].arg[t] = a;
        }
      }
    }
    kbase += p->nthread_colours[b];
  }
  /* block colours: walk the (already checked) block map; key = kbase + block colour */
  for (int c = 0; c < p->nblock_colours && rc == UM_SUCCESS; c++) {
    const long long key = kbase + c;
    for (int j = p->colour_offset[c]; j < p->colour_offset[c + 1] && rc == UM_SUCCESS; j++) {
      const int b = p->block_order[j];
      for (int e = p->block_offset[b]; e < p->block_offset[b + 1] && rc == UM_SUCCESS; e++)
        for (int k = 0; k < li->nconf && rc == UM_SUCCESS; k++) {
          const int a = li->conf_arg[k], g = li->conf_group[k];
          const um_plan_arg *x = &in->args[a];
          const int j0 = x->idx == UM_PLAN_ALL ? 0 : x->idx, j1 = x->idx == UM_PLAN_ALL ? x->arity : x->idx + 1;
          for (int q = j0; q < j1; q++) {
            const int t = x->map[(size_t)e * (size_t)x->arity + (size_t)q];
            if (ot[g].key[t] == key && ot[g].block[t] != b) {
              rc = um_format_error(err, errlen, UM_ERR_PLAN,
                             "plan check: block colour conflict: blocks %d (element %d, arg %d) and %d (element %d, "
                             "arg %d) both have block colour %d and write target %d of dat %d",
                             ot[g].block[t], ot[g].elem[t], ot[g].arg[t], b, e, a, c, t, x->dat_id);
              break;
            }
            ot[g].key[t] = key;
            ot[g].block[t] = b;
            ot[g].elem[t] = e;
            ot[g].arg[t] = a;
          }
        }
    }
  }
  for (int g = 0; g < li->ngroups; g++) {
    free(ot[g].key);
    free(ot[g].elem);
    free(ot[g].arg);
    free(ot[g].block);
  }
  return rc;
}

int um_plan_check(const um_plan *p, const um_plan_input *in, char *err, size_t errlen) {
  if (!p) return um_format_error(err, errlen, UM_ERR_ARG, "um_plan_check: plan is NULL");
  loop_info li;
  int rc = um__plan_analyse(in, &li, err, errlen);
  if (rc != UM_SUCCESS) return rc;
  if ((rc = check_structure(p, in, &li, err, errlen)) != UM_SUCCESS) return rc;
  if ((rc = check_staging(p, in, err, errlen)) != UM_SUCCESS) return rc;
  if ((rc = check_block_map(p, err, errlen)) != UM_SUCCESS) return rc;
  return check_colours(p, in, &li, err, errlen);
}
