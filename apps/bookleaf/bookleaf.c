/* BookLeaf on um: the UK Mini-App Consortium's 2D Lagrangian hydrodynamics
 * (BookLeaf 2.0, BookLeaf_F90 the reference) as sets, maps, dats and loops.
 *
 * Config: the keys of bookleaf_options below (umrun --list-apps, docs/options.md): mesh.file (or
 * params.deck), the BookLeaf_F90 deck read as it stands, whose &CONTROL and region_dim entries the
 * params.* keys override; params.scheme, print_every, sod_check; run.iterations. output: {dir, hdf5}:
 * bookleaf.h5 + bookleaf.xmf; field files elements.txt and nodes.txt (upstream's numbering) for validation, and
 * components.txt where cells are mixed.
 *
 * Sets: elements, nodes. Maps: el_nodes (4), el_el (4, the element itself on a
 * boundary). Eulerian decks (&ALE zeul) remap after every step (alestep).
 * Options of the deck as upstream runs them: hourglass filters (kappa),
 * sub-zonal pressures (pmerit), zdtnotreg/zmidlength, visc = TENSOR (upstream
 * 2.0.1 computes no viscosity then), ideal gas, Tait, JWL and void EOS, mixed-material
 * cells (sod_mm: bookleaf_mix.c). Not in this port (stopped with a message): ALE
 * patches, split advection, multi-region meshes, mixed cells on the Eulerian mesh
 * (upstream's remap does not carry components).
 *
 * The step and the ALE remap are in bookleaf_step.c; reports and outputs in bookleaf_report.c;
 * bookleaf_internal.h holds what they share.
 */
#include "bookleaf_internal.h"
#include "bookleaf_mesh.h"

UM_CONST_DEFINE(double, bl_cut[6]);
UM_CONST_DEFINE(double, bl_visc_coef[2]);
UM_CONST_DEFINE(int, bl_eos_type[BL_NMAT_MAX]);
UM_CONST_DEFINE(double, bl_eos_param[BL_NMAT_MAX * BL_EOS_NP]);
UM_CONST_DEFINE(double, bl_kappa[BL_NMAT_MAX]);
UM_CONST_DEFINE(double, bl_pmerit[BL_NMAT_MAX]);
UM_CONST_DEFINE(int, bl_dtreg[BL_NMAT_MAX]);

/* ---- inputs ------------------------------------------------------------- */

static const char *const scheme_names[] = {"inc", "upstream", "gather", NULL}; /* SCHEME_INC, _UPSTREAM, _GATHER */
#define CHOICES(...) ((const char *const[]){__VA_ARGS__, NULL})
/* an &CONTROL entry of the deck */
#define DECK(k, what) {.key = "params." k, .type = UM_OPT_DOUBLE, .help = "&CONTROL " k ": " what "; default: the deck's"}
/* bookleaf's options, declared once (read with um_app_double etc.; --list-apps, docs/options.md). The
 * deck's entries have no default here: absent, the read keeps the deck's value. */
static const um_option bookleaf_options[] = {
    {.key = "mesh.file", .type = UM_OPT_STRING, .flags = UM_OPT_PATH,
     .help = "the BookLeaf_F90 namelist deck, read as it stands (required, or params.deck); the params.* keys "
             "below override its entries"},
    {.key = "params.deck", .type = UM_OPT_STRING, .flags = UM_OPT_PATH, .help = "the deck, as mesh.file (give one of them)"},
    DECK("time_end", "the end time"),
    DECK("dt_initial", "the first step's dt"),
    DECK("dt_max", "the largest dt"),
    DECK("dt_min", "the smallest dt (below it the run stops)"),
    DECK("dt_g", "the most dt grows by from one step to the next (a factor)"),
    DECK("cfl_sf", "the CFL safety factor"),
    DECK("div_sf", "the divergence safety factor"),
    DECK("cvisc1", "the linear artificial viscosity coefficient"),
    DECK("cvisc2", "the quadratic artificial viscosity coefficient"),
    {.key = "params.nx", .type = UM_OPT_INT,
     .help = "cells of the (single) mesh region along its first side (&MESH region_dim(1,1)); default: the deck's"},
    {.key = "params.ny", .type = UM_OPT_INT,
     .help = "cells of the mesh region along its second side (&MESH region_dim(1,2)); default: the deck's"},
    {.key = "params.scheme", .type = UM_OPT_CHOICE, .def = "gather", .choices = scheme_names,
     .help = "how corner masses, areas and forces reach the nodes: gather = one loop over nodes reading the corners\n"
             "of their (up to 4) elements through a node -> element map, in element order, and applying the\n"
             "acceleration in the same pass (getacc_gather: no increments, no colouring, no atomics; the bits of inc\n"
             "on seq; the fastest on CPUs and on an H100); inc = one loop over elements incrementing its four nodes\n"
             "through el_nodes (getacc_scatter: the engine's strategy, run.strategy); upstream = upstream's order,\n"
             "one pass per corner (corner 1 of every element, then 2, 3, 4)"},
    {.key = "params.fused", .type = UM_OPT_BOOL, .def = "true",
     .help = "true: each half step's geometry, energy and EOS in one pass over the elements (state_predictor, which\n"
             "also takes the step's first forces and energy_save; state_corrector, which takes energy_restore), and\n"
             "the edge viscosity as params.visc says: the same arithmetic and results, fewer bytes moved;\n"
             "false: upstream's loops one by one"},
    {.key = "params.visc", .type = UM_OPT_CHOICE, .def = "auto", .choices = CHOICES("auto", "fused", "loops"),
     .help = "the edge viscosity: fused = one pass (getdt_visc: edges, limiter and corner forces, the neighbours'\n"
             "edges computed from their nodes, nothing in memory between); loops = upstream's three\n"
             "(getdt_visc_init, getdt_visc_limit, getdt_visc_force); auto = fused on a GPU with params.fused (1.7x\n"
             "the three on an H100 and an H200), loops on CPUs (where the one pass is no faster). The same bits"},
    {.key = "params.print_every", .type = UM_OPT_INT, .def = "0", .min = 0, .max = 2147483647,
     .flags = UM_OPT_RANGE | UM_OPT_NOT_PHYSICS,
     .range_hint = "use 0 (the last step's line only) or N >= 1 (every N steps, as upstream prints with 1)",
     .help = "upstream's per-step line every this many steps (0: the last step's only; the progress bar shows the "
             "rest)"},
    {.key = "params.sod_check", .type = UM_OPT_CHOICE, .def = "auto", .choices = CHOICES("auto", "true", "false", "yes", "no"),
     .help = "the L1 norm of density against the exact Sod solution (auto: when the deck's name contains 'sod', as "
             "upstream)"},
    {.key = "run.iterations", .type = UM_OPT_INT, .def = "0", .min = 0, .max = 2147483647, .flags = UM_OPT_RANGE,
     .range_hint = "must be 0 (at time_end) to 2147483647",
     .help = "stop after this many steps (0: at time_end)"},
};

