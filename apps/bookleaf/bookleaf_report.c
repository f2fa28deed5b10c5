/* BookLeaf on um: reports (upstream's short print per region, the Sod L1 norm, region metrics) and
 * outputs (field files in upstream's numbering, HDF5/XDMF). */
#include "bookleaf_internal.h"
#include "bookleaf_mesh.h"

/* ---- notes on the deck ------------------------------------------------------ */

void bl_eos_notes(FILE *log, const bl_config *c, const bl_solver *S) {
  const bl_deck *d = &c->deck;
  char t[BL_SLEN];
  int extra = -1; /* the first eos_type of a material the deck does not have */
  for (int k = S->nmat; k < BL_LN; k++) {
    bl_upper(d->eos_type[k], t, sizeof t);
    if (!t[0]) continue;
    if (extra < 0) extra = k;
    fprintf(log,
            "bookleaf: note: %s:%d: eos_type(%d) = '%s' is for material %d, but the deck has %d material(s) "
            "(&INDICATORS material_type): not used (upstream does not use it either)\n",
            c->deck_path, bl_deck_entry_line(d, "eos_type", k + 1), k + 1, d->eos_type[k], k + 1, S->nmat);
  }
  for (int k = 0; k < S->nmat && k < BL_MAXREG; k++) { /* a blank eos_type is VOID: say so for a material in use */
    bl_upper(d->eos_type[k], t, sizeof t);
    if (t[0]) continue;
    fprintf(log,
            "bookleaf: note: %s: material %d (%s) has no eos_type: VOID, a constant pressure eos_param(1,%d) = %g; "
            "set eos_type(%d) in &EOS ('IDEAL GAS', 'TAIT', 'JWL') for a gas or a liquid",
            c->deck_path, k + 1, S->material_name[k], k + 1, c->eos_param[k][0], k + 1);
    if (extra >= 0)
      fprintf(log, " (the eos_type(%d) of line %d is for no material of the deck: was it meant for material %d?)",
              extra + 1, bl_deck_entry_line(d, "eos_type", extra + 1), k + 1);
    fputc('\n', log);
  }
}

/* ---- reports -------------------------------------------------------------- */


void bl_table_free(bl_table *t) {
  free(t->rho), free(t->e), free(t->p), free(t->vol), free(t->mass), free(t->cnwt), free(t->x), free(t->u);
  free(t->region), free(t->material), free(t->uc), free(t->xc), free(t->cp);
}

/* a dat's values in upstream's numbering: whole, or this rank's block of them (t->blocks) */
static int fetch(um_app_run *r, const bl_table *t, um_dat *d, void *h, size_t bytes) {
  return t->blocks ? um_dat_fetch_block_original_order(r->ctx, d, h, bytes)
                   : um_dat_fetch_original_order(r->ctx, d, h, bytes);
}

/* The fields a table is made from (bl_table): whole, or this rank's block of the elements with their regions,
 * materials and corner velocities (through cnvisc, bl_corners_into_cnvisc). */
static int fetch_fields(um_app_run *r, bl_solver *S, bl_table *t) {
  if (t->blocks) UM_APP_TRY(um_set_block(r->ctx, um_dat_set(S->rho), &t->b0, &t->n));
  const size_t ne = t->blocks ? (size_t)t->n : (size_t)S->nel, nn = t->blocks ? 0 : (size_t)S->nnd, m = ne ? ne : 1;
  t->rho = malloc(sizeof(double) * m), t->e = malloc(sizeof(double) * m), t->p = malloc(sizeof(double) * m);
  t->vol = malloc(sizeof(double) * m), t->mass = malloc(sizeof(double) * m), t->cnwt = malloc(sizeof(double) * 4 * m);
  int ok = t->rho && t->e && t->p && t->vol && t->mass && t->cnwt;
  if (t->blocks) {
    t->region = malloc(sizeof(int) * m), t->material = malloc(sizeof(int) * m), t->uc = malloc(sizeof(double) * 8 * m);
    ok = ok && t->region && t->material && t->uc;
  } else {
    t->x = malloc(sizeof(double) * 2 * (nn ? nn : 1)), t->u = malloc(sizeof(double) * 2 * (nn ? nn : 1));
    ok = ok && t->x && t->u;
  }
  if (!ok) return um_app_fail(r, UM_ERR_ALLOC, "out of memory for the report");
  struct {
    um_dat *d;
    void *h;
    size_t bytes;
  } f[] = {{S->rho, t->rho, 8 * ne},      {S->e, t->e, 8 * ne},       {S->p, t->p, 8 * ne},
           {S->vol, t->vol, 8 * ne},      {S->mass, t->mass, 8 * ne}, {S->cnwt, t->cnwt, 32 * ne},
           {S->x, t->x, 16 * nn},         {S->u, t->u, 16 * nn},      {S->reg, t->region, 4 * ne},
           {S->mat, t->material, 4 * ne}, {S->cnvisc, t->uc, 64 * ne}};
  const size_t nf = sizeof f / sizeof f[0];
  if (t->blocks) { /* the blocks' corner velocities first: the widest rows, fetched while the rank holds least */
    UM_APP_TRY(bl_corners_into_cnvisc(S, S->u));
    UM_APP_TRY(fetch(r, t, f[nf - 1].d, f[nf - 1].h, f[nf - 1].bytes));
  }
  for (size_t i = 0; i + 1 < nf; i++)
    if (t->blocks ? i != 6 && i != 7 : i < 8) UM_APP_TRY(fetch(r, t, f[i].d, f[i].h, f[i].bytes));
  return UM_SUCCESS;
}

