/* Map utilities (core): shared by reordering, and by loop splitting and MPI
 * partitioning to come. */
#ifndef UM_CORE_MAPUTIL_H
#define UM_CORE_MAPUTIL_H

#include "internal.h"

/* The first of the n entries of data outside [0, limit), or n when every one is inside: a map's declaration check,
 * over nthreads threads for large maps (the same answer for any count). */
size_t um__map_first_outside(const int *data, size_t n, int limit, int nthreads);
/* 1 if p is a permutation of 0..n-1 (scratch: n bytes, allocated inside). -1 out of memory. */
int um__is_bijection(const int *p, int n);
/* 1 if column idx of m has distinct targets, all in range, over the rows a loop writing through it runs (owned
 * and exec halo); 0 otherwise or out of memory. Checked once per column (O(rows)) and kept while m's data stays:
 * renumbering and partitioning keep the answer, as both number rows and targets one to one. */
int um__map_column_one_to_one(um_map *m, int idx);
/* The distinct targets of the columns in cols (bit k: column k; arity <= 64) over rows [0, rows) of m, counted
 * once (a bitmap over the targets) and kept while m's data stays; (size_t)-1 if out of memory. Loop statistics
 * (useful bytes) ask it for every indirect dat at each loop's first call, and many loops share a map's columns. */
size_t um__map_distinct_targets(um_map *m, unsigned long long cols, int rows);
/* The distinct targets of dat d over every reference to it through a map among loop's arguments (any maps and
 * columns), over the loop's rows [0, set size): a bitmap over d's rows, each map read once, row by row, for all of
 * its columns the loop names. (size_t)-1 if out of memory. For the loops um__map_distinct_targets cannot count. */
size_t um__loop_distinct_targets(const um_loop *loop, const um_dat *d);
/* 1 if the loop writes through maps (has_conflicts) only through one-to-one columns, each written dat through
 * one column and named by no other arg another way: then no two elements write one row. */
int um__loop_one_to_one(const um_loop *loop);
/* CSR inverse of a map: for target t, inv[off[t] .. off[t+1]) lists the
 * from-elements referencing it (once per reference, ascending). */
typedef struct {
  int n;      /* to-set size */
  int *off;   /* [n+1] */
  int *elem;  /* [from_size*arity] */
} um__inverse;
int um__inverse_build(const um_map *m, um__inverse *inv);
void um__inverse_free(um__inverse *inv);

/* Stable sort of 0..n-1 by variable-length integer keys key[off[i] .. off[i+1]),
 * compared lexicographically (a proper prefix sorts first). order receives new
 * -> old. Returns UM_ERR_ALLOC or UM_SUCCESS. */
int um__sort_by_keys(int n, const long *off, const int *key, int *order);

/* Rule (a) of um/reorder.h: n2o_S of map's from-set sorted lexicographically by
 * its targets' new numbers (o2n_to: old -> new of the to-set, NULL identity). */
int um__order_by_targets(const um_map *m, const int *o2n_to, int *n2o_from);

#endif
