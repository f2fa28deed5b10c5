/* Distributed memory, the part without MPI: which rank owns each element of
 * every set, and what one rank holds (owned core / owned boundary / exec halo /
 * non-exec halo), computed from the global mesh. Pure functions over plain
 * arrays, so tests check them against brute force without MPI (OP2's
 * op_partition and op_halo_create are the model).
 *
 * Definitions, for rank r:
 *   owned(S)    elements of S that r owns
 *   exec(S)     elements of S owned elsewhere that reach, through some map
 *               from S, an element r owns: r runs them too, so every increment
 *               into r's elements is computed on r (OP2's redundant rule)
 *   nonexec(T)  elements of T reached through a map from owned(S) or exec(S)
 *               that are neither owned nor exec on r: read only
 *   core(S)     owned elements whose every map target is owned: they read no
 *               halo, so they run while the halo travels
 * Local numbering: the owned ascending in the global numbering where their core
 * elements are one run of them (none or all too; core_begin: its first), else
 * core then the rest of the owned (each ascending); then exec halo, then
 * non-exec halo (each sorted by owner rank, then global index), so the rows
 * imported from one rank are contiguous. */
#ifndef UM_DIST_PARTITION_H
#define UM_DIST_PARTITION_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  int from, to, arity;
  const int *data; /* [size[from] * arity], global indices */
  int read_only; /* um_map_set_read_only: the exec halo does not follow it */
} umd_map;

typedef struct {
  int nsets;
  const int *size; /* [nsets] global sizes */
  int nmaps;
  const umd_map *maps;
} umd_mesh;

/* Owners of every set, from owner[primary] (filled by the caller, values in
 * 0..nranks-1): repeatedly, a set with a map into a set already placed takes,
 * for each element, the owner of its first target; when none has, a set that a
 * map from a placed set reaches takes the owner of the first element (in
 * element order) that references it, and elements nobody references the owner
 * of a block split; sets no map connects are split into blocks. Every other
 * owner[s] is allocated here ([size[s]], free()). Returns 0, or an error code
 * (UM_ERR_ALLOC / UM_ERR_ARG) with a message in err. */
int umd_derive_owners(const umd_mesh *m, int primary, int nranks, int **owner, char *err, size_t errlen);

/* Contiguous blocks: element i of n goes to rank floor(i * nranks / n). */
void umd_block_partition(int n, int nranks, int *part);

typedef struct {
  int owned, core, exec, nonexec;
  int core_begin; /* the core elements are [core_begin, core_begin + core) of the local numbering */
  int *l2g; /* [owned + exec + nonexec]: local -> global index */
} umd_layout;

/* Whether the core flags of n owned rows form one run (or none, or all of them): *begin its first row (0 for none).
 * The owned then keep their order (every way of distributing). */
static inline int umd_core_run(const unsigned char *core, int n, int *begin) {
  int f = 0, l = n;
  while (f < n && !core[f]) f++;
  while (l > f && !core[l - 1]) l--;
  *begin = f < n ? f : 0;
  for (int e = f; e < l; e++)
    if (!core[e]) return 0;
  return 1;
}

/* What rank `rank` holds of every set (out[nsets]); umd_layout_free frees it. */
int umd_build_layout(const umd_mesh *m, int *const *owner, int rank, umd_layout *out, char *err, size_t errlen);
void umd_layout_free(umd_layout *l, int nsets);

/* The primary set's adjacency graph (CSR, no self loops, each neighbour once):
 * elements are adjacent when they share a target of a map from the set, when
 * one element of another set maps to both, or when a map from the set to
 * itself joins them. *xadj [n+1], *adj [xadj[n]] (free()). */
int umd_graph(const umd_mesh *m, int primary, int **xadj, int **adj, char *err, size_t errlen);
/* Rows of that graph only: for the elements v in [lo, hi) with part[v] == which (every one there when part
 * is NULL), in increasing order; *xadj [rows + 1] from 0, *adj in the global numbering. */
int umd_graph_rows(const umd_mesh *m, int primary, const int *part, int which, int lo, int hi, int **xadj,
                   int **adj, char *err, size_t errlen);
/* One part's share of a partition's quality, from its own rows of the graph (so the ranks share the work): the
 * edges from its elements to other parts (*cut_ends; each cut edge has two ends, in two parts) and its
 * connected components (*ncomp; 0 for an empty part). */
int umd_part_quality(const umd_mesh *m, int primary, const int *part, int which, long *cut_ends, int *ncomp, char *err,
                     size_t errlen);

/* Edges of the graph cut by a partition, counted once. */
long umd_edge_cut(int n, const int *xadj, const int *adj, const int *part);

#ifdef __cplusplus
}
#endif
#endif