/* The elements' rows in upstream's order, continuing `state` (the regions' rows, then the materials' where the
 * table is by blocks): the whole fields, or this rank's block (um_in_turn_carry: the blocks in rank order, so the
 * sums have the bits of the whole's). */
typedef struct {
  const bl_solver *S;
  const bl_table *t;
} rows_arg;
static int add_rows(um_context *ctx, void *arg, void *state) {
  (void)ctx;
  const bl_solver *S = ((const rows_arg *)arg)->S;
  const bl_table *t = ((const rows_arg *)arg)->t;
  bl_row *reg = state, *mat = reg + S->nreg;
  static const int corner[4] = {0, 1, 2, 3}; /* a block's element: its own corners (uc) */
  const double dencut = S->cfg->deck.dencut;
  const size_t n = t->blocks ? (size_t)t->n : (size_t)S->nel;
  for (size_t e = 0; e < n; e++) {
    const int *nodes = t->blocks ? corner : S->elnd_orig + 4 * e;
    const double *u = t->blocks ? t->uc + 8 * e : t->u;
    bl_row_add(&reg[t->blocks ? t->region[e] : S->elreg_orig[e]], dencut, t->vol[e], t->mass[e], t->e[e], t->p[e],
               t->rho[e], t->cnwt + 4 * e, nodes, u);
    if (t->blocks && t->material[e] >= 0)
      bl_row_add(&mat[t->material[e]], dencut, t->vol[e], t->mass[e], t->e[e], t->p[e], t->rho[e], t->cnwt + 4 * e,
                 nodes, u);
  }
  return UM_SUCCESS;
}

/* Upstream's short print: per region volume, mass, internal and kinetic energy,
 * mass-weighted pressure, extrema of pressure and density (elements heavier
 * than dencut x volume), in upstream's element order. The sums run in that order, whose bits run.reproducible
 * keeps across rank counts: from the whole fields on every rank, or, where the run holds no whole numbering (a
 * mesh declared by blocks), from each rank's block in turn (docs/apps.md, outputs under mpirun). */
