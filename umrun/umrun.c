/* The runner (um/run.h: um_run_main): run an app from a YAML config.
 *
 *   umrun [CONFIG.yaml] [--set key=value ...] [--json FILE] [--list-apps] [--help]
 *
 * Options are taken from, in increasing priority: the config file (or the
 * embedded default config), the environment variable UM_OPTIONS
 * ("run.backend=seq mesh.I=40"), then each --set. */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "um/app.h"
#include "um/run.h"
#include "um/build_config.h"
#include "um/config.h"
#include "um/report.h"
#include "um/um.h"
#include "um/validate.h"
#include "um/safe_file.h"
#include "child.h"
#include "sweep.h"
#include "tools.h"
#include "apps_table.h"

/* The program's name in messages: argv[0]'s last component (umrun, or an out-of-tree app's program). */
static const char *prog = "umrun";
static const char *prog_name(void) { return prog; }

/* um_run_set_default_config: the job run when no config file is named (NULL: none) */
static const char *default_config, *default_config_name = "embedded default config";

void um_run_set_default_config(const char *yaml, const char *name) {
  default_config = yaml;
  default_config_name = name && *name ? name : "embedded default config";
}

/* A config from c->config_path, else the default job; an error naming what to do when there is neither. */
static int load_base(const char *path, um_config **cfg, char *err, size_t len) {
  if (path) return um_config_load_file(path, cfg, err, len);
  if (default_config) return um_config_load_string(default_config, default_config_name, cfg, err, len);
  if (err && len) snprintf(err, len, "no config file given: name one (e.g. %s CONFIG.yaml; --help lists the keys)",
                           prog_name());
  return UM_ERR_CONFIG;
}
extern const char um_commit_id[];

enum { EXIT_OK = 0, EXIT_USAGE = 1, EXIT_RUN = 2, EXIT_VALIDATION = 3 };

static void usage(FILE *f) {
  if (strcmp(prog_name(), "umrun")) /* an out-of-tree program: the runner's options are umrun's */
    fprintf(f, "%s: a program built on the um runner (um/run.h); its command line is umrun's, with its own apps:\n"
               "  %s [CONFIG.yaml] [--set key=value]... [--json FILE] [--quiet]   (the same options as below)\n\n",
            prog_name(), prog_name());
  fprintf(f,
          "usage: umrun [CONFIG.yaml] [--set key=value]... [--json FILE] [--quiet]\n"
          "       umrun --suite SUITE.yaml [--tags T] [--only APP] [--out DIR]   (see umrun --suite --help)\n"
          "       umrun --compare A.json B.json [--noise F]                  (see umrun --compare --help)\n"
          "       umrun --report FILE.html RESULTS.json...                   (see umrun --report --help)\n"
          "       umrun --validate RUN.json REF.yaml                         (see umrun --validate --help)\n"
          "       umrun --list-apps | --help | --version\n"
          "       mpirun -np P umrun [CONFIG.yaml] ...   the same run on P MPI ranks (mpi.* keys below)\n"
          "\n"
          "Runs one app of the um suite as the YAML config says: app, mesh, parameters,\n"
          "backend, strategy, layout, block size, validation and outputs. Without CONFIG,\n"
          "runs the embedded default job (umrun: a small Airfoil case, validated), if the\n"
          "program has one.\n"
          "\n"
          "options:\n"
          "  --set key=value   override one config value, by dotted path into the YAML\n"
          "                    (e.g. --set run.backend=seq --set mesh.I=40); repeatable\n"
          "  --json FILE       also write the run summary (options, per-loop table, plan\n"
          "                    statistics, metrics, validation) as JSON to FILE\n"
          "  --quiet           no progress bar and no options listing\n"
          "  --no-validate     explore: run without the config's validation.reference (exit 0 when\n"
          "                    the run succeeds). Without it, a run whose mesh.*, params.* or\n"
          "                    run.iterations differ (--set, UM_OPTIONS) from the config that names\n"
          "                    the reference, and fails validation, is said to be NOT COMPARABLE,\n"
          "                    naming the settings that differ (exit 3)\n"
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
          "  run.backend         auto | a backend listed below  (auto: the available one of highest\n"
          "                      priority: the GPU if present, else the CPU)\n"
          "  run.strategy        auto | coloured | hierarchical | atomics | global\n"
          "  run.layout          aos | soa | auto               (auto: SoA unless accessed through a map)\n"
          "  run.block_size      elements per mini-partition (plan block), default 256\n"
          "  run.threads         OpenMP threads (0: OMP_NUM_THREADS or all cores)\n"
          "  run.check_plans     verify every plan's colouring after building it\n"
          "  run.parallel_threshold  OpenMP: loops over fewer elements run on one thread (4096)\n"
          "  run.reorder         none | gps | partition   (renumber the mesh for locality before the run)\n"
          "  run.reorder_map     the map it is based on (default: the app's main indirect map)\n"
          "  run.reorder_file    HDF5 file to save the permutation to / load it from (once per mesh)\n"
          "  mpi.partitioner     metis | ptscotch | block   under mpirun: how the primary set is split over\n"
          "                      the ranks (metis: k-way of its graph, on rank 0; ptscotch: PT-Scotch\n"
          "                      k-way, every rank taking part; block: contiguous ranges)\n"
          "  mpi.increments      redundant | reverse | auto   increments into other ranks' elements:\n"
          "                      redundant runs the exec halo too (OP2); reverse sends them to their owners\n"
          "                      (PETSc's SFReduce); auto picks reverse for a loop whose exec halo's work\n"
          "                      is over 5x the bytes it would send back (LULESH's volume_force). Per loop:\n"
          "                      mpi.loops: {res_calc: reverse}\n"
          "  mpi.gpu_transport   auto | nccl | host   halo messages of CUDA ranks: nccl sends device\n"
          "                      buffers GPU to GPU (NCCL, on a stream beside the compute stream: no host\n"
          "                      copy, no host wait); host packs rows into pinned host memory and sends\n"
          "                      them with MPI (any MPI; several ranks may share a GPU). auto: nccl when\n"
          "                      NCCL loads and every rank has its own GPU on one host, for exchanges\n"
          "                      of mpi.gpu_transport_min_bytes (1048576) or more per rank; host below\n"
          "                      (NCCL costs ~0.5 ms of host time per exchange: small halos lose)\n"
          "  mpi.deadline_s      a rank that failed alone waits this long (60) for the others to reach\n"
          "                      the end of the run, then stops every rank with its message (MPI_Abort)\n"
          "  mpi.partition_set   the primary set (default: the set the app's main map points into);\n"
          "                      the other sets follow it through the maps. Rank 0 prints, writes the\n"
          "                      outputs and validates; every rank exits with the same status\n"
          "  run.split           auto | off | on | scatter | gather   automatic loop splitting: a loop that\n"
          "                      increments through maps runs as its kernel writing per-element\n"
          "                      contributions (no colouring, no atomics), then the increments: one\n"
          "                      loop per argument (scatter) or each target summing its elements'\n"
          "                      contributions in a fixed order (gather; on = gather). auto: CPU\n"
          "                      backends keep loops whole; a GPU times both and keeps the faster.\n"
          "                      Per loop: split: {res_calc: on}\n"
          "  run.reproducible    true: increments gathered in a fixed order (by global element number)\n"
          "                      and floating-point sums exact, so runs, strategies, backends and rank\n"
          "                      counts give the same bits (default false)\n"
          "  run.row_align       dats allocate rows rounded up to a multiple of this (1)\n"
          "  run.compile         auto | wait | off   CPU backends: each loop's host code generated for its\n"
          "                      arguments and compiled with a C compiler at run time (OP2's per-loop\n"
          "                      code, same results bit for bit). auto: in the background once a loop has\n"
          "                      run run.compile_after seconds (0.05), the generic code running meanwhile;\n"
          "                      wait: before each loop's first call (a failed compile is an error)\n"
          "  run.compile_simd    auto | on | off   a loop whose indirect and global arguments are all read\n"
          "                      also gets a SIMD range (elements in groups, same bits); auto: its\n"
          "                      first calls time both ranges and the faster one stays\n"
          "  run.cc, run.cflags  the compiler (default: the one um was built with) and its flags\n"
          "                      (default '" UM_HOSTC_DEFAULT_CFLAGS "':\n"
          "                      this CPU, same bits as the generic code; e.g. -ffast-math changes them)\n"
          "  run.cache           where compiled loops are kept ($XDG_CACHE_HOME/um or ~/.cache/um; off)\n"
          "  run.iterations      iterations of the app's main loop\n"
          "  run.unknown_keys    error | warn   a config key nothing reads (misspelt, or another app's) is\n"
          "                      an error before the first loop, naming the key, where it came from and\n"
          "                      the closest key that is read (default error); warn: a warning, and run\n"
          "  validation.reference  validation/<app>/<case>.ref.yaml to check the run against (metrics\n"
          "                      and field files; loaded before the run; field files go to output.dir,\n"
          "                      else to a temporary folder removed after validation)\n"
          "  output.dir, output.hdf5  where to write final fields (HDF5 + XDMF)\n"
          "\n"
          "  <backend>.<key>     a backend's own settings (below); every one can also come from\n"
          "                      the environment variable UM_<BACKEND>_<KEY>\n"
          "\n"
          "exit status: 0 success (and validation passed, if configured); 1 bad command\n"
          "line or config, or an input/output path that does not work (a validation\n"
          "reference and its field files included; checked before the\n"
          "first loop); 2 the run failed (invalid mesh, diverged: a NaN or infinite result,\n"
          "an output that could not be written); 3 validation failed.\n");
  fprintf(f, "\nbackends (by priority):\n");
  for (int i = 0; i < um_backend_count(); i++) {
    const char *b = um_backend_at(i);
    char why[512];
    const int ok = um_backend_status(b, why, sizeof why);
    fprintf(f, "  %-8s %s\n", b, ok ? "available" : why);
    for (int k = 0; k < um_backend_option_count(b); k++) {
      const char *key, *def, *choices, *help;
      um_backend_option_at(b, k, &key, &def, &choices, &help);
      char name[96];
      snprintf(name, sizeof name, "%s.%s", b, key);
      fprintf(f, "    %-18s %s (%s; default %s)\n", name, help, choices ? choices : "any value", *def ? def : "none");
    }
  }
}

