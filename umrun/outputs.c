/* What a run prints and writes: where it ran, the report tables, the
 * validation against validation.reference (and its temporary field folder),
 * the JSON summary (--json) and the CSV rows (--csv). */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/resource.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include "um/report.h"
#include "um/build_config.h"
#include "um/safe_file.h"
#include "json.h"
#include "runner.h"
#include "checkpoint_run.h"
#include "child.h"
#include "tools.h"
#include "provenance.h"

extern const char um_commit_id[];


/* The GPU a cuda run used: name, compute capability, memory, driver and
 * runtime, and its measured device-to-device copy bandwidth; into *text (malloc'ed), NULL when the
 * run's backend has no device. */
static void device_json(um_context *ctx, char **text) {
  um_device_info d;
  size_t n = 0;
  *text = NULL;
  if (um_context_device_info(ctx, &d) != UM_SUCCESS) {
    um_error_clear(ctx);
    return;
  }
  FILE *f = open_memstream(text, &n);
  if (!f) return;
  fputs("{\"name\": ", f);
  um_json_string(f, d.name);
  fputs(", \"compute_capability\": ", f);
  um_json_string(f, d.compute_capability);
  fprintf(f, ", \"multiprocessors\": %d, \"memory_gib\": %.2f, \"driver\": ", d.multiprocessors,
          d.memory_bytes / (1024.0 * 1024 * 1024));
  um_json_string(f, d.driver);
  fputs(", \"cuda_runtime\": ", f);
  um_json_string(f, d.runtime);
  fputs(", \"copy_gb_per_s\": ", f);
  um_json_number(f, d.copy_gbs > 0 ? d.copy_gbs : NAN);
  fputs(", \"peak_fp64_gflop_per_s\": ", f);
  um_json_number(f, d.peak_fp64_gflops > 0 ? d.peak_fp64_gflops : NAN);
  fputs(", \"profile\": ", f);
  um_json_string(f, d.profile);
  fputc('}', f);
  fclose(f);
}

/* This process's peak resident bytes (VmHWM in /proc/self/status; else getrusage's maximum), 0 when unknown. */
static double peak_rss(void) {
  FILE *f = fopen("/proc/self/status", "r");
  char line[256];
  double kb = 0;
  while (f && fgets(line, sizeof line, f))
    if (!strncmp(line, "VmHWM:", 6)) kb = strtod(line + 6, NULL);
  if (f) fclose(f);
  struct rusage ru;
  if (kb <= 0 && getrusage(RUSAGE_SELF, &ru) == 0) kb = (double)ru.ru_maxrss; /* kilobytes on Linux */
  return kb * 1024.0;
}

int umrun_measure_memory(um_app_run *run, um_context *ctx) {
  const int n = um_mpi_size();
  umrun_free_memory(run);
  run->rank_peak_rss = calloc((size_t)n, sizeof(double));
  run->rank_mesh_bytes = calloc((size_t)n, sizeof(double));
  /* the gathers are collective: every rank takes part in them, or (one could not allocate) none */
  const int ok = um_mpi_agree(run->rank_peak_rss && run->rank_mesh_bytes ? 0 : 1, -1) == 0;
  const int rc = ok ? um_mpi_allgather_double(peak_rss(), run->rank_peak_rss) : UM_SUCCESS;
  const int rc2 = ok ? um_mpi_allgather_double(um_context_mesh_bytes(ctx), run->rank_mesh_bytes) : UM_SUCCESS;
  if (!ok || rc || rc2) {
    umrun_free_memory(run);
    return ok ? UM_ERR_BACKEND : UM_ERR_ALLOC;
  }
  run->nranks_measured = n;
  return umrun_measure_setup_phases(run, ctx);
}

void umrun_free_memory(um_app_run *run) {
  free(run->rank_peak_rss);
  free(run->rank_mesh_bytes);
  free(run->rank_setup_phases);
  free(run->rank_setup_faulted);
  run->rank_peak_rss = run->rank_mesh_bytes = run->rank_setup_phases = run->rank_setup_faulted = NULL;
  run->nranks_measured = 0;
}

/* max and mean of v[0 .. n) */
static void max_mean(const double *v, int n, double *max, double *mean) {
  *max = 0, *mean = 0;
  for (int i = 0; i < n; i++) *max = v[i] > *max ? v[i] : *max, *mean += v[i] / n;
}

