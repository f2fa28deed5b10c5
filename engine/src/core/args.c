/* Loop arguments: building them (um_arg_dat, um_arg_vec, um_arg_gbl) and checking
 * one against its loop (um__check_arg, stage 1 of um_par_loop in loop.c). */
#include <limits.h>
#include <string.h>
#include "internal.h"

um_arg um_arg_dat(um_dat *dat, int idx, um_map *map, int dim, um_type type, um_access acc) {
  um_arg a;
  memset(&a, 0, sizeof a);
  a.kind = UM_ARG_DAT;
  a.dat = dat;
  a.map = map;
  a.idx = idx;
  a.dim = dim;
  a.type = type;
  a.acc = acc;
  return a;
}

um_arg um_arg_gbl(void *data, int dim, um_type type, um_access acc) {
  um_arg a;
  memset(&a, 0, sizeof a);
  a.kind = UM_ARG_GBL;
  a.gbl = data;
  a.idx = -1;
  a.dim = dim;
  a.type = type;
  a.acc = acc;
  return a;
}

um_arg um_arg_minus(um_arg a, int idx) {
  a.minus = idx >= 0 && idx < INT_MAX ? idx + 1 : -1; /* -1: an index no map has, refused by um_par_loop */
  return a;
}

um_arg um_arg_vec(um_dat *dat, um_map *map, int dim, um_type type, um_access acc) {
  return um_arg_dat(dat, UM_ALL, map, dim, type, acc);
}

um_arg um_arg_whole(um_dat *dat, int dim, um_type type, um_access acc) {
  return um_arg_dat(dat, UM_WHOLE, NULL, dim, type, acc);
}

/* A whole-dat argument (idx UM_WHOLE): no map, READ or INC; um_par_loop then gives it the dat set's whole map. */
static int check_whole(um_context *ctx, const char *loop, int i, const um_arg *a) {
  const um_dat *d = a->dat;
  if (a->map)
    return UM_ERROR(ctx, UM_ERR_ARG,
                    "loop '%s', arg %d (dat '%s'): a whole-dat argument (um_arg_whole, or idx UM_WHOLE) passes every "
                    "row of the dat, so it takes no map, but map '%s' was given; drop the map, or use um_arg_vec for "
                    "the targets of a map row",
                    loop, i, d->name, a->map->name);
  if (a->acc != UM_READ && a->acc != UM_INC)
    return UM_ERROR(ctx, UM_ERR_ARG,
                    "loop '%s', arg %d: whole-dat argument of dat '%s' has access %s, but it may only be READ or INC "
                    "(add with um_vec_inc_*)",
                    loop, i, d->name, um_access_name(a->acc));
  if (ctx->dist && um_context_nranks(ctx) > 1)
    return UM_ERROR(ctx, UM_ERR_UNSUPPORTED,
                    "loop '%s', arg %d: a whole-dat argument (dat '%s') needs every row of the dat on every rank, "
                    "but this run is distributed over %d ranks; run it on one rank",
                    loop, i, d->name, um_context_nranks(ctx));
  return UM_SUCCESS;
}

/* An argument through a map declared read-only (um_map_set_read_only) must READ. */
static int check_read_only(um_context *ctx, const char *loop, int i, const um_arg *a) {
  if (!a->map->read_only || a->acc == UM_READ) return UM_SUCCESS;
  return UM_ERROR(ctx, UM_ERR_ARG,
                  "loop '%s', arg %d (dat '%s'): %s through map '%s', which was declared read-only "
                  "(um_map_set_read_only: no loop writes through it, so the distribution's exec halo does not "
                  "follow it); read through it, or leave it undeclared",
                  loop, i, a->dat->name, um_access_name(a->acc), a->map->name);
}

