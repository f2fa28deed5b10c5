/* SIAC's meshes: triangles of the periodic unit square [0,1)^2 (uniform, read
 * from Gmsh, refined), the kernel scale h and each cell's neighbourhood (the
 * cells the filter's stencil of a point in it can reach, periodic images
 * included). Plain C11; the Gmsh file is parsed by the shared reader (um/gmsh.h). */
#ifndef SIAC_MESH_H
#define SIAC_MESH_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A triangle mesh of the unit square. Arrays malloc'd, freed by siac_mesh_free. */
typedef struct {
  int nnodes, ncells;
  double *xy; /* 2 per node */
  int *tri;   /* 3 per cell, counter-clockwise */
} siac_mesh;

/* n x n squares of the unit square, 2 triangles each (2n^2 cells; nodes row by
 * row, y outer; square (i, j) gives cells 2(j n + i) (lower right) and +1 (upper left)). */
int siac_mesh_uniform(int n, siac_mesh *m, char *err, size_t errlen);

/* A Gmsh ASCII format 2 mesh (gmsh -2 -format msh22; scripts/siac-meshes.sh
 * makes them) through the shared reader: its triangles in file order. Checks
 * that every node lies in [0,1]^2 (within 1e-12, then clamped; the message
 * names the node, its Gmsh id and its line), turns clockwise triangles
 * counter-clockwise and rejects degenerate ones (naming the element's line), repeated triangles, holes and
 * overlaps, then what siac_mesh_conforming refuses (duplicate or unused nodes, unshared edges). */
int siac_mesh_read(const char *path, siac_mesh *m, char *err, size_t errlen);

/* What every mesh check shares (siac_mesh.c): how far outside [0,1]^2 a node may lie, and the degenerate bound:
 * |2 area| <= SIAC_DEGENERATE x (longest edge)^2. */
#define SIAC_NODE_TOL 1e-12
#define SIAC_DEGENERATE 1e-12
/* Twice the signed area of triangle t (three node numbers into xy); *degenerate 1 where that is within the bound
 * above, or two corners are one node. */
double siac_tri_orient(const double *xy, const int *t, int *degenerate);
/* Whether the areas of n triangles, summed to `area`, tile the unit square (1 within round-off). */
int siac_areas_tile(double area, long long n);
/* An edge of a cell (slot 3c + j: from corner j to corner j+1 of cell c) by its sorted nodes; forward: the cell
 * runs it lo -> hi. */
typedef struct {
  int lo, hi, slot, forward;
} siac_edge;
/* The 3 ncells edges of m sorted by (lo, hi, slot), so that a shared edge's slots stand together; malloc'ed, or
 * NULL when out of memory. */
siac_edge *siac_mesh_edges(const siac_mesh *m);

/* The conformity a mesh SIAC did not make must have (siac_mesh_check.c): at least one triangle; every node a
 * triangle's corner and no two nodes at one place (a node given twice splits the edge its triangles share); every
 * edge inside the square a side of exactly two triangles that run it opposite ways, an edge on a side of the square
 * of one (no overlap, no gap, no hanging node). Triangles counter-clockwise, coordinates in [0,1]^2. `what` (a file)
 * starts the message; node_ids (Gmsh ids, or NULL) and tri_lines (a triangle's line, or NULL) name where. 0, or -1
 * with the reason and what to do in err. */
int siac_mesh_conforming(const siac_mesh *m, const char *what, const int *node_ids, const int *tri_lines, char *err,
                         size_t errlen);
/* The whole check of a mesh read from elsewhere (params.solution's HDF5 file): node numbers in range, coordinates
 * finite and in [0,1]^2, triangles counter-clockwise (a clockwise one is refused, not turned: a solution's
 * coefficients follow its corners' order) and not degenerate, areas summing to 1, then siac_mesh_conforming. */
int siac_mesh_check(const siac_mesh *m, const char *what, char *err, size_t errlen);

/* Each triangle into 4 by its edge midpoints (a midpoint made once per edge:
 * no duplicate nodes); the input's nodes first, then the midpoints; cell c's
 * children are 4c .. 4c+3 (the three corners, then the middle one). */
