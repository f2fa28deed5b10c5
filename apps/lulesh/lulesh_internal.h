/* LULESH on um: the state shared by lulesh.c (the time step) and lulesh_decl.c (its declaration). */
#ifndef LULESH_INTERNAL_H
#define LULESH_INTERNAL_H
#include "lulesh.h"

struct lulesh_state {
  lulesh_params p;
  int nregions;
  int *region_rep;
  um_set *nodes, *elems, *symm[3], **regions, *corners;
  um_map *elem_nodes, *elem_faces, *symm_map[3], **region_map, *elem_corners, *node_corners;
  um_dat *coord, *vel, *acc, *force, *nodal_mass;
  um_dat *e, *p_, *q, *ql, *qq, *v, *volo, *vnew, *delv, *vdov, *arealg, *ss, *elem_mass, *delx, *delv_xi,
      *delv_eta, *delv_zeta, *elem_bc;
  um_dat *fc_stress, *fc_hourglass, *node_ncorner;
  um_dat *node_symm; /* params.fused: the symmetry planes each node lies on (bit d: plane d = 0), for nodal_update */
  um_set *eos_elems; /* params.eos: merged: every region's elements, by repetition count (eos_map), and */
  um_map *eos_map;   /* each one's EOS repetitions (eos_rep) */
  um_map *eos_faces; /* merged_q: each one's element's face neighbours (elem_faces through eos_map) */
  um_dat *eos_rep;
  /* upstream's Domain scalars */
  double time, deltatime, stoptime, dtfixed, dtcourant, dthydro, dtmax, deltatimemultlb, deltatimemultub;
  int cycle;
  /* the constraints' reductions, read lazily: a GPU runs the next cycle's forces while the host waits for them */
  um_reduction *r_courant, *r_hydro, *r_err;
  int pending; /* the last constraints' results are not read yet */
};

/* Declare the mesh and the state on ctx: the whole mesh (every rank the same), or this rank's block of it
 * (lulesh_block_build; um_decl_set_block): the same sets, maps and dats in the same order. Each takes the arrays of
 * coordinates, masses, volumes and boundary codes it declares (their pointers NULL after); the block's maps too. */
int lulesh_decl_whole(um_context *ctx, lulesh_state *s, lulesh_mesh *m);
int lulesh_decl_block(um_context *ctx, lulesh_state *s, lulesh_block *b);

#endif