static void memory_json(FILE *f, const um_app_run *run) {
  if (!run->nranks_measured) return;
  const char *names[2] = {"peak_rss_bytes", "mesh_bytes"};
  const double *v[2] = {run->rank_peak_rss, run->rank_mesh_bytes};
  fputs(",\n  \"memory\": {", f);
  for (int k = 0; k < 2; k++) {
    double mx, mean;
    max_mean(v[k], run->nranks_measured, &mx, &mean);
    fprintf(f, "%s\"%s\": {\"max\": %.0f, \"mean\": %.0f, \"per_rank\": [", k ? ", " : "", names[k], mx, mean);
    for (int q = 0; q < run->nranks_measured; q++) fprintf(f, "%s%.0f", q ? ", " : "", v[k][q]);
    fputs("]}", f);
  }
  fputc('}', f);
}

static void memory_line(FILE *out, const um_app_run *run) {
  if (!run->nranks_measured) return;
  double pm, pmean, mm, mmean;
  max_mean(run->rank_peak_rss, run->nranks_measured, &pm, &pmean);
  max_mean(run->rank_mesh_bytes, run->nranks_measured, &mm, &mmean);
  if (run->nranks_measured == 1)
    fprintf(out, "memory: peak resident %.1f MB; the mesh (maps and dats) %.1f MB", pm / 1e6, mm / 1e6);
  else
    fprintf(out,
            "memory per rank: peak resident %.1f MB max, %.1f MB mean; the mesh (maps and dats) %.1f MB max, "
            "%.1f MB mean (%d ranks)",
            pm / 1e6, pmean / 1e6, mm / 1e6, mmean / 1e6, run->nranks_measured);
  const double touched = umrun_setup_faulted_max(run);
  if (touched > 0) /* the kernel's page faults: fresh memory's first touch, a cost of its own */
    fprintf(out, "; the set-up touched %.1f MB of fresh memory%s", touched / 1e6,
            run->nranks_measured > 1 ? " (max)" : "");
  fputc('\n', out);
}

/* OpenMP threads per rank (0: the runtime's default), for the reader of timings; 1 off the openmp backend */
int umrun_threads_of(const run_settings *s, const char *backend) {
  int threads = s->opts.nthreads;
#ifdef _OPENMP
  if (threads <= 0) threads = omp_get_max_threads();
#endif
  if (threads <= 0 || strcmp(backend, "openmp")) threads = 1;
  return threads;
}

/* provenance: the format, the config, every option in effect, the files read, the machine and its load */
static void write_provenance(FILE *f, const run_settings *s, um_context *ctx, const um_app *app, const um_app_run *run,
                             const um_ref *ref, const char *gpu) {
  const char *backend = um_context_backend(ctx);
  fputs(",\n  \"config\": ", f);
  if (s->config_path) um_json_string(f, s->config_path);
  else fputs("null", f);
  fputs(",\n  \"options\": ", f);
  umrun_write_options_json(f, s->cfg, app, backend);
  fputs(",\n  \"inputs\": ", f);
  umrun_write_inputs_json(f, s->config_path, s->cfg, ref, run);
  fputs(",\n  \"machine\": ", f);
  umrun_write_machine_json(f, gpu, backend);
  const long cores = sysconf(_SC_NPROCESSORS_ONLN);
  const double end = umrun_loadavg();
  fputs(",\n  \"load\": {\"start\": ", f);
  um_json_number(f, s->load_start >= 0 ? s->load_start : NAN);
  fputs(", \"end\": ", f);
  um_json_number(f, end >= 0 ? end : NAN);
  fprintf(f, ", \"cores\": %ld, \"threads\": %d, \"ranks\": %d, \"busy\": %s}", cores,
          umrun_threads_of(s, backend), um_context_nranks(ctx),
          umrun_busy(s->load_start, cores) || umrun_busy(end, cores) ? "true" : "false");
}

