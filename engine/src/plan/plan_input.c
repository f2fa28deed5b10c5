/* Plan input analysis (plan_internal.h): validation of a loop's plan input and
 * its inds / conflict groups, shared by the builder and the checker. Calls go
 * one way: plan.c and plan_check.c call this file; it calls no function of
 * either (from plan.h it reads the input type only; um__plan_conflicting is
 * plan_internal.h's inline rule). */
#include "plan_internal.h"

#include <string.h>

/* Given blocks (block_offset): between ceil(set_size / block_size) and set_size of them, each of 1..block_size
 * elements, covering the set in order. */
static int check_given_blocks(const um_plan_input *in, char *err, size_t errlen) {
  const int *off = in->block_offset, nb = in->nblocks;
  const int min_nb = (int)(((long long)in->set_size + in->block_size - 1) / in->block_size);
  if (nb < min_nb || nb > in->set_size)
    return um_format_error(err, errlen, UM_ERR_ARG,
                     "plan input: %d blocks given for %d elements of at most block_size %d each; need between "
                     "%d and %d blocks",
                     nb, in->set_size, in->block_size, min_nb, in->set_size);
  if (off[0] != 0)
    return um_format_error(err, errlen, UM_ERR_ARG, "plan input: block_offset[0] is %d, must be 0", off[0]);
  for (int b = 0; b < nb; b++) {
    long long n = (long long)off[b + 1] - off[b];
    if (n < 1 || n > in->block_size)
      return um_format_error(err, errlen, UM_ERR_ARG,
                       "plan input: given block %d is [%d, %d) with %lld elements; every block needs 1..%d "
                       "(block_size) elements and offsets must increase",
                       b, off[b], off[b + 1], n, in->block_size);
  }
  if (off[nb] != in->set_size)
    return um_format_error(err, errlen, UM_ERR_ARG,
                     "plan input: block_offset[%d] (end of the last block) is %d but set_size is %d", nb, off[nb],
                     in->set_size);
  return UM_SUCCESS;
}

/* Every map value the loop reads is within its target set: checked once per distinct (map, arity, idx,
 * to_size). */
static int check_map_ranges(const um_plan_input *in, char *err, size_t errlen) {
  for (int a = 0; a < in->nargs; a++) {
    const um_plan_arg *x = &in->args[a];
    if (!x->map) continue;
    int seen = 0;
    for (int b = 0; b < a && !seen; b++) {
      const um_plan_arg *y = &in->args[b];
      seen = y->map == x->map && y->arity == x->arity && y->idx == x->idx && y->to_size == x->to_size;
    }
    if (seen) continue;
    const int *m = x->map;
    size_t ar = (size_t)x->arity;
    unsigned to = (unsigned)x->to_size;
    const size_t j0 = x->idx == UM_PLAN_ALL ? 0 : (size_t)x->idx, j1 = x->idx == UM_PLAN_ALL ? ar : j0 + 1;
    for (int e = 0; e < in->set_size; e++)
      for (size_t j = j0; j < j1; j++) {
        int t = m[(size_t)e * ar + j];
        if ((unsigned)t >= to)
          return um_format_error(err, errlen, UM_ERR_ARG,
                                 "plan arg %d: map entry of element %d at index %zu (map[%zu]) is %d, outside the "
                                 "target set [0, %d); fix the map data",
                                 a, e, j, (size_t)e * ar + j, t, x->to_size);
      }
  }
  return UM_SUCCESS;
}

