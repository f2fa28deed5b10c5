/* miniAero on um: Mantevo's 3D compressible Navier-Stokes mini-app (Sod shock
 * tube, viscous flat plate, inviscid ramp) as sets, maps, dats and loops.
 *
 * Config (upstream's miniaero.inp entries in brackets):
 *   mesh.file or params.inp: miniaero.inp    read an upstream deck as it stands;
 *                                            params.* and run.iterations below override it
 *   params.problem: sod | flat_plate | ramp  (or 0, 1, 2) [problem_type]
 *   params.lx, ly, lz, angle                 domain lengths, ramp angle in degrees
 *   params.nx, ny, nz                        cells per direction
 *   run.iterations                           time steps [ntimesteps]
 *   params.dt                                fixed time step
 *   params.second_order: false               Green-Gauss gradients + Venkatakrishnan limiter
 *   params.viscous: false                    Newtonian viscous fluxes
 *   params.output_frequency: 100             a line every this many steps
 *   params.scheme: inc | atomics | slots     how face contributions reach cells:
 *       inc      INC through face -> cell maps, the engine's strategy (run.strategy)
 *       atomics  the same loops forced to the atomics strategy (upstream's default build)
 *       slots    each face writes its own slot of its cells; a cell loop sums the
 *                six slots (upstream's gather-sum build, -DCELL_FLUX)
 *   params.gradients: auto | faces | cells   Green-Gauss gradients as face loops (upstream) or as a
 *                                            cell loop over the six neighbours (no increments);
 *                                            auto: cells for the inc scheme, faces for upstream's two
 *   output: {dir, hdf5, results}             results.0 (upstream's format), miniaero.h5 + .xmf
 *
 * Sets: cells; faces (interior); bc_extrapolate, bc_tangent, bc_inflow,
 * bc_noslip (boundary faces by kind, only those the problem has); slots (six
 * per cell) for the slot scheme; nodes for the HDF5/XDMF output.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "um/app.h"
#include "miniaero.h"
#include "miniaero_kernels.h"
#include "um/hdf5io.h"
#include "um/reorder.h"
#include "um/safe_file.h"

extern const char miniaero_kernels_source[];
#define MA_KERNEL(fn, n) UM_KERNEL_DEFINE(fn, n, miniaero_kernels_source, "miniaero_kernels.h")
MA_KERNEL(ma_stage, 5);
MA_KERNEL(ma_stage_g, 6);
MA_KERNEL(ma_stage_s, 4);
MA_KERNEL(ma_grad_face_inc, 7);
MA_KERNEL(ma_grad_face_slot, 7);
MA_KERNEL(ma_grad_bface_inc, 4);
MA_KERNEL(ma_grad_bface_slot, 4);
MA_KERNEL(ma_grad_gather, 7);
MA_KERNEL(ma_grad_cell, 10);
MA_KERNEL(ma_minmax, 9);
MA_KERNEL(ma_limiter, 7);
MA_KERNEL(ma_flux1_inc, 5);
MA_KERNEL(ma_flux1_slot, 5);
MA_KERNEL(ma_flux1v_inc, 7);
MA_KERNEL(ma_flux1v_slot, 7);
MA_KERNEL(ma_flux2_inc, 12);
MA_KERNEL(ma_flux2_slot, 12);
MA_KERNEL(ma_flux2v_inc, 12);
MA_KERNEL(ma_flux2v_slot, 12);
MA_KERNEL(ma_bc_inc, 4);
MA_KERNEL(ma_bc_slot, 4);
MA_KERNEL(ma_wall_inc, 5);
MA_KERNEL(ma_wall_slot, 5);
MA_KERNEL(ma_update, 5);
MA_KERNEL(ma_update_last, 6);
MA_KERNEL(ma_update_slots, 10);
MA_KERNEL(ma_update_slots_last, 11);
MA_KERNEL(ma_metrics, 6);

UM_CONST_DEFINE(double, ma_dt);
UM_CONST_DEFINE(double, ma_inflow[5]);

enum { SCHEME_INC, SCHEME_ATOMICS, SCHEME_SLOTS };
static const char *const scheme_names[] = {"inc", "atomics", "slots", NULL}; /* the option's choices */
enum { GRAD_AUTO, GRAD_FACES, GRAD_CELLS };
static const char *const gradient_names[] = {"auto", "faces", "cells", NULL};
static const char *const var_names[5] = {"rho", "rhou", "rhov", "rhow", "rhoE"};

typedef struct {
  ma_inputs in;
  int scheme;
  int gradients; /* GRAD_FACES or GRAD_CELLS (auto resolved) */
  int write_results;
  const char *deck; /* NULL: no deck */
} ma_config;

typedef struct {
  um_context *ctx;
  const ma_config *cfg;
  int grads, order2;
  um_set *cells, *faces, *bc[MA_NBC], *slots;
  um_map *face_cells, *face_slots, *bc_cells[MA_NBC], *bc_slots[MA_NBC], *cell_cells, *cell_slots;
  um_dat *q, *q_stage, *q_new, *res, *flux, *vol, *xc, *grad, *vmin, *vmax, *lim, *xfc, *cell_area;
  um_dat *f_area, *f_x, *bc_area[MA_NBC], *bc_x[MA_NBC];
  um_dat *s_flux, *s_grad;
} ma_solver;

/* ---- inputs ------------------------------------------------------------- */

/* miniaero's options, declared once (read with um_app_int etc.; --list-apps, docs/options.md). Those
 * declared with no default take the deck's value (mesh.file / params.inp), or without a deck
 * ma_inputs_default's (upstream's): the reads keep what the deck put in the variable. */