/* The line of material m's eos_param (0-based m), else of its eos_type, for a message about its parameters. */
static int eos_line(const bl_deck *d, int m) {
  const int line = bl_deck_entry_line(d, "eos_param", m + 1);
  return line ? line : bl_deck_entry_line(d, "eos_type", m + 1);
}

/* The EOS of each material (upstream's names, any case, blanks around them ignored) and the parameters its formulas
 * divide by: those of the deck's materials only (the mesh's count of &INDICATORS material_type); one for a material
 * past them is not used, which bl_eos_notes says, as for materials past BL_MAXREG. */
static int read_eos(um_app_run *r, bl_config *c, const bl_deck *d, const char *f) {
  int nmat = 0;
  for (int i = 0; i < BL_LN; i++) nmat += !bl_is(d->material_type[i], "UNKNOWN");
  for (int m = 0; m < BL_MAXREG; m++) {
    char t[BL_SLEN];
    bl_upper(d->eos_type[m], t, sizeof t); /* blanks around it do not count, as in Fortran's comparison */
    memcpy(c->eos_param[m], d->eos_param[m], sizeof c->eos_param[m]);
    if (!strcmp(t, "IDEAL GAS"))
      c->eos_type[m] = 1;
    else if (!strcmp(t, "TAIT"))
      c->eos_type[m] = 2;
    else if (!strcmp(t, "JWL"))
      c->eos_type[m] = 3;
    else if (!strcmp(t, "VOID") || !t[0])
      c->eos_type[m] = 0;
    else if (!strcmp(t, "UNKNOWN"))
      c->eos_type[m] = -1; /* upstream: pressure -1, cs2 ccut */
    else
      return um_app_fail(r, UM_ERR_CONFIG,
                         "%s:%d: eos_type: '%s' for material %d: use VOID, IDEAL GAS, TAIT or JWL (as upstream)", f,
                         bl_deck_entry_line(d, "eos_type", m + 1), d->eos_type[m], m + 1);
    if (m >= nmat) continue; /* no material of the deck: its parameters are not used */
    /* the parameters the formulas divide by */
    static const char *const tait[] = {"a", "b", "rho0"}, *const jwl[] = {"omega", "A", "B", "R1", "R2", "rho0"};
    for (int k = 0; k < BL_NEOS; k++) {
      const int need = c->eos_type[m] == 2 ? k == 2 : c->eos_type[m] == 3 ? k >= 3 : 0;
      if (need && !(c->eos_param[m][k] > 0.0))
        return um_app_fail(r, UM_ERR_CONFIG, "%s:%d: eos_param(%d,%d) = %g: %s's %s must be > 0", f, eos_line(d, m),
                           k + 1, m + 1, c->eos_param[m][k], c->eos_type[m] == 2 ? "Tait" : "JWL",
                           c->eos_type[m] == 2 ? tait[k] : jwl[k]);
    }
    if (c->eos_type[m] == 1 && !(c->eos_param[m][0] > 1.0)) /* p = (gamma - 1) rho e: none, or negative, else */
      return um_app_fail(r, UM_ERR_CONFIG, "%s:%d: eos_param(1,%d) = %g: an ideal gas's gamma must be > 1", f,
                         eos_line(d, m), m + 1, c->eos_param[m][0]);
  }
  return UM_SUCCESS;
}

static int read_config(um_app_run *r, bl_config *c) {
  char err[1024] = "";
  const char *mesh_file = NULL, *deck = NULL;
  int sod = 0;
  memset(c, 0, sizeof *c);
  UM_APP_TRY(um_app_string(r, "mesh.file", &mesh_file));
  UM_APP_TRY(um_app_string(r, "params.deck", &deck));
  if (mesh_file && deck && strcmp(mesh_file, deck) != 0)
    return um_app_fail(r, UM_ERR_CONFIG, "mesh.file (%s) and params.deck (%s) both name a deck; give one of them",
                       mesh_file, deck);
  c->deck_path = mesh_file ? mesh_file : deck;
  if (!c->deck_path)
    return um_app_fail(r, UM_ERR_CONFIG,
                       "no deck: give a BookLeaf_F90 namelist deck with mesh.file (e.g. "
                       "validation/bookleaf/sod_sm_lag_small)");
  bl_deck *d = &c->deck;
  int rc = bl_deck_read(d, c->deck_path, err, sizeof err);
  if (rc) return um_app_fail(r, rc == UM_ERR_IO ? UM_ERR_CONFIG : rc, "%s", err);
  int nx = d->region_dim[0][0], ny = d->region_dim[1][0];
  /* no default in the table: absent, they keep the deck's values */
  UM_APP_TRY(um_app_double(r, "params.time_end", &d->time_end));
  UM_APP_TRY(um_app_double(r, "params.dt_initial", &d->dt_initial));
  UM_APP_TRY(um_app_double(r, "params.dt_max", &d->dt_max));
  UM_APP_TRY(um_app_double(r, "params.dt_min", &d->dt_min));
  UM_APP_TRY(um_app_double(r, "params.dt_g", &d->dt_g));
  UM_APP_TRY(um_app_double(r, "params.cfl_sf", &d->cfl_sf));
  UM_APP_TRY(um_app_double(r, "params.div_sf", &d->div_sf));
  UM_APP_TRY(um_app_double(r, "params.cvisc1", &d->cvisc1));
  UM_APP_TRY(um_app_double(r, "params.cvisc2", &d->cvisc2));
  UM_APP_TRY(um_app_int(r, "params.nx", &nx));
  UM_APP_TRY(um_app_int(r, "params.ny", &ny));
  UM_APP_TRY(um_app_choice(r, "params.scheme", &c->scheme, NULL));
  UM_APP_TRY(um_app_int(r, "params.print_every", &c->print_every));
  UM_APP_TRY(um_app_bool(r, "params.fused", &c->fused));
  UM_APP_TRY(um_app_choice(r, "params.visc", &c->visc, NULL));
  UM_APP_TRY(um_app_choice(r, "params.sod_check", &sod, NULL));
  UM_APP_TRY(um_app_int(r, "run.iterations", &c->max_steps));
  d->region_dim[0][0] = nx;
  d->region_dim[1][0] = ny;
  if (sod == 0) { /* auto: when the deck's name contains "sod", as upstream */
    const char *base = strrchr(c->deck_path, '/');
    c->sod_check = strstr(base ? base + 1 : c->deck_path, "sod") != NULL;
  } else c->sod_check = sod % 2; /* true, yes: 1 and 3; false, no: 2 and 4 */
  /* what this port does not do: say so before any work */
  const char *f = c->deck_path;
  if (!d->zeul && d->npatch > 0)
    return um_app_fail(r, UM_ERR_UNSUPPORTED,
                       "%s:%d: npatch: ALE patches (mesh relaxation in parts of the mesh) are not supported by this "
                       "port; the Eulerian remap (zeul) and the Lagrangian decks run",
                       f, bl_deck_line(d, "npatch"));
  if (d->zeul && d->adv_type != 1)
    return um_app_fail(r, UM_ERR_UNSUPPORTED,
                       "%s:%d: adv_type = %d: this port has the unsplit advection (1) only (upstream 2.0.1's split "
                       "advection stops itself with 'dt < dt_min' after 30 steps on sod_sm_eul_small and 40 on "
                       "sedov_eul_small; see docs/apps.md)",
                       f, bl_deck_line(d, "adv_type"), d->adv_type);
  if (bl_is(d->visc, "TENSOR")) { /* any case, blanks around it ignored (Fortran's comparison) */
    /* upstream 2.0.1's tensor branch is empty: no viscous forces, no viscous term in the CFL limit */
    c->ztq = 1;
    fprintf(r->log, "bookleaf: %s:%d: visc = TENSOR: as upstream BookLeaf_F90 2.0.1 (whose tensor branch is empty), "
                    "no artificial viscosity\n", c->deck_path, bl_deck_line(d, "visc"));
  } else if (!bl_is(d->visc, "EDGE"))
    return um_app_fail(r, UM_ERR_CONFIG, "%s:%d: visc: '%s': use EDGE (Christensen's edge viscosity) or TENSOR",
                       c->deck_path, bl_deck_line(d, "visc"), d->visc);
  for (int i = 0; i < BL_LN; i++)
    if (strcmp(d->material_type[i], "UNKNOWN")) c->nmat++;
  /* hourglass filters and sub-zonal pressures: the region's kappareg / pmeritreg where > 0, else kappaall /
   * pmeritall (upstream's MERGE) */
  for (int i = 0; i < BL_LN; i++) {
    d->kappareg[i] = d->kappareg[i] > 0.0 ? d->kappareg[i] : d->kappaall;
    d->pmeritreg[i] = d->pmeritreg[i] > 0.0 ? d->pmeritreg[i] : d->pmeritall;
    if (i < BL_MAXREG && d->kappareg[i] > 0.0) c->zhg = 1;
    if (i < BL_MAXREG && d->pmeritreg[i] > 0.0) c->zsp = 1;
  }
  UM_APP_TRY(read_eos(r, c, d, f));
  if (bl_deck_check_values(d, f, err, sizeof err)) return um_app_fail(r, UM_ERR_CONFIG, "%s", err);
  if (!(d->time_end > d->time_start))
    return um_app_fail(r, UM_ERR_CONFIG, "%s:%d: time_end = %g: must be after time_start = %g", f,
                       bl_deck_line(d, "time_end"), d->time_end, d->time_start);
  return UM_SUCCESS;
}