int um__plan_analyse(const um_plan_input *in, loop_info *li, char *err, size_t errlen) {
  if (!in) return um_format_error(err, errlen, UM_ERR_ARG, "plan input is NULL");
  if (in->set_size < 0)
    return um_format_error(err, errlen, UM_ERR_ARG, "plan input: set_size %d is negative", in->set_size);
  if (in->block_size <= 0)
    return um_format_error(err, errlen, UM_ERR_ARG,
                     "plan input: block_size %d must be > 0 (typical values 64..512)", in->block_size);
  if (in->nargs < 0 || in->nargs > UM_PLAN_MAX_ARGS)
    return um_format_error(err, errlen, UM_ERR_ARG, "plan input: nargs %d outside [0, %d]; split the loop",
                     in->nargs, UM_PLAN_MAX_ARGS);
  if (in->nargs > 0 && !in->args)
    return um_format_error(err, errlen, UM_ERR_ARG, "plan input: nargs is %d but args is NULL", in->nargs);
  if (!in->block_offset && in->nblocks != 0)
    return um_format_error(err, errlen, UM_ERR_ARG,
                     "plan input: nblocks is %d but block_offset is NULL; give both, or neither for blocks of "
                     "block_size elements",
                     in->nblocks);
  if (in->block_offset) {
    const int rc = check_given_blocks(in, err, errlen);
    if (rc != UM_SUCCESS) return rc;
  }

  memset(li, 0, sizeof *li);
  const um_plan_arg *args = in->args;
  for (int a = 0; a < in->nargs; a++) {
    const um_plan_arg *x = &args[a];
    li->arg_ind[a] = -1;
    if (!x->map) continue;
    if (x->arity < 1)
      return um_format_error(err, errlen, UM_ERR_ARG, "plan arg %d: map arity %d must be >= 1", a, x->arity);
    if ((x->idx < 0 || x->idx >= x->arity) && x->idx != UM_PLAN_ALL)
      return um_format_error(err, errlen, UM_ERR_ARG, "plan arg %d: map index %d outside [0, %d) and not UM_PLAN_ALL",
                             a, x->idx, x->arity);
    if (x->to_size < 0)
      return um_format_error(err, errlen, UM_ERR_ARG, "plan arg %d: to_size %d is negative", a, x->to_size);
    if (x->dim < 1 || x->esize < 1)
      return um_format_error(err, errlen, UM_ERR_ARG, "plan arg %d: dim %d and esize %d must be >= 1", a,
                       x->dim, x->esize);
    if (x->acc != UM_READ && x->acc != UM_WRITE && x->acc != UM_RW && x->acc != UM_INC)
      return um_format_error(err, errlen, UM_ERR_ARG,
                       "plan arg %d: access mode %d not allowed on an indirect arg "
                       "(use READ, WRITE, RW or INC; MIN/MAX are for global args)",
                       a, (int)x->acc);
    if (x->idx == UM_PLAN_ALL) continue; /* a vector arg: read or written in place, never staged */
    /* ind: first earlier arg with the same (dat_id, map_id) */
    int ind = -1;
    for (int b = 0; b < a; b++) {
      const um_plan_arg *y = &args[b];
      if (!y->map || y->idx == UM_PLAN_ALL || y->dat_id != x->dat_id) continue;
      if (y->to_size != x->to_size || y->dim != x->dim || y->esize != x->esize)
        return um_format_error(err, errlen, UM_ERR_ARG,
                         "plan args %d and %d name the same dat (dat_id %d) but disagree on "
                         "to_size (%d/%d), dim (%d/%d) or esize (%d/%d)",
                         b, a, x->dat_id, y->to_size, x->to_size, y->dim, x->dim, y->esize, x->esize);
      if (y->map_id != x->map_id) continue;
      if (y->map != x->map || y->arity != x->arity)
        return um_format_error(err, errlen, UM_ERR_ARG,
                         "plan args %d and %d share (dat_id %d, map_id %d) but have different map "
                         "pointers or arities (%d/%d)",
                         b, a, x->dat_id, x->map_id, y->arity, x->arity);
      if (ind < 0) ind = li->arg_ind[b];
    }
    if (ind < 0) ind = li->ninds++;
    li->arg_ind[a] = ind;
  }

  const int range = check_map_ranges(in, err, errlen); /* once per distinct (map, arity, idx, to_size) */
  if (range != UM_SUCCESS) return range;

  /* per-ind arg lists and flags */
  int count[UM_PLAN_MAX_ARGS + 1] = {0};
  for (int a = 0; a < in->nargs; a++)
    if (li->arg_ind[a] >= 0) count[li->arg_ind[a] + 1]++;
  for (int i = 0; i < li->ninds; i++) li->ind_arg_off[i + 1] = li->ind_arg_off[i] + count[i + 1];
  int fill[UM_PLAN_MAX_ARGS];
  for (int i = 0; i < li->ninds; i++) {
    fill[i] = li->ind_arg_off[i];
    li->ind_inc[i] = 1;
    li->ind_allconf[i] = 1;
    li->ind_group[i] = -1;
  }
  for (int a = 0; a < in->nargs; a++) {
    int i = li->arg_ind[a];
    if (i < 0) continue;
    if (fill[i] == li->ind_arg_off[i]) li->ind_first[i] = a;
    li->ind_arg[fill[i]++] = a;
    if (args[a].acc != UM_INC) li->ind_inc[i] = 0;
    if (!um__plan_conflicting(args[a].acc)) li->ind_allconf[i] = 0;
  }

  /* conflict groups by dat_id; a group with a vector arg is coloured with masks by global target
   * (multi), as the arg has no staged list */
  for (int a = 0; a < in->nargs; a++) {
    const int vec = args[a].map && args[a].idx == UM_PLAN_ALL;
    if ((li->arg_ind[a] < 0 && !vec) || !um__plan_conflicting(args[a].acc)) continue;
    int g = 0;
    while (g < li->ngroups && li->group_dat[g] != args[a].dat_id) g++;
    if (g == li->ngroups) {
      li->ngroups++;
      li->group_dat[g] = args[a].dat_id;
      li->group_to_size[g] = args[a].to_size;
      li->group_ind[g] = li->arg_ind[a];
      li->group_multi[g] = 0;
    } else if (li->group_ind[g] != li->arg_ind[a]) {
      li->group_multi[g] = 1;
    }
    if (vec) li->group_multi[g] = 1;
    else li->ind_group[li->arg_ind[a]] = g;
    li->conf_arg[li->nconf] = a;
    li->conf_group[li->nconf] = g;
    li->nconf++;
  }
  return UM_SUCCESS;
}