int bl_table_fill(um_app_run *r, bl_solver *S, bl_table *t) {
  memset(t, 0, sizeof *t);
  t->blocks = !S->elnd_orig;
  bl_row rows[2 * BL_MAXREG];
  const int nrows = S->nreg + (t->blocks ? S->nmat : 0);
  for (int k = 0; k < nrows; k++) {
    memset(&rows[k], 0, sizeof rows[k]);
    rows[k].pmax = rows[k].rmax = -DBL_MAX;
    rows[k].pmin = rows[k].rmin = DBL_MAX;
  }
  const rows_arg a = {S, t};
  int rc = fetch_fields(r, S, t);
  if (!rc) /* the whole fields: every rank sums them all; blocks: each rank its own, in turn */
    rc = t->blocks ? um_in_turn_carry(r->ctx, add_rows, (void *)&a, rows, sizeof(bl_row) * (size_t)nrows)
                   : add_rows(r->ctx, (void *)&a, rows);
  if (rc) {
    bl_table_free(t);
    return rc;
  }
  memcpy(t->reg, rows, sizeof(bl_row) * (size_t)S->nreg);
  if (t->blocks) { /* summed: the outputs and the Sod norm need the block's rho, e, p and vol only */
    memcpy(t->mat, rows + S->nreg, sizeof(bl_row) * (size_t)S->nmat);
    free(t->uc), free(t->cnwt), free(t->region), free(t->material), free(t->mass);
    t->uc = t->cnwt = t->mass = NULL, t->region = t->material = NULL;
  }
  const double dencut = S->cfg->deck.dencut;
  for (int k = 0; k < S->nreg; k++) {
    bl_row *w = &t->reg[k];
    if (w->vol > 0.0) w->rho = w->mass / w->vol;
    if (w->mass > dencut * w->vol) w->p /= w->mass;
  }
  rc = bl_mix_table(r, S, t);
  if (rc) {
    bl_table_free(t);
    return rc;
  }
  /* the totals: of the regions, or of the materials where there are more regions than materials (upstream's rule;
   * the two differ only where mixed cells are, whose own state the regions count and whose components the
   * materials) */
  const int by_mat = S->cp && S->nreg > S->nmat;
  const bl_row *rows_t = by_mat ? t->mat : t->reg;
  bl_row *T = &t->total;
  double psum = 0.0;
  for (int k = 0; k < (by_mat ? S->nmat : S->nreg); k++) {
    const bl_row *w = &rows_t[k];
    T->vol += w->vol, T->mass += w->mass, T->ie += w->ie, T->ke += w->ke;
    psum += w->p * w->mass;
  }
  T->rho = T->mass / T->vol;
  T->p = psum / T->mass;
  return UM_SUCCESS;
}

/* One element (or component) into its row: volume always, the rest where heavier than dencut x volume; the kinetic
 * energy of its corners at its own density (upstream's hydro_kn_calc_shortprint). */
void bl_row_add(bl_row *w, double dencut, double vol, double mass, double e, double p, double rho, const double *cnwt,
                const int *nodes, const double *u) {
  w->vol += vol;
  if (!(mass > dencut * vol)) return;
  w->mass += mass;
  w->ie += e * mass;
  w->p += mass * p;
  if (p > w->pmax) w->pmax = p;
  if (p < w->pmin) w->pmin = p;
  if (rho > w->rmax) w->rmax = rho;
  if (rho < w->rmin) w->rmin = rho;
  for (int c = 0; c < 4; c++) {
    const double uu = u[2 * nodes[c]], vv = u[2 * nodes[c] + 1];
    w->ke = 0.5 * cnwt[c] * rho * (uu * uu + vv * vv) + w->ke;
  }
}

static void print_rows(FILE *f, const char *what, const bl_row *rows, int n, const char (*names)[BL_SLEN]) {
  fprintf(f, "  %-10s %11s %11s %11s %11s %11s %11s %11s %11s %11s %11s\n", what, "vol", "mass", "tot ie",
          "tot ke", "press", "min press", "max press", "dens", "min dens", "max dens");
  for (int k = 0; k < n; k++) {
    const bl_row *w = &rows[k];
    fprintf(f, "  %-10.10s %11.4E %11.4E %11.4E %11.4E %11.4E %11.4E %11.4E %11.4E %11.4E %11.4E\n", names[k], w->vol,
            w->mass, w->ie, w->ke, w->p, w->pmin, w->pmax, w->rho, w->rmin, w->rmax);
  }
}

void bl_print_table(FILE *f, const bl_solver *S, const bl_table *t, const char *title) {
  fprintf(f, "\n  Step no. %7d Time = %14.7f\n\n  %s\n\n", S->nstep, S->time, title);
  print_rows(f, "region", t->reg, S->nreg, S->region_name);
  fprintf(f, "\n  Table 2: materials%s\n\n", S->cp ? " (the pure cells of each, then its components in mixed cells)" : "");
  print_rows(f, "material", t->mat, S->nmat, S->material_name);
  fprintf(f, "\n");
  const bl_row *T = &t->total;
  fprintf(f, "  %-10s %11.4E %11.4E %11.4E %11.4E %11.4E %35s %11.4E\n", "Total", T->vol, T->mass, T->ie, T->ke,
          T->p, "", T->rho);
  fprintf(f, "           total energy\n internal %11.4E\n kinetic  %11.4E\n total    %11.4E\n", T->ie, T->ke,
          T->ie + T->ke);
}