static const um_option miniaero_options[] = {
    {.key = "mesh.file", .type = UM_OPT_STRING, .flags = UM_OPT_PATH,
     .help = "an upstream miniaero.inp deck, read as it stands (or params.inp);\n"
             "the params.* and run.iterations below override its entries"},
    {.key = "params.inp", .type = UM_OPT_STRING, .flags = UM_OPT_PATH, .help = "the miniaero.inp deck (the same as mesh.file)"},
    {.key = "params.problem", .type = UM_OPT_STRING,
     .help = "sod (0, the shock tube) | flat_plate (1, viscous flat plate) | ramp (2, inviscid ramp)\n"
             "[problem_type]; default: the deck's (sod without a deck)"},
    {.key = "params.lx", .type = UM_OPT_DOUBLE, .help = "domain length in x; default: the deck's (1 without a deck)"},
    {.key = "params.ly", .type = UM_OPT_DOUBLE, .help = "domain length in y; default: the deck's (1 without a deck)"},
    {.key = "params.lz", .type = UM_OPT_DOUBLE, .help = "domain length in z; default: the deck's (1 without a deck)"},
    {.key = "params.angle", .type = UM_OPT_DOUBLE,
     .help = "ramp angle in degrees; default: the deck's (0 without a deck)"},
    {.key = "params.nx", .type = UM_OPT_INT, .help = "cells in x; default: the deck's (10 without a deck)"},
    {.key = "params.ny", .type = UM_OPT_INT, .help = "cells in y; default: the deck's (10 without a deck)"},
    {.key = "params.nz", .type = UM_OPT_INT, .help = "cells in z; default: the deck's (10 without a deck)"},
    {.key = "params.dt", .type = UM_OPT_DOUBLE, .help = "fixed time step [dt]; default: the deck's (5e-8 without a deck)"},
    {.key = "run.iterations", .type = UM_OPT_INT,
     .help = "time steps [ntimesteps]; default: the deck's (1 without a deck)"},
    {.key = "params.second_order", .type = UM_OPT_BOOL,
     .help = "Green-Gauss gradients + Venkatakrishnan limiter [second_order_space];\n"
             "default: the deck's (false without a deck)"},
    {.key = "params.viscous", .type = UM_OPT_BOOL,
     .help = "Newtonian viscous fluxes [viscous]; default: the deck's (false without a deck)"},
    {.key = "params.output_frequency", .type = UM_OPT_INT, .flags = UM_OPT_NOT_PHYSICS,
     .help = "a line every this many steps [output_frequency]; default: the deck's (100 without a deck)"},
    {.key = "params.scheme", .type = UM_OPT_CHOICE, .def = "inc", .choices = scheme_names,
     .help = "how face contributions reach cells: inc (INC through face -> cell maps, the engine's\n"
             "strategies) | atomics (the same loops forced to atomics, upstream's default build; cuda) |\n"
             "slots (each face writes its own slot of its cells, a cell loop sums them: upstream's\n"
             "gather-sum build, -DCELL_FLUX)"},
    {.key = "params.gradients", .type = UM_OPT_CHOICE, .def = "auto", .choices = gradient_names,
     .help = "Green-Gauss gradients as face loops (faces, as upstream) or as a cell loop over the six\n"
             "neighbours (cells, no increments); auto: cells with scheme inc, faces with upstream's two"},
    {.key = "output.results", .type = UM_OPT_BOOL,
     .help = "write results.0 (upstream's format) into output.dir [output_results]; default: the\n"
             "deck's (true without a deck). output.hdf5: true adds miniaero.h5 + miniaero.xmf"},
};

static int read_problem(um_app_run *r, int *problem) {
  const char *s = NULL;
  UM_APP_TRY(um_app_string(r, "params.problem", &s));
  if (!s) return UM_SUCCESS;
  static const char *const names[][2] = {{"0", "sod"}, {"1", "flat_plate"}, {"2", "ramp"}};
  for (int p = 0; p < 3; p++)
    if (strcmp(s, names[p][0]) == 0 || strcmp(s, names[p][1]) == 0) {
      *problem = p;
      return UM_SUCCESS;
    }
  return um_app_fail(r, UM_ERR_CONFIG,
                     "params.problem: unknown problem type '%s'; miniAero has sod (0, the shock tube), flat_plate "
                     "(1, viscous flat plate) and ramp (2, inviscid ramp)",
                     s);
}

static int read_config(um_app_run *r, ma_config *c) {
  char err[1024] = "";
  const char *mesh_file = NULL, *inp = NULL;
  memset(c, 0, sizeof *c);
  UM_APP_TRY(um_app_string(r, "mesh.file", &mesh_file));
  UM_APP_TRY(um_app_string(r, "params.inp", &inp));
  if (mesh_file && inp && strcmp(mesh_file, inp) != 0)
    return um_app_fail(r, UM_ERR_CONFIG,
                       "mesh.file (%s) and params.inp (%s) both name a miniaero.inp deck; give one of them",
                       mesh_file, inp);
  c->deck = mesh_file ? mesh_file : inp;
  ma_inputs *in = &c->in;
  if (c->deck) {
    int rc = ma_inputs_read(c->deck, in, err, sizeof err);
    if (rc) return um_app_fail(r, rc == UM_ERR_IO ? UM_ERR_CONFIG : rc, "%s", err);
  } else {
    ma_inputs_default(in);
    in->output_frequency = 100;
  }
  /* the options declared with no default keep these values (the deck's) when the config leaves them out */
  int so = in->second_order != 0, visc = in->viscous != 0, results = in->output_results != 0 || !c->deck;
  int scheme, gradients;
  UM_APP_TRY(read_problem(r, &in->problem));
  UM_APP_TRY(um_app_double(r, "params.lx", &in->lx));
  UM_APP_TRY(um_app_double(r, "params.ly", &in->ly));
  UM_APP_TRY(um_app_double(r, "params.lz", &in->lz));
  UM_APP_TRY(um_app_double(r, "params.angle", &in->angle));
  UM_APP_TRY(um_app_int(r, "params.nx", &in->nx));
  UM_APP_TRY(um_app_int(r, "params.ny", &in->ny));
  UM_APP_TRY(um_app_int(r, "params.nz", &in->nz));
  UM_APP_TRY(um_app_int(r, "run.iterations", &in->steps));
  UM_APP_TRY(um_app_double(r, "params.dt", &in->dt));
  UM_APP_TRY(um_app_bool(r, "params.second_order", &so));
  UM_APP_TRY(um_app_bool(r, "params.viscous", &visc));
  UM_APP_TRY(um_app_int(r, "params.output_frequency", &in->output_frequency));
  UM_APP_TRY(um_app_choice(r, "params.scheme", &scheme, NULL));
  UM_APP_TRY(um_app_choice(r, "params.gradients", &gradients, NULL));
  UM_APP_TRY(um_app_bool(r, "output.results", &results));
  in->second_order = so;
  in->viscous = visc;
  c->scheme = scheme;
  c->gradients = gradients != GRAD_AUTO ? gradients : scheme == SCHEME_INC ? GRAD_CELLS : GRAD_FACES;
  if (c->gradients == GRAD_CELLS && scheme == SCHEME_SLOTS)
    return um_app_fail(r, UM_ERR_CONFIG,
                       "params.gradients = cells with params.scheme = slots: the slot scheme is upstream's gather-sum "
                       "build and keeps its face loops; use gradients faces (or auto) with slots, or scheme inc");
  c->write_results = results;
  if (ma_inputs_check(in, c->deck ? c->deck : "params", err, sizeof err))
    return um_app_fail(r, UM_ERR_CONFIG, "%s%s", err,
                       c->deck ? " (after the params.* / run.iterations overrides)" : "");
  return UM_SUCCESS;
}

/* ---- declarations ------------------------------------------------------- */

/* The mesh the run declares: the whole of it (m), or this rank's block of it (b: declared by blocks, the map
 * targets in global numbers) with its block of the slots (six per cell). */