/* ---- declarations --------------------------------------------------------- */

/* params.scheme=gather: each node's elements in increasing order (slot s of node n: element ndel[4n+s], whose
 * corner ndcorner the node is, in the dat's layout; -1 in an empty slot, whose map entry repeats the node's first
 * element). Made before the maps are declared; handed to the context as their storage. */
static int make_node_elements(um_app_run *r, const bl_solver *S, const bl_mesh *m, int **ndel, int **corner) {
  const int nnd = m->nnd;
  *ndel = malloc(sizeof(int) * 4 * (size_t)nnd + 1), *corner = malloc(sizeof(int) * 4 * (size_t)nnd + 1);
  int rc = *ndel && *corner ? UM_SUCCESS : um_app_fail(r, UM_ERR_ALLOC, "out of memory for %d nodes", nnd);
  const long long bad =
      rc ? -1 : bl_mesh_node_elements(m, *ndel, *corner, um_context_options(r->ctx)->layout != UM_AOS,
                                   um_context_host_threads(r->ctx));
  if (bad >= 0)
    rc = um_app_fail(r, UM_ERR_CONFIG, "%s: node %lld is a corner of more than 4 elements: params.scheme=gather "
                     "takes at most 4; use params.scheme=inc", S->cfg->deck_path, bad + 1);
  if (rc) free(*ndel), free(*corner), *ndel = *corner = NULL;
  return rc;
}

/* params.visc: fused: for each face f of an element, the far corners b+2 and b+3 of the neighbour across it (b its
 * face that faces back), whose edges to the shared corners continue the element's own (bl_nbr_edge). The kernel
 * takes the neighbour's corners b+1 and b from the element's own: checked (bl_mesh_visc_nodes). Made before the
 * maps are declared (el_el takes the mesh's elel); declared (handed over) in their order. */
static int make_visc_nodes(um_app_run *r, const bl_solver *S, const bl_mesh *m, int **out) {
  int *vn = malloc(sizeof(int) * 8 * (size_t)m->nel);
  *out = NULL;
  if (!vn) return um_app_fail(r, UM_ERR_ALLOC, "out of memory for %d elements", m->nel);
  const long long bad = bl_mesh_visc_nodes(m, vn, um_context_host_threads(r->ctx));
  if (bad >= 0) {
    const size_t e = (size_t)(bad / 4);
    const int f = (int)(bad % 4);
    free(vn);
    return um_app_fail(r, UM_ERR_CONFIG, "%s: element %zu face %d and its neighbour %d (face %d) do not share "
                       "their corners as a conforming mesh does: params.visc=fused needs that; use params.visc=loops",
                       S->cfg->deck_path, e + 1, f + 1, m->elel[4 * e + f] + 1, m->elfc[4 * e + f] + 1);
  }
  *out = vn;
  return UM_SUCCESS;
}

/* The mesh the run declares: the whole of it (m), or this rank's block of it (b: declared by blocks, the map
 * targets in global numbers, each element with its own copy of its corners' coordinates and types). The
 * declaration takes over the arrays it can (their pointers then NULL here). */
typedef struct {
  bl_mesh *m;
  bl_block *b;
} bl_source;

/* Whether the one-pass viscosity's map is declared (params.visc: fused, or auto on a GPU with params.fused). */
static int wants_visc_nodes(um_app_run *r, const bl_config *c) {
  return !c->ztq && (c->visc == VISC_FUSED || (c->visc == VISC_AUTO && c->fused && !um_context_on_host(r->ctx)));
}

/* The sets and maps: whole (um_decl_set, um_decl_map) or by blocks (um_decl_set_block, um_decl_map_block). A whole
 * mesh's elel becomes el_el's storage. */