static void write_json(FILE *f, const run_settings *s, um_context *ctx, const um_app *app, const um_app_run *run,
                       double total, const um_ref *ref, const um_validation_result *val, int validated,
                       const char *status, const umrun_draw *drawn) {
  fputs("{\n  \"format\": \"" UMRUN_RUN_FORMAT "\",\n  \"um_version\": ", f);
  um_json_string(f, UM_VERSION);
  fputs(",\n  \"app\": ", f);
  um_json_string(f, s->app);
  fputs(",\n  \"backend\": ", f);
  um_json_string(f, um_context_backend(ctx));
  fputs(",\n  \"strategy\": ", f);
  um_json_string(f, um_strategy_name(um_context_strategy(ctx)));
  fputs(",\n  \"layout\": ", f);
  um_json_string(f, um_layout_name(s->opts.layout));
  fputs(",\n  \"reorder\": ", f);
  um_json_string(f, s->reorder);
  fputs(",\n  \"um_commit\": ", f);
  um_json_string(f, um_commit_id);
  fputs(",\n  \"build\": ", f);
  umrun_write_build_json(f);
  char *gpu = NULL;
  device_json(ctx, &gpu);
  if (gpu) fprintf(f, ",\n  \"device\": %s", gpu);
  write_provenance(f, s, ctx, app, run, ref, gpu);
  free(gpu);
  fprintf(f, ",\n  \"ranks\": %d", um_context_nranks(ctx));
  um_report_partition_json(ctx, f);
  fprintf(f, ",\n  \"threads\": %d, \"cores\": %ld", umrun_threads_of(s, um_context_backend(ctx)),
          sysconf(_SC_NPROCESSORS_ONLN));
  fprintf(f, ",\n  \"block_size\": %d,\n  \"status\": ", s->opts.block_size);
  um_json_string(f, status);
  fprintf(f, ",\n  \"total_seconds\": %.6f,\n  \"setup_seconds\": %.6f", total, run->setup_seconds);
  fprintf(f, ", \"prefetch_seconds\": %.6f, \"prefetch_bytes\": %.0f", run->prefetch_seconds, run->prefetch_bytes);
  if (run->steps > 0) /* the steady rate leaves the first step's one-off work out */
    fprintf(f, ",\n  \"run_seconds\": %.6f, \"steps\": %ld, \"first_step_seconds\": %.6f, \"step_seconds\": %.9f",
            run->run_seconds, run->steps, run->first_step_seconds, um_app_step_seconds(run));
  else if (run->run_seconds > 0) /* an app without steps (SIAC's filter): the main part's time alone */
    fprintf(f, ",\n  \"run_seconds\": %.6f", run->run_seconds);
  umrun_setup_phases_json(f, run);
  memory_json(f, run);
  umrun_ckpt_json(f, run);
  fputs(",\n  \"loops\": ", f);
  um_report_loops_json(ctx, f);
  fputs(",\n  \"mesh\": ", f);
  um_report_mesh_json(ctx, f);
  fputs(",\n  \"metrics\": {", f);
  for (int i = 0; i < run->nmetrics; i++) {
    fputs(i ? ", " : "", f);
    um_json_string(f, run->metric_names[i]);
    fputs(": ", f);
    um_json_number(f, run->metric_values[i]); /* null when not finite */
  }
  fputs("}", f);
  umrun_draw_json(f, drawn);
  if (validated) {
    fputs(",\n  \"validation\": ", f);
    um_validation_write_json(ref, val, f);
  }
  fputs("\n}\n", f);
}

/* Where the context runs, and settings that name another backend. */
void umrun_print_backend(FILE *out, const run_settings *s, um_context *ctx) {
  const char *used = um_context_backend(ctx);
  if (strcmp(s->opts.backend, "auto") == 0)
    fprintf(out, "backend: auto -> %s (%s)\n", used,
            strcmp(used, um_backend_at(0)) == 0 ? "the backend of highest priority"
                                                : "a backend of higher priority is not available here");
  else
    fprintf(out, "backend: %s\n", used);
  const char *device = um_context_device(ctx);
  if (*device) fprintf(out, "device: %s\n", device);
  for (int i = 0; i < s->opts.nsettings; i++) {
    const char *key = s->opts.settings[i].key, *dot = strchr(key, '.');
    int backend = 0; /* a backend's setting (cuda.*, openmp.*), not another component's (hostc.*, run.cache) */
    for (int b = 0; b < um_backend_count() && dot; b++)
      backend |= strlen(um_backend_at(b)) == (size_t)(dot - key) && !strncmp(key, um_backend_at(b), (size_t)(dot - key));
    const size_t n = strlen(used);
    if (s->cfg && !um_config_has(s->cfg, key)) continue; /* a declared default the user never set */
    if (backend && (strncmp(key, used, n) != 0 || key[n] != '.'))
      fprintf(out, "note: %s=%s is a setting of another backend; the %s backend does not use it\n", key,
              s->opts.settings[i].value, used);
  }
}

