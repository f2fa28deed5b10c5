/* volna_internal.h: what Volna's solver sources share (volna.c: formulas, the solver, events, the
 * step and the run; volna_output.c: outputs and metrics): the solver record, the argument shorthands
 * and the functions volna_output.c defines. */
#ifndef VOLNA_INTERNAL_H
#define VOLNA_INTERNAL_H

#include <errno.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "um/app.h"
#include "volna.h"
#include "volna_kernels.h"
#include "um/hdf5io.h"
#include "um/reorder.h"
#include "um/safe_file.h"

#define F(dat, idx, map, dim, acc) um_arg_dat((dat), (idx), (map), (dim), UM_FLOAT, (acc))
#define FD(dat, dim, acc) um_arg_dat((dat), -1, UM_ID, (dim), UM_FLOAT, (acc))

typedef struct {
  const vl_expr *expr;
  int kind;  /* VL_INIT_* */
  int nargs; /* 3; bathymetry 4 (the update's first-time flag); BathyRelative 5 (the initial bathymetry, the flag) */
} vl_formula;


typedef struct {
  um_app_run *r;
  um_context *ctx;
  vl_deck deck;
  vl_mesh mesh;  /* whole (or, by blocks, the global sizes and xmin; the arrays fetched whole for outputs) */
  int blocks;     /* the mesh declared by blocks: read whole on rank 0 and sent out (mesh_blocks.c) */
  vl_block block; /* this rank's rows while they are declared */
  int *gauge_cell; /* each gauge's cell (upstream's point location), found where the whole mesh was read */
  int west;        /* some cell's centre has x < 0 (the GaussianLandslide note) */
  int exact;
  double stoker_hl, stoker_hr, stoker_x0;
  long max_steps;
  int progress;
  um_set *nodes, *edges, *cells, *gauges;
  um_map *cell_nodes, *cell_edges, *cell_cells, *edge_cells, *gauge_cells;
  um_dat *node_xy, *cell_xy, *area, *normal, *length, *boundary;
  um_dat *values, *mid_c, *out_c, *mid, *bsrc, *flux, *max_eig, *zb0, *max_el, *max_sp, *gauge_v;
  um_reduction *dt, *unused_dt; /* the time step's minimum (read after its stage is queued); the second stage's (not read) */
  /* formula kernels, one per formula event */
  int nformulas;
  vl_formula *formulas;
  const um_kernel **fkernels; /* the context's copies (um_decl_kernel) */
  char **fsources, **fnames, **fheaders;
  int *event_formula; /* event -> formula index or -1 */
  /* events still active (upstream removes finished ones) */
  int *active, nactive;
  int have_zb0, zb0_set;
  int ngauges, *gauge_event;
  /* the gauges' samples as they come, every gauge's in one growing block (a checkpoint saves it whole): rows of
   * VL_GAUGE_ROW doubles (gauge, t, eta, H, U, V, Zb) */
  void *gseries;
  size_t gbytes, gcap; /* bytes used, bytes allocated */
  long last_gather_iter;
  vl_timer *timers; /* the events' timers, copied here for a checkpoint and back on a restart */
  /* time */
  double timestamp;
  long itercount;
  double dt_first, dt_min, dt_max, prev_dt;
  int maxel_init, maxsp_init;
} vl_solver;

#define VL_GAUGE_ROW 7

/* volna_output.c */
int vl_write_fields_h5(vl_solver *S, const um_dat *dat, const char *stream, unsigned iter);
int vl_write_gauges(vl_solver *S);
/* UM_ERR_CONFIG (said) when two output events would write one file (naming both deck lines) or one has no file name. */
int vl_outputs_distinct(vl_solver *S);
int vl_write_cells(vl_solver *S, const char *path);
int vl_diagnostics_sum(vl_solver *S, double *sum, double *mn, double *mx);
int vl_metrics(vl_solver *S, double vol0, double per_step);
/* volna_start.c: the state the deck's Init events made at step 0 (rc, sum, mn, mx: vl_diagnostics_sum's), refused
 * (UM_ERR_CONFIG, said with the deck's Init lines and what to write) where it is not finite, has a negative depth,
 * or has no water with no Time dtmax (a dry start with dtmax is said in a note). */
int vl_check_start(vl_solver *S, int rc, const double *sum, const double *mn, const double *mx);

#endif