static void print_version(FILE *f) {
  fprintf(f, "um %s (%s build, %s; OpenMP %s, CUDA %s, MPI %s, HDF5 %s)\n", UM_VERSION, UM_BUILD_TYPE, UM_C_COMPILER,
          UM_BUILD_OPENMP, UM_BUILD_CUDA, UM_BUILD_MPI, UM_BUILD_HDF5);
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

static int file_exists(const char *p) {
  struct stat st;
  return stat(p, &st) == 0;
}

typedef struct {
  um_options opts;
  const char *app, *reorder, *reference, *outdir;
  int write_hdf5;
  double deadline_s; /* mpi.deadline_s: how long the other ranks get to reach a failed rank */
} run_settings;

static const char *const layout_choices[] = {"aos", "soa", "auto"};
static const char *const reorder_choices[] = {"none", "gps", "partition"};
static const char *const compile_choices[] = {"auto", "wait", "off"};
static const char *const simd_choices[] = {"off", "auto", "on"}; /* um_options.compile_simd + 1 */

/* A string setting into a fixed buffer of um_options, refused when too long. */
static int get_text(um_config *cfg, const char *key, char *dst, size_t cap, char *err, size_t len) {
  const char *v = NULL;
  int rc = um_config_get_string(cfg, key, NULL, &v, err, len);
  if (rc || !v) return rc;
  if (strlen(v) >= cap) {
    snprintf(err, len, "%s is %zu characters long: at most %zu", key, strlen(v), cap - 1);
    return UM_ERR_CONFIG;
  }
  snprintf(dst, cap, "%s", v);
  return UM_SUCCESS;
}
#define N(a) ((int)(sizeof a / sizeof a[0]))

/* Earlier spellings of backend settings, still read (with a note). */
static const struct {
  const char *old, *now;
} renamed[] = {{"run.profile", "cuda.profile"}, {"run.staging", "cuda.staging"}};

/* Every registered backend's own keys "<backend>.<key>" that the config sets. */
static int read_backend_options(um_config *cfg, um_options *o, FILE *out, char *err, size_t len) {
  for (int r = 0; r < N(renamed); r++) {
    const char *v = NULL;
    if (!um_config_has(cfg, renamed[r].old)) continue;
    if (um_config_get_string(cfg, renamed[r].old, NULL, &v, err, len)) return UM_ERR_CONFIG;
    if (!um_config_has(cfg, renamed[r].now) && v &&
        um_config_set(cfg, renamed[r].now, v, renamed[r].old, err, len))
      return UM_ERR_CONFIG;
    fprintf(out, "note: %s is now spelled %s\n", renamed[r].old, renamed[r].now);
  }
  for (int i = 0; i < um_backend_count(); i++) {
    const char *b = um_backend_at(i);
    for (int k = 0; k < um_backend_option_count(b); k++) {
      const char *key, *def, *choices, *help;
      um_backend_option_at(b, k, &key, &def, &choices, &help);
      char name[128];
      snprintf(name, sizeof name, "%s.%s", b, key);
      if (!um_config_has(cfg, name)) continue;
      const char *v = NULL;
      if (um_config_get_string(cfg, name, def, &v, err, len)) return UM_ERR_CONFIG;
      if (choices) { /* checked here too, so the message names the config key */
        const char *list[32];
        char buf[256];
        int n = 0;
        snprintf(buf, sizeof buf, "%s", choices);
        for (char *t = strtok(buf, "|"); t && n < 32; t = strtok(NULL, "|")) list[n++] = t;
        int pick;
        if (um_config_get_choice(cfg, name, def, list, n, &pick, err, len)) return UM_ERR_CONFIG;
      }
      if (um_options_set_backend(o, name, v)) {
        snprintf(err, len, "%s = '%s': too long, or too many backend settings", name, v);
        return UM_ERR_CONFIG;
      }
    }
  }
  return UM_SUCCESS;
}

static int read_settings(um_config *cfg, const char *config_path, run_settings *s, FILE *out, char *err, size_t len) {
  um_options_default(&s->opts);
  int st, l, r;
  const char *app_names[64];
  int napps = um_app_count() < 64 ? um_app_count() : 64;
  for (int i = 0; i < napps; i++) app_names[i] = um_app_at(i)->name;
  const char *backend_names[32];
  int nb = 0;
  for (int i = 0; i < um_backend_count() && nb < 31; i++) backend_names[nb++] = um_backend_at(i);
  backend_names[nb++] = "auto";
  const char *strategy_names[] = {um_strategy_name(UM_STRATEGY_AUTO), um_strategy_name(UM_STRATEGY_COLOURED),
                                  um_strategy_name(UM_STRATEGY_ATOMICS), um_strategy_name(UM_STRATEGY_GLOBAL),
                                  um_strategy_name(UM_STRATEGY_HIERARCHICAL)};
  int app, b;
  if (!um_config_has(cfg, "app")) {
    snprintf(err, len, "the config names no app: add 'app: <name>' (one of the apps listed by umrun --list-apps)");
    return UM_ERR_CONFIG;
  }
  int rc = um_config_get_choice(cfg, "app", NULL, app_names, napps, &app, err, len);
  if (!rc) rc = um_config_get_choice(cfg, "run.backend", "auto", backend_names, nb, &b, err, len);
  if (!rc) rc = um_config_get_choice(cfg, "run.strategy", "auto", strategy_names, N(strategy_names), &st, err, len);
  if (!rc) rc = um_config_get_choice(cfg, "run.layout", "aos", layout_choices, N(layout_choices), &l, err, len);
  if (!rc) rc = um_config_get_int(cfg, "run.block_size", s->opts.block_size, &s->opts.block_size, err, len);
  if (!rc) rc = um_config_get_int(cfg, "run.threads", 0, &s->opts.nthreads, err, len);
  if (!rc) rc = um_config_get_bool(cfg, "run.check_plans", 0, &s->opts.check_plans, err, len);
  if (!rc)
    rc = um_config_get_int(cfg, "run.parallel_threshold", s->opts.parallel_threshold, &s->opts.parallel_threshold,
                           err, len);
  if (!rc) rc = um_config_get_int(cfg, "run.row_align", 1, &s->opts.row_align, err, len);
  if (!rc) rc = um_config_get_choice(cfg, "run.reorder", "none", reorder_choices, N(reorder_choices), &r, err, len);
  int comp = 0;
  if (!rc) rc = um_config_get_choice(cfg, "run.compile", "auto", compile_choices, N(compile_choices), &comp, err, len);
  if (!rc) rc = um_config_get_double(cfg, "run.compile_after", 0.05, &s->opts.compile_after, err, len);
  int simd = 1;
  if (!rc) rc = um_config_get_choice(cfg, "run.compile_simd", "auto", simd_choices, N(simd_choices), &simd, err, len);
  s->opts.compile_simd = simd - 1;
  if (!rc) rc = get_text(cfg, "run.cc", s->opts.cc, sizeof s->opts.cc, err, len);
  if (!rc) rc = get_text(cfg, "run.cflags", s->opts.cflags, sizeof s->opts.cflags, err, len);
  if (!rc) rc = get_text(cfg, "run.cache", s->opts.cache, sizeof s->opts.cache, err, len);
  if (!rc && um_compile_parse(compile_choices[comp], &s->opts.compile) != UM_SUCCESS) rc = UM_ERR_CONFIG;
  if (!rc && !(s->opts.compile_after >= 0 && s->opts.compile_after <= 1e6)) {
    snprintf(err, len, "run.compile_after = %g: use 0 .. 1e6 seconds (default 0.05)", s->opts.compile_after);
    rc = UM_ERR_CONFIG;
  }
  if (!rc) rc = read_backend_options(cfg, &s->opts, out, err, len);
  if (!rc) rc = um_config_get_string(cfg, "validation.reference", NULL, &s->reference, err, len);
  if (!rc) rc = um_config_get_string(cfg, "output.dir", NULL, &s->outdir, err, len);
  if (!rc) rc = um_config_get_bool(cfg, "output.hdf5", 0, &s->write_hdf5, err, len);
  if (!rc) rc = um_config_get_double(cfg, "mpi.deadline_s", 60.0, &s->deadline_s, err, len);
  if (rc) return rc;
  if (!(s->deadline_s >= 1 && s->deadline_s <= 86400)) {
    snprintf(err, len, "mpi.deadline_s = %g: use 1 .. 86400 seconds (default 60)", s->deadline_s);
    return UM_ERR_CONFIG;
  }
  s->app = app_names[app];
  s->opts.backend = backend_names[b];
  s->opts.strategy = (um_strategy)st;
  s->opts.layout = (um_layout)l;
  s->reorder = reorder_choices[r];
  if (s->opts.block_size < 1 || s->opts.block_size > 1 << 20) {
    snprintf(err, len, "run.block_size = %d: use 1 .. 1048576 (typically 64 .. 1024)", s->opts.block_size);
    return UM_ERR_CONFIG;
  }
  if (s->opts.nthreads < 0 || s->opts.nthreads > um_threads_max()) {
    snprintf(err, len, "run.threads = %d: use 0 (OpenMP default) or 1 .. %d (at most %d threads per core, %d cores "
                       "here)", s->opts.nthreads, um_threads_max(), UM_THREADS_PER_CORE,
             um_threads_max() / UM_THREADS_PER_CORE);
    return UM_ERR_CONFIG;
  }
  if (s->opts.row_align < 1 || s->opts.row_align > 4096) {
    snprintf(err, len, "run.row_align = %d: use 1 .. 4096", s->opts.row_align);
    return UM_ERR_CONFIG;
  }
  char why[512];
  if (strcmp(s->opts.backend, "auto") != 0 && !um_backend_status(s->opts.backend, why, sizeof why)) {
    /* never change backend behind the user's back: say how to run it on what is here */
    const char *alt = um_backend_auto();
    um_options o = s->opts;
    o.backend = alt;
    um_context *probe = NULL;
    const int strategy_ok = um_init(&probe, &o) == UM_SUCCESS; /* does the alternative run this strategy? */
    um_finalize(&probe);
    snprintf(err, len,
             "run.backend = %s, but %s.\n"
             "  To run the same config here: umrun %s --set run.backend=%s%s",
             s->opts.backend, why, config_path ? config_path : "", alt, strategy_ok ? "" : " --set run.strategy=auto");
    return UM_ERR_UNSUPPORTED;
  }
  return UM_SUCCESS;
}

/* The GPU a cuda run used: name, compute capability, memory, driver and
 * runtime, and its measured device-to-device copy bandwidth. */
static void write_device_json(FILE *f, um_context *ctx) {
  um_device_info d;
  if (um_context_device_info(ctx, &d) != UM_SUCCESS) {
    um_error_clear(ctx);
    return;
  }
  fputs(",\n  \"device\": {\"name\": ", f);
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
  fputs(", \"profile\": ", f);
  um_json_string(f, d.profile);
  fputc('}', f);
}

static void write_json(FILE *f, const run_settings *s, um_context *ctx, const um_app_run *run, double total,
                       const um_ref *ref, const um_validation_result *val, int validated, const char *status) {
  fputs("{\n  \"um_version\": ", f);
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
  write_device_json(f, ctx);
  fprintf(f, ",\n  \"ranks\": %d", um_context_nranks(ctx));
  um_report_partition_json(ctx, f);
  fprintf(f, ",\n  \"block_size\": %d,\n  \"status\": ", s->opts.block_size);
  um_json_string(f, status);
  fprintf(f, ",\n  \"total_seconds\": %.6f,\n  \"setup_seconds\": %.6f,\n  \"loops\": ", total, run->setup_seconds);
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
  if (validated) {
    fputs(",\n  \"validation\": ", f);
    um_validation_write_json(ref, val, f);
  }
  fputs("\n}\n", f);
}

/* ---- command line ----------------------------------------------------------------- */

typedef struct {
  const char *config_path, *json_path, *csv_path, *csv_label, *sweep_out;
  int sweep_child, quiet, print_config, no_validate;
  const char **sets;
  int nsets;
  umrun_sweep_spec sweep;
} cmdline;

/* Returns -1 to go on, or the exit status. */
static int parse_args(int argc, char **argv, cmdline *c) {
  char err[4096];
  for (int i = 1; i < argc; i++) { /* the multi-run tools take the whole command line */
    if (!strcmp(argv[i], "--suite")) return umrun_suite_main(argv[0], argc - 1, argv + 1);
    if (!strcmp(argv[i], "--compare")) return umrun_compare_main(argc - 1, argv + 1);
    if (!strcmp(argv[i], "--report")) return umrun_report_main(argc - 1, argv + 1);
    if (!strcmp(argv[i], "--validate")) return umrun_validate_main(argc - 1, argv + 1);
  }
  for (int i = 1; i < argc; i++) { /* flags that need no config */
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      for (int j = 1; j < argc; j++) /* umrun --sweep --help: the sweep's own */
        if (!strcmp(argv[j], "--sweep")) return umrun_sweep_usage(stdout), EXIT_OK;
      return usage(stdout), EXIT_OK;
    }
    if (!strcmp(argv[i], "--list-apps")) return list_apps(stdout), EXIT_OK;
    if (!strcmp(argv[i], "--version")) return print_version(stdout), EXIT_OK;
  }
  c->csv_label = "run";
  c->sets = calloc((size_t)argc, sizeof *c->sets);
  if (!c->sets) return EXIT_RUN;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--set") || !strcmp(a, "--json") || !strcmp(a, "--sweep") || !strcmp(a, "--sweep-out") ||
        !strcmp(a, "--csv") || !strcmp(a, "--csv-label")) {
      if (i + 1 >= argc) {
        fprintf(stderr, "umrun: %s needs an argument (see umrun --help)\n", a);
        return EXIT_USAGE;
      }
      const char *v = argv[++i];
      if (!strcmp(a, "--set")) c->sets[c->nsets++] = v;
      else if (!strcmp(a, "--json")) c->json_path = v;
      else if (!strcmp(a, "--sweep-out")) c->sweep_out = v;
      else if (!strcmp(a, "--csv")) c->csv_path = v;
      else if (!strcmp(a, "--csv-label")) c->csv_label = v;
      else if (umrun_sweep_add(&c->sweep, v, err, sizeof err)) {
        fprintf(stderr, "umrun: %s\n", err);
        return EXIT_USAGE;
      }
    } else if (!strncmp(a, "--set=", 6)) {
      c->sets[c->nsets++] = a + 6;
    } else if (!strncmp(a, "--json=", 7)) {
      c->json_path = a + 7;
    } else if (!strcmp(a, "--sweep-child")) {
      c->sweep_child = 1;
    } else if (!strcmp(a, "--quiet") || !strcmp(a, "-q")) {
      c->quiet = 1;
    } else if (!strcmp(a, "--print-config")) {
      c->print_config = 1;
    } else if (!strcmp(a, "--no-validate")) {
      c->no_validate = 1;
    } else if (a[0] == '-') {
      fprintf(stderr, "umrun: unknown option '%s' (see umrun --help)\n", a);
      return EXIT_USAGE;
    } else if (c->config_path) {
      fprintf(stderr, "umrun: two config files given ('%s' and '%s'); give one, and --set to change values\n",
              c->config_path, a);
      return EXIT_USAGE;
    } else {
      c->config_path = a;
    }
  }
  return -1;
}