static int declare_sets(um_app_run *r, bl_solver *S, const bl_source *src) {
  um_context *ctx = r->ctx;
  const bl_block *b = src->b;
  if (!b) {
    bl_mesh *m = src->m;
    int *vn = NULL, *ndel = NULL, *corner = NULL;
    UM_APP_TRY(um_decl_set(ctx, m->nel, "elements", &S->el));
    UM_APP_TRY(um_decl_set(ctx, m->nnd, "nodes", &S->nd));
    int rc = S->cfg->scheme == SCHEME_GATHER ? make_node_elements(r, S, m, &ndel, &corner) : UM_SUCCESS;
    if (!rc && wants_visc_nodes(r, S->cfg)) rc = make_visc_nodes(r, S, m, &vn);
    if (!rc) rc = um_decl_map(ctx, S->el, S->nd, 4, m->elnd, "el_nodes", &S->elnd);
    if (!rc) rc = um_decl_map_take(ctx, S->el, S->el, 4, m->elel, "el_el", &S->elel), m->elel = NULL; /* taken */
    if (!rc && ndel) rc = um_decl_map_take(ctx, S->nd, S->el, 4, ndel, "nd_el", &S->ndel), ndel = NULL;
    if (!rc && corner)
      rc = um_decl_dat_take(ctx, S->nd, 4, UM_INT, corner, um_context_options(ctx)->layout, "node_corners",
                            &S->ndcorner), corner = NULL;
    if (!rc && vn) rc = um_decl_map_take(ctx, S->el, S->nd, 8, vn, "visc_nodes", &S->viscnd), vn = NULL;
    free(vn), free(ndel), free(corner);
    return rc;
  }
  UM_APP_TRY(um_decl_set_block(ctx, b->nel, b->first[0], b->count[0], "elements", &S->el));
  UM_APP_TRY(um_decl_set_block(ctx, b->nnd, b->first[1], b->count[1], "nodes", &S->nd));
  UM_APP_TRY(um_decl_map_block(ctx, S->el, S->nd, 4, b->elnd, "el_nodes", &S->elnd));
  UM_APP_TRY(um_decl_map_block(ctx, S->el, S->el, 4, b->elel, "el_el", &S->elel));
  if (S->cfg->scheme == SCHEME_GATHER) {
    UM_APP_TRY(um_decl_map_block(ctx, S->nd, S->el, 4, b->ndel, "nd_el", &S->ndel));
    UM_APP_TRY(um_decl_dat(ctx, S->nd, 4, UM_INT, b->ndcorner, "node_corners", &S->ndcorner));
  }
  if (wants_visc_nodes(r, S->cfg))
    UM_APP_TRY(um_decl_map_block(ctx, S->el, S->nd, 8, b->visc, "visc_nodes", &S->viscnd));
  return UM_SUCCESS;
}

/* The initial geometry and masses (init_kn_elmass), each array made in the layout its dat takes (soa: columns of
 * n values; corner: the corner weights' and masses'), then handed to its dat. */
typedef struct {
  double *iso, *cnwt, *vol, *mass, *cnmass, *spmass, *xy, *uv, *ubar;
  int *nbr, *id;
  int soa, corner_soa;
} bl_initial;

static size_t at_(int soa, size_t n, int dim, size_t e, int c) { return soa ? (size_t)c * n + e : e * (size_t)dim + c; }

/* Element e of the initial arrays (src's rows); 0, or 1 for a volume <= 0. */
static int initial_element(const bl_source *src, const int *elel, bl_initial *a, size_t n, size_t e) {
  const bl_mesh *m = src->m;
  const bl_block *bk = src->b;
  const long long e0 = bk ? bk->first[0] : 0;
  double cx[4], cy[4], iso[4], cnwt[4];
  for (int k = 0; k < 4; k++) {
    cx[k] = bk ? bk->cx[4 * e + k] : m->x[m->elnd[4 * e + k]];
    cy[k] = bk ? bk->cy[4 * e + k] : m->y[m->elnd[4 * e + k]];
  }
  bl_geometry(cx, cy, iso, iso + 1, iso + 2, iso + 3, cnwt, &a->vol[e]);
  if (!(a->vol[e] > 0.0)) return 1;
  const double rho = bk ? bk->density[e] : m->density[e];
  a->mass[e] = rho * a->vol[e];
  double sp[4];
  if (a->spmass) bl_subzones(cx, cy, rho, sp); /* spmassinit */
  const int *elfc = bk ? bk->elfc : m->elfc;
  for (int k = 0; k < 4; k++) {
    a->iso[at_(a->soa, n, 4, e, k)] = iso[k];
    a->cnwt[at_(a->corner_soa, n, 4, e, k)] = cnwt[k];
    a->cnmass[at_(a->corner_soa, n, 4, e, k)] = rho * cnwt[k];
    if (a->spmass) a->spmass[at_(a->soa, n, 4, e, k)] = sp[k];
    const int g = (k + 1) % 4;
    const int self = bk ? bk->elel[4 * e + k] == e0 + (long long)e : elel[4 * e + k] == (int)e;
    const int side = bk ? bk->ctype[4 * e + k] < 0 && bk->ctype[4 * e + g] < 0
                        : m->indtype[m->elnd[4 * e + k]] < 0 && m->indtype[m->elnd[4 * e + g]] < 0;
    a->nbr[at_(a->soa, n, 8, e, k)] = elfc[4 * e + k];
    a->nbr[at_(a->soa, n, 8, e, 4 + k)] = self | (side ? 2 : 0);
  }
  a->id[e] = (int)(e0 + (long long)e + 1);
  return 0;
}

/* The initial arrays over the host's threads (each element and node alone: the same values for any count); -1, or
 * the first element whose volume is <= 0. */
static long long initial_arrays(const bl_source *src, bl_initial *a, int nel, int nnd, int nthreads) {
  (void)nthreads; /* unused in a build without OpenMP */
  const bl_block *bk = src->b;
  const bl_mesh *m = src->m;
  const double *x = bk ? bk->x : m->x, *y = bk ? bk->y : m->y, *u = bk ? bk->u : m->u, *v = bk ? bk->v : m->v;
  const int *elel = bk ? NULL : m->elel;
  long long bad = nel;
#pragma omp parallel for schedule(static) num_threads(nthreads) reduction(min : bad)
  for (int e = 0; e < nel; e++)
    if (initial_element(src, elel, a, (size_t)nel, (size_t)e) && e < bad) bad = e;
#pragma omp parallel for schedule(static) num_threads(nthreads)
  for (int i = 0; i < nnd; i++) {
    const size_t i0 = at_(a->soa, (size_t)nnd, 2, (size_t)i, 0), i1 = at_(a->soa, (size_t)nnd, 2, (size_t)i, 1);
    a->ubar[i0] = u[i], a->ubar[i1] = v[i];
    if (a->uv) a->uv[i0] = u[i], a->uv[i1] = v[i], a->xy[i0] = x[i], a->xy[i1] = y[i];
  }
  return bad < nel ? bad : -1;
}

static void initial_free(bl_initial *a) {
  free(a->iso), free(a->cnwt), free(a->vol), free(a->mass), free(a->cnmass), free(a->spmass), free(a->xy);
  free(a->uv), free(a->ubar), free(a->nbr), free(a->id);
}

/* Hand one array (*p) to a new dat: *p is the dat's storage (or freed by a failure) and NULL here from now on. */
#define TAKE(set, dim, type, p, layout, name, out)                                \
  do {                                                                            \
    if (!rc) rc = um_decl_dat_take(ctx, set, dim, type, p, layout, name, out); \
    else free(p);                                                                 \
    p = NULL;                                                                     \
  } while (0)

/* The dats (in their declaration order, which outputs and checkpoints keep), taking over a's arrays and the
 * source's element and node fields where the run keeps no copy of them. */