typedef struct {
  const ma_mesh *m;
  const ma_block *b;
  long long slot_first;
  int slot_count;
} ma_source;

static int decl_set(um_context *ctx, const ma_source *src, long long gsize, long long first, int count,
                    const char *name, um_set **out) {
  if (src->b) return um_decl_set_block(ctx, gsize, first, count, name, out);
  return um_decl_set(ctx, count, name, out);
}

static int decl_map(um_context *ctx, um_set *from, um_set *to, int arity, const int *whole, const long long *block,
                    const char *name, um_map **out) {
  if (block) return um_decl_map_block(ctx, from, to, arity, block, name, out);
  return um_decl_map(ctx, from, to, arity, whole, name, out);
}

/* Face set s (0 interior, 1 + kind boundary), its maps to cells and slots and its dats. */
static int decl_faces(um_context *ctx, ma_solver *S, const ma_source *src, int s) {
  const int k = s - 1, arity = s ? 1 : 2, with_centre = s ? k == MA_BC_NOSLIP : S->order2;
  const ma_faces *w = src->m ? (s ? &src->m->bc[k] : &src->m->interior) : NULL;
  const ma_block_faces *f = src->b ? &src->b->faces[s] : NULL;
  const long long gsize = f ? src->b->gsize[1 + s] : w->n, first = f ? src->b->first[1 + s] : 0;
  um_set **set = s ? &S->bc[k] : &S->faces;
  if (!gsize && s) return UM_SUCCESS; /* a kind the problem has not */
  char name[64], n[96];
  snprintf(name, sizeof name, s ? "bc_%s" : "faces", s ? ma_bc_name(k) : "");
  UM_APP_TRY(decl_set(ctx, src, gsize, first, f ? f->n : w->n, name, set));
  snprintf(n, sizeof n, "%s_cells", name);
  UM_APP_TRY(decl_map(ctx, *set, S->cells, arity, w ? w->cell : NULL, f ? f->cell : NULL, n,
                      s ? &S->bc_cells[k] : &S->face_cells));
  if (S->slots) {
    snprintf(n, sizeof n, "%s_slots", name);
    UM_APP_TRY(decl_map(ctx, *set, S->slots, arity, w ? w->slot : NULL, f ? f->slot : NULL, n,
                        s ? &S->bc_slots[k] : &S->face_slots));
  }
  snprintf(n, sizeof n, "%s_area", name);
  UM_APP_TRY(um_decl_dat(ctx, *set, 3, UM_DOUBLE, f ? f->area : w->area, n, s ? &S->bc_area[k] : &S->f_area));
  if (with_centre) {
    snprintf(n, sizeof n, "%s_x", name);
    UM_APP_TRY(um_decl_dat(ctx, *set, 3, UM_DOUBLE, f ? f->centre : w->centre, n, s ? &S->bc_x[k] : &S->f_x));
  }
  return UM_SUCCESS;
}

static void initial_state(const ma_inputs *in, int ncells, const double *centre, double *q) {
  /* Sod: two gases at rest, split at x = lx/2; otherwise the inflow state everywhere */
  const double cv = MA_RGAS / (MA_GAMMA - 1.0);
  const double p1 = 68947.57, t1 = 288.889, p2 = 6894.757, t2 = 231.11;
  const double rho1 = p1 / (MA_RGAS * t1), rho2 = p2 / (MA_RGAS * t2);
  const double high[5] = {rho1, 0, 0, 0, rho1 * (cv * t1)}, low[5] = {rho2, 0, 0, 0, rho2 * (cv * t2)};
  for (int c = 0; c < ncells; c++) {
    const double *s = in->problem != MA_SOD ? ma_inflow : centre[3 * (size_t)c] < in->lx / 2.0 ? high : low;
    memcpy(q + 5 * (size_t)c, s, 5 * sizeof(double));
  }
}

static int declare(um_app_run *r, ma_solver *S, const ma_source *src) {
  um_context *ctx = r->ctx;
  const ma_config *c = S->cfg;
  const int slots = c->scheme == SCHEME_SLOTS;
  S->grads = c->in.second_order || c->in.viscous;
  S->order2 = c->in.second_order;
  const ma_block *b = src->b;
  const ma_mesh *m = src->m;
  const int n = b ? b->count[MA_SET_CELLS] : m->ncells; /* this rank's cells */
  const long long c0 = b ? b->first[MA_SET_CELLS] : 0, gn = b ? b->gsize[MA_SET_CELLS] : n;
  const double *centre = b ? b->centre : m->centre, *volume = b ? b->volume : m->volume;
  UM_APP_TRY(decl_set(ctx, src, gn, c0, n, "cells", &S->cells));
  if (slots) UM_APP_TRY(decl_set(ctx, src, 6 * gn, src->slot_first, b ? src->slot_count : 6 * n, "slots", &S->slots));
  for (int s = 0; s < MA_NSETS - 1; s++) UM_APP_TRY(decl_faces(ctx, S, src, s));
  double *q = malloc(sizeof(double) * 5 * (size_t)n);
  if (!q) return um_app_fail(r, UM_ERR_ALLOC, "out of memory for the initial state of %d cells", n);
  initial_state(&c->in, n, centre, q);
  int rc = um_decl_dat(ctx, S->cells, 5, UM_DOUBLE, q, "q", &S->q);
  if (!rc) rc = um_decl_dat(ctx, S->cells, 5, UM_DOUBLE, q, "q_new", &S->q_new);
  free(q);
  UM_APP_TRY(rc);
  UM_APP_TRY(um_decl_dat(ctx, S->cells, 5, UM_DOUBLE, NULL, "q_stage", &S->q_stage));
  UM_APP_TRY(um_decl_dat(ctx, S->cells, 5, UM_DOUBLE, NULL, "res", &S->res));
  UM_APP_TRY(um_decl_dat(ctx, S->cells, 1, UM_DOUBLE, volume, "volume", &S->vol));
  UM_APP_TRY(um_decl_dat(ctx, S->cells, 3, UM_DOUBLE, centre, "centre", &S->xc));
  if (slots) {
    UM_APP_TRY(um_decl_dat(ctx, S->slots, 5, UM_DOUBLE, NULL, "slot_flux", &S->s_flux));
    if (S->grads) UM_APP_TRY(um_decl_dat(ctx, S->slots, 15, UM_DOUBLE, NULL, "slot_grad", &S->s_grad));
    /* cell c's slots are 6c .. 6c + 5 (global numbers in a block) */
    int *cs = b ? NULL : malloc(sizeof(int) * 6 * (size_t)n);
    long long *bs = b ? malloc(sizeof(long long) * 6 * (size_t)(n + 1)) : NULL;
    if (!cs && !bs) return um_app_fail(r, UM_ERR_ALLOC, "out of memory for the cell -> slot map");
    for (int i = 0; i < 6 * n; i++)
      if (cs) cs[i] = i;
      else bs[i] = 6 * c0 + i;
    rc = decl_map(ctx, S->cells, S->slots, 6, cs, bs, "cell_slots", &S->cell_slots);
    free(cs), free(bs);
    UM_APP_TRY(rc);
  } else {
    UM_APP_TRY(um_decl_dat(ctx, S->cells, 5, UM_DOUBLE, NULL, "flux", &S->flux));
  }
  if (S->grads) UM_APP_TRY(um_decl_dat(ctx, S->cells, 15, UM_DOUBLE, NULL, "grad", &S->grad));
  const int by_cells = S->grads && c->gradients == GRAD_CELLS;
  if (S->order2 || by_cells)
    UM_APP_TRY(decl_map(ctx, S->cells, S->cells, 6, m ? m->neighbour : NULL, b ? b->neighbour : NULL, "cell_cells",
                        &S->cell_cells));
  if (by_cells)
    UM_APP_TRY(um_decl_dat(ctx, S->cells, 18, UM_DOUBLE, b ? b->face_area : m->face_area, "face_areas", &S->cell_area));
  if (S->order2) {
    UM_APP_TRY(um_decl_dat(ctx, S->cells, 5, UM_DOUBLE, NULL, "vmin", &S->vmin));
    UM_APP_TRY(um_decl_dat(ctx, S->cells, 5, UM_DOUBLE, NULL, "vmax", &S->vmax));
    UM_APP_TRY(um_decl_dat(ctx, S->cells, 5, UM_DOUBLE, NULL, "limiter", &S->lim));
    UM_APP_TRY(um_decl_dat(ctx, S->cells, 18, UM_DOUBLE, b ? b->face_centre : m->face_centre, "face_centres",
                           &S->xfc));
  }
  return UM_SUCCESS;
}

