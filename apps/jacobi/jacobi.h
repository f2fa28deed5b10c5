/* Jacobi's shuffled grid graph, whole or by blocks (jacobi.c). */
#ifndef JACOBI_H
#define JACOBI_H
#include <stddef.h>
#include <stdint.h>
#include "um/um.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Rank `rank`'s block of `nranks` of the grid graph of N x N cells with the numbering shuffled by `seed`: nodes
 * [node_first, node_first + node_count) and edges [edge_first, ...) of the global numbering (um_block_range's
 * ranges; 0 of 1: the whole grid). */
typedef struct {
  long long nnode, nedge, node_first, edge_first;
  int node_count, edge_count;
  double *x, *u;   /* node_count x 2 coordinates, node_count initial values (the boundary's exact ones) */
  int *bnd;        /* node_count: 1 on the boundary */
  long long *edge; /* edge_count x 2 global node numbers */
} jacobi_grid;

int jacobi_grid_generate(int N, uint64_t seed, int rank, int nranks, jacobi_grid *g, char *err, size_t errlen);
void jacobi_grid_free(jacobi_grid *g);

/* The grid declared on ctx: by blocks (blocks 1: g is this rank's block, um_decl_set_block) or whole (g is rank 0
 * of 1's). x, u and boundary from g; s and deg zero. */
typedef struct {
  um_set *nodes, *edges;
  um_map *pedge;
  um_dat *x, *u, *s, *deg, *bnd;
} jacobi_mesh;
int jacobi_decl(um_context *ctx, const jacobi_grid *g, int blocks, jacobi_mesh *m);
/* Each node's degree (once), then one sweep: s gathers the neighbours' u, relax updates u (max |du| and sum du^2). */
int jacobi_degree(um_context *ctx, const jacobi_mesh *m);
int jacobi_sweep(um_context *ctx, const jacobi_mesh *m, double *maxdu, double *sumdu2);

#ifdef __cplusplus
}
#endif
#endif
