/* Volna on um: the outputs (the deck's gauges CSV, HDF5 + XDMF fields, the cell file for validation)
 * and the metrics of a run (Stoker dam-break errors, diagnostics, volume). */
#include "volna_internal.h"

extern const char volna_kernels_source[];
#define VL_KERNEL(fn, n) UM_KERNEL_DEFINE(fn, n, volna_kernels_source, "volna_kernels.h")
VL_KERNEL(vl_diagnostics, 5);

/* ---- outputs ---------------------------------------------------------------------------------------- */

/* `stream` with "%i" replaced by the iteration (4 digits), as upstream names its files */
static void stream_name(const char *stream, unsigned iter, const char *ext, char *out, size_t n) {
  const char *pos = strstr(stream, "%i");
  if (pos)
    snprintf(out, n, "%.*s%04u%s%s", (int)(pos - stream), stream, iter, pos + 2, ext);
  else snprintf(out, n, "%s%s", stream, ext);
}

/* <stream>.h5 + .xmf: the mesh and the cell values, written by blocks (um_hdf5_write_blocks): each rank gives its
 * block of the nodes' coordinates and of the cells' node lists (rows of the deck's mesh) and fetches its block of
 * the values in upstream's cell order (um_dat_fetch_block_original_order). */
int vl_write_fields_h5(vl_solver *S, const um_dat *dat, const char *stream, unsigned iter) {
  um_app_run *r = S->r;
  if (!r->output_dir || !*r->output_dir || !r->write_hdf5 || !strcmp(stream, "cout")) return UM_SUCCESS;
  const vl_mesh *m = &S->mesh;
  const int nc = m->ncells;
  long long cb = 0, nb = 0;
  int cn = 0, nn = 0;
  UM_APP_TRY(um_set_block(S->ctx, um_dat_set(dat), &cb, &cn));
  UM_APP_TRY(um_block_range(m->nnodes, um_context_rank(S->ctx), um_context_nranks(S->ctx), &nb, &nn));
  float *v = malloc(sizeof(float) * 4 * (size_t)(cn + 1)), *eta = malloc(sizeof(float) * (size_t)(cn + 1));
  int rc = v && eta ? UM_SUCCESS : um_app_fail(r, UM_ERR_ALLOC, "out of memory for the HDF5 output");
  rc = um_app_agree(r, rc, "allocate its block of the HDF5 output");
  if (!rc) rc = um_dat_fetch_block_original_order(S->ctx, dat, v, sizeof(float) * 4 * (size_t)cn);
  if (!rc)
    for (int c = 0; c < cn; c++) eta[c] = v[4 * (size_t)c] + v[4 * (size_t)c + 3];
  char base[600], h5[4096], xmf[4096], err[1024];
  const char *slash = strrchr(stream, '/');
  stream_name(slash ? slash + 1 : stream, iter, "", base, sizeof base);
  if (!rc) rc = um_app_output_path(r, base, ".h5", h5, sizeof h5);
  if (!rc) rc = um_app_output_path(r, base, ".xmf", xmf, sizeof xmf);
  const char *sets[] = {"nodes", "cells"};
  const int sizes[] = {m->nnodes, nc};
  const um_hdf5_rows rows[] = {{"cell_nodes", nc, 3, UM_INT, 1, m->cell_nodes + 3 * (size_t)cb},
                               {"node_xy", m->nnodes, 2, UM_FLOAT, 0, m->node_xy + 2 * (size_t)nb},
                               {"values", nc, 4, UM_FLOAT, 0, v},
                               {"eta", nc, 1, UM_FLOAT, 0, eta}};
  um_app_h5_pair pair = {.state = -1, .slot = -1}; /* the earlier .h5 kept until its .xmf is written */
  if (!rc) um_app_h5_pair_begin(r, h5, &pair);
  if (!rc) rc = um_hdf5_write_blocks(S->ctx, h5, 2, sets, sizes, 4, rows);
  free(v), free(eta);
  const char *fields[] = {"values", "eta"};
  const int dims[] = {4, 1};
  char h5name[700];
  snprintf(h5name, sizeof h5name, "%s.h5", base);
  if (!rc && um_app_writes(r) &&
      um_xdmf_write(xmf, h5name, "node_xy", m->nnodes, 2, "cell_nodes", nc, 3, fields, dims, 2, err, sizeof err))
    rc = um_app_h5_pair_end(r, &pair, err); /* the earlier .h5 put back (or the new one removed), said */
  else
    um_app_h5_pair_end(r, &pair, NULL);
  UM_APP_TRY(um_app_output_done(r, rc)); /* every rank: one outcome, before the next step's loops */
  um_app_progress_clear(r);
  fprintf(r->log, "volna: wrote %s and %s\n", h5, xmf);
  return UM_SUCCESS;
}