/* The generated mesh, declared: under mpirun with mpi.mesh: blocks (the default) each rank makes and declares only
 * its block of every set (ma_block_build: no rank holds the whole mesh; a deck holds only the box's sizes and the
 * problem, so every source is generated by blocks); else the whole mesh (ma_mesh_build). The dats and maps hold
 * copies: the generator's arrays go before the run. */
static int build_and_declare(um_app_run *r, ma_solver *S) {
  const ma_inputs *in = &S->cfg->in;
  char err[1024] = "";
  int blocks = 0;
  UM_APP_TRY(um_app_by_blocks(r, &blocks));
  ma_source src = {NULL, NULL, 0, 0};
  if (!blocks) {
    ma_mesh m;
    const int built = ma_mesh_build_threads(in, um_context_host_threads(r->ctx), &m, err, sizeof err);
    if (built) return um_app_fail(r, built, "%s", err); /* a bad input (config error) or out of memory (run failed) */
    src.m = &m;
    const int rc = declare(r, S, &src);
    ma_mesh_free(&m);
    return rc;
  }
  long long gsize[MA_NSETS], first[MA_NSETS], count[MA_NSETS];
  const int counted = ma_mesh_counts(in, gsize, err, sizeof err);
  if (counted) return um_app_fail(r, counted, "%s", err);
  for (int s = 0; s < MA_NSETS; s++) {
    int n = 0;
    UM_APP_TRY(um_app_block(r, gsize[s], &first[s], &n));
    count[s] = n;
  }
  if (S->cfg->scheme == SCHEME_SLOTS)
    UM_APP_TRY(um_app_block(r, 6 * gsize[MA_SET_CELLS], &src.slot_first, &src.slot_count));
  ma_block b;
  const double t0 = um_wtime();
  int rc = ma_block_build(in, first, count, &b, err, sizeof err);
  if (rc) rc = um_app_fail(r, rc == UM_ERR_ALLOC ? rc : UM_ERR_CONFIG, "%s", err);
  UM_APP_TRY(um_app_agree(r, rc, "make its block of the mesh")); /* a folded cell is in some ranks' blocks only */
  fprintf(r->log, "miniaero: this rank's block of the %d x %d x %d box (%d of %lld cells) generated in %.2f s\n",
          in->nx, in->ny, in->nz, b.count[MA_SET_CELLS], b.gsize[MA_SET_CELLS], um_wtime() - t0);
  src.b = &b;
  rc = declare(r, S, &src);
  ma_block_free(&b);
  return rc;
}

/* ---- one Runge-Kutta stage ------------------------------------------------ */

/* The loop over the boundary faces of kind b: "grad_bc_tangent", "flux_bc_noslip", ... */
static const char *bc_loop(char *buf, size_t len, const char *what, int b) {
  snprintf(buf, len, "%s_bc_%s", what, ma_bc_name(b));
  return buf;
}

#define D(dat, idx, map, dim, acc) um_arg_dat((dat), (idx), (map), (dim), UM_DOUBLE, (acc))
#define G(ptr, dim, type) um_arg_gbl((void *)(ptr), (dim), (type), UM_READ)

static int gradients(ma_solver *S) {
  um_context *ctx = S->ctx;
  if (S->cfg->gradients == GRAD_CELLS) {
    um_map *nb = S->cell_cells;
    return UM_PAR_LOOP(ctx, ma_grad_cell_kernel, "grad_cells", S->cells, D(S->q_stage, -1, UM_ID, 5, UM_READ),
                       D(S->q_stage, 0, nb, 5, UM_READ), D(S->q_stage, 1, nb, 5, UM_READ),
                       D(S->q_stage, 2, nb, 5, UM_READ), D(S->q_stage, 3, nb, 5, UM_READ),
                       D(S->q_stage, 4, nb, 5, UM_READ), D(S->q_stage, 5, nb, 5, UM_READ),
                       D(S->cell_area, -1, UM_ID, 18, UM_READ), D(S->vol, -1, UM_ID, 1, UM_READ),
                       D(S->grad, -1, UM_ID, 15, UM_WRITE));
  }
  const int slots = S->cfg->scheme == SCHEME_SLOTS;
  um_map *fm = slots ? S->face_slots : S->face_cells;
  um_dat *gt = slots ? S->s_grad : S->grad;
  const um_access acc = slots ? UM_WRITE : UM_INC;
  UM_APP_TRY(UM_PAR_LOOP(ctx, *(slots ? &ma_grad_face_slot_kernel : &ma_grad_face_inc_kernel), "grad_faces", S->faces,
                         D(S->q_stage, 0, S->face_cells, 5, UM_READ), D(S->q_stage, 1, S->face_cells, 5, UM_READ),
                         D(S->f_area, -1, UM_ID, 3, UM_READ), D(S->vol, 0, S->face_cells, 1, UM_READ),
                         D(S->vol, 1, S->face_cells, 1, UM_READ), D(gt, 0, fm, 15, acc), D(gt, 1, fm, 15, acc)));
  for (int b = 0; b < MA_NBC; b++) {
    if (!S->bc[b]) continue;
    um_map *bm = slots ? S->bc_slots[b] : S->bc_cells[b];
    char name[64];
    UM_APP_TRY(UM_PAR_LOOP(ctx, *(slots ? &ma_grad_bface_slot_kernel : &ma_grad_bface_inc_kernel),
                           bc_loop(name, sizeof name, "grad", b), S->bc[b],
                           D(S->q_stage, 0, S->bc_cells[b], 5, UM_READ), D(S->bc_area[b], -1, UM_ID, 3, UM_READ),
                           D(S->vol, 0, S->bc_cells[b], 1, UM_READ), D(gt, 0, bm, 15, acc)));
  }
  if (slots)
    UM_APP_TRY(UM_PAR_LOOP(ctx, ma_grad_gather_kernel, "grad_gather", S->cells,
                           D(S->s_grad, 0, S->cell_slots, 15, UM_READ), D(S->s_grad, 1, S->cell_slots, 15, UM_READ),
                           D(S->s_grad, 2, S->cell_slots, 15, UM_READ), D(S->s_grad, 3, S->cell_slots, 15, UM_READ),
                           D(S->s_grad, 4, S->cell_slots, 15, UM_READ), D(S->s_grad, 5, S->cell_slots, 15, UM_READ),
                           D(S->grad, -1, UM_ID, 15, UM_WRITE)));
  return UM_SUCCESS;
}