/* The config in effect: file (or the embedded default) < UM_OPTIONS < --set. */
/* The config's validation.reference (NULL if none); does not mark it read. */
static const char *reference_of(um_config *cfg, char *buf, size_t len) {
  const char *v = NULL;
  if (um_config_kind(cfg, "validation.reference") != UM_CONFIG_SCALAR) return NULL;
  if (um_config_get_string(cfg, "validation.reference", NULL, &v, NULL, 0) || !v || !*v) return NULL;
  snprintf(buf, len, "%s", v);
  return buf;
}

static int load_config(const cmdline *c, um_config **cfg, char *err, size_t len) {
  int rc = load_base(c->config_path, cfg, err, len);
  char ref[1024];
  const char *named = rc ? NULL : reference_of(*cfg, ref, sizeof ref);
  const char *by = NULL;
  if (!rc) rc = um_config_apply_env(*cfg, "UM_OPTIONS", err, len);
  if (!rc && named && !reference_of(*cfg, (char[1024]){0}, 1024)) by = "UM_OPTIONS";
  for (int i = 0; !rc && i < c->nsets; i++) rc = um_config_set_assignment(*cfg, c->sets[i], "--set", err, len);
  if (!rc && named && !by && !reference_of(*cfg, (char[1024]){0}, 1024)) by = "--set";
  /* Validation switched off by a later source is said even under --quiet (and in a sweep's run logs). */
  if (!rc && named && by)
    fprintf(stderr, "umrun: note: the config names validation.reference %s, but %s removes it: this run is NOT "
                    "validated\n", ref, by);
  return rc;
}

