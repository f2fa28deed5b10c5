/* Volna's mesh by blocks: a Gmsh file or a Mesh Rectangle needs the whole mesh to number its edges (sorted by
 * their nodes) and find each cell's neighbours, so rank 0 reads or generates it whole (mesh.c) and sends every
 * rank its block of each set (the block partitioner's ranges); rank 0 then frees the whole mesh. Rank 0's peak is
 * the mesh once plus its block; the other ranks hold only their blocks. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "volna.h"
#include "checked.h"
#include "um/distributed.h"

void vl_block_free(vl_block *b) {
  free(b->node_xy);
  free(b->cell_nodes), free(b->cell_edges), free(b->cell_cells), free(b->cell_xy), free(b->cell_area);
  free(b->edge_cells), free(b->is_boundary), free(b->edge_normal), free(b->edge_length);
  memset(b, 0, sizeof *b);
}

int vl_block_scatter(vl_mesh *m, vl_block *b, char *err, size_t errlen) {
  memset(b, 0, sizeof *b);
  struct {
    int n[3];
    float xmin;
  } head = {{m->nnodes, m->ncells, m->nedges}, m->xmin};
  int rc = um_mpi_bcast_bytes(&head, sizeof head); /* rank 0's sizes */
  const long long n[3] = {head.n[0], head.n[1], head.n[2]};
  for (int s = 0; s < 3 && !rc; s++)
    rc = um_block_range(n[s], um_mpi_rank(), um_mpi_size(), &b->first[s], &b->count[s]);
  const size_t nn = (size_t)b->count[0], nc = (size_t)b->count[1], ne = (size_t)b->count[2];
  b->node_xy = um_array_alloc(2 * nn + 1, sizeof(float));
  b->cell_nodes = um_array_alloc(3 * nc + 1, sizeof(long long));
  b->cell_edges = um_array_alloc(3 * nc + 1, sizeof(long long));
  b->cell_cells = um_array_alloc(3 * nc + 1, sizeof(long long));
  b->cell_xy = um_array_alloc(2 * nc + 1, sizeof(float));
  b->cell_area = um_array_alloc(nc + 1, sizeof(float));
  b->edge_cells = um_array_alloc(2 * ne + 1, sizeof(long long));
  b->is_boundary = um_array_alloc(ne + 1, sizeof(int));
  b->edge_normal = um_array_alloc(2 * ne + 1, sizeof(float));
  b->edge_length = um_array_alloc(ne + 1, sizeof(float));
  const int mem = !b->node_xy || !b->cell_nodes || !b->cell_edges || !b->cell_cells || !b->cell_xy || !b->cell_area ||
                  !b->edge_cells || !b->is_boundary || !b->edge_normal || !b->edge_length;
  if (!rc && um_mpi_agree(mem, -1)) { /* some rank is out of memory: every rank stops before the scatters */
    snprintf(err, errlen, "out of memory for %s block of the mesh (%zu nodes, %zu cells, %zu edges on this rank)",
             mem ? "this rank's" : "another rank's", nn, nc, ne);
    rc = UM_ERR_ALLOC;
  } else if (rc) {
    snprintf(err, errlen, "the mesh's sizes could not be sent from rank 0 (MPI failed)");
  }
  if (!rc) rc = um_mpi_scatter_block(m->node_xy, n[0], 2 * sizeof(float), b->node_xy);
  if (!rc) rc = um_mpi_scatter_map_block(m->cell_nodes, n[1], 3, b->cell_nodes);
  if (!rc) rc = um_mpi_scatter_map_block(m->cell_edges, n[1], 3, b->cell_edges);
  if (!rc) rc = um_mpi_scatter_map_block(m->cell_cells, n[1], 3, b->cell_cells);
  if (!rc) rc = um_mpi_scatter_block(m->cell_xy, n[1], 2 * sizeof(float), b->cell_xy);
  if (!rc) rc = um_mpi_scatter_block(m->cell_area, n[1], sizeof(float), b->cell_area);
  if (!rc) rc = um_mpi_scatter_map_block(m->edge_cells, n[2], 2, b->edge_cells);
  if (!rc) rc = um_mpi_scatter_block(m->is_boundary, n[2], sizeof(int), b->is_boundary);
  if (!rc) rc = um_mpi_scatter_block(m->edge_normal, n[2], 2 * sizeof(float), b->edge_normal);
  if (!rc) rc = um_mpi_scatter_block(m->edge_length, n[2], sizeof(float), b->edge_length);
  if (rc && !err[0]) snprintf(err, errlen, "the mesh could not be sent out by blocks from rank 0 (error %d)", rc);
  vl_mesh_free(m); /* rank 0's whole copy: sent */
  m->nnodes = head.n[0], m->ncells = head.n[1], m->nedges = head.n[2], m->xmin = head.xmin;
  if (rc) vl_block_free(b);
  return rc;
}
