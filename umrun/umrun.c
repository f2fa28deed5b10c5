/* umrun: run an app of the um suite from a YAML config.
 *
 *   umrun [CONFIG.yaml] [--set key=value ...] [--json FILE] [--list-apps] [--help]
 *
 * Options are taken from, in increasing priority: the config file (or the
 * embedded default config), the environment variable UM_OPTIONS
 * ("run.backend=seq mesh.I=40"), then each --set. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "../apps/common/um_app.h"
#include "um/build_config.h"
#include "um/config.h"
#include "um/report.h"
#include "um/um.h"
#include "um/validate.h"
#include "sweep.h"
#ifdef UM_HAVE_CUDA
#include "um/cuda.h"
#endif

extern const char umrun_default_config[];

enum { EXIT_OK = 0, EXIT_USAGE = 1, EXIT_RUN = 2, EXIT_VALIDATION = 3 };

static void usage(FILE *f) {
  fprintf(f,
          "usage: umrun [CONFIG.yaml] [--set key=value]... [--json FILE] [--quiet]\n"
          "       umrun --list-apps | --help | --version\n"
          "\n"
          "Runs one app of the um suite as the YAML config says: app, mesh, parameters,\n"
          "backend, strategy, layout, block size, validation and outputs. Without CONFIG,\n"
          "runs the embedded default job (a small Airfoil case, validated).\n"
          "\n"
          "options:\n"
          "  --set key=value   override one config value, by dotted path into the YAML\n"
          "                    (e.g. --set run.backend=seq --set mesh.I=40); repeatable\n"
          "  --json FILE       also write the run summary (options, per-loop table, plan\n"
          "                    statistics, metrics, validation) as JSON to FILE\n"
          "  --quiet           no progress bar and no options listing\n"
          "  --sweep key=v1,v2,...  run every combination of the listed values (repeatable,\n"
          "                    e.g. --sweep run.block_size=64,128,256 --sweep run.layout=aos,soa),\n"
          "                    each as its own run; writes sweep.csv (one row per loop and run)\n"
          "                    and plots of useful GB/s against block size, one line per variant\n"
          "                    (gnuplot). A config may list them too: sweep: [\"run.layout=aos,soa\"]\n"
          "  --sweep-out DIR   where the sweep writes (default out/sweep_<app>)\n"
          "  --csv FILE        append this run's per-loop rows to a CSV file (header if new)\n"
          "  --print-config    print the config in effect as YAML and exit\n"
          "  --list-apps       list the registered apps with their own config keys and exit\n"
          "  --version         print the version and build configuration and exit\n"
          "  --help            this text\n"
          "\n"
          "precedence: config file < environment variable UM_OPTIONS < --set.\n"
          "  UM_OPTIONS holds whitespace-separated key=value pairs: UM_OPTIONS='run.backend=seq'\n"
          "\n"
          "config keys (one schema for every app):\n"
          "  app                 registered app name (see --list-apps)\n"
          "  mesh.*              generator and its parameters, or mesh.file\n"
          "  params.*            app parameters\n"
          "  run.backend         auto | seq | openmp | cuda     (auto: GPU if present, else CPU)\n"
          "  run.strategy        auto | coloured | hierarchical | atomics | global\n"
          "  run.layout          aos | soa | auto               (auto: SoA unless accessed through a map)\n"
          "  run.block_size      elements per mini-partition (plan block), default 256\n"
          "  run.threads         OpenMP threads (0: OMP_NUM_THREADS or all cores)\n"
          "  run.check_plans     verify every plan's colouring after building it\n"
          "  run.parallel_threshold  OpenMP: loops over fewer elements run on one thread (4096)\n"
          "  run.reorder         none | gps | partition   (renumber the mesh for locality before the run)\n"
          "  run.reorder_map     the map it is based on (default: the app's main indirect map)\n"
          "  run.reorder_file    HDF5 file to save the permutation to / load it from (once per mesh)\n"
          "  run.profile         auto | p100 | v100 | a100 | h100 | h200 (GPU device profile)\n"
          "  run.staging         auto | inc | all | none  (CUDA: data staged in shared memory per plan block)\n"
          "  run.iterations      iterations of the app's main loop\n"
          "  validation.reference  validation/<app>/<case>.ref.yaml to check the run against\n"
          "  output.dir, output.hdf5  where to write final fields (HDF5 + XDMF)\n"
          "\n"
          "exit status: 0 success (and validation passed, if configured); 1 bad command\n"
          "line or config; 2 the run failed; 3 validation failed.\n");
}

static void print_version(FILE *f) {
  fprintf(f, "um %s (%s build, %s; OpenMP %s, CUDA %s, HDF5 %s)\n", UM_VERSION, UM_BUILD_TYPE, UM_C_COMPILER,
          UM_BUILD_OPENMP, UM_BUILD_CUDA, UM_BUILD_HDF5);
}

static void list_apps(FILE *f) {
  fprintf(f, "registered apps:\n");
  for (int i = 0; i < um_app_count(); i++) {
    const um_app *a = um_app_at(i);
    fprintf(f, "  %-10s %s\n", a->name, a->description);
    for (const char *k = a->keys; k && *k;) { /* its keys, indented */
      const char *nl = strchr(k, '\n');
      const int n = nl ? (int)(nl - k) : (int)strlen(k);
      fprintf(f, "               %.*s\n", n, k);
      k += n + (nl ? 1 : 0);
    }
  }
}