static int declare_dats(um_app_run *r, bl_solver *S, const bl_source *src, bl_initial *a) {
  um_context *ctx = r->ctx;
  bl_mesh *m = src->m;
  bl_block *bk = src->b;
  const um_layout L = um_context_options(ctx)->layout, LC = S->cfg->scheme == SCHEME_GATHER ? UM_AOS : L;
  double **density = bk ? &bk->density : &m->density, **energy = bk ? &bk->energy : &m->energy;
  int **indtype = bk ? &bk->indtype : &m->indtype;
  const int *elreg = bk ? bk->elreg : m->elreg, *elmat = bk ? bk->elmat : m->elmat;
  int rc = UM_SUCCESS;
  TAKE(S->el, 1, UM_DOUBLE, *density, L, "density", &S->rho);
  DAT(S->el, 1, UM_DOUBLE, *energy, "energy", &S->e);
  TAKE(S->el, 1, UM_DOUBLE, *energy, L, "energy0", &S->e0);
  DAT(S->el, 1, UM_DOUBLE, NULL, "pressure", &S->p);
  DAT(S->el, 1, UM_DOUBLE, NULL, "cs2", &S->cs2);
  DAT(S->el, 1, UM_DOUBLE, NULL, "visc", &S->visc);
  TAKE(S->el, 1, UM_DOUBLE, a->mass, L, "mass", &S->mass);
  TAKE(S->el, 1, UM_DOUBLE, a->vol, L, "volume", &S->vol);
  TAKE(S->el, 4, UM_DOUBLE, a->iso, L, "iso", &S->iso);
  /* the gather scheme reads one or two values of each of its elements' rows: AoS keeps them in one sector
   * (SoA would gather all 4 + 4 + 8 of four elements; 2.5x slower than the scatter on an H100) */
  TAKE(S->el, 4, UM_DOUBLE, a->cnwt, LC, "cnwt", &S->cnwt);
  TAKE(S->el, 4, UM_DOUBLE, a->cnmass, LC, "cnmass", &S->cnmass);
  DAT(S->el, 8, UM_DOUBLE, NULL, "cnf", &S->cnf);
  if (!rc && LC != L) rc = um_dat_set_layout(ctx, S->cnf, LC);
  DAT(S->el, 8, UM_DOUBLE, NULL, "cnvisc", &S->cnvisc);
  if (!S->viscnd) { /* the unfused viscosity's edge rows and coefficients (bl_visc keeps them in registers) */
    DAT(S->el, 16, UM_DOUBLE, NULL, "edge", &S->edge);
    /* the limiter reads two faces (two 32-byte sectors) of each neighbour's row: kept AoS whatever run.layout
     * says (SoA would gather all 16 values of four neighbours; 1.22 against 0.80 ms per call on 4M elements, H200) */
    if (!rc) rc = um_dat_set_layout(ctx, S->edge, UM_AOS);
    DAT(S->el, 4, UM_DOUBLE, NULL, "evisc", &S->evisc);
  }
  DAT(S->el, 1, UM_DOUBLE, NULL, "dt_scratch", &S->scratch);
  DAT(S->el, 1, UM_DOUBLE, NULL, "dt_scratch_div", &S->scratch_div);
  if (!rc) rc = um_decl_reduction(ctx, 1, UM_DOUBLE, UM_MIN, "dt_cfl_min", &S->wmin);
  if (!rc) rc = um_decl_reduction(ctx, 1, UM_DOUBLE, UM_MAX, "dt_div_max", &S->wmax);
  TAKE(S->el, 8, UM_INT, a->nbr, L, "neighbour_faces", &S->nbr);
  DAT(S->el, 1, UM_INT, elreg, "region", &S->reg); /* copies: the report keeps the mesh's numbering */
  DAT(S->el, 1, UM_INT, elmat, "material", &S->mat);
  TAKE(S->el, 1, UM_INT, a->id, L, "element_id", &S->id);
  if (a->spmass) TAKE(S->el, 4, UM_DOUBLE, a->spmass, L, "subzone_mass", &S->spmass);
  TAKE(S->nd, 2, UM_DOUBLE, a->xy, L, "x", &S->x);
  TAKE(S->nd, 2, UM_DOUBLE, a->uv, L, "u", &S->u);
  TAKE(S->nd, 2, UM_DOUBLE, a->ubar, L, "ubar", &S->ubar);
  if (S->cfg->scheme != SCHEME_GATHER) DAT(S->nd, 4, UM_DOUBLE, NULL, "node_acc", &S->acc); /* the increments' sums */
  TAKE(S->nd, 1, UM_INT, *indtype, L, "node_type", &S->type);
  if (S->cfg->deck.zeul) {
    DAT(S->nd, 2, UM_DOUBLE, NULL, "x_lagrangian", &S->x0);
    DAT(S->el, 4, UM_DOUBLE, NULL, "face_volume_flux", &S->fcdv);
    DAT(S->el, 4, UM_DOUBLE, NULL, "face_mass_flux", &S->fcdm);
    DAT(S->el, 2, UM_DOUBLE, NULL, "volume_mass_before", &S->vm0);
    DAT(S->el, 4, UM_DOUBLE, NULL, "face_energy_flux", &S->eflux);
    DAT(S->el, 4, UM_DOUBLE, NULL, "cnmass_before", &S->cnm0);
    DAT(S->el, 8, UM_DOUBLE, NULL, "corner_basis_flux", &S->cnd);
    DAT(S->el, 4, UM_DOUBLE, NULL, "corner_mass_flux", &S->cnflux);
    DAT(S->el, 8, UM_DOUBLE, NULL, "corner_velocity", &S->cnu);
    DAT(S->el, 8, UM_DOUBLE, NULL, "corner_momentum_flux", &S->mflux);
    DAT(S->nd, 4, UM_DOUBLE, NULL, "node_basis", &S->nbasis);
    DAT(S->nd, 2, UM_DOUBLE, NULL, "node_momentum_flux", &S->nflux);
  }
  return rc;
}