/* The tables after a run: loops, plans, the backend's counters, metrics. */
void umrun_print_report(FILE *out, const um_app *app, const um_app_run *run, const run_settings *s, um_context *ctx,
                         double total) {
  fprintf(out, "\n%s finished in %.3f s (setup %.3f s)\n\nper-loop table (%s backend, block size %d):\n", app->name,
          total, run->setup_seconds, um_context_backend(ctx), s->opts.block_size);
  um_report_loops(ctx, out, total);
  double jit = 0, up = 0, v;
  int nmod = 0, ncached = 0;
  um_loop_stats ls;
  for (int i = 0; i < um_loop_stats_count(ctx); i++) {
    if (um_loop_stats_get(ctx, i, &ls) != UM_SUCCESS) continue;
    if (um_loop_stats_counter(&ls, "compile_seconds", &v)) jit += v;
    if (um_loop_stats_counter(&ls, "modules", &v)) nmod += (int)v;
    if (um_loop_stats_counter(&ls, "modules_cached", &v)) ncached += (int)v;
    if (um_loop_stats_counter(&ls, "upload_seconds", &v)) up += v;
  }
  if (nmod)
    fprintf(out, "(loop times measured on the device; run-time compilation %.3f s for %d kernels, %d from the cache, "
                 "and uploads of dats and maps %.3f s, not included)\n", jit, nmod, ncached, up);
  umrun_setup_phases_line(out, run);
  memory_line(out, run);
  if (run->prefetch_bytes > 0)
    fprintf(out, "(%.1f MB of dats and maps copied to the device in %.3f s at the end of set-up: run.prefetch)\n",
            run->prefetch_bytes / 1e6, run->prefetch_seconds);
  fprintf(out, "\narithmetic (operations counted in each kernel's source, helpers and constant loops followed):\n");
  um_report_ops(ctx, out);
  fprintf(out, "\nplan statistics:\n");
  um_report_plans(ctx, out);
  if (um_context_nranks(ctx) > 1) {
    fprintf(out, "\nhalo exchanges (rank 0 of %d; hidden: the share that overlapped core elements):\n",
            um_context_nranks(ctx));
    um_report_halos(ctx, out);
  }
  char counters[8192] = "";
  FILE *cf = fmemopen(counters, sizeof counters - 1, "w");
  if (cf) {
    um_report_counters(ctx, cf);
    fclose(cf);
    if (counters[0]) fprintf(out, "\n%s backend counters:\n%s", um_context_backend(ctx), counters);
  }
  umrun_print_legend(out);
  fprintf(out, "\nmetrics:\n");
  for (int i = 0; i < run->nmetrics; i++) fprintf(out, "  %-16s %.17g\n", run->metric_names[i], run->metric_values[i]);
}

/* What the tables' columns mean, in OP2's words, after them (as PETSc's -log_view prints its legend);
 * docs/output.md says it at length. */
void umrun_print_legend(FILE *out) {
  fputs("\nreading the tables (docs/output.md says more):\n"
        "  time (s)    time inside the loop (GPU: CUDA events, run-time compilation excluded); %: share of the run\n"
        "  GB/s        useful bandwidth: bytes that must cross memory once per call (each dat read once, each\n"
        "              INC/RW dat read and written once, each map read once) / time per call; above the copy\n"
        "              bandwidth only when a small case fits in the caches\n"
        "  ops/elem    + - * / and math calls counted in the kernel's source, helpers followed; unknown: a trip\n"
        "              count known only at run time; ops/byte: intensity, low = bound by memory\n"
        "  bcolours    block colours: blocks of one colour increment no common element and run in parallel,\n"
        "              colours one after another; tcolours: the same for the elements of a block (GPU)\n"
        "  shared B    indirect data a block stages in shared memory (hierarchical); reuse: uses per staged value\n"
        "  access      READ through a map: indirect read; INC through a map: indirect increment (the reason for\n"
        "              colours or atomics); without a map: direct; INC/MIN/MAX on a global: a reduction\n",
        out);
}


/* Load validation.reference before the run, so that a bad reference stops
 * before computing. Relative paths are tried as given, then from the source
 * tree. */