/* A vector argument (idx UM_ALL): a map from the loop's set to the dat's, READ or INC. */
static int check_vec(um_context *ctx, const char *loop, const um_set *set, int i, const um_arg *a) {
  const um_dat *d = a->dat;
  const um_map *m = a->map;
  if (!m)
    return UM_ERROR(ctx, UM_ERR_ARG,
                    "loop '%s', arg %d (dat '%s'): a vector argument (um_arg_vec, or idx UM_ALL) passes every target "
                    "of a map, but no map was given; give a map from '%s' to '%s', or use UM_ID with idx -1 for "
                    "direct access",
                    loop, i, d->name, set->name, d->set->name);
  if (m->ctx != ctx)
    return UM_ERROR(ctx, UM_ERR_ARG, "loop '%s', arg %d: map '%s' belongs to another context", loop, i, m->name);
  if (a->acc != UM_READ && a->acc != UM_INC)
    return UM_ERROR(ctx, UM_ERR_ARG,
                    "loop '%s', arg %d: vector argument of dat '%s' through map '%s' has access %s, but a vector "
                    "argument may only be READ or INC (add with um_vec_inc_*); to write or update targets in "
                    "place, pass them one by one with um_arg_dat(dat, j, map, ...) and RW or WRITE",
                    loop, i, d->name, m->name, um_access_name(a->acc));
  if (m->from != set)
    return UM_ERROR(ctx, UM_ERR_ARG,
                    "loop '%s', arg %d: vector argument through map '%s', which goes from set '%s', but the loop runs "
                    "over '%s'",
                    loop, i, m->name, m->from->name, set->name);
  if (m->to != d->set)
    return UM_ERROR(ctx, UM_ERR_ARG,
                    "loop '%s', arg %d: vector argument through map '%s', which leads to set '%s', but dat '%s' "
                    "lives on '%s'",
                    loop, i, m->name, m->to->name, d->name, d->set->name);
  return check_read_only(ctx, loop, i, a);
}