static int declare(um_app_run *r, bl_solver *S, const bl_source *src) {
  const bl_block *bk = src->b;
  const int nel = bk ? bk->count[0] : src->m->nel, nnd = bk ? bk->count[1] : src->m->nnd; /* this rank's rows */
  const um_layout L = um_context_options(r->ctx)->layout;
  bl_initial a = {.soa = L != UM_AOS, .corner_soa = L != UM_AOS && S->cfg->scheme != SCHEME_GATHER};
  const size_t ne = (size_t)nel + 1, nn = (size_t)nnd + 1; /* + 1: no zero-byte request */
  a.iso = malloc(sizeof(double) * 4 * ne), a.cnwt = malloc(sizeof(double) * 4 * ne);
  a.vol = malloc(sizeof(double) * ne), a.mass = malloc(sizeof(double) * ne);
  a.cnmass = malloc(sizeof(double) * 4 * ne), a.ubar = malloc(sizeof(double) * 2 * nn);
  /* SoA: a whole mesh's blocks (x then y, u then v) are the dats' columns as they stand */
  const int own_nodes = bk || !a.soa;
  a.xy = own_nodes ? malloc(sizeof(double) * 2 * nn) : NULL;
  a.uv = own_nodes ? malloc(sizeof(double) * 2 * nn) : NULL;
  a.nbr = malloc(sizeof(int) * 8 * ne), a.id = malloc(sizeof(int) * ne);
  a.spmass = S->cfg->zsp ? malloc(sizeof(double) * 4 * ne) : NULL;
  if (!a.iso || !a.cnwt || !a.vol || !a.mass || !a.cnmass || (own_nodes && (!a.xy || !a.uv)) || !a.ubar ||
      !a.nbr || !a.id || (S->cfg->zsp && !a.spmass)) {
    initial_free(&a);
    return um_app_fail(r, UM_ERR_ALLOC, "out of memory for %d elements", nel);
  }
  /* made before the maps take the mesh's arrays; a volume <= 0 is reported after the maps' own checks */
  const long long bad = initial_arrays(src, &a, nel, nnd, um_context_host_threads(r->ctx));
  if (!own_nodes) {
    a.xy = src->m->x, a.uv = src->m->u;
    src->m->x = src->m->y = src->m->u = src->m->v = NULL;
  }
  int rc = declare_sets(r, S, src);
  if (!rc && bad >= 0)
    rc = um_app_fail(r, UM_ERR_CONFIG, "%s: the generated mesh has element %lld with volume %g <= 0",
                     S->cfg->deck_path, (bk ? bk->first[0] : 0) + bad + 1, a.vol[bad]);
  const double *vol = a.vol, *mass = a.mass; /* the dats' storage from here on (read by the mixed cells) */
  if (!rc) rc = declare_dats(r, S, src, &a);
  if (!rc) rc = bl_mix_declare(r, S, src->m, vol, mass); /* mixed-material cells: their components */
  initial_free(&a); /* what a failure left */
  return rc;
}

static int publish_constants(um_app_run *r, const bl_config *c) {
  const bl_deck *d = &c->deck;
  const double cut[6] = {d->zcut, d->zerocut, d->dencut, d->accut, d->pcut, d->ccut};
  memcpy(bl_cut, cut, sizeof cut);
  bl_visc_coef[0] = d->cvisc1;
  bl_visc_coef[1] = d->cvisc2;
  for (int m = 0; m < BL_NMAT_MAX; m++) {
    bl_eos_type[m] = c->eos_type[m];
    for (int k = 0; k < BL_EOS_NP; k++) bl_eos_param[BL_EOS_NP * m + k] = c->eos_param[m][k];
    bl_kappa[m] = d->kappareg[m];
    bl_pmerit[m] = d->pmeritreg[m];
    bl_dtreg[m] = (d->zdtnotreg[m] ? 1 : 0) | (d->zmidlength[m] ? 2 : 0);
  }
  UM_APP_TRY(um_decl_const(r->ctx, "bl_cut", 6, UM_DOUBLE, bl_cut));
  UM_APP_TRY(um_decl_const(r->ctx, "bl_visc_coef", 2, UM_DOUBLE, bl_visc_coef));
  UM_APP_TRY(um_decl_const(r->ctx, "bl_eos_type", BL_NMAT_MAX, UM_INT, bl_eos_type));
  UM_APP_TRY(um_decl_const(r->ctx, "bl_eos_param", BL_NMAT_MAX * BL_EOS_NP, UM_DOUBLE, bl_eos_param));
  UM_APP_TRY(um_decl_const(r->ctx, "bl_kappa", BL_NMAT_MAX, UM_DOUBLE, bl_kappa));
  UM_APP_TRY(um_decl_const(r->ctx, "bl_pmerit", BL_NMAT_MAX, UM_DOUBLE, bl_pmerit));
  UM_APP_TRY(um_decl_const(r->ctx, "bl_dtreg", BL_NMAT_MAX, UM_INT, bl_dtreg));
  return UM_SUCCESS;
}

/* ---- the run ---------------------------------------------------------------- */

/* Checkpoints: what a step carries to the next on the host, and the start's totals the conservation compares. */
static int register_values(um_app_run *r, bl_solver *S, int *counts, size_t counts_bytes, int *last_el,
                           double *e_start, double *m_start) {
  const struct {
    const char *name;
    void *p;
    size_t bytes;
  } values[] = {{"nstep", &S->nstep, sizeof S->nstep},       {"time", &S->time, sizeof S->time},
                {"dt", &S->dt, sizeof S->dt},                {"wmin", &S->wmin_value, sizeof S->wmin_value},
                {"wmax", &S->wmax_value, sizeof S->wmax_value}, {"dt_reasons", counts, counts_bytes},
                {"last_el", last_el, sizeof *last_el},       {"e_start", e_start, sizeof *e_start},
                {"m_start", m_start, sizeof *m_start}};
  for (size_t i = 0; i < sizeof values / sizeof values[0]; i++)
    UM_APP_TRY(um_app_state(r, values[i].name, values[i].p, values[i].bytes));
  return UM_SUCCESS;
}