/* A sweep from --sweep or the config's "sweep: [key=v1,v2, ...]": runs it and
 * returns the exit status; -1 when there is no sweep to run. */
static int maybe_sweep(cmdline *c, char **argv, um_config *cfg) {
  char err[4096];
  int rc = 0;
  if (!c->sweep_child && um_config_kind(cfg, "sweep") == UM_CONFIG_SEQUENCE && !c->sweep.nkeys) {
    int n = 0;
    rc = um_config_size(cfg, "sweep", &n, err, sizeof err);
    for (int i = 0; !rc && i < n; i++) {
      char key[32];
      const char *v = NULL;
      snprintf(key, sizeof key, "sweep.%d", i);
      rc = um_config_get_string(cfg, key, NULL, &v, err, sizeof err);
      if (!rc && v && umrun_sweep_add(&c->sweep, v, err, sizeof err)) rc = UM_ERR_CONFIG;
    }
    if (rc) {
      fprintf(stderr, "umrun: sweep: %s\n", err);
      return EXIT_USAGE;
    }
  }
  if (um_config_has(cfg, "sweep")) um_config_mark_read(cfg, "sweep", NULL, 0);
  if (!c->sweep.nkeys || c->sweep_child) return -1;
  /* Before anything runs or is written: the config (app and every key), and
   * the config with each value the sweep sets, are checked as a run checks
   * them; the output folder is built from the checked app name only. */
  run_settings s;
  memset(&s, 0, sizeof s);
  if (read_settings(cfg, c->config_path, &s, stdout, err, sizeof err)) {
    fprintf(stderr, "umrun: %s\n", err);
    return EXIT_USAGE;
  }
  FILE *quiet = fopen("/dev/null", "w"); /* notes were printed once above */
  for (int k = 0; k < c->sweep.nkeys; k++)
    for (int v = 0; v < c->sweep.nvalues[k]; v++) {
      char set[1200];
      um_config *one = NULL;
      snprintf(set, sizeof set, "%s=%s", c->sweep.key[k], c->sweep.values[k][v]);
      run_settings sv;
      memset(&sv, 0, sizeof sv);
      int rc = load_config(c, &one, err, sizeof err);
      if (!rc) rc = um_config_set_assignment(one, set, "--sweep", err, sizeof err);
      if (!rc) rc = read_settings(one, c->config_path, &sv, quiet ? quiet : stdout, err, sizeof err);
      um_config_free(one);
      if (rc) {
        fprintf(stderr, "umrun: --sweep %s: %s\n", set, err);
        if (quiet) fclose(quiet);
        return EXIT_USAGE;
      }
    }
  if (quiet) fclose(quiet);
  char outdir[4096];
  const char *appname = s.app;
  if (c->sweep_out) snprintf(outdir, sizeof outdir, "%s", c->sweep_out);
  else snprintf(outdir, sizeof outdir, "out/sweep_%s", appname);
  return umrun_sweep_run(argv[0], c->config_path, c->sets, c->nsets, &c->sweep, outdir);
}