static int limiters(ma_solver *S) {
  um_context *ctx = S->ctx;
  um_map *nb = S->cell_cells;
  UM_APP_TRY(UM_PAR_LOOP(ctx, ma_minmax_kernel, "minmax", S->cells, D(S->q_stage, -1, UM_ID, 5, UM_READ),
                         D(S->q_stage, 0, nb, 5, UM_READ), D(S->q_stage, 1, nb, 5, UM_READ),
                         D(S->q_stage, 2, nb, 5, UM_READ), D(S->q_stage, 3, nb, 5, UM_READ),
                         D(S->q_stage, 4, nb, 5, UM_READ), D(S->q_stage, 5, nb, 5, UM_READ),
                         D(S->vmin, -1, UM_ID, 5, UM_WRITE), D(S->vmax, -1, UM_ID, 5, UM_WRITE)));
  UM_APP_TRY(UM_PAR_LOOP(ctx, ma_limiter_kernel, "limiter", S->cells, D(S->q_stage, -1, UM_ID, 5, UM_READ),
                         D(S->vmin, -1, UM_ID, 5, UM_READ), D(S->vmax, -1, UM_ID, 5, UM_READ),
                         D(S->grad, -1, UM_ID, 15, UM_READ), D(S->xc, -1, UM_ID, 3, UM_READ),
                         D(S->xfc, -1, UM_ID, 18, UM_READ), D(S->lim, -1, UM_ID, 5, UM_WRITE)));
  return UM_SUCCESS;
}

static int fluxes(ma_solver *S) {
  um_context *ctx = S->ctx;
  const int slots = S->cfg->scheme == SCHEME_SLOTS, viscous = S->cfg->in.viscous != 0;
  um_map *fc = S->face_cells, *fm = slots ? S->face_slots : S->face_cells;
  um_dat *ft = slots ? S->s_flux : S->flux;
  const um_access acc = slots ? UM_WRITE : UM_INC;
  const um_arg ql = D(S->q_stage, 0, fc, 5, UM_READ), qr = D(S->q_stage, 1, fc, 5, UM_READ);
  /* the left cell gets minus the right's flux (ma_add_pair): a split loop stores it once (um_arg_minus) */
  const um_arg o0 = D(ft, 0, fm, 5, acc), outl = slots ? o0 : um_arg_minus(o0, 1), outr = D(ft, 1, fm, 5, acc);
  const um_arg area = D(S->f_area, -1, UM_ID, 3, UM_READ);
  if (S->order2) {
    const um_kernel *k2 = viscous ? (slots ? &ma_flux2v_slot_kernel : &ma_flux2v_inc_kernel)
                                  : (slots ? &ma_flux2_slot_kernel : &ma_flux2_inc_kernel);
    UM_APP_TRY(UM_PAR_LOOP(ctx, *k2, "flux_faces", S->faces, ql, qr, area, D(S->f_x, -1, UM_ID, 3, UM_READ),
                           D(S->xc, 0, fc, 3, UM_READ), D(S->xc, 1, fc, 3, UM_READ), D(S->grad, 0, fc, 15, UM_READ),
                           D(S->grad, 1, fc, 15, UM_READ), D(S->lim, 0, fc, 5, UM_READ), D(S->lim, 1, fc, 5, UM_READ),
                           outl, outr));
  } else if (viscous) {
    UM_APP_TRY(UM_PAR_LOOP(ctx, *(slots ? &ma_flux1v_slot_kernel : &ma_flux1v_inc_kernel), "flux_faces", S->faces, ql, qr,
                           area, D(S->grad, 0, fc, 15, UM_READ), D(S->grad, 1, fc, 15, UM_READ), outl, outr));
  } else {
    UM_APP_TRY(UM_PAR_LOOP(ctx, *(slots ? &ma_flux1_slot_kernel : &ma_flux1_inc_kernel), "flux_faces", S->faces, ql, qr,
                           area, outl, outr));
  }
  /* upstream's order: extrapolate, tangent, no-slip, inflow */
  static const int order[MA_NBC] = {MA_BC_EXTRAPOLATE, MA_BC_TANGENT, MA_BC_NOSLIP, MA_BC_INFLOW};
  for (int o = 0; o < MA_NBC; o++) {
    const int b = order[o];
    if (!S->bc[b]) continue;
    char name[64];
    bc_loop(name, sizeof name, "flux", b);
    um_map *bc = S->bc_cells[b];
    const um_arg q = D(S->q_stage, 0, bc, 5, UM_READ), a = D(S->bc_area[b], -1, UM_ID, 3, UM_READ);
    const um_arg out = D(ft, 0, slots ? S->bc_slots[b] : bc, 5, acc);
    if (b == MA_BC_NOSLIP)
      UM_APP_TRY(UM_PAR_LOOP(ctx, *(slots ? &ma_wall_slot_kernel : &ma_wall_inc_kernel), name, S->bc[b], q, a,
                             D(S->bc_x[b], -1, UM_ID, 3, UM_READ), D(S->xc, 0, bc, 3, UM_READ), out));
    else
      UM_APP_TRY(UM_PAR_LOOP(ctx, *(slots ? &ma_bc_slot_kernel : &ma_bc_inc_kernel), name, S->bc[b], q, a,
                             G(&b, 1, UM_INT), out));
  }
  return UM_SUCCESS;
}