static int run(um_app_run *r, bl_solver *S, bl_config *cfg) {
  const bl_deck *d = &cfg->deck;
  bl_table t0, t1;
  UM_APP_TRY(bl_step_eos(S)); /* init_dr_state */
  UM_APP_TRY(bl_mix_geteos(S));
  UM_APP_TRY(bl_table_fill(r, S, &t0));
  S->time = d->time_start;
  S->dt = d->dt_initial;
  bl_print_table(r->log, S, &t0, "Start of run: regions");
  double e_start = t0.total.ie + t0.total.ke, m_start = t0.total.mass;
  bl_table_free(&t0);
  fprintf(r->log, "\n");
  double t_first = 0.0;
  int rc = UM_SUCCESS, counts[DT_NREASONS] = {0}, last_el = 0;
  UM_APP_TRY(register_values(r, S, counts, sizeof counts, &last_el, &e_start, &m_start));
  long resumed = 0;
  UM_APP_TRY(um_app_resume(r, &resumed));
  const double t_run = um_wtime();
  /* a restart from a checkpoint at (or, with a lower run.iterations, past) the end takes no step */
  while (!rc && S->time < d->time_end && !(cfg->max_steps && S->nstep >= cfg->max_steps)) {
    dt_choice c = {0.0, 0, "", 0};
    rc = bl_getdt(r, S, &c);
    if (rc) break;
    rc = um_app_step_check(r, "bookleaf", S->nstep + 1, S->time, c.dt, S->nstep ? S->dt : 0, d->time_end,
                           cfg->max_steps); /* the stall rule */
    if (rc) break;
    S->nstep++;
    S->dt = c.dt;
    counts[c.reason]++;
    S->time += c.dt;
    const int last = S->time >= d->time_end || (cfg->max_steps && S->nstep >= cfg->max_steps);
    const int print = (cfg->print_every && S->nstep % cfg->print_every == 0) || last;
    if (print || c.dt < d->dt_min) { /* the controlling element, only where it is printed or kept */
      rc = bl_dt_element(S, &c);
      if (rc) break;
      last_el = c.el;
    }
    if (c.dt < d->dt_min) {
      rc = um_app_fail(r, UM_ERR_DIVERGED, "dt = %.9e < dt_min = %g at step %d (%s, element %d)%s", c.dt, d->dt_min,
                       S->nstep, c.why, c.el,
                       c.reason == DT_GROWTH && d->dt_g < 1.0 ? ": dt_g < 1 shrinks dt by that factor every step" : "");
      break;
    }
    rc = bl_lagstep(r, S);
    if (!rc && cfg->deck.zeul) rc = bl_alestep(r, S);
    if (rc) break;
    if (S->nstep == resumed + 1) {
      rc = um_sync(r->ctx);
      t_first = um_wtime() - t_run;
    }
    if (print) {
      um_app_progress_clear(r);
      /* a mixed cell: MIXED, as upstream prints it; a mesh by blocks holds no numbering and has one material */
      const int em = c.el <= 0 ? -1 : S->elmat_orig ? S->elmat_orig[c.el - 1] : 0;
      const char *mat = c.el <= 0 ? "UNKNOWN" : em >= 0 ? S->material_name[em] : "MIXED";
      fprintf(r->log, " step=%7d  el=%9d %10.10s dt=%16.9E  time=%16.9E %s\n", S->nstep, c.el, mat, c.dt, S->time,
              c.why);
      fflush(r->log);
    }
    um_app_progress(r, "bookleaf time", (long)(1000.0 * (S->time - d->time_start) / (d->time_end - d->time_start)),
                    1000);
    rc = um_app_step_end_last(r, S->nstep, last);
    if (last) break;
  }
  um_app_progress_clear(r);
  if (!rc) rc = um_app_loop_done(r);
  if (!rc) rc = um_sync(r->ctx);
  r->run_seconds = um_wtime() - t_run;
  if (rc) return rc;
  UM_APP_TRY(bl_table_fill(r, S, &t1));
  bl_print_table(r->log, S, &t1, "End of run: regions");
  const double e_end = t1.total.ie + t1.total.ke;
  rc = um_app_metric(r, "steps", S->nstep);
  if (!rc) rc = um_app_metric(r, "final_time", S->time);
  if (!rc) rc = um_app_metric(r, "final_dt", S->dt);
  if (!rc) rc = um_app_metric(r, "final_dt_element", last_el);
  for (int k = 0; k < DT_NREASONS && !rc; k++) {
    char name[64];
    snprintf(name, sizeof name, "dt_%s_steps", reason_names[k]);
    rc = um_app_metric(r, name, counts[k]);
  }
  if (!rc) rc = um_app_metric(r, "elements", S->nel);
  if (!rc) rc = um_app_metric(r, "nodes", S->nnd);
  if (!rc) rc = um_app_metric(r, "total_volume", t1.total.vol);
  if (!rc) rc = um_app_metric(r, "total_mass", t1.total.mass);
  if (!rc) rc = um_app_metric(r, "total_ie", t1.total.ie);
  if (!rc) rc = um_app_metric(r, "total_ke", t1.total.ke);
  if (!rc) rc = um_app_metric(r, "total_energy", e_end);
  if (!rc) rc = um_app_metric(r, "total_pressure", t1.total.p);
  if (!rc) rc = um_app_metric(r, "total_density", t1.total.rho);
  /* conservation: energy (Lagrangian, no boundary work on these decks) and mass, relative */
  if (!rc) rc = um_app_metric(r, "energy_change", (e_end - e_start) / e_start);
  if (!rc) rc = um_app_metric(r, "mass_change", (t1.total.mass - m_start) / m_start);
  if (!rc) rc = bl_region_metrics(r, S, &t1);
  if (!rc && S->nmat > 1) rc = bl_material_metrics(r, S, &t1);
  if (!rc && S->nmat > 1) rc = um_app_metric(r, "mixed_cells", S->nmx);
  if (!rc && S->nmat > 1) rc = um_app_metric(r, "components", S->ncp);
  double l1 = 0.0;
  if (!rc && cfg->sod_check) rc = bl_table_corners_x(r, S, &t1);
  if (!rc && cfg->sod_check) rc = bl_sod_l1(r, S, &t1, &l1);
  if (!rc && cfg->sod_check) {
    fprintf(r->log, "\n L1 norm of density against the exact Sod solution: %.9E\n", l1);
    rc = um_app_metric(r, "sod_l1_density", l1);
  }
  const int steps = S->nstep;
  r->steps = steps - resumed; /* the steps this run timed */
  r->first_step_seconds = t_first;
  const double per_step = um_app_step_seconds(r);
  if (!rc) rc = um_app_metric(r, "ms_per_step", 1e3 * per_step);
  if (!rc)
    fprintf(r->log, "\n bookleaf: %d steps to t = %.9e in %.3f s (first step %.3f s, then %.4f ms per step)\n", steps,
            S->time, r->run_seconds, t_first, 1e3 * per_step);
  if (!rc && um_app_field_dir(r)) rc = bl_write_fields(r, S, &t1);
  if (!rc && r->output_dir && *r->output_dir && r->write_hdf5) rc = bl_write_hdf5(r, S, &t1);
  bl_table_free(&t1);
  return rc;
}

/* This rank's block of the deck's mesh (mpi.mesh: blocks): *b->regular 0 on every rank where the mesh is not
 * regular on some rank's block (then the run makes it whole). A block's error fails every rank at once. */
static int build_block(um_app_run *r, const bl_config *cfg, bl_block *b) {
  char err[1024] = "";
  long long gsize[2], first[2], count[2];
  memset(b, 0, sizeof *b);
  int rc = bl_mesh_counts(&cfg->deck, &gsize[0], &gsize[1], err, sizeof err);
  if (rc) return um_app_fail(r, rc == UM_ERR_IO ? UM_ERR_CONFIG : rc, "%s", err);
  for (int s = 0; s < 2; s++) {
    int n = 0;
    UM_APP_TRY(um_app_block(r, gsize[s], &first[s], &n));
    count[s] = n;
  }
  const double t0 = um_wtime();
  const int what =
      (wants_visc_nodes(r, cfg) ? BL_BLOCK_VISC : 0) | (cfg->scheme == SCHEME_GATHER ? BL_BLOCK_NODE_ELEMENTS : 0);
  rc = bl_block_build(&cfg->deck, first, count, what, b, err, sizeof err);
  if (rc) rc = um_app_fail(r, rc == UM_ERR_IO ? UM_ERR_CONFIG : rc, "%s", err);
  rc = um_app_agree(r, rc, "make its block of the mesh"); /* a bad element is in some ranks' blocks only */
  if (!rc && um_mpi_agree(!b->regular, -1)) { /* some rank's nodes move in the relaxation: every rank makes it whole */
    bl_block_free(b);
    b->regular = 0;
  }
  if (rc) bl_block_free(b);
  else if (b->regular)
    fprintf(r->log, "bookleaf: this rank's block of the mesh (%d of %lld elements, %d of %lld nodes) generated in "
                    "%.2f s\n", b->count[0], b->nel, b->count[1], b->nnd, um_wtime() - t0);
  return rc;
}