/* The library's messages (warnings, verbose details) go to stderr. */
static void log_to_stderr(void *user, um_log_level level, const char *msg) {
  (void)user;
  (void)level;
  fprintf(stderr, "%s\n", msg);
}

/* Where the context runs, and settings that name another backend. */
static void print_backend(FILE *out, const run_settings *s, um_context *ctx) {
  const char *used = um_context_backend(ctx);
  if (strcmp(s->opts.backend, "auto") == 0)
    fprintf(out, "backend: auto -> %s (%s)\n", used,
            strcmp(used, um_backend_at(0)) == 0 ? "the backend of highest priority"
                                                : "a backend of higher priority is not available here");
  else
    fprintf(out, "backend: %s\n", used);
  const char *device = um_context_device(ctx);
  if (*device) fprintf(out, "device: %s\n", device);
  for (int i = 0; i < s->opts.nbackend_options; i++) {
    const char *key = s->opts.backend_options[i].key;
    const size_t n = strlen(used);
    if (strncmp(key, used, n) != 0 || key[n] != '.')
      fprintf(out, "note: %s=%s is a setting of another backend; the %s backend does not use it\n", key,
              s->opts.backend_options[i].value, used);
  }
}

/* The tables after a run: loops, plans, the backend's counters, metrics. */
static void print_report(FILE *out, const um_app *app, const um_app_run *run, const run_settings *s, um_context *ctx,
                         double total) {
  fprintf(out, "\n%s finished in %.3f s (setup %.3f s)\n\nper-loop table (%s backend, block size %d):\n", app->name,
          total, run->setup_seconds, um_context_backend(ctx), s->opts.block_size);
  um_report_loops(ctx, out, total);
  double jit = 0, v;
  int nmod = 0, ncached = 0;
  um_loop_stats ls;
  for (int i = 0; i < um_loop_stats_count(ctx); i++) {
    if (um_loop_stats_get(ctx, i, &ls) != UM_SUCCESS) continue;
    if (um_loop_stats_counter(&ls, "compile_seconds", &v)) jit += v;
    if (um_loop_stats_counter(&ls, "modules", &v)) nmod += (int)v;
    if (um_loop_stats_counter(&ls, "modules_cached", &v)) ncached += (int)v;
  }
  if (nmod)
    fprintf(out, "(loop times measured on the device; run-time compilation %.3f s for %d kernels, %d from the cache, "
                 "not included)\n", jit, nmod, ncached);
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
  fprintf(out, "\nmetrics:\n");
  for (int i = 0; i < run->nmetrics; i++) fprintf(out, "  %-16s %.17g\n", run->metric_names[i], run->metric_values[i]);
}

typedef struct {
  um_ref *ref;
  um_validation_result val;
  int validated;
  char field_dir[4096]; /* a private temporary folder for the field files, "" if none */
  int field_dir_slot;   /* its entry in the table of folders a signal removes (-1: none) */
  const char **wanted; /* the reference's field names (into ref) */
  int nwanted;
} validation;

/* Load validation.reference before the run, so that a bad reference stops
 * before computing. Relative paths are tried as given, then from the source
 * tree. */
static int load_reference(const run_settings *s, validation *v, char *err, size_t len) {
  if (umrun_ref_load(s->reference, &v->ref, err, len)) return UM_ERR_CONFIG;
  if (v->ref->nfields && !(v->wanted = malloc((size_t)v->ref->nfields * sizeof *v->wanted))) {
    snprintf(err, len, "out of memory");
    return UM_ERR_ALLOC;
  }
  for (int i = 0; i < v->ref->nfields; i++) v->wanted[v->nwanted++] = v->ref->fields[i].name;
  return UM_SUCCESS;
}

/* The reference compares fields but the run writes no outputs: the app writes
 * them into a private temporary folder ($TMPDIR or /tmp), removed after
 * validation (remove_field_dir). */
