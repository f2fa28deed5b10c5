/* Declarations by blocks (um/distributed.h): the block partitioner's ranges, and maps in global numbers. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "um/distributed.h"

int um_block_range(long long gsize, int rank, int nranks, long long *begin, int *count) {
  if (gsize < 0 || nranks < 1 || rank < 0 || rank >= nranks || !begin || !count) return UM_ERR_ARG;
  /* element i is on rank floor(i * nranks / gsize): rank r's first is ceil(r * gsize / nranks) */
  const long long b = (long long)(((__int128)rank * gsize + nranks - 1) / nranks); /* 128-bit: no overflow */
  const long long e = (long long)(((__int128)(rank + 1) * gsize + nranks - 1) / nranks);
  if (e - b > INT_MAX) return UM_ERR_ARG;
  *begin = b;
  *count = (int)(e - b);
  return UM_SUCCESS;
}

/* The first of n targets (64-bit t64, else 32-bit t32) outside [0, gsize), or n: one pass of compares or'ed
 * together, no branch (a reduction the compiler vectorises with any x86-64's instructions; a min and max of ints
 * needs SSE4.1), then, only when one is outside, the entry found. */
static size_t first_outside(const long long *t64, const int *t32, size_t n, long long gsize) {
  int bad = 0;
  if (t64)
    for (size_t i = 0; i < n; i++) bad |= (t64[i] < 0) | (t64[i] >= gsize);
  else {
    const int g = gsize > INT_MAX ? INT_MAX : (int)gsize, top = gsize > INT_MAX; /* top: every int >= 0 is inside */
    for (size_t i = 0; i < n; i++) bad |= (t32[i] < 0) | (!top & (t32[i] >= g));
  }
  if (!bad) return n;
  size_t i = 0;
  while (i < n && (unsigned long long)(t64 ? t64[i] : t32[i]) < (unsigned long long)gsize) i++;
  return i;
}

/* um_decl_map_block's, um_decl_map_block_take's and um_decl_map_block_take_i32's checks of the arguments and the
 * rows (t64, else t32): 0 or the error. */
static int check_map_block(um_context *ctx, um_set *from, um_set *to, int arity, const long long *t64, const int *t32,
                           const char *name, um_map **out) {
  if (!out || !from || !to || arity <= 0)
    return UM_ERROR(ctx, UM_ERR_ARG, "%s: a NULL or out-of-range argument (!out || !from || !to || arity <= 0)",
                    "um_decl_map_block");
  *out = NULL;
  const size_t n = (size_t)from->size * (size_t)arity;
  if (n && !t64 && !t32) return UM_ERROR(ctx, UM_ERR_ARG, "map '%s' declared without data", name ? name : "");
  if (t32 && to->gsize > INT_MAX)
    return UM_ERROR(ctx, UM_ERR_ARG,
                    "map '%s': its rows are 32-bit (um_decl_map_block_take_i32), which name targets up to %d, and its "
                    "to-set '%s' has %lld elements: hand its rows over as 64-bit numbers (um_decl_map_block_take)",
                    name ? name : "", INT_MAX, to->name, to->gsize);
  const size_t i = n ? first_outside(t64, t32, n, to->gsize) : 0;
  if (i < n)
    return UM_ERROR(ctx, UM_ERR_ARG,
                    "map '%s' (%s -> %s, arity %d): entry %zu (row %zu of this rank's block) is %lld, outside the "
                    "to-set '%s' of global size %lld; targets are 0-based global numbers",
                    name ? name : "", from->name, to->name, arity, i, i / (size_t)arity,
                    t64 ? t64[i] : (long long)t32[i], to->name, to->gsize);
  if (from->block != to->block)
    return UM_ERROR(ctx, UM_ERR_ARG, "map '%s': set '%s' is declared by blocks and set '%s' is not: declare both by blocks",
                    name ? name : "", from->block ? from->name : to->name, from->block ? to->name : from->name);
  return UM_SUCCESS;
}

/* um_decl_map_block_take's rows after their checks: taken over (freed on failure). */
static int take_rows(um_context *ctx, um_set *from, um_set *to, int arity, long long *targets, const char *name,
                     um_map **out) {
  if (from->block) { /* the global rows */
    const int rc = um__decl_map(ctx, from, to, arity, NULL, name, out, targets, NULL, NULL);
    if (rc != UM_SUCCESS) free(targets);
    return rc;
  }
  const size_t n = (size_t)from->size * (size_t)arity; /* whole sets: global == local, narrowed in place */
  char *buf = (char *)targets;
  for (size_t i = 0; i < n; i++) { /* entry i's 4 bytes never past entry i's 8, read first */
    long long g;
    memcpy(&g, buf + i * sizeof g, sizeof g);
    const int l = (int)g;
    memcpy(buf + i * sizeof l, &l, sizeof l);
  }
  int *shrunk = realloc(buf, (n ? n : 1) * sizeof(int));
  return um_decl_map_take(ctx, from, to, arity, shrunk ? shrunk : (int *)buf, name, out);
}

int um_decl_map_block(um_context *ctx, um_set *from, um_set *to, int arity, const long long *targets, const char *name,
                      um_map **out) {
  UM_CTX_OK(ctx);
  UM_CHECK(ctx, check_map_block(ctx, from, to, arity, targets, NULL, name, out));
  const size_t n = (size_t)from->size * (size_t)arity;
  long long *copy = malloc((n ? n : 1) * sizeof *copy);
  if (!copy) return UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory declaring map '%s'", name ? name : "");
  if (n) memcpy(copy, targets, n * sizeof *copy);
  return take_rows(ctx, from, to, arity, copy, name, out);
}