int umrun_load_reference(const run_settings *s, validation *v, char *err, size_t len) {
  if (umrun_ref_load(s->reference, &v->ref, err, len)) return UM_ERR_CONFIG;
  if (v->ref->nfields && !(v->wanted = malloc((size_t)v->ref->nfields * sizeof *v->wanted))) {
    snprintf(err, len, "out of memory");
    return UM_ERR_ALLOC;
  }
  for (int i = 0; i < v->ref->nfields; i++) v->wanted[v->nwanted++] = v->ref->fields[i].name;
  return UM_SUCCESS;
}

/* The reference compares fields but the run writes no outputs: the app writes
 * them into a private temporary folder under tmp ($TMPDIR or /tmp: umrun_temp_dir),
 * removed after validation (remove_field_dir). */
int umrun_make_field_dir(const char *tmp, validation *v, char *err, size_t len) {
  if (snprintf(v->field_dir, sizeof v->field_dir, "%s/umrun-fields-XXXXXX", tmp) >= (int)sizeof v->field_dir ||
      !mkdtemp(v->field_dir)) {
    snprintf(err, len,
             "cannot create a temporary folder for the field files under '%.1024s': %s; set TMPDIR to a writable "
             "folder, or set output.dir",
             tmp, strerror(errno));
    v->field_dir[0] = '\0';
    return UM_ERR_IO;
  }
  v->field_dir_slot = um_safe_dir_register(v->field_dir); /* SIGINT/SIGTERM/SIGHUP/SIGQUIT remove it too */
  return UM_SUCCESS;
}

/* Remove the temporary field folder and the files in it (not recursive: the
 * apps write plain files). */
void umrun_remove_field_dir(const um_runner *r, validation *v) {
  if (!v->field_dir[0]) return;
  DIR *d = opendir(v->field_dir);
  if (d) {
    struct dirent *e;
    char p[8192];
    while ((e = readdir(d)))
      if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
        snprintf(p, sizeof p, "%s/%s", v->field_dir, e->d_name);
        if (unlink(p)) umrun_err(r, "note: cannot remove '%s': %s\n", p, strerror(errno));
      }
    closedir(d);
  }
  if (rmdir(v->field_dir))
    umrun_err(r, "note: cannot remove the temporary folder '%s': %s\n", v->field_dir, strerror(errno));
  um_safe_dir_unregister(v->field_dir_slot);
  v->field_dir_slot = -1;
  v->field_dir[0] = '\0';
}

/* Compare the metrics and field files with the reference; returns the exit status it implies. */
int umrun_validate_run(const um_runner *r, FILE *out, const run_settings *s, const um_app *app, const um_app_run *run,
                       validation *v, const char *changed, const char **status_text) {
  char err[4096] = "";
  /* the run's settings differ from the reference's config: its comparison is shown only if it passes */
  char *held = NULL;
  size_t nheld = 0;
  FILE *real = out;
  if (changed && *changed && (out = open_memstream(&held, &nheld)) == NULL) out = real;
  const char *names[UM_APP_MAX_METRICS];
  for (int i = 0; i < run->nmetrics; i++) names[i] = run->metric_names[i];
  fprintf(out, "\nvalidation against %s:\n", s->reference);
  int vrc = um_validate(v->ref, app->name, run->nmetrics, names, run->metric_values, out, &v->val);
  if (vrc == UM_ERR_VALIDATION) vrc = UM_SUCCESS; /* metrics failed: reported below */
  if (!vrc && v->ref->nfields) {
    const char *fnames[UM_APP_MAX_FIELDS], *fpaths[UM_APP_MAX_FIELDS];
    for (int i = 0; i < run->nfields; i++) {
      fnames[i] = run->field_names[i];
      fpaths[i] = run->field_paths[i];
    }
    vrc = um_validate_fields(v->ref, run->nfields, fnames, fpaths, out, &v->val);
    if (vrc == UM_ERR_VALIDATION) vrc = UM_SUCCESS;
  }
  if (vrc) snprintf(err, sizeof err, "%s", v->val.message);
  v->validated = vrc == UM_SUCCESS;
  if (out != real) {
    fclose(out);
    out = real;
    if (vrc || v->val.pass) fwrite(held, 1, nheld, out);
    free(held);
    if (!vrc && !v->val.pass) {
      umrun_print_not_comparable(out, s->reference, changed, &v->val,
                                 "To explore, add --no-validate (or --set validation.reference=); to validate, run "
                                 "without these changes.");
      *status_text = "not comparable";
      return EXIT_VALIDATION;
    }
  }
  if (vrc) { /* a reference that does not match the run (app, metrics) is the user's input: exit status 1; a field
              * file that could not be read (too few file descriptors, an I/O error) fails the run: 2 */
    umrun_err(r, "validation: %s\n", err);
    *status_text = "validation error";
    return vrc == UM_ERR_IO ? EXIT_RUN : EXIT_USAGE;
  }
  if (!v->val.pass) {
    if (v->val.nfields)
      fprintf(out, "VALIDATION FAILED (%d of %d metrics, %d of %d field%s)\n", v->val.nfail, v->val.nmetrics,
              v->val.nfields_fail, v->val.nfields, v->val.nfields == 1 ? "" : "s");
    else
      fprintf(out, "VALIDATION FAILED (%d of %d metrics)\n", v->val.nfail, v->val.nmetrics);
    if (v->field_dir[0] && v->val.nfields_fail)
      fprintf(out, "(the field files were written to a temporary folder, removed now; set output.dir=<folder> to "
                   "keep them)\n");
    *status_text = "validation failed";
    return EXIT_VALIDATION;
  }
  if (v->val.nfields)
    fprintf(out, "VALIDATION PASS (%d metrics, %d field%s)\n", v->val.nmetrics, v->val.nfields,
            v->val.nfields == 1 ? "" : "s");
  else
    fprintf(out, "VALIDATION PASS (%d metrics)\n", v->val.nmetrics);
  return EXIT_OK;
}