static int rk_stage(ma_solver *S, int stage) {
  static const double alpha[4] = {0.0, 1.0 / 2.0, 1.0 / 2.0, 1.0};
  static const double beta[4] = {1.0 / 6.0, 1.0 / 3.0, 1.0 / 3.0, 1.0 / 6.0};
  um_context *ctx = S->ctx;
  const int slots = S->cfg->scheme == SCHEME_SLOTS, last = stage == 3;
  const um_arg u0 = D(S->q, -1, UM_ID, 5, UM_READ), res = D(S->res, -1, UM_ID, 5, UM_READ);
  const um_arg a = G(&alpha[stage], 1, UM_DOUBLE), us = D(S->q_stage, -1, UM_ID, 5, UM_WRITE);
  if (slots)
    UM_APP_TRY(UM_PAR_LOOP(ctx, ma_stage_s_kernel, "stage", S->cells, u0, res, a, us));
  else if (S->grads && S->cfg->gradients == GRAD_FACES)
    UM_APP_TRY(UM_PAR_LOOP(ctx, ma_stage_g_kernel, "stage", S->cells, u0, res, a, us,
                           D(S->flux, -1, UM_ID, 5, UM_WRITE), D(S->grad, -1, UM_ID, 15, UM_WRITE)));
  else
    UM_APP_TRY(UM_PAR_LOOP(ctx, ma_stage_kernel, "stage", S->cells, u0, res, a, us, D(S->flux, -1, UM_ID, 5, UM_WRITE)));
  if (S->grads) UM_APP_TRY(gradients(S));
  if (S->order2) UM_APP_TRY(limiters(S));
  UM_APP_TRY(fluxes(S));
  const um_arg vol = D(S->vol, -1, UM_ID, 1, UM_READ), b = G(&beta[stage], 1, UM_DOUBLE);
  const um_arg resw = D(S->res, -1, UM_ID, 5, UM_WRITE), unew = D(S->q_new, -1, UM_ID, 5, UM_RW);
  const um_arg u0w = D(S->q, -1, UM_ID, 5, UM_WRITE);
  if (slots) {
    um_map *cs = S->cell_slots;
    const um_arg s0 = D(S->s_flux, 0, cs, 5, UM_READ), s1 = D(S->s_flux, 1, cs, 5, UM_READ),
                 s2 = D(S->s_flux, 2, cs, 5, UM_READ), s3 = D(S->s_flux, 3, cs, 5, UM_READ),
                 s4 = D(S->s_flux, 4, cs, 5, UM_READ), s5 = D(S->s_flux, 5, cs, 5, UM_READ);
    if (last)
      UM_APP_TRY(UM_PAR_LOOP(ctx, ma_update_slots_last_kernel, "update_last", S->cells, s0, s1, s2, s3, s4, s5, vol,
                             b, resw, unew, u0w));
    else
      UM_APP_TRY(UM_PAR_LOOP(ctx, ma_update_slots_kernel, "update", S->cells, s0, s1, s2, s3, s4, s5, vol, b, resw,
                             unew));
  } else {
    const um_arg f = D(S->flux, -1, UM_ID, 5, UM_READ);
    if (last) UM_APP_TRY(UM_PAR_LOOP(ctx, ma_update_last_kernel, "update_last", S->cells, f, vol, b, resw, unew, u0w));
    else UM_APP_TRY(UM_PAR_LOOP(ctx, ma_update_kernel, "update", S->cells, f, vol, b, resw, unew));
  }
  return UM_SUCCESS;
}

/* Upstream's default build: every loop that adds face contributions to cells uses atomics. */
static int use_atomics(um_app_run *r, ma_solver *S) {
  if (strcmp(um_context_backend(S->ctx), "cuda") != 0) /* the face loops increment through scalar args */
    return um_app_fail(r, UM_ERR_CONFIG, "params.scheme = atomics forces the face loops' increments to atomics, "
                       "which the cuda backend runs; on the %s backend use params.scheme = inc (the default) or slots",
                       um_context_backend(S->ctx));
  char name[64];
  for (int k = 0; k < 2; k++) {
    const char *what = k ? "flux" : "grad";
    snprintf(name, sizeof name, "%s_faces", what);
    UM_APP_TRY(um_loop_set_strategy(S->ctx, name, UM_STRATEGY_ATOMICS));
    for (int b = 0; b < MA_NBC; b++)
      UM_APP_TRY(um_loop_set_strategy(S->ctx, bc_loop(name, sizeof name, what, b), UM_STRATEGY_ATOMICS));
  }
  return UM_SUCCESS;
}

/* ---- outputs ------------------------------------------------------------ */

typedef struct {
  const double *q, *xc;
} ma_results_rows;

static size_t results_row(const void *data, size_t c, char *out) {
  const ma_results_rows *t = data;
  const double *x = t->xc + 3 * c, *u = t->q + 5 * c;
  return (size_t)sprintf(out, "%g\t%g\t%g\t%g\t%g\t%g\t%g\t%g\t\n", x[0], x[1], x[2], u[0], u[1], u[2], u[3], u[4]);
}

/* results.0 as upstream writes it: per cell (declaration order) the centre and
 * the conserved state, each value as C++ streams print a double (6 significant
 * digits) followed by a tab. Written by blocks: each rank formats its block of
 * the cells (um_dat_fetch_block_original_order) and the ranks write them in
 * turn (um_app_write_blocks): no rank holds the whole state. */
static int write_results(um_app_run *r, ma_solver *S, const char *dir, char *path, size_t len) {
  long long b = 0;
  int n = 0;
  UM_APP_TRY(um_set_block(r->ctx, S->cells, &b, &n));
  double *q = malloc(sizeof(double) * 8 * (size_t)(n ? n : 1)), *xc = q ? q + 5 * (size_t)n : NULL;
  char *text = NULL;
  size_t k = 0;
  int rc = q ? UM_SUCCESS : um_app_fail(r, UM_ERR_ALLOC, "out of memory writing the results of %d cells", n);
  rc = um_app_agree(r, rc, "allocate its block of results.0");
  if (!rc) rc = um_dat_fetch_block_original_order(r->ctx, S->q, q, sizeof(double) * 5 * (size_t)n);
  if (!rc) rc = um_dat_fetch_block_original_order(r->ctx, S->xc, xc, sizeof(double) * 3 * (size_t)n);
  const ma_results_rows rows = {q, xc};
  /* eight %g (at most 13 characters) and a tab each, a newline */
  if (!rc) text = um_app_format_rows(r, (size_t)n, 8 * 16, results_row, &rows, &k);
  if (!rc)
    rc = um_app_agree(r, text ? UM_SUCCESS : um_app_fail(r, UM_ERR_ALLOC, "out of memory formatting results.0"),
                      "format its block of results.0");
  snprintf(path, len, "%s/results.0", dir);
  if (!rc) rc = um_app_write_blocks(r, path, NULL, text, k, "results.0");
  free(q);
  free(text);
  return rc;
}