/* Check one argument against the loop's set and its dat; message names the loop and arg. */
int um__check_arg(um_context *ctx, const char *loop, const um_set *set, int i, const um_arg *a) {
  if (a->kind == UM_ARG_GBL) {
    if (!a->gbl) return UM_ERROR(ctx, UM_ERR_ARG, "loop '%s', arg %d: global arg with NULL data", loop, i);
    if (!um_type_size(a->type))
      return UM_ERROR(ctx, UM_ERR_ARG, "loop '%s', arg %d: global arg of unknown type %d", loop, i, (int)a->type);
    if (a->dim < 1 || a->dim > UM_MAX_SCRATCH_DIM)
      return UM_ERROR(ctx, UM_ERR_ARG, "loop '%s', arg %d: global arg dim %d outside 1..%d", loop, i, a->dim,
                      UM_MAX_SCRATCH_DIM);
    if ((int)a->acc < (int)UM_READ || (int)a->acc > (int)UM_MAX)
      return UM_ERROR(ctx, UM_ERR_ARG, "loop '%s', arg %d: global arg of unknown access mode %d (UM_READ, UM_INC, "
                      "UM_MIN or UM_MAX)", loop, i, (int)a->acc);
    if (a->acc == UM_WRITE || a->acc == UM_RW)
      return UM_ERROR(ctx, UM_ERR_ARG,
                      "loop '%s', arg %d: a global arg may be READ, INC, MIN or MAX, not %s (use a dat for "
                      "per-element output)",
                      loop, i, um_access_name(a->acc));
    return a->red ? um__reduction_check(ctx, loop, i, a) : UM_SUCCESS;
  }
  if (a->kind != UM_ARG_DAT) return UM_ERROR(ctx, UM_ERR_ARG, "loop '%s', arg %d: not an argument", loop, i);
  const um_dat *d = a->dat;
  if (!d) return UM_ERROR(ctx, UM_ERR_ARG, "loop '%s', arg %d: dat is NULL", loop, i);
  if (d->ctx != ctx) return UM_ERROR(ctx, UM_ERR_ARG, "loop '%s', arg %d: dat '%s' belongs to another context", loop, i, d->name);
  if ((int)a->acc < (int)UM_READ || (int)a->acc > (int)UM_MAX)
    return UM_ERROR(ctx, UM_ERR_ARG, "loop '%s', arg %d (dat '%s'): unknown access mode %d (UM_READ, UM_WRITE, "
                    "UM_RW or UM_INC)", loop, i, d->name, (int)a->acc);
  if (a->acc != UM_READ && a->acc != UM_WRITE && a->acc != UM_RW && a->acc != UM_INC)
    return UM_ERROR(ctx, UM_ERR_ARG, "loop '%s', arg %d (dat '%s'): access %s is only for global args", loop, i,
                    d->name, um_access_name(a->acc));
  if (a->dim != d->dim)
    return UM_ERROR(ctx, UM_ERR_ARG, "loop '%s', arg %d: declared dim %d but dat '%s' has dim %d", loop, i, a->dim,
                    d->name, d->dim);
  if (a->type != d->type)
    return UM_ERROR(ctx, UM_ERR_ARG, "loop '%s', arg %d: declared type %s but dat '%s' holds %s", loop, i,
                    um_type_name(a->type), d->name, um_type_name(d->type));
  if (a->idx == UM_ALL) return check_vec(ctx, loop, set, i, a); /* read in place: never staged, any width */
  if (a->idx == UM_WHOLE) return check_whole(ctx, loop, i, a);
  if ((size_t)d->dim * d->esize > UM_EXEC_STAGE_BYTES && (d->layout == UM_SOA || d->layout_auto))
    return UM_ERROR(ctx, UM_ERR_ARG, "loop '%s', arg %d: dat '%s' of dim %d is too wide for SoA (at most %d doubles)",
                    loop, i, d->name, d->dim, UM_MAX_SCRATCH_DIM);
  if (!a->map) {
    if (d->set != set)
      return UM_ERROR(ctx, UM_ERR_ARG,
                      "loop '%s', arg %d: dat '%s' lives on set '%s' but the loop runs over '%s'; "
                      "access it through a map from '%s'",
                      loop, i, d->name, d->set->name, set->name, set->name);
    if (a->idx != -1)
      return UM_ERROR(ctx, UM_ERR_ARG, "loop '%s', arg %d (dat '%s'): direct access needs idx -1 with UM_ID, got %d",
                      loop, i, d->name, a->idx);
    return UM_SUCCESS;
  }
  const um_map *m = a->map;
  if (m->ctx != ctx) return UM_ERROR(ctx, UM_ERR_ARG, "loop '%s', arg %d: map '%s' belongs to another context", loop, i, m->name);
  if (m->from != set)
    return UM_ERROR(ctx, UM_ERR_ARG, "loop '%s', arg %d: map '%s' goes from set '%s', but the loop runs over '%s'",
                    loop, i, m->name, m->from->name, set->name);
  if (m->to != d->set)
    return UM_ERROR(ctx, UM_ERR_ARG, "loop '%s', arg %d: map '%s' leads to set '%s', but dat '%s' lives on '%s'", loop,
                    i, m->name, m->to->name, d->name, d->set->name);
  if (a->idx < 0 || a->idx >= m->arity)
    return UM_ERROR(ctx, UM_ERR_ARG, "loop '%s', arg %d: index %d outside map '%s' of arity %d (0..%d, or UM_ALL for "
                    "every target as one vector argument)", loop, i, a->idx, m->name, m->arity, m->arity - 1);
  return check_read_only(ctx, loop, i, a);
}


int um__minus_partner(const um_arg *args, int nargs, int i) {
  const um_arg *a = &args[i];
  for (int j = 0; j < nargs; j++)
    if (j != i && args[j].kind == UM_ARG_DAT && args[j].dat == a->dat && args[j].map == a->map &&
        args[j].idx == a->minus - 1)
      return j;
  return -1;
}

