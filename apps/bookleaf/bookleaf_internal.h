/* bookleaf_internal.h: what BookLeaf's solver sources share (bookleaf.c: inputs, declarations and
 * the run; bookleaf_step.c: the Lagrangian step and the ALE remap; bookleaf_report.c: the region
 * tables, metrics and outputs): the config and solver records, the argument shorthands and the
 * functions each defines for the others. */
#ifndef BOOKLEAF_INTERNAL_H
#define BOOKLEAF_INTERNAL_H

#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "um/app.h"
#include "bookleaf.h"
#include "bookleaf_kernels.h"
#include "um/hdf5io.h"
#include "um/reorder.h"
#include "um/safe_file.h"

enum { SCHEME_INC, SCHEME_UPSTREAM, SCHEME_GATHER }; /* params.scheme, in the order of its choices (bookleaf.c) */
enum { VISC_AUTO, VISC_FUSED, VISC_LOOPS };       /* params.visc, in the order of its choices */

typedef struct {
  bl_deck deck;
  const char *deck_path;
  int scheme, print_every, sod_check, max_steps, fused, visc, zhg, zsp, ztq; /* visc: VISC_* */
  int nmat; /* materials of the deck (several: mixed cells possible) */
  int eos_type[BL_MAXREG];
  double eos_param[BL_MAXREG][BL_NEOS];
} bl_config;

typedef struct {
  um_context *ctx;
  const bl_config *cfg;
  um_set *el, *nd;
  um_map *elnd, *elel, *ndel; /* ndel: node -> its elements (params.scheme=gather only) */
  um_map *viscnd; /* the neighbours' far corners (params.visc: fused only; bl_visc) */
  um_dat *rho, *e, *e0, *p, *cs2, *visc, *mass, *vol, *iso, *cnwt, *cnmass, *cnf, *cnvisc, *edge, *evisc, *nbr, *reg,
      *mat, *id, *scratch, *scratch_div, *spmass, *ndcorner;
  um_dat *x, *u, *ubar, *acc, *type;
  um_reduction *wmin, *wmax; /* getdt's CFL minimum and divergence maximum, read after both loops are queued */
  double wmin_value, wmax_value; /* their last values (bl_dt_element) */
  /* the ALE remap (Eulerian decks) */
  um_dat *x0, *fcdv, *fcdm, *vm0, *eflux, *cnm0, *cnd, *cnflux, *cnu, *mflux, *nbasis, *nflux;
  /* mixed-material cells (bookleaf_mix.c; NULL in a deck without): the components (each on its cell's rank), and
   * the mixed cells with their components through mixed_components (K a row, the row's count in mxn) */
  um_set *cp, *mx;
  um_map *cpel, *cpnd, *mxel, *mxcp;
  um_dat *cpmat, *cpfr, *cpfrm, *cpmass, *cpe, *cprho, *cpvol, *cpp, *cpcs2, *cpf, *mxn;
  int nmx, ncp, nmat;
  int *cpel_orig, *cpmat_orig; /* the components' cells and materials, for the report */
  /* the mesh's own numbering, for reports and outputs */
  int nel, nnd, nreg;
  int *elnd_orig, *elreg_orig;
  char region_name[BL_MAXREG][BL_SLEN], material_name[BL_MAXREG][BL_SLEN];
  int *elmat_orig;
  /* time */
  int nstep;
  double time, dt;
} bl_solver;

#define D(dat, idx, map, dim, acc) um_arg_dat((dat), (idx), (map), (dim), UM_DOUBLE, (acc))
#define I(dat, idx, map, dim, acc) um_arg_dat((dat), (idx), (map), (dim), UM_INT, (acc))
#define G(ptr, dim, type, acc) um_arg_gbl((void *)(ptr), (dim), (type), (acc))
/* Declare a dat where nothing failed yet (`rc` and `ctx` of the declaring function). */
#define DAT(set, dim, type, data, name, out) \
  if (!rc) rc = um_decl_dat(ctx, set, dim, type, data, name, out)

typedef struct {
  double dt;
  int el;
  const char *why;
  int reason;
} dt_choice;
enum { DT_MAXIMUM, DT_GROWTH, DT_INITIAL, DT_CFL, DT_DIV, DT_NREASONS };
static const char *const reason_names[DT_NREASONS] = {"maximum", "growth", "initial", "cfl", "div"};