/* miniaero.h5 + miniaero.xmf: the hex mesh and the conserved state per cell, written by blocks: each rank
 * generates its block of the nodes and of the cells' node lists (as the mesh generator numbers them) and fetches
 * its block of the state (um_hdf5_write_blocks). */
static int write_hdf5(um_app_run *r, ma_solver *S) {
  const ma_inputs *in = &S->cfg->in;
  const long long ncells = um_set_gsize(S->cells); /* global counts: 64-bit */
  const int nx = in->nx, ny = in->ny, nz = in->nz;
  const long long nn = (long long)(nx + 1) * (ny + 1) * (nz + 1);
  if (nn > INT_MAX) /* the cells' node numbers are a map's: int */
    return um_app_fail(r, UM_ERR_UNSUPPORTED, "too many nodes (%lld) for the HDF5 output's int cell_nodes", nn);
  long long vb = 0, cb = 0;
  int vn = 0, cnn = 0;
  UM_APP_TRY(um_block_range(nn, um_context_rank(r->ctx), um_context_nranks(r->ctx), &vb, &vn));
  UM_APP_TRY(um_set_block(r->ctx, S->cells, &cb, &cnn));
  double *x = malloc(sizeof(double) * 3 * (size_t)(vn + 1)), *q = malloc(sizeof(double) * 5 * (size_t)(cnn + 1));
  int *cn = malloc(sizeof(int) * 8 * (size_t)(cnn + 1));
  int rc = x && cn && q ? UM_SUCCESS : um_app_fail(r, UM_ERR_ALLOC, "out of memory for the HDF5 output");
  rc = um_app_agree(r, rc, "allocate its block of the HDF5 output");
  for (int v = 0; !rc && v < vn; v++) {
    const long long g = vb + v, k = g % (nz + 1), j = g / (nz + 1) % (ny + 1), i = g / ((long long)(nz + 1) * (ny + 1));
    ma_node_position(in, (int)i, (int)j, (int)k, x + 3 * (size_t)v); /* as the mesh generator places them */
  }
  static const int off[8][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}, {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}};
  for (int c = 0; !rc && c < cnn; c++) {
    const long long g = cb + c, k = g % nz, j = g / nz % ny, i = g / ((long long)nz * ny);
    for (int v = 0; v < 8; v++)
      cn[8 * (size_t)c + v] = (int)(((i + off[v][0]) * (ny + 1) + j + off[v][1]) * (nz + 1) + k + off[v][2]);
  }
  if (!rc) rc = um_dat_fetch_block_original_order(r->ctx, S->q, q, sizeof(double) * 5 * (size_t)cnn);
  char h5[4096], xmf[4096], err[1024];
  if (!rc) rc = um_app_output_path(r, "miniaero", ".h5", h5, sizeof h5);
  if (!rc) rc = um_app_output_path(r, "miniaero", ".xmf", xmf, sizeof xmf);
  const char *sets[] = {"nodes", "cells"};
  const long long sizes[] = {nn, ncells};
  const um_hdf5_rows rows[] = {{"cell_nodes", ncells, 8, UM_INT, 1, cn},
                               {"node_x", nn, 3, UM_DOUBLE, 0, x},
                               {"q", ncells, 5, UM_DOUBLE, 0, q}};
  um_app_h5_pair pair = {.state = -1, .slot = -1}; /* the earlier miniaero.h5 kept until miniaero.xmf is written */
  if (!rc) um_app_h5_pair_begin(r, h5, &pair);
  if (!rc) rc = um_hdf5_write_blocks64(r->ctx, h5, 2, sets, sizes, 3, rows);
  free(x);
  free(cn);
  free(q);
  const char *fields[] = {"q"};
  const int dims[] = {5};
  if (!rc && um_app_writes(r) &&
      um_xdmf_write(xmf, "miniaero.h5", "node_x", nn, 3, "cell_nodes", ncells, 8, fields, dims, 1, err,
                    sizeof err))
    rc = um_app_h5_pair_end(r, &pair, err); /* the earlier .h5 put back (or the new one removed), said */
  else
    um_app_h5_pair_end(r, &pair, NULL);
  UM_APP_TRY(um_app_output_done(r, rc)); /* every rank: one outcome */
  fprintf(r->log, "miniaero: wrote %s and %s (open the .xmf in ParaView or VisIt)\n", h5, xmf);
  return UM_SUCCESS;
}

/* ---- the run -------------------------------------------------------------- */

/* Where results.0 goes: the output folder, or the folder umrun gives for
 * validation fields; NULL when nobody wants it. */
static const char *results_dir(um_app_run *r, const ma_config *c) {
  if (r->output_dir && *r->output_dir && c->write_results) return r->output_dir;
  return um_app_wants_field(r, "results") ? um_app_field_dir(r) : NULL;
}

/* Boundary faces of every kind the problem has, over every rank (a global count: 64-bit). */
static long long boundary_faces(const ma_solver *S) {
  long long n = 0;
  for (int b = 0; b < MA_NBC; b++)
    if (S->bc[b]) n += um_set_gsize(S->bc[b]);
  return n;
}

static int metrics(um_app_run *r, ma_solver *S, int steps, double time, double per_step, double first_step) {
  double sum[5] = {0}, vmin[5], vmax[5], total[5] = {0};
  for (int k = 0; k < 5; k++) vmin[k] = INFINITY, vmax[k] = -INFINITY;
  UM_APP_TRY(UM_PAR_LOOP(r->ctx, ma_metrics_kernel, "metrics", S->cells, D(S->q, -1, UM_ID, 5, UM_READ),
                         D(S->vol, -1, UM_ID, 1, UM_READ), um_arg_gbl(sum, 5, UM_DOUBLE, UM_INC),
                         um_arg_gbl(vmin, 5, UM_DOUBLE, UM_MIN), um_arg_gbl(vmax, 5, UM_DOUBLE, UM_MAX),
                         um_arg_gbl(total, 5, UM_DOUBLE, UM_INC)));
  UM_APP_TRY(um_app_metric(r, "cells", (double)um_set_gsize(S->cells)));
  UM_APP_TRY(um_app_metric(r, "interior_faces", (double)um_set_gsize(S->faces)));
  UM_APP_TRY(um_app_metric(r, "boundary_faces", (double)boundary_faces(S)));
  UM_APP_TRY(um_app_metric(r, "steps", steps));
  UM_APP_TRY(um_app_metric(r, "final_time", time));
  char name[64];
  for (int k = 0; k < 5; k++) {
    snprintf(name, sizeof name, "sum_%s", var_names[k]);
    UM_APP_TRY(um_app_metric(r, name, sum[k]));
    snprintf(name, sizeof name, "min_%s", var_names[k]);
    UM_APP_TRY(um_app_metric(r, name, vmin[k]));
    snprintf(name, sizeof name, "max_%s", var_names[k]);
    UM_APP_TRY(um_app_metric(r, name, vmax[k]));
    snprintf(name, sizeof name, "integral_%s", var_names[k]);
    UM_APP_TRY(um_app_metric(r, name, total[k]));
  }
  UM_APP_TRY(um_app_metric(r, "ms_per_step", 1e3 * per_step));
  UM_APP_TRY(um_app_metric(r, "first_step_seconds", first_step));
  fprintf(r->log, "miniaero: %d steps to t = %.9e\n", steps, time);
  fprintf(r->log, "  %-5s %16s %16s %16s %16s\n", "", "sum", "min", "max", "integral (x vol)");
  for (int k = 0; k < 5; k++)
    fprintf(r->log, "  %-5s %16.9e %16.9e %16.9e %16.9e\n", var_names[k], sum[k], vmin[k], vmax[k], total[k]);
  for (int k = 0; k < 5; k++)
    if (!isfinite(sum[k]) || !isfinite(vmin[k]) || !isfinite(vmax[k]))
      return um_app_fail(r, UM_ERR_DIVERGED,
                         "the run diverged: %s is not finite after %d steps (sum %g, min %g, max %g); try a smaller "
                         "params.dt",
                         var_names[k], steps, sum[k], vmin[k], vmax[k]);
  return UM_SUCCESS;
}