/* A gauge's file name in output.dir (as write_gauges makes it) without its ".csv": its stream's last component. */
static size_t gauge_name(const char *stream, const char **name) {
  const char *slash = strrchr(stream, '/');
  *name = slash ? slash + 1 : stream;
  const size_t n = strlen(*name);
  return n > 4 && !strcmp(*name + n - 4, ".csv") ? n - 4 : n;
}

/* The output events that write files: gauges (.csv) and fields (.h5 and .xmf); cout writes none. */
static int file_kind(const vl_event *e) {
  if (!strcmp(e->stream, "cout")) return 0;
  if (e->kind == VL_OUT_LOCATION) return 1;
  return e->kind == VL_OUT_SIMULATION || e->kind == VL_OUT_MAX_ELEVATION || e->kind == VL_OUT_MAX_SPEED ? 2 : 0;
}

/* Two output events writing one file (the second would replace the first's), or one with no file name (a hidden
 * ".h5"): refused. A stream's folder part is not used (every file goes to output.dir): said. */
int vl_outputs_distinct(vl_solver *S) {
  const vl_deck *d = &S->deck;
  for (int i = 0; i < d->nevents; i++) {
    const vl_event *e = &d->events[i];
    const int k = file_kind(e);
    if (!k) continue;
    const char *a, *b;
    const size_t na = gauge_name(e->stream, &a);
    if (!na)
      return um_app_fail(S->r, UM_ERR_CONFIG, "%s:%d: the output \"%s\" has no file name: name the file it writes",
                         d->file, e->line, e->stream);
    if (a != e->stream && um_mpi_rank() == 0)
      fprintf(S->r->log,
              "volna: %s:%d: the output \"%s\" is written as %.*s%s in output.dir (the folder part of a "
              "deck's output name is not used)\n",
              d->file, e->line, e->stream, (int)na, a, k == 1 ? ".csv" : ".h5");
    for (int j = 0; j < i; j++) {
      const size_t nb = gauge_name(d->events[j].stream, &b);
      if (file_kind(&d->events[j]) == k && na == nb && !strncmp(a, b, na))
        return um_app_fail(S->r, UM_ERR_CONFIG,
                           "%s:%d: the output \"%s\" writes %.*s%s, as the one of line %d "
                           "does: give each output a name of its own",
                           d->file, e->line, e->stream, (int)na, a, k == 1 ? ".csv" : ".h5", d->events[j].line);
    }
  }
  return UM_SUCCESS;
}

/* every rank: one outcome (under mpirun rank 0 writes the files) */
static int write_gauges(vl_solver *S);
int vl_write_gauges(vl_solver *S) {
  um_app_run *r = S->r;
  if (!r->output_dir || !*r->output_dir) return UM_SUCCESS;
  return um_app_output_done(r, um_app_writes(r) ? write_gauges(S) : UM_SUCCESS);
}

static int write_gauges(vl_solver *S) {
  um_app_run *r = S->r;
  for (int g = 0; g < S->ngauges; g++) {
    const vl_event *ev = &S->deck.events[S->gauge_event[g]];
    char path[4096], why[1200];
    const char *name;
    const size_t n = gauge_name(ev->stream, &name);
    char base[300];
    snprintf(base, sizeof base, "%.*s", (int)n, name);
    UM_APP_TRY(um_app_output_path(r, base, ".csv", path, sizeof path));
    um_safe_file sf;
    if (um_safe_open(&sf, path, why, sizeof why)) return um_app_fail(r, UM_ERR_IO, "%s", why);
    int bad = fprintf(sf.f, "# gauge at x = %g, y = %g (%s:%d)\nt,eta,H,U,V,Zb\n", ev->x, ev->y, S->deck.file,
                      ev->line) < 0;
    long samples = 0;
    for (size_t k = 0; k < S->gbytes / (sizeof(double) * VL_GAUGE_ROW) && !bad; k++) {
      const double *row = (const double *)S->gseries + VL_GAUGE_ROW * k;
      if (row[0] != g) continue;
      samples++;
      bad = fprintf(sf.f, "%.9g,%.9g,%.9g,%.9g,%.9g,%.9g\n", row[1], row[2], row[3], row[4], row[5], row[6]) < 0;
    }
    if (bad) {
      const int saved = errno;
      um_safe_abort(&sf);
      return um_app_fail(r, UM_ERR_IO, "%s: error writing: %s (%s)", path, strerror(saved), um_safe_why(saved));
    }
    if (um_safe_commit(&sf, why, sizeof why)) return um_app_fail(r, UM_ERR_IO, "%s", why);
    um_app_progress_clear(r);
    fprintf(r->log, "volna: wrote %s (%ld samples)\n", path, samples);
  }
  return UM_SUCCESS;
}