typedef struct {
  double vol, mass, ie, ke, p, pmin, pmax, rho, rmin, rmax;
} bl_row;

/* A table's rows and the fields it was made from: the whole fields in upstream's numbering (blocks 0), or, where
 * the run holds no whole numbering (a mesh declared by blocks), this rank's block of the elements (elements
 * [b0, b0 + n) in upstream's numbering): its fields, regions and its elements' corner velocities uc and (filled by
 * bl_table_corners_x) coordinates xc, 8 a row. The rows' sums go through the blocks in rank order. */
typedef struct {
  bl_row reg[BL_MAXREG], mat[BL_MAXREG], total;
  double *rho, *e, *p, *vol, *mass, *cnwt, *x, *u;
  int blocks, n, *region, *material;
  long long b0;
  double *uc, *xc;
  double *cp; /* the components' state in upstream's order (bl_mix_table), BL_CP_NCOL columns of S->ncp each */
} bl_table;
/* t->cp's columns (the outputs write them in this order, after each component's cell and material) */
enum { BL_CP_FRACTION, BL_CP_VOLUME, BL_CP_MASS, BL_CP_DENSITY, BL_CP_ENERGY, BL_CP_PRESSURE, BL_CP_NCOL };

/* bookleaf_step.c */
int bl_step_eos(bl_solver *S);
/* The four corners of a nodal 2-vector of each element into S->cnvisc (the tables by blocks). */
int bl_corners_into_cnvisc(bl_solver *S, um_dat *nodal);
/* The time step and why (out->el 0: the controlling element not looked for yet: bl_dt_element). */
int bl_getdt(um_app_run *r, bl_solver *S, dt_choice *out);
/* The element that controls a CFL or divergence time step (upstream's, for the printed line and the metric). */
int bl_dt_element(bl_solver *S, dt_choice *c);
int bl_lagstep(um_app_run *r, bl_solver *S);
int bl_alestep(um_app_run *r, bl_solver *S);

/* bookleaf_mix.c: mixed-material cells (each a no-op without) */
int bl_mix_declare(um_app_run *r, bl_solver *S, const bl_mesh *m, const double *vol, const double *mass);
int bl_mix_geteos(bl_solver *S);
int bl_mix_getcs2(bl_solver *S);
int bl_mix_getforce(bl_solver *S, int corrector);
int bl_mix_getstate(bl_solver *S, int corrector);
void bl_mix_free(bl_solver *S);
/* The material rows of Table 2 (pure cells, then components) into t->mat, and the components' state into t->cp; the
 * fields of t already fetched. */
int bl_mix_table(um_app_run *r, bl_solver *S, bl_table *t);
int bl_material_metrics(um_app_run *r, const bl_solver *S, const bl_table *t);

/* bookleaf_report.c */
/* The log's notes on the materials' EOS: a material of the deck with no eos_type runs VOID; an eos_type given for a
 * material the deck does not have (upstream reads and ignores it) is said with its line, and named in the first note
 * as the one perhaps meant. */
void bl_eos_notes(FILE *log, const bl_config *c, const bl_solver *S);
void bl_row_add(bl_row *w, double dencut, double vol, double mass, double e, double p, double rho, const double *cnwt,
                const int *nodes, const double *u);
void bl_table_free(bl_table *t);
int bl_table_fill(um_app_run *r, bl_solver *S, bl_table *t);
/* A table by blocks: its elements' corner coordinates (t->xc), for the Sod L1 norm. */
int bl_table_corners_x(um_app_run *r, bl_solver *S, bl_table *t);
void bl_print_table(FILE *f, const bl_solver *S, const bl_table *t, const char *title);
int bl_sod_l1(um_app_run *r, const bl_solver *S, const bl_table *t, double *l1);
int bl_region_metrics(um_app_run *r, const bl_solver *S, const bl_table *t);
int bl_row_metrics(um_app_run *r, const char *prefix, const bl_row *w);
int bl_write_fields(um_app_run *r, bl_solver *S, const bl_table *t);
int bl_write_hdf5(um_app_run *r, bl_solver *S, const bl_table *t);

#endif