static int make_field_dir(validation *v, char *err, size_t len) {
  const char *tmp = getenv("TMPDIR");
  if (!tmp || !*tmp) tmp = "/tmp";
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
static void remove_field_dir(validation *v) {
  if (!v->field_dir[0]) return;
  DIR *d = opendir(v->field_dir);
  if (d) {
    struct dirent *e;
    char p[8192];
    while ((e = readdir(d)))
      if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
        snprintf(p, sizeof p, "%s/%s", v->field_dir, e->d_name);
        if (unlink(p)) fprintf(stderr, "umrun: note: cannot remove '%s': %s\n", p, strerror(errno));
      }
    closedir(d);
  }
  if (rmdir(v->field_dir))
    fprintf(stderr, "umrun: note: cannot remove the temporary folder '%s': %s\n", v->field_dir, strerror(errno));
  um_safe_dir_unregister(v->field_dir_slot);
  v->field_dir_slot = -1;
  v->field_dir[0] = '\0';
}

/* Compare the metrics and field files with the reference; returns the exit status it implies. */
static int validate_run(FILE *out, const run_settings *s, const um_app *app, const um_app_run *run, validation *v,
                        const char *changed, const char **status_text) {
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
      fprintf(out, "\nvalidation against %s: NOT COMPARABLE\n"
                   "  this run's settings differ from those of the config that names the reference: %s.\n"
                   "  The reference holds the numbers of the run that config describes, so this run's results are not\n"
                   "  comparable with it (%d of %d metrics", s->reference, changed, v->val.nfail, v->val.nmetrics);
      if (v->val.nfields) fprintf(out, ", %d of %d fields", v->val.nfields_fail, v->val.nfields);
      fprintf(out, " do not match the reference).\n"
                   "  To explore, add --no-validate (or --set validation.reference=); to validate, run without these "
                   "changes.\n");
      *status_text = "not comparable";
      return EXIT_VALIDATION;
    }
  }
  if (vrc) { /* a reference that does not match the run (app, metrics) is the user's input: exit status 1 */
    fprintf(stderr, "umrun: validation: %s\n", err);
    *status_text = "validation error";
    return EXIT_USAGE;
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
static int write_outputs(const cmdline *c, const run_settings *s, um_context *ctx, const um_app *app,
                         const um_app_run *run, double total, const validation *v, int rc, int status,
                         const char *status_text) {
  char err[4096];
  if (c->json_path) {
    um_safe_file jf;
    int bad = um_safe_open(&jf, c->json_path, err, sizeof err);
    if (!bad) {
      write_json(jf.f, s, ctx, run, total, v->ref, &v->val, v->validated, status_text);
      bad = um_safe_commit(&jf, err, sizeof err);
    }
    if (bad) {
      fprintf(stderr, "umrun: --json: %s\n", err);
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
    else bad = um_safe_append(c->csv_path, header, rows, n, err, sizeof err);
    free(rows);
    if (bad) {
      fprintf(stderr, "umrun: --csv: %s\n", err);
      if (!status) status = EXIT_RUN;
    }
  }
  return status;
}

/* ---- before the first loop: every input and output path -------------------------------- */

/* What stands at an output path must be one um writes (a regular file or
 * nothing; a device or FIFO, written in place; a symlink, followed), and the
 * folder a file would be written to must exist and be writable. */
static int check_out_file(const char *what, const char *path, char *err, size_t len) {
  struct stat st;
  if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
    return snprintf(err, len, "%s '%s' is a folder; give a file name", what, path), UM_ERR_CONFIG;
  char why[2048];
  if (um_safe_check(path, 1, why, sizeof why)) return snprintf(err, len, "%s %s", what, why), UM_ERR_CONFIG;
  if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) return UM_SUCCESS; /* a device or FIFO: written in place */
  char dir[4096];
  snprintf(dir, sizeof dir, "%s", path);
  if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) { /* a link: its target's folder */
    ssize_t n = readlink(path, dir, sizeof dir - 1);
    dir[n > 0 ? n : 0] = '\0';
    if (n <= 0) return UM_SUCCESS; /* said when it is written */
    if (dir[0] != '/') {
      char rel[8200];
      const char *slash = strrchr(path, '/');
      snprintf(rel, sizeof rel, "%.*s%s", slash ? (int)(slash - path + 1) : 0, path, dir);
      snprintf(dir, sizeof dir, "%.4095s", rel);
    }
  }
  char *slash = strrchr(dir, '/');
  if (!slash) snprintf(dir, sizeof dir, ".");
  else if (slash == dir) dir[1] = '\0';
  else *slash = '\0';
  if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
    return snprintf(err, len, "%s '%.1024s': the folder '%.1024s' does not exist; create it or fix the path", what, path, dir),
           UM_ERR_CONFIG;
  if (umrun_probe_writable(dir, why, sizeof why))
    return snprintf(err, len, "%s '%.1024s': the folder '%.1024s' is not writable (%.512s)", what, path, dir, why),
           UM_ERR_CONFIG;
  return UM_SUCCESS;
}

/* An input file must exist, be a regular file and be readable. */
static int check_in_file(const char *what, const char *path, char *err, size_t len) {
  struct stat st;
  if (stat(path, &st) != 0)
    return snprintf(err, len, "%s '%s' not found (%s); check the path (relative paths start from the current "
                              "directory)", what, path, strerror(errno)), UM_ERR_CONFIG;
  if (!S_ISREG(st.st_mode)) return snprintf(err, len, "%s '%s' is not a regular file", what, path), UM_ERR_CONFIG;
  if (access(path, R_OK) != 0) return snprintf(err, len, "%s '%s' is not readable", what, path), UM_ERR_CONFIG;
  return UM_SUCCESS;
}

/* Every input and output path the run will use, checked before the first
 * loop: a missing or misspelt file is a config error (exit status 1) found
 * at once, not after all the computing. */
