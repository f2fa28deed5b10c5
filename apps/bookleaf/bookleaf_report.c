/* BookLeaf on um: reports (upstream's short print per region, the Sod L1 norm, region metrics) and
 * outputs (field files in upstream's numbering, HDF5/XDMF). */
#include "bookleaf_internal.h"

/* ---- reports -------------------------------------------------------------- */


void bl_table_free(bl_table *t) {
  free(t->rho), free(t->e), free(t->p), free(t->vol), free(t->mass), free(t->cnwt), free(t->x), free(t->u);
}

/* Upstream's short print: per region volume, mass, internal and kinetic energy,
 * mass-weighted pressure, extrema of pressure and density (elements heavier
 * than dencut x volume), in upstream's element order. The fields whole on every
 * rank: the sums run in that order, whose bits run.reproducible keeps across
 * rank counts (docs/apps.md, outputs under mpirun). */
int bl_table_fill(um_app_run *r, bl_solver *S, bl_table *t) {
  memset(t, 0, sizeof *t);
  const size_t ne = (size_t)S->nel, nn = (size_t)S->nnd;
  t->rho = malloc(sizeof(double) * ne), t->e = malloc(sizeof(double) * ne), t->p = malloc(sizeof(double) * ne);
  t->vol = malloc(sizeof(double) * ne), t->mass = malloc(sizeof(double) * ne);
  t->cnwt = malloc(sizeof(double) * 4 * ne), t->x = malloc(sizeof(double) * 2 * nn), t->u = malloc(sizeof(double) * 2 * nn);
  if (!t->rho || !t->e || !t->p || !t->vol || !t->mass || !t->cnwt || !t->x || !t->u) {
    bl_table_free(t);
    return um_app_fail(r, UM_ERR_ALLOC, "out of memory for the report");
  }
  struct {
    um_dat *d;
    double *h;
    size_t n;
  } f[] = {{S->rho, t->rho, ne}, {S->e, t->e, ne}, {S->p, t->p, ne}, {S->vol, t->vol, ne}, {S->mass, t->mass, ne},
           {S->cnwt, t->cnwt, 4 * ne}, {S->x, t->x, 2 * nn}, {S->u, t->u, 2 * nn}};
  for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) {
    int rc = um_dat_fetch_original_order(r->ctx, f[i].d, f[i].h, sizeof(double) * f[i].n);
    if (rc) {
      bl_table_free(t);
      return rc;
    }
  }
  const double dencut = S->cfg->deck.dencut;
  for (int k = 0; k < S->nreg; k++) {
    bl_row *w = &t->reg[k];
    w->pmax = w->rmax = -DBL_MAX;
    w->pmin = w->rmin = DBL_MAX;
  }
  for (size_t e = 0; e < ne; e++)
    bl_row_add(&t->reg[S->elreg_orig[e]], dencut, t->vol[e], t->mass[e], t->e[e], t->p[e], t->rho[e],
               t->cnwt + 4 * e, S->elnd_orig + 4 * e, t->u);
  for (int k = 0; k < S->nreg; k++) {
    bl_row *w = &t->reg[k];
    if (w->vol > 0.0) w->rho = w->mass / w->vol;
    if (w->mass > dencut * w->vol) w->p /= w->mass;
  }
  int rc = bl_mix_table(r, S, t);
  if (rc) {
    bl_table_free(t);
    return rc;
  }
  /* the totals: of the regions, or of the materials where there are more regions than materials (upstream's rule;
   * the two differ only where mixed cells are, whose own state the regions count and whose components the
   * materials) */
  const int by_mat = S->cp && S->nreg > S->nmat;
  const bl_row *rows = by_mat ? t->mat : t->reg;
  bl_row *T = &t->total;
  double psum = 0.0;
  for (int k = 0; k < (by_mat ? S->nmat : S->nreg); k++) {
    const bl_row *w = &rows[k];
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

double bl_sod_l1(const bl_solver *S, const bl_table *t) {
  double basis = 0.0, l1 = 0.0;
  for (int e = 0; e < S->nel; e++) {
    double cx[4], cy[4], vol = 0.0, c0 = 0.0;
    for (int k = 0; k < 4; k++) cx[k] = t->x[2 * S->elnd_orig[4 * e + k]], cy[k] = t->x[2 * S->elnd_orig[4 * e + k] + 1];
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
  return l1 / basis;
}

/* A table row's ten metrics, <prefix>_volume .. <prefix>_density_max. */
int bl_row_metrics(um_app_run *r, const char *prefix, const bl_row *w) {
  static const char *const what[] = {"volume", "mass", "ie", "ke", "pressure", "pressure_min", "pressure_max",
                                     "density", "density_min", "density_max"};
  const double v[10] = {w->vol, w->mass, w->ie, w->ke, w->p, w->pmin, w->pmax, w->rho, w->rmin, w->rmax};
  for (int i = 0; i < 10; i++) {
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

static int write_rows(um_app_run *r, const char *path, const double *const *cols, int ncols, int n) {
  um_safe_file sf;
  char why[1200];
  if (!um_app_writes(r)) return UM_SUCCESS; /* under mpirun rank 0 writes (from the table every rank fetched) */
  if (um_safe_open(&sf, path, why, sizeof why)) return um_app_fail(r, UM_ERR_IO, "%s", why);
  int bad = 0;
  for (int i = 0; i < n && !bad; i++) {
    for (int c = 0; c < ncols && !bad; c++) bad = fprintf(sf.f, c ? " %.15e" : "%.15e", cols[c][i]) < 0;
    if (!bad) bad = fputc('\n', sf.f) == EOF;
  }
  if (bad) {
    const int saved = errno;
    um_safe_abort(&sf);
    return um_app_fail(r, UM_ERR_IO, "%s: error writing: %s (%s)", path, strerror(saved), um_safe_why(saved));
  }
  if (um_safe_commit(&sf, why, sizeof why)) return um_app_fail(r, UM_ERR_IO, "%s", why);
  return UM_SUCCESS;
}

/* elements.txt (density, specific internal energy, pressure) and nodes.txt
 * (x, y, u, v), one line per element / node in upstream's numbering. */
int bl_write_fields(um_app_run *r, bl_solver *S, const bl_table *t) {
  const char *dir = um_app_field_dir(r);
  char path[UM_APP_FIELD_PATH_MAX];
  if (um_app_wants_field(r, "elements")) {
    const double *cols[3] = {t->rho, t->e, t->p};
    snprintf(path, sizeof path, "%s/elements.txt", dir);
    UM_APP_TRY(write_rows(r, path, cols, 3, S->nel));
    UM_APP_TRY(um_app_field(r, "elements", path));
  }
  if (um_app_wants_field(r, "nodes")) {
    const size_t nn = (size_t)S->nnd;
    double *c = malloc(sizeof(double) * 4 * (nn ? nn : 1));
    if (!c) return um_app_fail(r, UM_ERR_ALLOC, "out of memory for nodes.txt");
    for (size_t i = 0; i < nn; i++)
      c[i] = t->x[2 * i], c[nn + i] = t->x[2 * i + 1], c[2 * nn + i] = t->u[2 * i], c[3 * nn + i] = t->u[2 * i + 1];
    const double *cols[4] = {c, c + nn, c + 2 * nn, c + 3 * nn};
    snprintf(path, sizeof path, "%s/nodes.txt", dir);
    int rc = write_rows(r, path, cols, 4, S->nnd);
    free(c);
    UM_APP_TRY(rc);
    UM_APP_TRY(um_app_field(r, "nodes", path));
  }
  return UM_SUCCESS;
}

/* bookleaf.h5 + bookleaf.xmf: the final mesh with density, energy, pressure per element and velocity per node. */
int bl_write_hdf5(um_app_run *r, bl_solver *S, const bl_table *t) {
  char h5[4096], xmf[4096], err[1024];
  if (!um_app_writes(r)) return UM_SUCCESS; /* under mpirun rank 0 writes (from the table every rank fetched) */
  snprintf(h5, sizeof h5, "%s/bookleaf.h5", r->output_dir);
  snprintf(xmf, sizeof xmf, "%s/bookleaf.xmf", r->output_dir);
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
  if (!rc) rc = um_hdf5_write_mesh(oc, h5);
  if (rc && oc) rc = um_app_fail(r, rc, "%s", um_error_message(oc));
  um_finalize(&oc);
  if (rc) return rc;
  const char *fields[] = {"density", "energy", "pressure"};
  const int dims[] = {1, 1, 1};
  if (um_xdmf_write(xmf, "bookleaf.h5", "node_x", S->nnd, 2, "cell_nodes", S->nel, 4, fields, dims, 3, err,
                    sizeof err))
    return um_app_fail(r, UM_ERR_IO, "%s", err);
  fprintf(r->log, "bookleaf: wrote %s and %s (open the .xmf in ParaView or VisIt)\n", h5, xmf);
  return UM_SUCCESS;
}