/* The cell values in upstream's cell order, one line per cell: H U V Zb (%.9e). Written by blocks: each rank
 * formats its block of the cells (um_dat_fetch_block_original_order), the ranks write in turn
 * (um_app_write_blocks). */
static size_t cell_row(const void *data, size_t c, char *out) {
  const float *x = (const float *)data + 4 * c;
  return (size_t)sprintf(out, "%.9e %.9e %.9e %.9e\n", x[0], x[1], x[2], x[3]);
}

int vl_write_cells(vl_solver *S, const char *path) {
  long long b = 0;
  int n = 0;
  UM_APP_TRY(um_set_block(S->ctx, um_dat_set(S->values), &b, &n));
  float *v = malloc(sizeof(float) * 4 * (size_t)(n + 1));
  char *text = NULL;
  size_t k = 0;
  int rc = v ? UM_SUCCESS : um_app_fail(S->r, UM_ERR_ALLOC, "out of memory writing the cells");
  rc = um_app_agree(S->r, rc, "allocate its block of the cells file");
  if (!rc) rc = um_dat_fetch_block_original_order(S->ctx, S->values, v, sizeof(float) * 4 * (size_t)n);
  /* four %.9e of at most 16 characters and a separator */
  if (!rc) text = um_app_format_rows(S->r, (size_t)n, 4 * 17, cell_row, v, &k);
  if (!rc)
    rc = um_app_agree(S->r, text ? UM_SUCCESS : um_app_fail(S->r, UM_ERR_ALLOC, "out of memory formatting the cells"),
                      "format its block of the cells file");
  if (!rc) rc = um_app_write_blocks(S->r, path, NULL, text, k, path);
  free(v), free(text);
  return rc;
}

/* ---- metrics ------------------------------------------------------------------------------------------ */

/* Stoker's L1 errors (Stoker decks only): the cells whole, so that the sums run in upstream's cell order and their
 * bits do not depend on the rank count (docs/apps.md, outputs under mpirun). */
static int stoker_errors(vl_solver *S, double t, double *l1h, double *l1u) {
  const int nc = S->mesh.ncells;
  float *v = malloc(sizeof(float) * 4 * (size_t)nc);
  if (!v) return um_app_fail(S->r, UM_ERR_ALLOC, "out of memory");
  int rc = um_dat_fetch_original_order(S->ctx, S->values, v, sizeof(float) * 4 * (size_t)nc);
  double eh = 0, eu = 0, area = 0;
  const double bottom = -1.0; /* the deck's flat bottom: H is measured from it */
  (void)bottom;
  for (int c = 0; c < nc && !rc; c++) {
    double h, u;
    vl_stoker(S->deck.g, S->stoker_hl, S->stoker_hr, S->stoker_x0, S->mesh.cell_xy[2 * (size_t)c], t, &h, &u);
    const double a = S->mesh.cell_area[c];
    eh += a * fabs(v[4 * (size_t)c] - h);
    eu += a * fabs(v[4 * (size_t)c + 1] - u);
    area += a;
  }
  free(v);
  *l1h = eh / area;
  *l1u = eu / area;
  return rc;
}

int vl_diagnostics_sum(vl_solver *S, double *sum, double *mn, double *mx) {
  for (int k = 0; k < 5; k++) sum[k] = 0;
  mn[0] = mn[1] = INFINITY;
  mx[0] = mx[1] = mx[2] = -INFINITY;
  return UM_PAR_LOOP(S->ctx, vl_diagnostics_kernel, "diagnostics", S->cells, FD(S->values, 4, UM_READ),
                     FD(S->area, 1, UM_READ), um_arg_gbl(sum, 5, UM_DOUBLE, UM_INC), um_arg_gbl(mn, 2, UM_DOUBLE, UM_MIN),
                     um_arg_gbl(mx, 3, UM_DOUBLE, UM_MAX));
}