/* --json and --csv; a file that cannot be written turns success into EXIT_RUN.
 * The JSON goes through a temporary renamed into place (the old file stays
 * until the new one is complete); CSV rows are appended in one checked write
 * (util/safe_file.h). */
/* 1 (and why into err) when the file at path exists, is not empty, and begins with another line than header: rows
 * appended to it would not be under their columns' names (a CSV of another program, or of another umrun). */
static int csv_other_header(const char *path, const char *header, char *err, size_t len) {
  struct stat st;
  if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) return 0; /* a new file (the header goes first), a device, a pipe */
  FILE *f = fopen(path, "r");
  if (!f) return 0;
  char first[600] = "";
  const int empty = !fgets(first, sizeof first, f);
  fclose(f);
  first[strcspn(first, "\r\n")] = 0;
  const size_t hn = strcspn(header, "\r\n");
  if (empty || (strlen(first) == hn && !strncmp(first, header, hn))) return 0;
  snprintf(err, len, "'%s' begins with another header (\"%.120s%s\"): its columns are not umrun's; name a new file, "
           "or one umrun --csv wrote", path, first, strlen(first) > 120 ? "..." : "");
  return 1;
}

int umrun_write_outputs(const um_runner *r, const cmdline *c, const run_settings *s, um_context *ctx, const um_app *app,
                        const um_app_run *run, double total, const validation *v, int rc, int status,
                        const char *status_text, const umrun_draw *drawn) {
  char err[4096];
  if (c->json_path) {
    um_safe_file jf;
    int bad = um_safe_open(&jf, c->json_path, err, sizeof err);
    if (!bad) {
      write_json(jf.f, s, ctx, app, run, total, v->ref, &v->val, v->validated, status_text, drawn);
      bad = um_safe_commit(&jf, err, sizeof err);
    }
    if (bad) {
      umrun_err(r, "--json: %s\n", err);
      if (!status) status = EXIT_RUN;
    }
  }
  if (c->csv_path && !rc) {
    char *rows = NULL;
    size_t n = 0;
    FILE *mf = open_memstream(&rows, &n);
    int bad = !mf;
    if (mf) {
      umrun_csv_rows(mf, c->csv_label, app->name, ctx, um_layout_name(s->opts.layout), s->reorder, s->opts.block_size,
                     status_text);
      bad = fclose(mf) != 0;
    }
    char header[512] = "";
    FILE *hf = fmemopen(header, sizeof header - 1, "w");
    if (hf) {
      umrun_csv_header(hf);
      fclose(hf);
    }
    if (bad) snprintf(err, sizeof err, "out of memory formatting the rows for '%s'", c->csv_path);
    else bad = csv_other_header(c->csv_path, header, err, sizeof err);
    if (!bad) bad = um_safe_append(c->csv_path, header, rows, n, err, sizeof err);
    free(rows);
    if (bad) {
      umrun_err(r, "--csv: %s\n", err);
      if (!status) status = EXIT_RUN;
    }
  }
  return status;
}