/* mkdir -p */
static int make_dirs(const char *path, char *err, size_t errlen) {
  char buf[4096];
  if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf) {
    snprintf(err, errlen, "output.dir is too long");
    return -1;
  }
  for (char *p = buf + 1;; p++) {
    if (*p == '/' || *p == '\0') {
      char c = *p;
      *p = '\0';
      if (mkdir(buf, 0777) != 0 && errno != EEXIST) {
        snprintf(err, errlen, "cannot create output directory '%.1024s': %s", buf, strerror(errno));
        return -1;
      }
      *p = c;
      if (!c) break;
    }
  }
  return 0;
}

static int file_exists(const char *p) {
  struct stat st;
  return stat(p, &st) == 0;
}

typedef struct {
  um_options opts;
  const char *app, *reorder, *profile, *reference, *outdir;
  int write_hdf5;
} run_settings;

static const char *const backend_choices[] = {"seq", "openmp", "cuda", "auto"};
static const char *const strategy_choices[] = {"auto", "coloured", "atomics", "global", "hierarchical"};
static const char *const layout_choices[] = {"aos", "soa", "auto"};
static const char *const reorder_choices[] = {"none", "gps", "partition"};
static const char *const profile_choices[] = {"auto", "p100", "v100", "a100", "h100", "h200"};
static const char *const staging_choices[] = {"auto", "inc", "all", "none"};
#define N(a) ((int)(sizeof a / sizeof a[0]))