int vl_metrics(vl_solver *S, double vol0, double per_step) {
  um_app_run *r = S->r;
  double sum[5], mn[2], mx[3];
  UM_APP_TRY(vl_diagnostics_sum(S, sum, mn, mx));
  UM_APP_TRY(um_app_metric(r, "cells", S->mesh.ncells));
  UM_APP_TRY(um_app_metric(r, "edges", S->mesh.nedges));
  UM_APP_TRY(um_app_metric(r, "nodes", S->mesh.nnodes));
  UM_APP_TRY(um_app_metric(r, "steps", (double)S->itercount));
  UM_APP_TRY(um_app_metric(r, "final_time", S->timestamp));
  UM_APP_TRY(um_app_metric(r, "dt_first", S->dt_first));
  UM_APP_TRY(um_app_metric(r, "dt_min", S->dt_min));
  UM_APP_TRY(um_app_metric(r, "dt_max", S->dt_max));
  UM_APP_TRY(um_app_metric(r, "volume", sum[0]));
  UM_APP_TRY(um_app_metric(r, "volume_initial", vol0));
  if (vol0 != 0) UM_APP_TRY(um_app_metric(r, "volume_change", fabs(sum[0] - vol0) / vol0));
  else if (um_app_writes(r)) /* no water at step 0 (an Init that runs later): a change relative to nothing */
    fprintf(r->log, "volna: no water at the start (volume 0): the metric volume_change, relative to it, is left out "
                    "(an Init that runs after step 0?)\n");
  UM_APP_TRY(um_app_metric(r, "momentum_x", sum[1]));
  UM_APP_TRY(um_app_metric(r, "momentum_y", sum[2]));
  UM_APP_TRY(um_app_metric(r, "kinetic_energy", sum[3]));
  UM_APP_TRY(um_app_metric(r, "potential_energy", sum[4]));
  UM_APP_TRY(um_app_metric(r, "min_depth", mn[0]));
  UM_APP_TRY(um_app_metric(r, "max_depth", mx[0]));
  UM_APP_TRY(um_app_metric(r, "min_eta", mn[1]));
  UM_APP_TRY(um_app_metric(r, "max_eta", mx[1]));
  UM_APP_TRY(um_app_metric(r, "max_speed", mx[2]));
  if (S->exact) {
    double l1h = 0, l1u = 0;
    UM_APP_TRY(stoker_errors(S, S->timestamp, &l1h, &l1u));
    UM_APP_TRY(um_app_metric(r, "stoker_l1_depth", l1h));
    UM_APP_TRY(um_app_metric(r, "stoker_l1_velocity", l1u));
    double hm, um, s;
    vl_stoker_state(S->deck.g, S->stoker_hl, S->stoker_hr, &hm, &um, &s);
    fprintf(r->log, "volna: Stoker's dam break at t = %.6g: middle state h = %.6f, u = %.6f, shock speed %.6f; "
                    "L1 errors: depth %.6e, velocity %.6e\n", S->timestamp, hm, um, s, l1h, l1u);
  }
  UM_APP_TRY(um_app_metric(r, "ms_per_step", 1e3 * per_step));
  fprintf(r->log, "volna: %ld steps to t = %.9g (dt first %.6g, min %.6g, max %.6g)\n", S->itercount, S->timestamp,
          S->dt_first, S->dt_min, S->dt_max);
  char change[48] = "none: no water at the start";
  if (vol0 != 0) snprintf(change, sizeof change, "%.3e", fabs(sum[0] - vol0) / vol0);
  fprintf(r->log, "  volume %.9e (initial %.9e, relative change %s), momentum (%.6e, %.6e)\n", sum[0], vol0, change,
          sum[1], sum[2]);
  fprintf(r->log, "  energy kinetic %.6e potential %.6e; depth [%.6e, %.6e], eta [%.6e, %.6e], max speed %.6e\n",
          sum[3], sum[4], mn[0], mx[0], mn[1], mx[1], mx[2]);
  return UM_SUCCESS;
}