static int check_paths(const cmdline *c, const run_settings *s, um_config *cfg, char *err, size_t len) {
  const char *v = NULL;
  int rc = UM_SUCCESS;
  if (s->reference && *s->reference) { /* the reference is loaded (and its app checked) now */
    char why[4096] = "";
    um_ref *ref = NULL;
    if (umrun_ref_load(s->reference, &ref, why, sizeof why))
      return snprintf(err, len, "validation.reference: %s", why), UM_ERR_CONFIG;
    if (ref->app && strcmp(ref->app, s->app) != 0) {
      snprintf(err, len, "validation.reference '%s' holds reference numbers of app '%s', but the config runs '%s'; "
                         "point validation.reference at a reference of %s",
               s->reference, ref->app, s->app, s->app);
      rc = UM_ERR_CONFIG;
    }
    um_ref_free(ref);
    if (rc) return rc;
  }
  if (s->outdir && *s->outdir) {
    struct stat st;
    if (stat(s->outdir, &st) == 0 && !S_ISDIR(st.st_mode))
      return snprintf(err, len, "output.dir '%s' exists and is not a folder; remove it or choose another output.dir",
                      s->outdir), UM_ERR_CONFIG;
    char why[512];
    if (stat(s->outdir, &st) == 0 && umrun_probe_writable(s->outdir, why, sizeof why)) /* now, not after the run */
      return snprintf(err, len, "output.dir '%.1024s' is not writable (%s); make it writable or choose another "
                                "output.dir", s->outdir, why), UM_ERR_CONFIG;
  }
  if (c->json_path && (rc = check_out_file("--json file", c->json_path, err, len))) return rc;
  if (c->csv_path && (rc = check_out_file("--csv file", c->csv_path, err, len))) return rc;
  if (um_config_kind(cfg, "mesh.file") == UM_CONFIG_SCALAR && !um_config_get_string(cfg, "mesh.file", NULL, &v, NULL, 0) &&
      v && *v && (rc = check_in_file("mesh.file", v, err, len)))
    return rc;
  v = NULL;
  if (um_config_kind(cfg, "run.reorder_file") == UM_CONFIG_SCALAR &&
      !um_config_get_string(cfg, "run.reorder_file", NULL, &v, NULL, 0) && v && *v) {
    rc = file_exists(v) ? check_in_file("run.reorder_file", v, err, len) : check_out_file("run.reorder_file", v, err, len);
    if (rc) return rc;
  }
  return UM_SUCCESS;
}

/* run.unknown_keys: error (default: a key nobody read stops the run before the
 * first loop) or warn. */
static int read_unknown_keys(um_config *cfg, int *mode, char *err, size_t len) {
  static const char *const modes[] = {"error", "warn"};
  int m = 0;
  if (um_config_get_choice(cfg, "run.unknown_keys", "error", modes, 2, &m, err, len)) return UM_ERR_CONFIG;
  *mode = m ? UM_APP_KEYS_WARN : UM_APP_KEYS_ERROR;
  /* the settings of a backend this build or machine lacks (cuda.* on a CPU-only build) are known keys */
  for (int i = 0; i < um_backend_count(); i++) {
    const char *b = um_backend_at(i);
    char why[512];
    if (um_config_kind(cfg, b) != UM_CONFIG_MAPPING || um_backend_status(b, why, sizeof why)) continue;
    int n = 0;
    const char *keys[16];
    if (um_config_keys(cfg, b, &n, keys, 16, NULL, 0) == UM_SUCCESS)
      for (int k = 0; k < n && k < 16; k++) {
        char key[256];
        snprintf(key, sizeof key, "%s.%s", b, keys[k]);
        if (!um_config_has(cfg, key) || um_config_kind(cfg, key) == UM_CONFIG_MAPPING) continue;
        fprintf(stdout, "note: %s is a setting of the %s backend, which is not available here; ignored\n", key, b);
      }
    um_config_mark_read(cfg, b, NULL, 0);
  }
  return UM_SUCCESS;
}

