/* Volna (reguly/volna at 9bab009, the OP2 version): decks, meshes, events. */
#ifndef VOLNA_H
#define VOLNA_H

#include <stddef.h>
#include "expr.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- the deck (.vln) ------------------------------------------------------------ */

typedef enum {
  VL_INIT_ETA = 0,
  VL_INIT_U,
  VL_INIT_V,
  VL_INIT_BATHYMETRY,
  VL_INIT_BATHYRELATIVE,
  VL_INIT_GAUSSIAN_LANDSLIDE,
  VL_OUT_TIME,
  VL_OUT_CONSERVED,
  VL_OUT_LOCATION,
  VL_OUT_SIMULATION,
  VL_OUT_MAX_ELEVATION,
  VL_OUT_MAX_SPEED,
  VL_NEVENT_KINDS
} vl_event_kind;

const char *vl_event_name(int kind);

/* An event's timer as upstream stores it after its pre-processor (floats
 * for times, unsigned for iterations; step given -> istep = INT_MAX). */
typedef struct {
  double start, end, step;
  unsigned istart, iend, istep;
  /* state */
  double t, local_time;
  unsigned iter, local_iter;
} vl_timer;

typedef struct {
  int kind;
  int line;            /* where it is in the deck */
  int post_update;     /* 1: after the step (outputs), 0: before (inits) */
  vl_timer timer;
  vl_expr *formula;    /* Init Eta/U/V/Bathymetry/BathyRelative */
  char *formula_text;  /* as written */
  char stream[256];    /* output name ("cout": the log) */
  float x, y;          /* OutputLocation */
  float A, v, lx, ly;  /* GaussianLandslide */
} vl_event;

typedef struct {
  char file[1024];     /* the deck, for messages */
  char dir[1024];      /* its folder: a mesh file is found relative to it */
  double final_time;   /* Time { end }, float as upstream */
  double dtmax;        /* Time { dtmax } */
  float g, cfl;
  int rectangle;       /* 1: Mesh Rectangle, 0: Mesh "file.msh" */
  float xmin, xmax, ymin, ymax;
  int nx, ny;
  char mesh_file[1024];
  int mesh_line;
  int nevents;
  vl_event *events;
} vl_deck;

/* Reads a deck; errors name file:line and what to do. */
int vl_deck_read(const char *path, vl_deck *d, char *err, size_t errlen);
/* The same from text in memory (`name` for messages, `dir` for mesh paths). */
int vl_deck_parse(const char *text, size_t n, const char *name, const char *dir, vl_deck *d, char *err,
                  size_t errlen);
void vl_deck_free(vl_deck *d);

/* ---- the mesh --------------------------------------------------------------------- */

typedef struct {
  int nnodes, ncells, nedges;
  float *node_xy;    /* nnodes x 2 */
  int *cell_nodes;   /* ncells x 3 */
  int *cell_cells;   /* ncells x 3 (a missing neighbour: the cell itself) */
  int *cell_edges;   /* ncells x 3 */
  int *edge_cells;   /* nedges x 2 (left, right; a boundary edge: left twice) */
  int *is_boundary;  /* nedges */
  float *cell_xy;    /* centres, ncells x 2 */
  float *cell_area;  /* ncells */
  float *edge_normal;/* nedges x 2, unit, from left to right */
  float *edge_length;/* nedges */
  float xmin;        /* smallest x of the cells' nodes (a node no cell uses left out) */
} vl_mesh;

/* Mesh Rectangle xmin xmax ymin ymax nx ny, numbered as upstream's
 * pre-processor numbers it (2 nx ny cells), with its connectivity and geometry. */
int vl_mesh_rectangle(float xmin, float xmax, float ymin, float ymax, int nx, int ny, vl_mesh *m, char *err,
                      size_t errlen);
/* The same over nthreads of the host's threads (um_context_host_threads): the same mesh, bit for bit, for any
 * count; so are vl_mesh_gmsh_threads and vl_mesh_finish_threads (one thread: the functions without). */
int vl_mesh_rectangle_threads(float xmin, float xmax, float ymin, float ymax, int nx, int ny, int nthreads,
                              vl_mesh *m, char *err, size_t errlen);
/* A Gmsh ASCII mesh (format 2), read by the shared reader (um/gmsh.h): triangles
 * become cells, nodes float; lines and points are ignored (upstream has only
 * reflective walls), anything else is an error. */
int vl_mesh_gmsh(const char *path, vl_mesh *m, char *err, size_t errlen);
int vl_mesh_gmsh_threads(const char *path, int nthreads, vl_mesh *m, char *err, size_t errlen);
int vl_mesh_gmsh_parse(const char *text, size_t n, const char *name, vl_mesh *m, char *err, size_t errlen);
/* From cells given by their nodes: edges, neighbours, centres, areas, normals
 * as upstream computes them. `where` names each cell for messages (NULL: "cell i"). */
int vl_mesh_finish(vl_mesh *m, const char *name, const int *cell_line, char *err, size_t errlen);
int vl_mesh_finish_threads(vl_mesh *m, int nthreads, const char *name, const int *cell_line, char *err,
                           size_t errlen);
void vl_mesh_free(vl_mesh *m);

/* ---- the mesh by blocks (under mpirun, mpi.mesh: blocks): read whole on rank 0, each rank sent its block ---- */

typedef struct {
  long long first[3];                              /* this rank's block of the nodes, cells, edges */
  int count[3];                                    /* its rows of each (um_block_range) */
  float *node_xy;                                  /* count[0] x 2 */
  long long *cell_nodes, *cell_edges, *cell_cells; /* count[1] x 3, global numbers */
  float *cell_xy, *cell_area;                      /* count[1] x 2, count[1] */
  long long *edge_cells;                           /* count[2] x 2, global numbers */
  int *is_boundary;                                /* count[2] */
  float *edge_normal, *edge_length;                /* count[2] x 2, count[2] */
} vl_block;

/* Collective: rank 0's whole mesh m (read or generated there) sent out by blocks, the block partitioner's ranges
 * of each set (um/distributed.h: um_mpi_scatter_block). On return every rank's m has the global sizes and xmin and
 * no arrays (rank 0's are freed once sent), and b its rows. A failure (memory on some rank) is every rank's, with
 * the message in err. */
int vl_block_scatter(vl_mesh *m, vl_block *b, char *err, size_t errlen);
void vl_block_free(vl_block *b);

/* ---- the exact Stoker solution of the dam break ------------------------------------ */

/* Flat bottom, depth hl for x < x0, hr beyond, at rest: the middle state
 * (hm, um) and the shock speed. */
void vl_stoker_state(double g, double hl, double hr, double *hm, double *um, double *s);
/* Depth and velocity at (x, t). */
void vl_stoker(double g, double hl, double hr, double x0, double x, double t, double *h, double *u);

#ifdef __cplusplus
}
#endif
#endif