static int read_settings(um_config *cfg, const char *config_path, run_settings *s, char *err, size_t len) {
  um_options_default(&s->opts);
  int b, st, l, r, p;
  const char *app_names[64];
  int napps = um_app_count() < 64 ? um_app_count() : 64;
  for (int i = 0; i < napps; i++) app_names[i] = um_app_at(i)->name;
  int app;
  if (!um_config_has(cfg, "app")) {
    snprintf(err, len, "the config names no app: add 'app: <name>' (one of the apps listed by umrun --list-apps)");
    return UM_ERR_CONFIG;
  }
  int rc = um_config_get_choice(cfg, "app", NULL, app_names, napps, &app, err, len);
  if (!rc) rc = um_config_get_choice(cfg, "run.backend", "auto", backend_choices, N(backend_choices), &b, err, len);
  if (!rc) rc = um_config_get_choice(cfg, "run.strategy", "auto", strategy_choices, N(strategy_choices), &st, err, len);
  if (!rc) rc = um_config_get_choice(cfg, "run.layout", "aos", layout_choices, N(layout_choices), &l, err, len);
  if (!rc) rc = um_config_get_int(cfg, "run.block_size", 256, &s->opts.block_size, err, len);
  if (!rc) rc = um_config_get_int(cfg, "run.threads", 0, &s->opts.nthreads, err, len);
  if (!rc) rc = um_config_get_bool(cfg, "run.check_plans", 0, &s->opts.check_plans, err, len);
  if (!rc) rc = um_config_get_int(cfg, "run.parallel_threshold", 4096, &s->opts.parallel_threshold, err, len);
  if (!rc) rc = um_config_get_choice(cfg, "run.reorder", "none", reorder_choices, N(reorder_choices), &r, err, len);
  if (!rc) rc = um_config_get_choice(cfg, "run.profile", "auto", profile_choices, N(profile_choices), &p, err, len);
  int stg = 0;
  if (!rc) rc = um_config_get_choice(cfg, "run.staging", "auto", staging_choices, N(staging_choices), &stg, err, len);
  s->opts.profile = (um_profile)p;
  s->opts.staging = stg;
  if (!rc) rc = um_config_get_string(cfg, "validation.reference", NULL, &s->reference, err, len);
  if (!rc) rc = um_config_get_string(cfg, "output.dir", NULL, &s->outdir, err, len);
  if (!rc) rc = um_config_get_bool(cfg, "output.hdf5", 0, &s->write_hdf5, err, len);
  if (rc) return rc;
  s->app = app_names[app];
  s->opts.backend = (um_backend)b;
  s->opts.strategy = (um_strategy)st;
  s->opts.layout = (um_layout)l;
  s->reorder = reorder_choices[r];
  s->profile = profile_choices[p];
  if (s->opts.block_size < 1 || s->opts.block_size > 1 << 20) {
    snprintf(err, len, "run.block_size = %d: use 1 .. 1048576 (typically 64 .. 1024)", s->opts.block_size);
    return UM_ERR_CONFIG;
  }
  if (s->opts.nthreads < 0) {
    snprintf(err, len, "run.threads = %d: use 0 (OpenMP default) or a positive count", s->opts.nthreads);
    return UM_ERR_CONFIG;
  }
  char why[512];
  if (s->opts.backend == UM_BACKEND_CUDA && !um_backend_status(UM_BACKEND_CUDA, why, sizeof why)) {
    /* never change backend behind the user's back: say how to run it on the CPU */
    /* atomics and global colouring are GPU strategies: the CPU runs need their own */
    const int gpu_only = s->opts.strategy == UM_STRATEGY_ATOMICS || s->opts.strategy == UM_STRATEGY_GLOBAL;
    snprintf(err, len,
             "run.backend = cuda, but %s.\n"
             "  To run the same config on the CPU: umrun %s --set run.backend=openmp%s",
             why, config_path ? config_path : "", gpu_only ? " --set run.strategy=auto" : "");
    return UM_ERR_UNSUPPORTED;
  }
  return UM_SUCCESS;
}

static void write_json(FILE *f, um_config *cfg, const run_settings *s, um_context *ctx, const um_app_run *run,
                       double total, const um_ref *ref, const um_validation_result *val, int validated, const char *status) {
  fputs("{\n  \"um_version\": ", f);
  um_json_string(f, UM_VERSION);
  fputs(",\n  \"app\": ", f);
  um_json_string(f, s->app);
  fputs(",\n  \"backend\": ", f);
  um_json_string(f, um_backend_name(um_context_backend(ctx)));
  fputs(",\n  \"strategy\": ", f);
  um_json_string(f, um_strategy_name(um_context_strategy(ctx)));
  fputs(",\n  \"layout\": ", f);
  um_json_string(f, um_layout_name(s->opts.layout));
  fprintf(f, ",\n  \"block_size\": %d,\n  \"status\": ", s->opts.block_size);
  um_json_string(f, status);
  fprintf(f, ",\n  \"total_seconds\": %.6f,\n  \"setup_seconds\": %.6f,\n  \"loops\": ", total, run->setup_seconds);
  um_report_loops_json(ctx, f);
  fputs(",\n  \"metrics\": {", f);
  for (int i = 0; i < run->nmetrics; i++) {
    fputs(i ? ", " : "", f);
    um_json_string(f, run->metric_names[i]);
    fprintf(f, ": %.17g", run->metric_values[i]);
  }
  fputs("}", f);
  if (validated) {
    fputs(",\n  \"validation\": ", f);
    um_validation_write_json(ref, val, f);
  }
  (void)cfg;
  fputs("\n}\n", f);
}

