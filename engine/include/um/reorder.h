/** @file um/reorder.h
 * Mesh reordering for locality (GPS through Scotch, METIS k-way partition).
 *
 * A *reordering* holds one permutation per set of a context. Permutations are
 * stored as new -> old: perm[i] is the (current) index of the element that
 * becomes element i. Applying a reordering renumbers, consistently, every set,
 * map and dat declared on the context:
 * @verbatim
 *   - dat rows:   new_dat[i]     = old_dat[perm_set[i]]       (AoS and SoA alike)
 *   - map rows:   new_map[i][k]  = inv_perm_to[old_map[perm_from[i]][k]]
 * where inv_perm_to (old -> new) is the inverse of the to-set's permutation.
 * @endverbatim
 * Every cached plan is dropped. Reorder before the first loop runs: a context
 * on which a loop has run refuses (backends may hold copies of maps and plans).
 *
 * Methods, computed from one map M : F -> T (F the iteration set, T the target
 * set, F != T):
 * @verbatim
 *   UM_REORDER_GPS        T: Gibbs-Poole-Stockmeyer ordering (Scotch, strategy
 *                         "g") of T's adjacency graph (two targets are adjacent
 *                         when an element of F maps to both). F: sorted
 *                         lexicographically by its targets' new numbers (each
 *                         row's targets sorted ascending), stable.
 *   UM_REORDER_PARTITION  F: METIS k-way partition (METIS_PartGraphKway) of F's
 *                         element graph (adjacent when they share a target) into
 *                         nparts = ceil(|F| / (block_size * (1 - margin))) parts,
 *                         imbalance tolerance `imbalance` (Reguly et al.,
 *                         "Improving locality of unstructured mesh algorithms on
 *                         GPUs"); above 128 parts in two levels (k-way into about
 *                         nparts/64 coarse parts, then each coarse part's
 *                         subgraph into its share of the parts); the parts
 *                         become the plan's blocks for loops over F with the same
 *                         block size (saved as parts_<set> in the permutation
 *                         file); elements renumbered part by part (old order
 *                         inside a part). T: sorted by the number of distinct
 *                         parts referencing a target, then by those parts'
 *                         indices lexicographically, then old index;
 *                         targets no element references come last.
 *   UM_REORDER_NONE       every permutation the identity.
 * @endverbatim
 * Every other set S is then settled in rounds, in declaration order, by the
 * first map (declaration order) that connects it to a set settled in an
 * earlier round (so through a map to the nearest of F and T):
 * @verbatim
 *   (a) a map S -> X, X settled: S sorted lexicographically by its targets' new
 *       numbers (as F for gps), e.g. Airfoil's bedges by pbecell;
 *   (b) else a map X -> S, X settled: S in first-touch order, i.e. in the order
 *       its elements first appear scanning X's elements in their new order and
 *       each row left to right (e.g. Airfoil's nodes through pedge); elements
 *       of S that X never references keep their relative order at the end.
 * @endverbatim
 * Maps from a set to itself are not used; sets connected to nothing keep the
 * identity.
 *
 * Errors are returned as um_error codes with the message in um_error_message(ctx).
 */
#ifndef UM_REORDER_H
#define UM_REORDER_H

#include <stddef.h>
#include "um/um.h"