/* Set up the context, run the app, report, validate, write outputs. */
static int run_config(const cmdline *c, um_config *cfg) {
  char err[4096] = "";
  FILE *out = stdout;
  run_settings s;
  memset(&s, 0, sizeof s);
  int unknown_keys = UM_APP_KEYS_ERROR;
  if (read_settings(cfg, c->config_path, &s, out, err, sizeof err) ||
      read_unknown_keys(cfg, &unknown_keys, err, sizeof err)) {
    fprintf(stderr, "umrun: %s\n", err);
    return EXIT_USAGE;
  }
  if (c->no_validate && s.reference && *s.reference) { /* explore mode */
    fprintf(out, "note: --no-validate: this run is not checked against %s\n", s.reference);
    s.reference = NULL;
  }
  if (check_paths(c, &s, cfg, err, sizeof err)) {
    fprintf(stderr, "umrun: %s\n", err);
    return EXIT_USAGE;
  }
  const um_app *app = um_app_find(s.app);
  validation v;
  memset(&v, 0, sizeof v);
  v.field_dir_slot = -1;
  if (s.reference && *s.reference && load_reference(&s, &v, err, sizeof err)) { /* before computing */
    fprintf(stderr, "umrun: validation.reference: %s\n", err);
    um_ref_free(v.ref);
    return EXIT_USAGE;
  }
  print_version(out);
  fprintf(out, "config: %s\n", c->config_path ? c->config_path : "(embedded default config)");
  const int rank = um_mpi_rank(), nranks = um_mpi_size();
  if (nranks > 1)
    fprintf(out, "mpi: %d ranks (rank 0 prints, writes the outputs and validates)\n", nranks);
  s.opts.log = log_to_stderr;
  um_context *ctx = NULL;
  if (um_init(&ctx, &s.opts)) {
    fprintf(stderr, "umrun: %s\n", um_error_message(ctx));
    um_finalize(&ctx);
    um_ref_free(v.ref);
    free(v.wanted);
    return EXIT_USAGE;
  }
  print_backend(out, &s, ctx);
  if (!c->quiet) {
    fprintf(out, "options in effect:\n");
    um_config_print(cfg, out);
  }
  /* ranks other than 0 write their copies of the outputs into a private folder,
   * removed at the end: the apps take the same steps (collective fetches) on
   * every rank, and only rank 0's files are kept */
  char rank_dir[4096] = "";
  if (rank > 0 && ((s.outdir && *s.outdir) || (v.ref && v.ref->nfields))) {
    validation scratch;
    memset(&scratch, 0, sizeof scratch);
    scratch.field_dir_slot = -1;
    if (make_field_dir(&scratch, err, sizeof err)) {
      fprintf(stderr, "umrun: rank %d: %s\n", rank, err);
      um_mpi_abort(EXIT_RUN);
    }
    snprintf(rank_dir, sizeof rank_dir, "%s", scratch.field_dir);
    v.field_dir_slot = scratch.field_dir_slot; /* removed with v's at the end */
    if (s.outdir && *s.outdir) s.outdir = rank_dir;
    else snprintf(v.field_dir, sizeof v.field_dir, "%s", rank_dir);
  }
  if (s.outdir && *s.outdir && umrun_mkdirs(s.outdir, err, sizeof err)) {
    fprintf(stderr, "umrun: output.dir: cannot create output directory %s\n", err);
    um_finalize(&ctx);
    um_ref_free(v.ref);
    free(v.wanted);
    return EXIT_USAGE;
  }
  if (v.ref && v.ref->nfields && !(s.outdir && *s.outdir) && !v.field_dir[0] && make_field_dir(&v, err, sizeof err)) {
    fprintf(stderr, "umrun: %s\n", err);
    um_finalize(&ctx);
    um_ref_free(v.ref);
    free(v.wanted);
    return EXIT_RUN;
  }

  um_app_run run;
  memset(&run, 0, sizeof run);
  run.ctx = ctx;
  run.cfg = cfg;
  run.log = out;
  run.progress = !c->quiet && rank == 0 && isatty(STDERR_FILENO);
  run.output_dir = s.outdir;
  run.write_hdf5 = s.write_hdf5;
  run.field_dir = v.field_dir[0] ? v.field_dir : NULL;
  run.wanted_fields = v.wanted;
  run.nwanted_fields = v.nwanted;
  /* rank 0 warns; every rank stops on an unknown key (the same config: the same answer) */
  run.unknown_keys = rank == 0 || unknown_keys == UM_APP_KEYS_ERROR ? unknown_keys : UM_APP_KEYS_UNCHECKED;
  fprintf(out, "running %s ...\n", app->name);
  fflush(out);
  double t0 = um_wtime();
  run.t_start = t0;
  int rc = app->run(&run);
  if (!rc) rc = um_sync(ctx); /* device work finished, its timings read */
  double total = um_wtime() - t0;
  um_app_progress_clear(&run);
  int status = EXIT_OK;
  const char *status_text = "ok";
  if (nranks > 1) { /* one outcome for every rank; a rank that failed alone stops the job rather than hang it */
    const int mine = rc ? (rc == UM_ERR_CONFIG ? EXIT_USAGE : EXIT_RUN) : EXIT_OK;
    const int all = um_mpi_agree(mine, mine ? s.deadline_s : -1);
    if (all < 0) { /* the others wait in a loop for this rank: say why, then stop every rank */
      fprintf(stderr, "umrun: rank %d of %d: %s failed: %s\n", rank, nranks, app->name, um_error_message(ctx));
      um_mpi_abort(mine);
    }
    int first = rc;
    um_mpi_bcast_int(&first, 1); /* rank 0's outcome */
    if (rc && !first)
      fprintf(stderr, "umrun: rank %d of %d: %s failed: %s\n", rank, nranks, app->name, um_error_message(ctx));
    if (all && !rc) rc = um_error_set(ctx, all == EXIT_USAGE ? UM_ERR_CONFIG : UM_ERR_BACKEND, "another rank failed");
  }
  if (rc && rank == 0) fprintf(stderr, "umrun: %s failed: %s\n", app->name, um_error_message(ctx));
  if (rc) {
    /* a bad config value found by the app is the user's input, not a failed run */
    status = rc == UM_ERR_CONFIG ? EXIT_USAGE : EXIT_RUN;
    status_text = rc == UM_ERR_CONFIG ? "config error" : "run failed";
  } else {
    if (nranks > 1) { /* every rank: each loop's time on the slowest rank, and the imbalance */
      const int src = um_loop_stats_across_ranks(ctx);
      if (src && rank == 0) fprintf(stderr, "umrun: note: %s; the loop table shows rank 0's times\n", um_error_message(ctx));
    }
    print_report(out, app, &run, &s, ctx, total);
  }
  if (!rc && v.ref && rank == 0) {
    char changed[2048] = "";
    um_config *base = NULL; /* the config file (or the embedded default) alone */
    if (load_base(c->config_path, &base, NULL, 0)) base = NULL;
    umrun_changed_settings(cfg, base, changed, sizeof changed);
    um_config_free(base);
    status = validate_run(out, &s, app, &run, &v, changed, &status_text);
  }
  if (rank_dir[0] && !v.field_dir[0]) snprintf(v.field_dir, sizeof v.field_dir, "%s", rank_dir); /* a rank's copies */
  remove_field_dir(&v);
  if (!rc && rank == 0 && !run.unknown_keys_checked) /* an app that never called um_app_prepare */
    um_config_warn_unread(cfg, stderr); /* after a failure, unread keys are no news */
  if (rank == 0) status = write_outputs(c, &s, ctx, app, &run, total, &v, rc, status, status_text);
  um_mpi_bcast_int(&status, 1); /* every rank exits with rank 0's status */
  um_validation_result_free(&v.val);
  um_ref_free(v.ref);
  free(v.wanted);
  um_finalize(&ctx);
  return status;
}

/* Under mpirun: MPI started, and ranks other than 0 print nothing on stdout
 * (their errors still reach stderr). Returns -1 to go on, or an exit status. */
static int start_ranks(int *argc, char ***argv) {
  if (um_mpi_launched() && !um_mpi_built()) {
    fprintf(stderr, "umrun: launched by mpirun on several ranks, but this umrun was built without MPI: install "
                    "libopenmpi-dev and openmpi-bin (scripts/install-deps.sh), configure and build again (MPI is on "
                    "when found); or run it without mpirun\n");
    return EXIT_USAGE;
  }
  int rank = 0, n = 1;
  if (um_mpi_start(argc, argv, &rank, &n) != UM_SUCCESS) {
    fprintf(stderr, "umrun: MPI_Init failed\n");
    return EXIT_RUN;
  }
  if (rank > 0 && !freopen("/dev/null", "w", stdout)) return EXIT_RUN;
  return -1;
}

int um_run_main(int argc, char **argv, const um_app *const *apps, int n_apps) {
  static cmdline c;
  if (!apps || n_apps < 1) {
    fprintf(stderr, "%s: um_run_main was given no apps (pass a table of at least one um_app)\n",
            argc > 0 && argv[0] ? argv[0] : "um_run_main");
    return EXIT_USAGE;
  }
  for (int i = 0; i < n_apps; i++)
    if (!apps[i] || !apps[i]->name || !apps[i]->run) {
      fprintf(stderr, "%s: um_run_main: app %d of %d has no name or no run function\n",
              argc > 0 && argv[0] ? argv[0] : "um_run_main", i, n_apps);
      return EXIT_USAGE;
    }
  umrun_apps_set(apps, n_apps);
  if (argc > 0 && argv[0] && *argv[0]) prog = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
  memset(&c, 0, sizeof c);
  um_safe_cleanup_on_signals(); /* SIGINT/SIGTERM: the temporaries of unfinished outputs are removed */
  int status = start_ranks(&argc, &argv);
  if (status >= 0) return status;
  status = parse_args(argc, argv, &c);
  if (status >= 0) {
    free(c.sets);
    um_mpi_finish();
    return status;
  }
  char err[4096] = "";
  um_config *cfg = NULL;
  if (load_config(&c, &cfg, err, sizeof err)) {
    fprintf(stderr, "umrun: %s\n", err);
    status = EXIT_USAGE;
  } else if ((status = maybe_sweep(&c, argv, cfg)) >= 0) {
    /* the sweep ran */
  } else if (c.print_config) {
    int rc = um_config_write_yaml(cfg, stdout, err, sizeof err);
    if (rc) fprintf(stderr, "umrun: %s\n", err);
    status = rc ? EXIT_RUN : EXIT_OK;
  } else {
    status = run_config(&c, cfg);
  }
  um_config_free(cfg);
  free(c.sets);
  um_mpi_finish();
  return status;
}