int main(int argc, char **argv) {
  const char *config_path = NULL, *json_path = NULL, *csv_path = NULL, *csv_label = "run", *sweep_out = NULL;
  int sweep_child = 0;
  static umrun_sweep_spec sweep;
  int quiet = 0, print_config = 0;
  char err[4096] = "";
  /* first pass: flags that need no config */
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      usage(stdout);
      return EXIT_OK;
    }
    if (!strcmp(argv[i], "--list-apps")) {
      list_apps(stdout);
      return EXIT_OK;
    }
    if (!strcmp(argv[i], "--version")) {
      print_version(stdout);
      return EXIT_OK;
    }
  }
  const char **sets = calloc((size_t)argc, sizeof *sets);
  int nsets = 0;
  if (!sets) return EXIT_RUN;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--set") || !strcmp(a, "--json")) {
      if (i + 1 >= argc) {
        fprintf(stderr, "umrun: %s needs an argument (see umrun --help)\n", a);
        return EXIT_USAGE;
      }
      if (!strcmp(a, "--set")) sets[nsets++] = argv[++i];
      else json_path = argv[++i];
    } else if (!strncmp(a, "--set=", 6)) {
      sets[nsets++] = a + 6;
    } else if (!strncmp(a, "--json=", 7)) {
      json_path = a + 7;
    } else if (!strcmp(a, "--sweep") || !strcmp(a, "--sweep-out") || !strcmp(a, "--csv") ||
               !strcmp(a, "--csv-label")) {
      if (i + 1 >= argc) {
        fprintf(stderr, "umrun: %s needs an argument (see umrun --help)\n", a);
        return EXIT_USAGE;
      }
      const char *v = argv[++i];
      if (!strcmp(a, "--sweep")) {
        if (umrun_sweep_add(&sweep, v, err, sizeof err)) {
          fprintf(stderr, "umrun: %s\n", err);
          return EXIT_USAGE;
        }
      } else if (!strcmp(a, "--sweep-out")) {
        sweep_out = v;
      } else if (!strcmp(a, "--csv")) {
        csv_path = v;
      } else {
        csv_label = v;
      }
    } else if (!strcmp(a, "--sweep-child")) {
      sweep_child = 1;
    } else if (!strcmp(a, "--quiet") || !strcmp(a, "-q")) {
      quiet = 1;
    } else if (!strcmp(a, "--print-config")) {
      print_config = 1;
    } else if (a[0] == '-') {
      fprintf(stderr, "umrun: unknown option '%s' (see umrun --help)\n", a);
      return EXIT_USAGE;
    } else if (config_path) {
      fprintf(stderr, "umrun: two config files given ('%s' and '%s'); give one, and --set to change values\n",
              config_path, a);
      return EXIT_USAGE;
    } else {
      config_path = a;
    }
  }

  um_config *cfg = NULL;
  int rc = config_path ? um_config_load_file(config_path, &cfg, err, sizeof err)
                       : um_config_load_string(umrun_default_config, "embedded default config", &cfg, err, sizeof err);
  if (!rc) rc = um_config_apply_env(cfg, "UM_OPTIONS", err, sizeof err);
  for (int i = 0; !rc && i < nsets; i++) rc = um_config_set_assignment(cfg, sets[i], "--set", err, sizeof err);
  if (rc) {
    fprintf(stderr, "umrun: %s\n", err);
    um_config_free(cfg);
    free(sets);
    return EXIT_USAGE;
  }
  /* a sweep: from --sweep, or the config's list "sweep: [key=v1,v2, ...]" */
  if (!sweep_child && um_config_kind(cfg, "sweep") == UM_CONFIG_SEQUENCE && !sweep.nkeys) {
    int n = 0;
    rc = um_config_size(cfg, "sweep", &n, err, sizeof err);
    for (int i = 0; !rc && i < n; i++) {
      char key[32];
      const char *v = NULL;
      snprintf(key, sizeof key, "sweep.%d", i);
      rc = um_config_get_string(cfg, key, NULL, &v, err, sizeof err);
      if (!rc && v && umrun_sweep_add(&sweep, v, err, sizeof err)) rc = UM_ERR_CONFIG;
    }
    if (rc) {
      fprintf(stderr, "umrun: sweep: %s\n", err);
      um_config_free(cfg);
      free(sets);
      return EXIT_USAGE;
    }
  }
  if (um_config_has(cfg, "sweep")) um_config_mark_read(cfg, "sweep", NULL, 0);
  if (sweep.nkeys && !sweep_child) {
    char outdir[4096];
    const char *appname = NULL;
    um_config_get_string(cfg, "app", "app", &appname, NULL, 0);
    snprintf(outdir, sizeof outdir, "%s", sweep_out ? sweep_out : "");
    if (!sweep_out) snprintf(outdir, sizeof outdir, "out/sweep_%s", appname);
    um_config_free(cfg);
    int st = umrun_sweep_run(argv[0], config_path, sets, nsets, &sweep, outdir);
    free(sets);
    return st;
  }
  free(sets);
  if (print_config) {
    rc = um_config_write_yaml(cfg, stdout, err, sizeof err);
    um_config_free(cfg);
    if (rc) fprintf(stderr, "umrun: %s\n", err);
    return rc ? EXIT_RUN : EXIT_OK;
  }
  run_settings s;
  memset(&s, 0, sizeof s);
  rc = read_settings(cfg, config_path, &s, err, sizeof err);
  if (rc) {
    fprintf(stderr, "umrun: %s\n", err);
    um_config_free(cfg);
    return EXIT_USAGE;
  }
  const um_app *app = um_app_find(s.app);
  FILE *out = stdout;
  print_version(out);
  fprintf(out, "config: %s\n", config_path ? config_path : "(embedded default config)");

  um_context *ctx = NULL;
  rc = um_init(&ctx, &s.opts);
  if (rc) {
    fprintf(stderr, "umrun: %s\n", um_error_message(ctx));
    um_finalize(&ctx);
    um_config_free(cfg);
    return EXIT_USAGE;
  }
  um_backend used = um_context_backend(ctx);
  if (s.opts.backend == UM_BACKEND_AUTO)
    fprintf(out, "backend: auto -> %s (%s)\n", um_backend_name(used),
            um_backend_available(UM_BACKEND_CUDA) ? "a GPU was found" : "no GPU backend available: running on the CPU");
  else
    fprintf(out, "backend: %s\n", um_backend_name(used));
