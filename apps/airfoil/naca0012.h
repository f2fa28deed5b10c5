/*
 * naca0012.h -- C-mesh around the NACA0012 aerofoil, as used by the Airfoil app.
 *
 * airfoil_mesh_generate() is our own re-implementation of the algorithm of OP2's
 * MATLAB mesh generator (OP2-Common apps/mesh_generators/naca0012.m, "new-style"
 * output): a structured (3I+1) x (J+1) grid built in the complex square-root
 * plane around the aerofoil, mapped back by squaring.  Node, cell, edge and
 * boundary-edge numbering and the boundary flags are the same as in that script's
 * new_grid.dat output, with all indices 0-based (C numbering), so OP2's Airfoil
 * run on this mesh reproduces the published residual history.
 *
 *   I = 400, J = 600  ->  721801 nodes,  720000 cells, 1438600 edges, 2800 bedges
 *   I = 800, J = 1200 -> 2883601 nodes, 2880000 cells, 5757200 edges, 5600 bedges
 *
 * Text I/O uses OP2's new_grid.dat format (see mesh_text.c):
 *   line 1:            nnode ncell nedge nbedge
 *   nnode lines:       x y                    (written with 6 decimals, "%f")
 *   ncell lines:       n0 n1 n2 n3            (cell -> node, anticlockwise)
 *   nedge lines:       n0 n1 c0 c1            (edge -> node, edge -> cell)
 *   nbedge lines:      n0 n1 c  bound         (bedge -> node, bedge -> cell, flag)
 *
 * All functions return 0 on success; on failure they return non-zero, leave the
 * mesh empty (all pointers NULL, all counts 0) and write a message into err
 * (if err != NULL and errlen > 0).  No global state is used.
 */
#ifndef UM_APPS_AIRFOIL_NACA0012_H
#define UM_APPS_AIRFOIL_NACA0012_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  int nnode, ncell, nedge, nbedge;
  double *x;   /* 2*nnode: node coordinates (x, y) */
  int *cell;   /* 4*ncell, cell->node, 0-based */
  int *edge;   /* 2*nedge, edge->node */
  int *ecell;  /* 2*nedge, edge->cell */
  int *bedge;  /* 2*nbedge, bedge->node */
  int *becell; /* nbedge, bedge->cell */
  int *bound;  /* nbedge, boundary flag as upstream: 1 = aerofoil wall, 2 = far field */
} airfoil_mesh;

/* Generate the C-mesh.  I: cells per third of the i-direction (the aerofoil
 * surface is I cells long, the wake cut I cells each side); J: cells in the
 * j-direction (wall to far field).  Both must be >= 1.  round6 != 0: round
 * every coordinate to 6 decimals exactly as upstream's writer ("%f") and a
 * subsequent read would (the published residuals are for that rounded mesh). */
int airfoil_mesh_generate(int I, int J, int round6, airfoil_mesh *m, char *err, size_t errlen);
/* The same over nthreads threads (OpenMP; each element computed alone): the same mesh, bit for bit. */
int airfoil_mesh_generate_threads(int I, int J, int round6, int nthreads, airfoil_mesh *m, char *err, size_t errlen);

/* The global counts of the mesh generate() makes: nodes, cells, edges, bedges.  0, or 1 when I or J is out of
 * range. */
int airfoil_mesh_counts(int I, int J, long long counts[4]);

/* One block of the same mesh, for a rank that declares its mesh by blocks: the elements
 * [first[s], first[s] + count[s]) of each set s (0 nodes, 1 cells, 2 edges, 3 bedges), with the same
 * coordinates, connectivity and flags as those rows of airfoil_mesh_generate()'s mesh and the map
 * targets in global (long long) numbers.  Every element is computed alone: the block costs its own
 * rows and one row of 3I+1 doubles, never the whole mesh. */
typedef struct {
  long long gsize[4]; /* the whole mesh's nodes, cells, edges, bedges */
  long long first[4]; /* this block's first element of each */
  int count[4];       /* and how many */
  double *x;          /* 2*count[0] */
  long long *cell;    /* 4*count[1] */
  long long *edge;    /* 2*count[2] */
  long long *ecell;   /* 2*count[2] */
  long long *bedge;   /* 2*count[3] */
  long long *becell;  /* count[3] */
  int *bound;         /* count[3] */
  /* the same map rows as 32-bit numbers when generated with rows32 (the five above then NULL) */
  int *cell32, *edge32, *ecell32, *bedge32, *becell32;
} airfoil_block;

/* rows32: the map rows as 32-bit global numbers (cell32 ...: every set of this mesh has at most INT_MAX elements,
 * else it fails), else 64-bit (cell ...). */
int airfoil_block_generate(int I, int J, int round6, const long long first[4], const long long count[4], int rows32,
                           airfoil_block *b, char *err, size_t errlen);
void airfoil_block_free(airfoil_block *b);
/* Collective: rank 0's whole mesh m (read there alone from a text new_grid.dat; empty elsewhere) sent out by
 * blocks, each rank the block partitioner's rows of every set (um/distributed.h: um_mpi_scatter_block) into b;
 * m is freed on every rank. A failure on any rank (memory) is every rank's, with the message in err. */
int airfoil_block_scatter(airfoil_mesh *m, airfoil_block *b, char *err, size_t errlen);

/* Read an OP2 new_grid.dat file.  Malformed files (truncated, bad or missing
 * numbers, extra fields or data, indices out of range) are rejected with a
 * message naming the file, the line and what was wrong. */
int airfoil_mesh_read_text(const char *path, airfoil_mesh *m, char *err, size_t errlen);

/* Write an OP2 new_grid.dat file (coordinates with 6 decimals, like upstream). */
int airfoil_mesh_write_text(const char *path, const airfoil_mesh *m, char *err, size_t errlen);

/* Free the arrays of a mesh and reset it to empty.  Safe on an empty mesh. */
void airfoil_mesh_free(airfoil_mesh *m);

#ifdef __cplusplus
}
#endif

#endif /* UM_APPS_AIRFOIL_NACA0012_H */