#ifdef __cplusplus
extern "C" {
#endif

/** How um_reorder_compute renumbers the sets (see the file's description). */
typedef enum {
  UM_REORDER_NONE = 0,  /**< every permutation the identity                       */
  UM_REORDER_GPS,       /**< Gibbs-Poole-Stockmeyer ordering of the target set (Scotch) */
  UM_REORDER_PARTITION  /**< METIS k-way partition of the iteration set into blocks */
} um_reorder_method;

const char *um_reorder_method_name(um_reorder_method m); /**< "none", "gps", "partition" */
/** Parse "none", "gps" or "partition" into *out; UM_ERR_ARG for an unknown name
 * (no context: the caller words the message). */
int um_reorder_method_parse(const char *s, um_reorder_method *out);

/** Options of the partition method (um_reorder_options_default fills them). */
typedef struct {
  int block_size;   /**< partition: elements per GPU block; 0 = the context's block_size */
  double margin;    /**< partition: fraction of a block left free (default 0.1)          */
  double imbalance; /**< partition: max part size / mean part size (default 1.02),
                       METIS ufactor = round((imbalance - 1) * 1000), >= 1             */
  int seed;         /**< METIS seed (default 1): results are deterministic for a seed   */
} um_reorder_options;

/** Defaults: block_size 0 (the context's), margin 0.1, imbalance 1.02, seed 1. */
void um_reorder_options_default(um_reorder_options *o);

/** What a reordering cost and produced (um_reorder_compute, _apply and the file functions each fill their part). */
typedef struct {
  double compute_seconds; /**< graph construction, Scotch/METIS and sorting   */
  double apply_seconds;   /**< permuting every set, map and dat               */
  double io_seconds;      /**< saving or loading the permutations (HDF5)      */
  int nparts;             /**< partition: METIS parts (0 otherwise)           */
  int max_part_size;      /**< partition: largest part                        */
  long edgecut;           /**< partition: METIS objective (edges cut)         */
} um_reorder_stats;

/** A reordering: one new -> old permutation per set of a context (opaque). */
typedef struct um_reordering um_reordering;

/** Compute a reordering of every set of ctx from `map` (see above). Does not
 * change the context. *out is freed with um_reordering_free. stats may be NULL
 * (fills compute_seconds, nparts, max_part_size, edgecut). */
int um_reorder_compute(um_context *ctx, um_reorder_method method, const um_map *map, const um_reorder_options *opts,
                       um_reordering **out, um_reorder_stats *stats);

/** Apply a reordering (computed, loaded, or built by hand) to ctx: see above.
 * Every set named in r must exist in ctx with the same size; sets of ctx that r
 * does not name keep their order. stats may be NULL (fills apply_seconds). */
int um_reorder_apply(um_context *ctx, const um_reordering *r, um_reorder_stats *stats);

/** compute + apply in one call. */
int um_reorder(um_context *ctx, um_reorder_method method, const um_map *map, const um_reorder_options *opts,
               um_reorder_stats *stats);

/** Save to / load from HDF5. The file (replaced atomically, written through
 * "<file>.tmp") holds one int32 dataset "perm_<set>" per set ('/' in a set's
 * name written as '_'), new -> old, with attributes "set" (the set's name) and
 * "size"; root attributes "format_version" (UM_REORDER_FILE_VERSION), "method",
 * "map" and "map_hash" (64-bit FNV-1a of the map's entries, each as 4
 * little-endian bytes, when computed; "" for hand-built reorderings). Files of
 * another format version are refused with a message saying to delete them. Loading checks that the
 * file names exactly the sets of ctx with their sizes, that every permutation is
 * a bijection, and that the map (if any) exists in ctx with the same hash, i.e.
 * the file was computed for this mesh in its current numbering. */
#define UM_REORDER_FILE_VERSION 2
/** Save r to `file` (HDF5, the format above, replaced atomically); stats may be NULL (fills io_seconds). */
int um_reordering_save(um_context *ctx, const um_reordering *r, const char *file, um_reorder_stats *stats);
/** Load a reordering saved by um_reordering_save, checked against ctx as
 * described above; *out is freed with um_reordering_free. */
int um_reordering_load(um_context *ctx, const char *file, um_reordering **out, um_reorder_stats *stats);

/** Build a reordering by hand: an empty one for ctx (every set identity), then
 * a new -> old permutation per set (checked: size of the set, bijection). */
int um_reordering_create(um_context *ctx, um_reordering **out);
/** Set the new -> old permutation of `set` in r (n must be the set's size; checked: a bijection). */
int um_reordering_set_perm(um_context *ctx, um_reordering *r, const um_set *set, const int *new_to_old, int n);

/** Free a reordering; *r set to NULL (r or *r NULL: nothing to do). */
void um_reordering_free(um_reordering **r);

/** Introspection: method, map name ("" if none), number of sets, and per set its
 * name, size and new -> old permutation (NULL: identity). */
um_reorder_method um_reordering_method(const um_reordering *r);
/** The name of the map the reordering was computed from ("" if none). */
const char *um_reordering_map(const um_reordering *r);
/** The number of sets the reordering names. */
int um_reordering_nsets(const um_reordering *r);
/** The name of set i of the reordering (0 <= i < um_reordering_nsets). */
const char *um_reordering_set_name(const um_reordering *r, int i);
/** The size of set i of the reordering. */
int um_reordering_set_size(const um_reordering *r, int i);
/** The new -> old permutation of the set named set_name (NULL: the identity, or no such set). */
const int *um_reordering_perm(const um_reordering *r, const char *set_name);

/** The set's cumulative permutation since declaration, old -> new: element i as
 * declared is now element perm[i]. NULL while the set was never reordered. */
const int *um_set_permutation(const um_set *set);

/** Like um_dat_fetch (AoS, size*dim values) but with the rows in the order the
 * set was declared in: undoes every reordering applied since. */
int um_dat_fetch_original_order(um_context *ctx, const um_dat *dat, void *out, size_t bytes);

#ifdef __cplusplus
}
#endif
#endif