int siac_mesh_refine(const siac_mesh *in, siac_mesh *out, char *err, size_t errlen);

/* Free the arrays and zero the mesh (safe twice). */
void siac_mesh_free(siac_mesh *m);

/* 6 per cell: x0 y0 x1 y1 x2 y2, the vertices in the cell's (ccw) order. */
void siac_mesh_cellxy(const siac_mesh *m, double *cellxy);

/* The kernel scale h: the largest side of any cell's bounding box (1/n on the uniform mesh). */
double siac_mesh_h(const siac_mesh *m);

/* The neighbourhoods. Cell T is a neighbour of cell C when T's bounding box,
 * moved to its periodic image nearest to C, meets C's bounding box grown by
 * `reach` on every side; C is its own neighbour. Per axis, with b the box
 * centre, w the box half-width and g the centroid:
 *     s = -1 if g_T - g_C > 0.5, +1 if g_T - g_C < -0.5, else 0
 *     meet iff |(b_T - b_C) + s| <= (w_T + w_C) + reach   (both axes)
 * (symmetric in C and T, bit for bit). Stored padded to a fixed arity (the
 * largest count): row c of *nbr (ncells x arity) holds its count[c] neighbours
 * in increasing cell number, then c repeated. Found with a periodic uniform
 * grid of bins no smaller than reach: O(cells x neighbours). Fails, with what
 * to do, when 2 reach + 2 (largest cell diameter) >= 1 (a cell could meet two
 * images of one cell: the mesh is too coarse for the degree). Searched on
 * `threads` OpenMP threads (0: OpenMP's default, OMP_NUM_THREADS; one in a
 * build without OpenMP): the same rows for any number. *nbr and *count are
 * malloc'd (free them); NULL on failure. */
int siac_neighbours(const siac_mesh *m, double reach, int threads, int *arity, int **nbr, int **count, char *err,
                    size_t errlen);

/* The uniform mesh by blocks: the nodes [first[0], first[0] + count[0]) and the cells [first[1], ...) of
 * siac_mesh_uniform(n)'s numbering, every row computed alone (the same bits as the whole mesh's), with the
 * neighbourhoods of the block's cells as siac_neighbours finds them (the same predicate, over the cells of the
 * squares within reach): row q's count[q] neighbours in increasing cell number, rows `cap` apart until
 * siac_uniform_block_pad sets the arity (the largest count over every block: the caller's reduction) and pads
 * them with their cell. Checks the mesh is fine enough for the reach as siac_neighbours does. 0, or -1 with err. */
typedef struct {
  int n;
  long long nnodes, ncells, node_first, cell_first;
  int node_count, cell_count;
  double *xy;     /* node_count x 2 */
  long long *tri; /* cell_count x 3 global node numbers */
  double *cellxy; /* cell_count x 6 (siac_mesh_cellxy's) */
  int *count;     /* cell_count: neighbours */
  long long *nbr; /* cell_count rows, `cap` apart: global cell numbers */
  int most, cap;  /* the block's largest count; the rows' spacing */
} siac_uniform_block;
int siac_uniform_block_make(int n, double reach, const long long first[2], const int count[2], siac_uniform_block *b,
                            char *err, size_t errlen);
void siac_uniform_block_pad(siac_uniform_block *b, int arity);
void siac_uniform_block_free(siac_uniform_block *b);
/* siac_mesh_h of the uniform n x n mesh, without it. */
double siac_uniform_h(int n);

/* Neighbour counts for the app's report. */
typedef struct {
  int min, max;   /* fewest and most neighbours of a cell (max = the arity) */
  double mean;    /* mean neighbours per cell */
  long long total;/* all (cell, neighbour) pairs */
} siac_nbr_stats;

/* The statistics of count[0 .. ncells-1] (from siac_neighbours). */
void siac_neighbour_stats(const int *count, int ncells, siac_nbr_stats *s);

#ifdef __cplusplus
}
#endif

#endif