/* The Sod L1 norm's sums over the elements in upstream's order, continuing state = {basis, l1} (as add_rows). */
static int add_l1(um_context *ctx, void *arg, void *state) {
  (void)ctx;
  const bl_solver *S = ((const rows_arg *)arg)->S;
  const bl_table *t = ((const rows_arg *)arg)->t;
  double *sum = state, basis = sum[0], l1 = sum[1];
  const int n = t->blocks ? t->n : S->nel;
  for (int e = 0; e < n; e++) {
    double cx[4], cy[4], vol = 0.0, c0 = 0.0;
    for (int k = 0; k < 4; k++) {
      const double *xy = t->blocks ? t->xc + 8 * (size_t)e + 2 * k : t->x + 2 * (size_t)S->elnd_orig[4 * e + k];
      cx[k] = xy[0], cy[k] = xy[1];
    }
    for (int i = 0; i < 4; i++) { /* the centroid's x (geometry_kn_getcentroid) */
      const int j = (i + 1) % 4;
      const double rr = cx[i] * cy[j] - cx[j] * cy[i];
      vol += rr;
      c0 += rr * (cx[i] + cx[j]);
    }
    vol *= 0.5;
    c0 = vol > 0.0 ? c0 / (6.0 * vol) : 0.0;
    const double exact = bl_sod_density(c0 - 50.0, S->time);
    basis += t->vol[e];
    l1 = fabs(t->rho[e] - exact) * t->vol[e] + l1;
  }
  sum[0] = basis, sum[1] = l1;
  return UM_SUCCESS;
}

int bl_table_corners_x(um_app_run *r, bl_solver *S, bl_table *t) {
  if (!t->blocks || t->xc) return UM_SUCCESS;
  const size_t m = t->n ? (size_t)t->n : 1;
  if (!(t->xc = malloc(sizeof(double) * 8 * m))) return um_app_fail(r, UM_ERR_ALLOC, "out of memory for the report");
  UM_APP_TRY(bl_corners_into_cnvisc(S, S->x));
  return fetch(r, t, S->cnvisc, t->xc, sizeof(double) * 8 * (size_t)t->n);
}

int bl_sod_l1(um_app_run *r, const bl_solver *S, const bl_table *t, double *l1) {
  double sum[2] = {0.0, 0.0};
  const rows_arg a = {S, t};
  UM_APP_TRY(t->blocks ? um_in_turn_carry(r->ctx, add_l1, (void *)&a, sum, sizeof sum)
                       : add_l1(r->ctx, (void *)&a, sum));
  *l1 = sum[1] / sum[0];
  return UM_SUCCESS;
}

/* Every region's and material's ten metrics, with the run's others (fewer than 64), fit what a run records. */
_Static_assert(10 * 2 * BL_MAXREG + 64 <= UM_APP_MAX_METRICS, "BookLeaf's metrics of 16 regions and 16 materials");

/* A table row's ten metrics, <prefix>_volume .. <prefix>_density_max; a row that counted no element in its extrema
 * (a region whose shape matched no element, or all of them below dencut) has none: its four extrema, still their
 * starting +-DBL_MAX, are left out and the log says so. */
int bl_row_metrics(um_app_run *r, const char *prefix, const bl_row *w) {
  static const char *const what[] = {"volume", "mass", "ie", "ke", "pressure", "pressure_min", "pressure_max",
                                     "density", "density_min", "density_max"};
  const double v[10] = {w->vol, w->mass, w->ie, w->ke, w->p, w->pmin, w->pmax, w->rho, w->rmin, w->rmax};
  const int none = w->pmin == DBL_MAX && w->rmin == DBL_MAX;
  if (none)
    fprintf(r->log, "bookleaf: note: %s counts no element in its extrema (its shape matched no element, or every "
                    "one is below dencut): %s_pressure_min/max and %s_density_min/max are not reported\n",
            prefix, prefix, prefix);
  for (int i = 0; i < 10; i++) {
    if (none && (i == 5 || i == 6 || i == 8 || i == 9)) continue;
    char name[96];
    snprintf(name, sizeof name, "%s_%s", prefix, what[i]);
    UM_APP_TRY(um_app_metric(r, name, v[i]));
  }
  return UM_SUCCESS;
}

int bl_region_metrics(um_app_run *r, const bl_solver *S, const bl_table *t) {
  for (int k = 0; k < S->nreg; k++) {
    char prefix[32];
    snprintf(prefix, sizeof prefix, "region%d", k + 1);
    UM_APP_TRY(bl_row_metrics(r, prefix, &t->reg[k]));
  }
  return UM_SUCCESS;
}

