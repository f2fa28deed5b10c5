/* LULESH 2.0 on um: the Sedov blast problem (Lagrangian hydrodynamics on a
 * hex8 mesh) as in LLNL's proxy app, on the engine's sets, maps and loops.
 *
 * The mesh is generated as upstream does (edge of `size` elements, (size+1)^3
 * nodes, one domain) but reaches the loops only through maps. */
#ifndef LULESH_H
#define LULESH_H
#include <stdint.h>
#include "um/um.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Upstream's command-line options (-s, -r, -b, -c, -i) and the force scheme. */
typedef enum {
  LULESH_FORCES_INC = 0, /* element loops INC forces through elem -> nodes (engine strategies) */
  LULESH_FORCES_GATHER   /* upstream's threaded scheme: per-corner forces, then a node gather */
} lulesh_forces;

typedef struct {
  int size;        /* elements along an edge (upstream -s, default 30) */
  int regions;     /* material regions (-r, default 11)                 */
  int balance;     /* region size weights (i+1)^balance (-b, default 1) */
  int cost;        /* extra EOS repetitions of costly regions (-c, 1)   */
  int max_cycles;  /* iteration cap (-i); <= 0: run to the end time     */
  lulesh_forces forces;
  int fused;       /* 1: fused loops (stress + hourglass, kinematics + Q gradients,
                      one node update, volumes + constraints); 0: one loop per
                      upstream function */
  int eos_merged;  /* 1: the EOS of every region and the volume constraints in one loop over all elements
                      (eos_constraints, regions in order, each element repeating its region's EOS); needs
                      fused. 2 (LULESH_EOS_MERGED_Q): the same loop computing each element's monotonic Q
                      first (q_eos_constraints; no monoq loop, no qq/ql arrays). 0: one loop per region
                      (eos_r<k>), as upstream */
  int by_blocks;   /* 1: under MPI every rank generates and declares only its block of every set (um_mpi_rank's
                      of um_mpi_size, lulesh_block_build; um_decl_set_block), none holds the whole mesh; needs
                      strips 0. 0: every rank declares the whole mesh */
  int strips;      /* 1: the elements renumbered in strips two rows high ((i, j, k) then (i, j + 1, k)) after the
                      set-up, so a warp's elements share nodes in x and y (cuda.warp_combine pairs both); 0:
                      upstream's numbering, x fastest */
  int threads;     /* host threads of lulesh_mesh_build (OpenMP; there <= 1: one; lulesh_setup: 0 the context's,
                      um_context_host_threads): the same mesh for any count */
  int rows64;      /* lulesh_block_build: 64-bit rows even where 32 bits hold every number (the tests) */
  int declare_halo; /* by_blocks: each rank declares its block's halo (lulesh_block_halo, um_decl_set_halo_block),
                       which "ranges" takes (the other partitioners find their own): set where umrun runs ranges */
} lulesh_params;

/* lulesh_params.eos_merged's value for params.eos: merged_q */
#define LULESH_EOS_MERGED_Q 2

void lulesh_params_default(lulesh_params *p);

/* The generated mesh and initial state, in upstream's numbering (host arrays). */
typedef struct {
  int nx, nelem, nnode;
  double *coord;      /* nnode x 3 */
  int *elem_nodes;    /* nelem x 8 */
  int *elem_faces;    /* nelem x 6: xi-, xi+, eta-, eta+, zeta-, zeta+ */
  int *elem_bc;       /* nelem: LU_* boundary bits */
  int *symm[3];       /* (nx+1)^2 nodes each: the x = 0, y = 0, z = 0 planes */
  int nsymm;
  int nregions;
  int *region_size;   /* nregions */
  int **region_elems; /* nregions lists, ascending */
  int *region_rep;    /* EOS repetitions per region (cost model) */
  double *volo, *elem_mass, *nodal_mass;
  double einit, dt_init;
} lulesh_mesh;

/* Build the mesh as upstream's Domain constructor does (one domain).
 * Returns 0, or nonzero with a message in err. */
int lulesh_mesh_build(const lulesh_params *p, lulesh_mesh *m, char *err, size_t errlen);
void lulesh_mesh_free(lulesh_mesh *m);

/* This rank's block of the generated mesh (lulesh_block_build): of each set a range [first, first + count), the
 * blocks of the ranks in rank order tiling it: the nodes', the symmetry planes' and eos_elems' the block
 * partitioner's ranges (um_block_range); the elements those whose first corner is one of the rank's nodes; each
 * region's list its elements in the rank's element block. Its rows computed alone, the same bits as
 * lulesh_mesh_build's rows; map targets are global numbers (um_decl_map_block). Sets: the nodes, the elements, the
 * symmetry planes (one set each, (nx+1)^2 nodes, in the whole mesh's list order), each region (its ascending
 * element list), eos_elems (params.eos: merged: every element, ordered by its region's repetition count,
 * descending, then by number, as lulesh.c's whole declaration) and the gather scheme's element corners (corner j
 * of element e is j * nelem + e). */