static int miniaero_run(um_app_run *r) {
  ma_config cfg;
  UM_APP_TRY(read_config(r, &cfg));
  const ma_inputs *in = &cfg.in;
  const double t0 = um_wtime();
  ma_dt = in->dt;
  static const double inflow[5] = {0.5805, 503.96, 0.0, 0.0, 343750.0};
  memcpy(ma_inflow, inflow, sizeof inflow);
  UM_APP_TRY(um_decl_const(r->ctx, "ma_dt", 1, UM_DOUBLE, &ma_dt));
  UM_APP_TRY(um_decl_const(r->ctx, "ma_inflow", 5, UM_DOUBLE, ma_inflow));
  ma_solver S;
  memset(&S, 0, sizeof S);
  S.ctx = r->ctx;
  S.cfg = &cfg;
  int rc = build_and_declare(r, &S);
  if (!rc) rc = um_app_prepare(r, "faces_cells");
  if (!rc && cfg.scheme == SCHEME_ATOMICS) rc = use_atomics(r, &S);
  if (rc) return rc;
  fprintf(r->log, "miniaero: %s, %d x %d x %d cells (%lld), %lld interior + %lld boundary faces (",
          ma_problem_name(in->problem), in->nx, in->ny, in->nz, um_set_gsize(S.cells), um_set_gsize(S.faces),
          boundary_faces(&S));
  for (int b = 0, first = 1; b < MA_NBC; b++)
    if (S.bc[b]) fprintf(r->log, "%s%s %lld", first ? "" : ", ", ma_bc_name(b), um_set_gsize(S.bc[b])), first = 0;
  fprintf(r->log, "); %s order, %s; dt %g, %d steps; scheme %s%s%s%s\n", in->second_order ? "second" : "first",
          in->viscous ? "viscous" : "inviscid", in->dt, in->steps, scheme_names[cfg.scheme],
          in->second_order || in->viscous ? (cfg.gradients == GRAD_CELLS ? ", gradients by cells" : ", gradients by faces") : "",
          cfg.deck ? "; deck " : "", cfg.deck ? cfg.deck : "");
  um_app_setup_done(r, t0);

  double time = 0.0, t_first = 0.0;
  long done = 0; /* steps done: a restart continues after the checkpoint's, with its time (a sum of the dts) */
  rc = um_app_state(r, "time", &time, sizeof time);
  if (!rc) rc = um_app_resume(r, &done);
  const double t_run = um_wtime();
  for (long step = done + 1; step <= in->steps && !rc; step++) {
    time += in->dt;
    for (int s = 0; s < 4 && !rc; s++) rc = rk_stage(&S, s);
    if (!rc && step == done + 1) { /* the first step of this run also builds plans, uploads, compiles */
      rc = um_sync(r->ctx);
      t_first = um_wtime() - t_run;
    }
    if (!rc && step % in->output_frequency == 0) {
      um_app_progress_clear(r);
      fprintf(r->log, " step %6ld  t = %16.9e  dt = %16.9e\n", step, time, in->dt);
      fflush(r->log);
    }
    um_app_progress(r, "miniaero steps", step, in->steps);
    if (!rc) rc = um_app_step_end_last(r, step, step == in->steps); /* a checkpoint when due; UM_ERR_STOPPED: stop */
  }
  um_app_progress_clear(r);
  if (!rc) rc = um_app_loop_done(r);
  if (!rc) rc = um_sync(r->ctx);
  r->run_seconds = um_wtime() - t_run;
  const int steps = in->steps;
  r->steps = steps - done; /* the steps this run timed */
  r->first_step_seconds = t_first;
  const double per_step = um_app_step_seconds(r);
  if (!rc) rc = metrics(r, &S, steps, time, per_step, t_first);
  if (!rc)
    fprintf(r->log, "  time stepping %.3f s: first step %.3f s (with plans, uploads, compilation), then %.4f ms per step\n",
            r->run_seconds, t_first, 1e3 * per_step);
  const char *dir = results_dir(r, &cfg);
  char path[4096];
  if (!rc && dir) {
    rc = um_app_output_done(r, write_results(r, &S, dir, path, sizeof path)); /* every rank: one outcome */
    if (!rc) rc = um_app_field(r, "results", path);
    if (!rc && dir == r->output_dir) fprintf(r->log, "miniaero: wrote %s (upstream's results format)\n", path);
  }
  if (!rc && r->output_dir && *r->output_dir && r->write_hdf5) rc = write_hdf5(r, &S);
  return rc;
}

const um_app um_app_miniaero = {
    .name = "miniaero",
    .description = "miniAero (Mantevo): 3D compressible Navier-Stokes, Roe fluxes, RK4, hex8 cells; Sod, flat plate, ramp",
    .run = miniaero_run,
    .options = miniaero_options,
    .noptions = (int)(sizeof miniaero_options / sizeof miniaero_options[0]),
    /* what makes it different (umrun --report) */
    .report_note =
        "miniAero solves the 3D compressible Navier-Stokes equations with a Roe flux and RK4 on hexahedra. Its face "
        "loops read the two cells of a face (5 conserved values each, and gradients in second order) and increment "
        "both cells' residuals: the biggest indirect increments per element in the suite (5 doubles to each side). "
        "Gradients and the limiter are cell loops over the 6 neighbours (a gather), and boundary conditions are small "
        "loops over boundary faces."};