/* ---- outputs ---------------------------------------------------------------- */

typedef struct {
  const double *const *cols;
  int ncols;
} bl_rows;

#define BL_ROW_MAX 24 /* "-1.234567890123457e+300 " at most, per value */

static size_t bl_text_row(const void *data, size_t i, char *out) {
  const bl_rows *t = data;
  size_t l = 0;
  for (int c = 0; c < t->ncols; c++) l += (size_t)sprintf(out + l, c ? " %.15e" : "%.15e", t->cols[c][i]);
  out[l++] = '\n';
  return l;
}

/* ncols columns of n rows, each value %.15e, into a new buffer (*len bytes; NULL: out of memory) */
static char *format_rows(um_app_run *r, const double *const *cols, int ncols, int n, size_t *len) {
  const bl_rows t = {cols, ncols};
  return um_app_format_rows(r, (size_t)n, (size_t)ncols * BL_ROW_MAX, bl_text_row, &t, len);
}

#define BL_SLAB_ROWS (1 << 20) /* rows formatted at once: the text in memory stays under 100 MB */

static int write_rows(um_app_run *r, const char *path, const double *const *cols, int ncols, int n) {
  um_safe_file sf;
  char why[1200];
  if (!um_app_writes(r)) return UM_SUCCESS; /* under mpirun rank 0 writes (from the table every rank fetched) */
  if (um_safe_open(&sf, path, why, sizeof why)) return um_app_fail(r, UM_ERR_IO, "%s", why);
  int bad = 0, oom = 0;
  for (int b = 0; b < n && !bad && !oom; b += BL_SLAB_ROWS) {
    const double *slab[BL_CP_NCOL + 2];
    for (int c = 0; c < ncols; c++) slab[c] = cols[c] + b;
    size_t len = 0;
    char *text = format_rows(r, slab, ncols, n - b < BL_SLAB_ROWS ? n - b : BL_SLAB_ROWS, &len);
    oom = !text;
    bad = text && fwrite(text, 1, len, sf.f) != len;
    free(text);
  }
  if (bad || oom) {
    const int saved = errno;
    um_safe_abort(&sf);
    if (oom) return um_app_fail(r, UM_ERR_ALLOC, "%s: out of memory formatting its rows", path);
    return um_app_fail(r, UM_ERR_IO, "%s: error writing: %s (%s)", path, strerror(saved), um_safe_why(saved));
  }
  if (um_safe_commit(&sf, why, sizeof why)) return um_app_fail(r, UM_ERR_IO, "%s", why);
  return UM_SUCCESS;
}

/* nodes.txt's four columns (x, y, u, v) of n nodes from x and u (2 a row): malloc'ed, NULL when out of memory */
static double *node_columns(const double *x, const double *u, size_t n) {
  double *c = malloc(sizeof(double) * 4 * (n ? n : 1));
  for (size_t i = 0; c && i < n; i++)
    c[i] = x[2 * i], c[n + i] = x[2 * i + 1], c[2 * n + i] = u[2 * i], c[3 * n + i] = u[2 * i + 1];
  return c;
}

/* dir/name into path (UM_APP_FIELD_PATH_MAX bytes), or a failure naming the field: never a cut path. */
static int field_path(um_app_run *r, char *path, const char *dir, const char *name) {
  if (snprintf(path, UM_APP_FIELD_PATH_MAX, "%s/%s", dir, name) < UM_APP_FIELD_PATH_MAX) return UM_SUCCESS;
  return um_app_fail(r, UM_ERR_ARG, "field %s: the output folder's name is too long (%zu bytes)", name, strlen(dir));
}

/* A table by blocks: elements.txt and nodes.txt, each rank its block (the nodes' fetched here), one file in rank
 * order (um_app_write_blocks) with the bytes the whole's writer gives. */