typedef struct {
  int nx;
  long long nnode, nelem, nsymm;     /* global sizes */
  long long node_first, elem_first, symm_first, eos_first, corner_first;
  int node_count, elem_count, symm_count, eos_count, corner_count;
  double *coord, *nodal_mass;        /* node_count x 3, node_count */
  int *node_symm;                    /* node_count: bit d set on the plane d = 0 */
  int *node_ncorner;                 /* node_count: its elements (the gather scheme's corners) */
  long long *node_corners;           /* node_count x 8: its corners in element order, padded with the first */
  long long *elem_nodes, *elem_faces; /* elem_count x 8, x 6; NULL when the 32-bit rows below hold them */
  int *elem_nodes32, *elem_faces32;   /* the same as 32-bit numbers, when the mesh's nodes and elements number at
                                         most INT_MAX (and not rows64) */
  int *elem_bc;                      /* elem_count */
  double *volo;                      /* elem_count (also the element masses: unit density) */
  long long *symm[3];                /* symm_count each */
  int nregions;
  int *region_rep;                   /* nregions: EOS repetitions */
  long long *region_size, *region_first; /* nregions: global sizes, this rank's firsts */
  int *region_count;                 /* nregions */
  long long **region_elems;          /* nregions lists of region_count[r] element numbers */
  long long *eos_elems;              /* eos_count element numbers */
  int *eos_rep;                      /* eos_count */
  double einit, dt_init;
} lulesh_block;

/* A rank's halo of a block of the generated mesh (lulesh_block_halo), as the "ranges" distribution finds it for the
 * element-node map (not read-only), the face map (read-only) and the regions' maps (into the rank's own elements):
 * the exec elements (the other ranks' elements with a node in the rank's node block) with their rows of both maps,
 * the non-exec elements (face neighbours of the owned and exec elements, neither) and the non-exec nodes (the
 * owned and exec elements' nodes outside the block); global numbers, ascending. */
typedef struct {
  int nexec, nnonexec_elems, nnonexec_nodes;
  long long *exec, *exec_nodes, *exec_faces; /* nexec, x 8, x 6 */
  long long *nonexec_elems, *nonexec_nodes;
} lulesh_halo;

/* Block b's halo into h: 0, or 1 when out of memory (h then holds nothing). */
int lulesh_block_halo(const lulesh_block *b, lulesh_halo *h);
void lulesh_halo_free(lulesh_halo *h);

/* Build rank `rank`'s block of `nranks` (0 of 1: the whole mesh). Every rank replays the region sequence from the
 * first element (O(elements) time, O(regions) memory). Returns 0, or nonzero with a message in err. */
int lulesh_block_build(const lulesh_params *p, int rank, int nranks, lulesh_block *b, char *err, size_t errlen);
void lulesh_block_free(lulesh_block *b);
/* Node n's symmetry planes as bits (bit d: on the plane d = 0). */
int lulesh_node_symm_bits(int nx, long long n);

/* glibc's rand() sequence (TYPE_3 additive feedback generator), which upstream's
 * region assignment draws from after srand(0); reproduced so regions match on
 * every C library. */
typedef struct {
  int32_t r[31];
  int front, rear;
} lulesh_rand;
void lulesh_srand(lulesh_rand *g, unsigned seed);
int lulesh_rand_next(lulesh_rand *g);

/* Results of a run (host values). */
typedef struct {
  int cycles;
  double time, dt;
  double origin_energy;
  double sym_max_abs, sym_total_abs, sym_max_rel;
} lulesh_result;

/* Declare everything on ctx and run to the end time (or the cycle cap).
 * Used by the app and by the tests. progress (may be NULL) is called after each cycle. */
typedef struct lulesh_state lulesh_state;
int lulesh_setup(um_context *ctx, const lulesh_params *p, lulesh_state **out, char *err, size_t errlen);
/* One time step (TimeIncrement + LagrangeLeapFrog). *done becomes 1 at the end. */
int lulesh_step(um_context *ctx, lulesh_state *s, int *done, char *err, size_t errlen);
int lulesh_finish(um_context *ctx, lulesh_state *s, lulesh_result *res, char *err, size_t errlen);
void lulesh_state_free(lulesh_state **s);
/* Current cycle, simulated time and stop time (for progress). */
void lulesh_state_progress(const lulesh_state *s, int *cycle, double *time, double *stoptime);
/* The host values a cycle carries to the next (upstream's Domain scalars: time, dt and its constraints, cycle), the
 * i-th as (name, address, bytes) for checkpoints; 0 past the last. */
int lulesh_state_value(lulesh_state *s, int i, const char **name, void **p, size_t *bytes);
/* The last cycle's time constraints read now (a GPU leaves them for the next cycle): the state complete at a step
 * boundary, for a checkpoint. */
int lulesh_settle(um_context *ctx, lulesh_state *s, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