int um_decl_map_block_take(um_context *ctx, um_set *from, um_set *to, int arity, long long *targets, const char *name,
                           um_map **out) {
  if (!ctx) return free(targets), UM_ERR_ARG;
  const int rc = check_map_block(ctx, from, to, arity, targets, NULL, name, out);
  if (rc != UM_SUCCESS) return free(targets), rc;
  return take_rows(ctx, from, to, arity, targets, name, out);
}

int um_decl_map_block_take_i32(um_context *ctx, um_set *from, um_set *to, int arity, int *targets, const char *name,
                               um_map **out) {
  if (!ctx) return free(targets), UM_ERR_ARG;
  int rc = check_map_block(ctx, from, to, arity, NULL, targets, name, out);
  if (rc != UM_SUCCESS) return free(targets), rc;
  if (!from->block) return um_decl_map_take(ctx, from, to, arity, targets, name, out); /* whole: global == local */
  rc = um__decl_map(ctx, from, to, arity, NULL, name, out, NULL, targets, NULL); /* the global rows */
  if (rc != UM_SUCCESS) free(targets);
  return rc;
}

/* The first entry of list x[n] (what: its name) not ascending, outside [0, gsize) or inside this rank's block of
 * set s: an error naming it, else 0. */
static int check_halo_list(um_context *ctx, const um_set *s, const long long *x, int n, const char *what) {
  const long long b0 = s->block_begin, b1 = b0 + s->size;
  for (int i = 0; i < n; i++) {
    const char *why = x[i] < 0 || x[i] >= s->gsize ? "outside the set"
                      : x[i] >= b0 && x[i] < b1    ? "in this rank's own block"
                      : i > 0 && x[i] <= x[i - 1]  ? "not above the entry before it (the list ascends, each once)"
                                                   : NULL;
    if (why)
      return UM_ERROR(ctx, UM_ERR_ARG,
                      "set '%s' (global size %lld, this rank's block [%lld, %lld)): %s halo entry %d is %lld, %s",
                      s->name, s->gsize, b0, b1, what, i, x[i], why);
  }
  return UM_SUCCESS;
}

int um_decl_set_halo_block(um_set *set, int nexec, long long *exec, int nnonexec, long long *nonexec) {
  um_context *ctx = set ? set->ctx : NULL;
  int rc = !set || nexec < 0 || nnonexec < 0 || (nexec && !exec) || (nnonexec && !nonexec) ? UM_ERR_ARG : UM_SUCCESS;
  if (rc) {
    free(exec), free(nonexec);
    return ctx ? UM_ERROR(ctx, rc, "%s: a NULL or out-of-range argument", __func__) : rc;
  }
  if (ctx->dist || set->halo_declared)
    rc = UM_ERROR(ctx, UM_ERR_ARG, "set '%s': its halo is declared %s", set->name,
                  ctx->dist ? "after um_distribute: declare it before" : "twice");
  else if (!set->block && (nexec || nnonexec))
    rc = UM_ERROR(ctx, UM_ERR_ARG, "set '%s' is not declared by blocks over several ranks: it has no halo to declare",
                  set->name);
  if (!rc) rc = check_halo_list(ctx, set, exec, nexec, "exec");
  if (!rc) rc = check_halo_list(ctx, set, nonexec, nnonexec, "non-exec");
  for (int i = 0, j = 0; !rc && i < nexec; i++) { /* both ascend: one merge */
    while (j < nnonexec && nonexec[j] < exec[i]) j++;
    if (j < nnonexec && nonexec[j] == exec[i])
      rc = UM_ERROR(ctx, UM_ERR_ARG, "set '%s': element %lld is declared in both its exec and its non-exec halo",
                    set->name, exec[i]);
  }
  if (rc) {
    free(exec), free(nonexec);
    return rc;
  }
  set->halo_declared = 1;
  set->halo_exec = exec, set->halo_nexec = nexec;
  set->halo_nonexec = nonexec, set->halo_nnonexec = nnonexec;
  return UM_SUCCESS;
}

int um_decl_map_halo_block(um_map *map, long long *rows) {
  um_context *ctx = map ? map->ctx : NULL;
  if (!ctx) return free(rows), UM_ERR_ARG;
  const um_set *f = map->from;
  const size_t n = (size_t)f->halo_nexec * (size_t)map->arity;
  int rc = UM_SUCCESS;
  if (!f->halo_declared || map->halo_rows || ctx->dist)
    rc = UM_ERROR(ctx, UM_ERR_ARG, "map '%s': %s", map->name,
                  ctx->dist        ? "its halo rows are declared after um_distribute: declare them before"
                  : map->halo_rows ? "its halo rows are declared twice"
                                   : "its halo rows are declared before its from-set's halo (um_decl_set_halo_block)");
  else if (n && !rows)
    rc = UM_ERROR(ctx, UM_ERR_ARG, "map '%s': NULL rows for the %d exec elements of set '%s'", map->name, f->halo_nexec,
                  f->name);
  const size_t i = !rc && n ? first_outside(rows, NULL, n, map->to->gsize) : n;
  if (!rc && i < n)
    rc = UM_ERROR(ctx, UM_ERR_ARG,
                  "map '%s': halo row %zu (exec element %lld of set '%s') has entry %lld, outside the to-set '%s' of "
                  "global size %lld",
                  map->name, i / (size_t)map->arity, f->halo_exec[i / (size_t)map->arity], f->name, rows[i],
                  map->to->name, map->to->gsize);
  if (rc) return free(rows), rc;
  map->halo_rows = rows;
  return UM_SUCCESS;
}