static int write_fields_blocks(um_app_run *r, bl_solver *S, const bl_table *t, const char *dir) {
  char path[UM_APP_FIELD_PATH_MAX];
  size_t len = 0;
  if (um_app_wants_field(r, "elements")) {
    const double *cols[3] = {t->rho, t->e, t->p};
    char *text = format_rows(r, cols, 3, t->n, &len);
    int rc = um_app_agree(r, text ? field_path(r, path, dir, "elements.txt")
                                  : um_app_fail(r, UM_ERR_ALLOC, "out of memory for elements.txt"),
                          "format its block of elements.txt");
    if (!rc) rc = um_app_write_blocks(r, path, NULL, text, len, "field elements");
    free(text);
    UM_APP_TRY(rc);
    UM_APP_TRY(um_app_field(r, "elements", path));
  }
  if (!um_app_wants_field(r, "nodes")) return UM_SUCCESS;
  long long b0 = 0;
  int n = 0;
  UM_APP_TRY(um_set_block(r->ctx, um_dat_set(S->x), &b0, &n));
  const size_t m = n ? (size_t)n : 1;
  double *x = malloc(sizeof(double) * 2 * m), *u = malloc(sizeof(double) * 2 * m), *c = NULL;
  char *text = NULL;
  int rc = um_app_agree(r, x && u ? UM_SUCCESS : um_app_fail(r, UM_ERR_ALLOC, "out of memory for nodes.txt"),
                        "allocate its block of nodes.txt");
  if (!rc) rc = um_dat_fetch_block_original_order(r->ctx, S->x, x, sizeof(double) * 2 * (size_t)n);
  if (!rc) rc = um_dat_fetch_block_original_order(r->ctx, S->u, u, sizeof(double) * 2 * (size_t)n);
  if (!rc) {
    c = node_columns(x, u, (size_t)n);
    const double *cols[4] = {c, c + n, c + 2 * (size_t)n, c + 3 * (size_t)n};
    text = c ? format_rows(r, cols, 4, n, &len) : NULL;
    rc = um_app_agree(r, text ? UM_SUCCESS : um_app_fail(r, UM_ERR_ALLOC, "out of memory for nodes.txt"),
                      "format its block of nodes.txt");
  }
  if (!rc) rc = um_app_agree(r, field_path(r, path, dir, "nodes.txt"), "name nodes.txt");
  if (!rc) rc = um_app_write_blocks(r, path, NULL, text, len, "field nodes");
  free(x), free(u), free(c), free(text);
  UM_APP_TRY(rc);
  return um_app_field(r, "nodes", path);
}

/* The components' output columns (a deck of several materials; NULL: none, or out of memory where *oom): each one's
 * cell and material (1-based, upstream's numbering), then t->cp's columns; BL_CP_NCOL + 2 columns of S->ncp. */
static double *component_columns(const bl_solver *S, const bl_table *t, int *oom) {
  const size_t n = (size_t)S->ncp;
  double *c = t->cp && n ? malloc(sizeof(double) * 2 * n) : NULL;
  *oom = t->cp && n && !c;
  for (size_t i = 0; c && i < n; i++) c[i] = S->cpel_orig[i] + 1, c[n + i] = S->cpmat_orig[i] + 1;
  return c;
}

/* components.txt: one line per mixed-cell component in upstream's order: its cell, its material (both 1-based),
 * volume fraction, volume, mass, density, specific internal energy, pressure. */
static int write_components(um_app_run *r, const bl_solver *S, const bl_table *t, const char *dir) {
  int oom = 0;
  double *ce = component_columns(S, t, &oom);
  if (oom) return um_app_fail(r, UM_ERR_ALLOC, "out of memory for components.txt");
  if (!ce) return UM_SUCCESS;
  const size_t n = (size_t)S->ncp;
  const double *cols[BL_CP_NCOL + 2] = {ce, ce + n};
  for (int k = 0; k < BL_CP_NCOL; k++) cols[2 + k] = t->cp + k * n;
  char path[UM_APP_FIELD_PATH_MAX];
  int rc = field_path(r, path, dir, "components.txt");
  if (!rc) rc = write_rows(r, path, cols, BL_CP_NCOL + 2, S->ncp);
  free(ce);
  return rc ? rc : um_app_field(r, "components", path);
}

/* elements.txt (density, specific internal energy, pressure) and nodes.txt
 * (x, y, u, v), one line per element / node in upstream's numbering; with mixed cells components.txt (write_components). */