/* um_arg_minus declarations: arg i adds minus what its partner (same dat and map, map index minus - 1) adds. */
int um__check_minus(um_context *ctx, const char *loop, int nargs, const um_arg *args) {
  for (int i = 0; i < nargs; i++) {
    const um_arg *a = &args[i];
    if (!a->minus) continue;
    if (a->kind != UM_ARG_DAT || !a->map || a->idx < 0 || a->acc != UM_INC)
      return UM_ERROR(ctx, UM_ERR_ARG,
                      "loop '%s', arg %d: um_arg_minus declares an INC of a dat through one map index, but this "
                      "argument is %s; declare it only on an um_arg_dat(dat, idx, map, ..., UM_INC)",
                      loop, i,
                      a->kind != UM_ARG_DAT                       ? "a global"
                      : a->idx == UM_ALL || a->idx == UM_WHOLE    ? "a vector or whole-dat argument"
                      : !a->map                                   ? "direct"
                                                                  : um_access_name(a->acc));
    if (a->type != UM_DOUBLE && a->type != UM_FLOAT)
      return UM_ERROR(ctx, UM_ERR_ARG,
                      "loop '%s', arg %d: um_arg_minus on dat '%s' of type %s: only double and float dats (negation "
                      "is exact for them); drop the declaration",
                      loop, i, a->dat->name, um_type_name(a->type));
    const int idx = a->minus - 1;
    if (idx < 0 || idx >= a->map->arity || idx == a->idx)
      return UM_ERROR(ctx, UM_ERR_ARG, "loop '%s', arg %d: um_arg_minus(..., %d): the partner's index must be another "
                      "index of map '%s' (0..%d, not this argument's %d)", loop, i, idx < 0 ? -1 : idx, a->map->name,
                      a->map->arity - 1, a->idx);
    const int j = um__minus_partner(args, nargs, i);
    if (j < 0 || args[j].acc != UM_INC || args[j].minus)
      return UM_ERROR(ctx, UM_ERR_ARG,
                      "loop '%s', arg %d: um_arg_minus(..., %d) names the argument incrementing dat '%s' through map "
                      "'%s' at index %d, but %s; pass that argument as UM_INC, without a declaration of its own",
                      loop, i, idx, a->dat->name, a->map->name, idx,
                      j < 0            ? "the loop has none"
                      : args[j].minus  ? "it is itself declared minus another"
                                       : "it is not INC");
  }
  return UM_SUCCESS;
}

/* One dat incremented by one argument and read or written by another, one of them through a map: an element
 * could see (or overwrite) rows other elements are adding to, and the result would depend on the order they run in.
 * Increments alone commute; writes that are not increments are the engine's to order (a map whose targets never
 * meet, e.g. slots, runs them apart). */
int um__check_aliases(um_context *ctx, const char *loop, int nargs, const um_arg *args) {
  for (int i = 0; i < nargs; i++) {
    const um_arg *a = &args[i];
    if (a->kind == UM_ARG_GBL && a->red) { /* a reduction handle: one argument (its result is one value) */
      for (int j = i + 1; j < nargs; j++)
        if (args[j].kind == UM_ARG_GBL && args[j].red == a->red)
          return UM_ERROR(ctx, UM_ERR_ARG, "loop '%s': reduction '%s' is passed as arg %d and arg %d; a reduction is "
                          "one argument of a loop (for two results, declare two reductions)", loop,
                          um__reduction_name(a->red), i, j);
      continue;
    }
    if (a->kind != UM_ARG_DAT || a->acc != UM_INC) continue;
    for (int j = 0; j < nargs; j++) { /* an increment of a's dat: no other argument of it but increments */
      const um_arg *b = &args[j];
      if (j == i || b->kind != UM_ARG_DAT || b->dat != a->dat || b->acc == UM_INC) continue;
      if (!a->map && !b->map) continue; /* both direct: each element its own row */
      return UM_ERROR(ctx, UM_ERR_ARG,
                      "loop '%s': dat '%s' is incremented by arg %d (%s) and %s by arg %d (%s): an element could "
                      "see rows other elements are adding to, and the result would depend on the order they run in; "
                      "increment the dat in one loop and %s it in another, or pass every argument of it as UM_INC",
                      loop, a->dat->name, i, a->map ? "through a map" : "directly",
                      b->acc == UM_READ ? "read" : "written", j, b->map ? "through a map" : "directly",
                      b->acc == UM_READ ? "read" : "write");
    }
  }
  return UM_SUCCESS;
}
