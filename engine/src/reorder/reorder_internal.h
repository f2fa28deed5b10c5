/* Internal definitions of the reordering module (engine/src/reorder/). */
#ifndef UM_REORDER_INTERNAL_H
#define UM_REORDER_INTERNAL_H

#include <stdint.h>
#include "um/reorder.h"
#include "../core/internal.h"
#include "../core/maputil.h"

struct um_reordering {
  um_reorder_method method;
  char *map;          /* name of the map it was computed from, "" if none        */
  char *map_hash;     /* FNV-1a of the map's entries (16 hex digits), "" if none */
  int nsets;
  char **names;
  int *sizes;
  int **perm;         /* [nsets]: new -> old, NULL = identity                     */
  /* partition: the parts of the iteration set (slot part_slot) in the new
   * numbering, each of 1..part_block_size elements; part_slot -1: none */
  int part_slot;
  int nparts;
  int *part_offset;   /* [nparts+1] */
  int part_block_size;
};

/* An empty reordering (every set identity) with nsets named slots. */
int um__reordering_alloc(um_context *ctx, int nsets, um_reordering **out);
/* Set the method, map name and hash strings (copied). */
int um__reordering_label(um_context *ctx, um_reordering *r, um_reorder_method m, const char *map, const char *hash);
/* FNV-1a of a map's entries, as 16 hex digits (buf >= 17 bytes). */
void um__map_hash(const um_map *m, char *buf);
/* 1 if off[0..nparts] splits 0..size into parts of 1..block_size elements
 * (off[0] == 0, off[nparts] == size, block_size > 0). */
int um__parts_valid(const int *off, int nparts, int size, int block_size);

/* The two methods: new -> old permutations of the map's from-set (n2o_from)
 * and to-set (n2o_to), allocated by the caller. Partition also returns the
 * parts in the new numbering (*part_offset, [*nparts+1], malloc'd): empty
 * METIS parts left out, a part larger than o->block_size (possible with a
 * large imbalance) split into near-equal pieces of at most o->block_size.
 * Above 128 parts it partitions in two levels (coarse k-way into ~nparts/64
 * parts, then each coarse part's induced subgraph into its
 * size-proportional share of the nparts parts), much faster at the cost of a slightly larger edge cut. */
int um__reorder_gps(um_context *ctx, const um_map *m, int *n2o_from, int *n2o_to);
int um__reorder_partition(um_context *ctx, const um_map *m, const um_reorder_options *o, int *n2o_from,
                          int *n2o_to, um_reorder_stats *st, int **part_offset, int *nparts);
#endif