int bl_write_fields(um_app_run *r, bl_solver *S, const bl_table *t) {
  const char *dir = um_app_field_dir(r);
  if (t->blocks) return write_fields_blocks(r, S, t, dir);
  char path[UM_APP_FIELD_PATH_MAX];
  if (um_app_wants_field(r, "elements")) {
    const double *cols[3] = {t->rho, t->e, t->p};
    UM_APP_TRY(field_path(r, path, dir, "elements.txt"));
    UM_APP_TRY(write_rows(r, path, cols, 3, S->nel));
    UM_APP_TRY(um_app_field(r, "elements", path));
  }
  if (um_app_wants_field(r, "nodes")) {
    const size_t nn = (size_t)S->nnd;
    double *c = node_columns(t->x, t->u, nn);
    if (!c) return um_app_fail(r, UM_ERR_ALLOC, "out of memory for nodes.txt");
    const double *cols[4] = {c, c + nn, c + 2 * nn, c + 3 * nn};
    int rc = field_path(r, path, dir, "nodes.txt");
    if (!rc) rc = write_rows(r, path, cols, 4, S->nnd);
    free(c);
    UM_APP_TRY(rc);
    UM_APP_TRY(um_app_field(r, "nodes", path));
  }
  return um_app_wants_field(r, "components") ? write_components(r, S, t, dir) : UM_SUCCESS;
}

/* bookleaf.xmf beside bookleaf.h5 (where this process writes the run's files; every_rank: called on every rank),
 * after the .h5's write (h5_rc, agreed): a failed .xmf puts the earlier bookleaf.h5 back (pair: kept before it) */
static int write_xdmf(um_app_run *r, const bl_solver *S, um_app_h5_pair *pair, int h5_rc, const char *h5,
                      const char *xmf, int every_rank) {
  const char *fields[] = {"density", "energy", "pressure", "material"};
  const int dims[] = {1, 1, 1, 1}, nf = S->nmat > 1 ? 4 : 3; /* a material field where there are several */
  char err[1024];
  int rc = UM_SUCCESS;
  if (!h5_rc && um_app_writes(r) &&
      um_xdmf_write(xmf, "bookleaf.h5", "node_x", S->nnd, 2, "cell_nodes", S->nel, 4, fields, dims, nf, err,
                    sizeof err))
    rc = um_app_h5_pair_end(r, pair, err); /* the earlier .h5 put back (or the new one removed), said */
  else
    um_app_h5_pair_end(r, pair, NULL);
  if (h5_rc) return h5_rc; /* the earlier bookleaf.h5 as it was */
  if (every_rank) rc = um_app_output_done(r, rc); /* by blocks every rank is here: one outcome */
  if (!rc) fprintf(r->log, "bookleaf: wrote %s and %s (open the .xmf in ParaView or VisIt)\n", h5, xmf);
  return rc;
}

/* A table by blocks: bookleaf.h5 from each rank's block of the nodes, the cells' nodes and the table's fields. */
static int write_hdf5_blocks(um_app_run *r, bl_solver *S, const bl_table *t, const char *h5) {
  long long b0 = 0;
  int n = 0;
  UM_APP_TRY(um_set_block(r->ctx, um_dat_set(S->x), &b0, &n));
  const size_t m = n ? (size_t)n : 1, me = t->n ? (size_t)t->n : 1;
  double *x = malloc(sizeof(double) * 2 * m), *u = malloc(sizeof(double) * 2 * m);
  int *cn = malloc(sizeof(int) * 4 * me);
  int rc = um_app_agree(r, x && u && cn ? UM_SUCCESS : um_app_fail(r, UM_ERR_ALLOC, "out of memory for bookleaf.h5"),
                        "allocate its block of bookleaf.h5");
  if (!rc) rc = um_dat_fetch_block_original_order(r->ctx, S->x, x, sizeof(double) * 2 * (size_t)n);
  if (!rc) rc = um_dat_fetch_block_original_order(r->ctx, S->u, u, sizeof(double) * 2 * (size_t)n);
  if (!rc) rc = um_map_fetch_block_original_order(r->ctx, S->elnd, cn, sizeof(int) * 4 * (size_t)t->n);
  const char *sets[] = {"nodes", "cells"};
  const int sizes[] = {S->nnd, S->nel};
  const um_hdf5_rows rows[] = {{"cell_nodes", S->nel, 4, UM_INT, 1, cn},  {"node_x", S->nnd, 2, UM_DOUBLE, 0, x},
                               {"velocity", S->nnd, 2, UM_DOUBLE, 0, u},  {"density", S->nel, 1, UM_DOUBLE, 0, t->rho},
                               {"energy", S->nel, 1, UM_DOUBLE, 0, t->e}, {"pressure", S->nel, 1, UM_DOUBLE, 0, t->p}};
  if (!rc) rc = um_hdf5_write_blocks(r->ctx, h5, 2, sets, sizes, 6, rows);
  free(x), free(u), free(cn);
  return rc;
}