#ifdef UM_HAVE_CUDA
  if (used == UM_BACKEND_CUDA) fprintf(out, "device: %s\n", um_cuda_device(ctx));
#endif
  if (used != UM_BACKEND_CUDA && strcmp(s.profile, "auto") != 0)
    fprintf(out, "note: run.profile=%s describes a GPU; the %s backend does not use it\n", s.profile,
            um_backend_name(used));
  if (!quiet) {
    fprintf(out, "options in effect:\n");
    um_config_print(cfg, out);
  }
  if (s.outdir && *s.outdir && make_dirs(s.outdir, err, sizeof err)) {
    fprintf(stderr, "umrun: %s\n", err);
    um_finalize(&ctx);
    um_config_free(cfg);
    return EXIT_RUN;
  }

  um_app_run run;
  memset(&run, 0, sizeof run);
  run.ctx = ctx;
  run.cfg = cfg;
  run.log = out;
  run.progress = !quiet && isatty(STDERR_FILENO);
  run.output_dir = s.outdir;
  run.write_hdf5 = s.write_hdf5;
  fprintf(out, "running %s ...\n", app->name);
  fflush(out);
  double t0 = um_wtime();
  run.t_start = t0;
  rc = app->run(&run);
  if (!rc) rc = um_sync(ctx); /* device work finished, its timings read */
  double total = um_wtime() - t0;
  um_app_progress_clear(&run);
  int status = EXIT_OK;
  const char *status_text = "ok";
  if (rc) {
    fprintf(stderr, "umrun: %s failed: %s\n", app->name,
            run.err[0] ? run.err : um_error_message(ctx));
    /* a bad config value found by the app is the user's input, not a failed run */
    status = rc == UM_ERR_CONFIG ? EXIT_USAGE : EXIT_RUN;
    status_text = rc == UM_ERR_CONFIG ? "config error" : "run failed";
  }
  if (!rc) {
    fprintf(out, "\n%s finished in %.3f s (setup %.3f s)\n\nper-loop table (%s backend, block size %d):\n", app->name,
            total, run.setup_seconds, um_backend_name(used), s.opts.block_size);
    um_report_loops(ctx, out, total);
    double jit = 0;
    int nmod = 0, ncached = 0;
    um_loop_stats ls;
    for (int i = 0; i < um_loop_stats_count(ctx); i++)
      if (um_loop_stats_get(ctx, i, &ls) == UM_SUCCESS) jit += ls.compile_seconds, nmod += ls.modules, ncached += ls.modules_cached;
    if (nmod)
      fprintf(out, "(loop times measured on the GPU; run-time compilation %.3f s for %d kernels, %d from the cache, "
                   "not included)\n", jit, nmod, ncached);
    fprintf(out, "\nplan statistics:\n");
    um_report_plans(ctx, out);
    fprintf(out, "\nmetrics:\n");
    for (int i = 0; i < run.nmetrics; i++) fprintf(out, "  %-16s %.17g\n", run.metric_names[i], run.metric_values[i]);
  }
  /* validation */
  um_ref *ref = NULL;
  um_validation_result val;
  memset(&val, 0, sizeof val);
  int validated = 0;
  if (!rc && s.reference) {
    char path[4096];
    snprintf(path, sizeof path, "%s", s.reference);
    if (!file_exists(path) && s.reference[0] != '/') snprintf(path, sizeof path, "%s/%s", UM_SOURCE_DIR, s.reference);
    int vrc = um_ref_load(file_exists(path) ? path : s.reference, &ref, err, sizeof err);
    if (!vrc) {
      const char *names[UM_APP_MAX_METRICS];
      for (int i = 0; i < run.nmetrics; i++) names[i] = run.metric_names[i];
      fprintf(out, "\nvalidation against %s:\n", s.reference);
      vrc = um_validate(ref, app->name, run.nmetrics, names, run.metric_values, out, &val);
      if (vrc == UM_ERR_VALIDATION) vrc = UM_SUCCESS; /* metrics failed: reported below */
      if (vrc) snprintf(err, sizeof err, "%s", val.message);
      validated = vrc == UM_SUCCESS;
    }
    if (vrc) {
      fprintf(stderr, "umrun: validation: %s\n", err);
      status = EXIT_RUN;
      status_text = "validation error";
    } else if (!val.pass) {
      fprintf(out, "VALIDATION FAILED (%d of %d metrics)\n", val.nfail, val.nmetrics);
      status = EXIT_VALIDATION;
      status_text = "validation failed";
    } else {
      fprintf(out, "VALIDATION PASS (%d metrics)\n", val.nmetrics);
    }
  }
  if (!rc) um_config_warn_unread(cfg, stderr); /* after a failure, unread keys are no news */
  if (json_path) {
    FILE *jf = fopen(json_path, "w");
    if (!jf) {
      fprintf(stderr, "umrun: cannot write --json file '%s': %s\n", json_path, strerror(errno));
      if (!status) status = EXIT_RUN;
    } else {
      write_json(jf, cfg, &s, ctx, &run, total, ref, &val, validated, status_text);
      fclose(jf);
    }
  }
  if (csv_path && !rc) {
    FILE *cf = fopen(csv_path, "a");
    if (!cf) {
      fprintf(stderr, "umrun: cannot append to --csv file '%s': %s\n", csv_path, strerror(errno));
      if (!status) status = EXIT_RUN;
    } else {
      if (ftell(cf) == 0) umrun_csv_header(cf);
      umrun_csv_rows(cf, csv_label, app->name, ctx, um_layout_name(s.opts.layout), s.reorder, s.opts.block_size,
                     status_text);
      fclose(cf);
    }
  }
  um_validation_result_free(&val);
  um_ref_free(ref);
  um_finalize(&ctx);
  um_config_free(cfg);
  return status;
}