/* An irregular deck's mesh by blocks: generated whole on rank 0 alone and sent out, each rank its block
 * (bl_block_scatter); rank 0 frees the whole mesh once sent. A deck rank 0 cannot generate stops every rank. */
static int scatter_block(um_app_run *r, const bl_config *cfg, bl_block *b) {
  char err[1024] = "";
  bl_mesh m;
  memset(&m, 0, sizeof m);
  const double t0 = um_wtime();
  int rc = um_mpi_rank() == 0 ? bl_mesh_build(&cfg->deck, &m, err, sizeof err) : UM_SUCCESS;
  if (rc) rc = um_app_fail(r, rc == UM_ERR_IO ? UM_ERR_CONFIG : rc, "%s", err);
  rc = um_app_agree(r, rc, "generate the mesh");
  const double mb = (double)m.nel * 72 + (double)m.nnd * 36; /* bl_mesh's arrays, bytes */
  const int what =
      (wants_visc_nodes(r, cfg) ? BL_BLOCK_VISC : 0) | (cfg->scheme == SCHEME_GATHER ? BL_BLOCK_NODE_ELEMENTS : 0);
  if (!rc) rc = bl_block_scatter(um_mpi_rank() == 0 ? &m : NULL, what, b, err, sizeof err);
  bl_mesh_free(&m);
  if (rc) return um_app_fail(r, rc, "%s: %s", cfg->deck_path, err);
  fprintf(r->log, "bookleaf: the deck's mesh is not regular (its relaxation moves points of its start): generated "
                  "whole on rank 0 (%.1f MB there) and sent out by blocks in %.2f s; this rank holds %d of %lld "
                  "elements, %d of %lld nodes\n", um_mpi_rank() == 0 ? mb / 1e6 : 0.0, um_wtime() - t0, b->count[0],
          b->nel, b->count[1], b->nnd);
  return UM_SUCCESS;
}

static int run_with_config(um_app_run *r, bl_config *cfg) {
  UM_APP_TRY(read_config(r, cfg));
  char err[1024] = "";
  const double t0 = um_wtime();
  int blocks = 0, rc = UM_SUCCESS;
  UM_APP_TRY(um_app_by_blocks(r, &blocks));
  if (blocks && cfg->nmat > 1) { /* components are made with the whole mesh (and then follow their cells) */
    um_app_whole_note(r, "the deck has several materials, whose mixed cells are found on the whole mesh");
    blocks = 0;
  }
  bl_block b;
  memset(&b, 0, sizeof b);
  if (blocks) UM_APP_TRY(build_block(r, cfg, &b));
  if (blocks && !b.regular) UM_APP_TRY(scatter_block(r, cfg, &b));
  bl_mesh m;
  memset(&m, 0, sizeof m);
  if (!b.regular) rc = bl_mesh_build_threads(&cfg->deck, um_context_host_threads(r->ctx), &m, err, sizeof err);
  if (rc) return um_app_fail(r, rc == UM_ERR_IO ? UM_ERR_CONFIG : rc, "%s", err);
  if (m.nmx && cfg->deck.zeul) {
    bl_mesh_free(&m);
    return um_app_fail(r, UM_ERR_UNSUPPORTED, "%s:%d: zeul: the deck has mixed-material cells, and upstream's remap "
                       "(BookLeaf_F90 2.0.1) does not carry their components: mixed cells run on the Lagrangian mesh "
                       "only (drop zeul, or make the material shapes follow the cells)",
                       cfg->deck_path, bl_deck_line(&cfg->deck, "zeul"));
  }
  bl_solver S;
  memset(&S, 0, sizeof S);
  S.ctx = r->ctx;
  S.cfg = cfg;
  S.nel = b.regular ? (int)b.nel : m.nel, S.nnd = b.regular ? (int)b.nnd : m.nnd, S.nreg = b.regular ? b.nreg : m.nreg;
  memcpy(S.region_name, b.regular ? b.region_name : m.region_name, sizeof S.region_name);
  memcpy(S.material_name, b.regular ? b.material_name : m.material_name, sizeof S.material_name);
  S.nmat = b.regular ? b.nmat : m.nmat;
  const bl_source src = {b.regular ? NULL : &m, b.regular ? &b : NULL};
  rc = publish_constants(r, cfg);
  if (!rc) rc = declare(r, &S, &src);
  /* the report's numbering: the whole mesh's (a mesh declared by blocks holds none: its tables go by blocks) */
  if (!b.regular) S.elnd_orig = m.elnd, S.elreg_orig = m.elreg, S.elmat_orig = m.elmat;
  m.elnd = m.elreg = m.elmat = NULL;
  bl_mesh_free(&m);
  bl_block_free(&b);
  if (!rc) rc = um_app_prepare(r, "el_nodes");
  if (!rc) {
    fprintf(r->log,
            "bookleaf: deck %s: %d elements, %d nodes, %d region(s), %d material(s), %d mixed cells (%d components); "
            "t = %g .. %g; scheme %s%s%s%s\n", cfg->deck_path, S.nel, S.nnd, S.nreg, S.nmat, S.nmx, S.ncp,
            cfg->deck.time_start, cfg->deck.time_end, scheme_names[cfg->scheme],
            cfg->zhg ? ", hourglass filters" : "", cfg->zsp ? ", sub-zonal pressures" : "",
            cfg->deck.zeul ? ", Eulerian (ALE remap every step)" : "");
    bl_eos_notes(r->log, cfg, &S);
    um_app_setup_done(r, t0);
    rc = run(r, &S, cfg);
  }
  free(S.elnd_orig), free(S.elreg_orig), free(S.elmat_orig);
  bl_mix_free(&S);
  return rc;
}

static int bookleaf_run(um_app_run *r) {
  bl_config *cfg = calloc(1, sizeof *cfg); /* large (the namelist arrays): not on the stack */
  if (!cfg) return um_app_fail(r, UM_ERR_ALLOC, "bookleaf: out of memory for the configuration");
  const int rc = run_with_config(r, cfg);
  free(cfg);
  return rc;
}

const um_app um_app_bookleaf = {
    .name = "bookleaf",
    .description = "BookLeaf (UK-MAC): 2D Lagrangian hydrodynamics on quadrilaterals, edge viscosity, predictor-corrector; "
    "BookLeaf_F90 decks",
    .run = bookleaf_run,
    .options = bookleaf_options,
    .noptions = (int)(sizeof bookleaf_options / sizeof bookleaf_options[0]),
    /* what makes it different (umrun --report) */
    .report_note =
        "BookLeaf is a 2D Lagrangian hydrodynamics code on quadrilaterals with an ALE remap. Corner forces and masses "
        "are scattered to the nodes through the element-to-node map (<code>getacc_scatter</code>, indirect "
        "increments), the artificial viscosity reads four neighbours through the element-to-element map, and the "
        "remap moves element and nodal quantities across sides."};