/* A deck of several materials (declared whole): each cell's material (1-based; 0 a mixed cell) and the set
 * `components` (map component_cell; component_material, then t->cp's columns) into the output context oc. */
static int declare_materials(um_context *oc, const bl_solver *S, const bl_table *t, um_set *cells, double *mat,
                             double *ce) {
  static const char *const names[BL_CP_NCOL] = {"component_fraction", "component_volume", "component_mass",
                                                "component_density", "component_energy", "component_pressure"};
  um_dat *dd = NULL;
  um_set *cps = NULL;
  um_map *map = NULL;
  for (int e = 0; e < S->nel; e++) mat[e] = S->elmat_orig[e] + 1;
  int rc = um_decl_dat(oc, cells, 1, UM_DOUBLE, mat, "material", &dd);
  if (!ce) return rc;
  const size_t n = (size_t)S->ncp;
  if (!rc) rc = um_decl_set(oc, S->ncp, "components", &cps);
  if (!rc) rc = um_decl_map(oc, cps, cells, 1, S->cpel_orig, "component_cell", &map);
  if (!rc) rc = um_decl_dat(oc, cps, 1, UM_DOUBLE, ce + n, "component_material", &dd);
  for (int k = 0; k < BL_CP_NCOL && !rc; k++) rc = um_decl_dat(oc, cps, 1, UM_DOUBLE, t->cp + k * n, names[k], &dd);
  return rc;
}

/* bookleaf.h5 + bookleaf.xmf: the final mesh with density, energy, pressure per element and velocity per node; with
 * several materials each cell's material and the mixed cells' components (declare_materials). */
int bl_write_hdf5(um_app_run *r, bl_solver *S, const bl_table *t) {
  char h5[4096], xmf[4096];
  UM_APP_TRY(um_app_output_path(r, "bookleaf", ".h5", h5, sizeof h5));
  UM_APP_TRY(um_app_output_path(r, "bookleaf", ".xmf", xmf, sizeof xmf));
  um_app_h5_pair pair; /* the earlier bookleaf.h5 kept until bookleaf.xmf is written */
  um_app_h5_pair_begin(r, h5, &pair);
  if (t->blocks) return write_xdmf(r, S, &pair, write_hdf5_blocks(r, S, t, h5), h5, xmf, 1);
  if (!um_app_writes(r)) return UM_SUCCESS; /* under mpirun rank 0 writes (from the table every rank fetched) */
  um_context *oc = NULL;
  um_options o;
  um_options_default(&o);
  o.backend = "seq";
  int rc = um_init(&oc, &o);
  um_set *nodes = NULL, *cells = NULL;
  um_map *map = NULL;
  um_dat *dd = NULL;
  if (!rc) rc = um_decl_set(oc, S->nnd, "nodes", &nodes);
  if (!rc) rc = um_decl_set(oc, S->nel, "cells", &cells);
  if (!rc) rc = um_decl_map(oc, cells, nodes, 4, S->elnd_orig, "cell_nodes", &map);
  if (!rc) rc = um_decl_dat(oc, nodes, 2, UM_DOUBLE, t->x, "node_x", &dd);
  if (!rc) rc = um_decl_dat(oc, nodes, 2, UM_DOUBLE, t->u, "velocity", &dd);
  if (!rc) rc = um_decl_dat(oc, cells, 1, UM_DOUBLE, t->rho, "density", &dd);
  if (!rc) rc = um_decl_dat(oc, cells, 1, UM_DOUBLE, t->e, "energy", &dd);
  if (!rc) rc = um_decl_dat(oc, cells, 1, UM_DOUBLE, t->p, "pressure", &dd);
  int oom = 0;
  double *mat = S->nmat > 1 ? malloc(sizeof(double) * (size_t)(S->nel ? S->nel : 1)) : NULL,
         *ce = component_columns(S, t, &oom);
  oom |= S->nmat > 1 && !mat;
  if (!rc && mat && !oom) rc = declare_materials(oc, S, t, cells, mat, ce);
  if (!rc && !oom) rc = um_hdf5_write_mesh(oc, h5);
  if (rc && oc) rc = um_app_fail(r, rc, "%s", um_error_message(oc));
  else if (oom) rc = um_app_fail(r, UM_ERR_ALLOC, "out of memory for bookleaf.h5's materials");
  um_finalize(&oc);
  free(mat), free(ce);
  return write_xdmf(r, S, &pair, rc, h5, xmf, 0);
}
