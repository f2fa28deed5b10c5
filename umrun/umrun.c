/* The runner (um/run.h: um_run_main): run an app from a YAML config.
 *
 *   umrun [CONFIG.yaml] [--set key=value ...] [--json FILE] [--list-apps] [--help]
 *
 * Options are taken from, in increasing priority: the config file (or the
 * embedded default config), the environment variable UM_OPTIONS
 * ("run.backend=seq mesh.I=40"), then each --set. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "um/app.h"
#include "um/run.h"
#include "um/build_config.h"
#include "um/config.h"
#include "um/hdf5io.h"
#include "um/safe_file.h"
#include "child.h"
#include "options.h"
#include "runner.h"
#include "checkpoint_run.h"
#include "sweep.h"
#include "tools.h"
#include "provenance.h"
#include "apps_table.h"
#include "paths.h"
#include "manpage.h"

void umrun_err(const um_runner *r, const char *fmt, ...) {
  char msg[8192];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  fflush(stdout); /* what the run printed before comes first where both streams go to one file or pipe */
  fprintf(stderr, "%s: %s", r && r->prog ? r->prog : "umrun", msg); /* one write: ranks' lines never interleave */
}

/* A config from c->config_path, else the default job; an error naming what to do when there is neither. */
static int load_base(const um_runner *r, const char *path, um_config **cfg, char *err, size_t len) {
  if (path) {
    const int rc = um_config_load_file(path, cfg, err, len);
    if (rc && err && len) umrun_data_dir_hint(path, err, len); /* configs/x.yaml typed from another folder */
    return rc;
  }
  if (r->default_config) return um_config_load_string(r->default_config, r->default_config_name, cfg, err, len);
  if (err && len) snprintf(err, len, "no config file given: name one (e.g. %s CONFIG.yaml; --help lists the keys)",
                           r->prog);
  return UM_ERR_CONFIG;
}

static void usage(const um_runner *r, FILE *f) {
  if (strcmp(r->prog, "umrun")) /* an out-of-tree program: the runner's options are umrun's */
    fprintf(f, "%s: a program built on the um runner (um/run.h); its command line is umrun's, with its own apps:\n"
               "  %s [CONFIG.yaml] [--set key=value]... [--json FILE] [--quiet]   (the same options as below)\n\n",
            r->prog, r->prog);
  fprintf(f, "usage: umrun [CONFIG.yaml] [--set key=value]... [--json FILE] [--quiet] [--repeat N]\n"
             "             [--draw plan[=LOOP]|partition[=SET] FILE.svg]\n"
             "       umrun --suite SUITE.yaml [--tags T] [--only APP] [--out DIR]   (see umrun --suite --help)\n"
             "       umrun --compare A.json B.json [--allow KEY,...]           (see umrun --compare --help)\n"
             "       umrun --report FILE.html RESULTS.json...                   (see umrun --report --help)\n"
             "       umrun --validate RUN.json REF.yaml                         (see umrun --validate --help)\n"
             "       umrun --list-apps | --help | --help-options=markdown|man|bash|zsh | --version\n"
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
             "                    statistics, metrics, validation) as JSON to FILE; /dev/stdout or -:\n"
             "                    the JSON alone on stdout (umrun's messages then go to stderr)\n"
             "  --quiet           no progress bar and no options listing\n"
             "  --repeat N        make the run N times (1 to 100), each its own process, and print per\n"
             "                    loop the median time and its spread (min .. max); --json gets the\n"
             "                    median and the spread per loop, as umrun --suite --repeat writes them\n"
             "  --restart PATH    continue a run from a checkpoint (checkpoint.* keys: when they are\n"
             "                    written), or from the newest of the app's in the folder PATH, on any\n"
             "                    number of ranks and any backend; the app's settings and mesh must be\n"
             "                    the checkpoint's (docs/checkpoints.md)\n"
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
             "  --draw plan[=LOOP] FILE.svg   after the run, a picture of a loop's plan (default:\n"
             "                    the planned loop with the most time): its set's elements at their\n"
             "                    coordinates coloured by block colour, and by thread colour within\n"
             "                    the block, with the counts; one process (not under mpirun)\n"
             "  --draw partition[=SET] FILE.svg  a picture of the partition over the MPI ranks (default:\n"
             "                    the partition's set): owners, and each rank's owned elements, exec\n"
             "                    halo and non-exec halo. Both: small 2-D meshes (at most 60000\n"
             "                    elements; Airfoil, Volna, BookLeaf, Jacobi, SIAC; not LULESH or\n"
             "                    miniAero, whose meshes are 3-D)\n"
             "  --print-config    print the config in effect as YAML and exit\n"
             "  --suite-set key=value, --suite-case NAME   how umrun --suite passes a case's values\n"
             "                    (set:, matrix): as --set, their source recorded as the case's (suite)\n"
             "  --allow-compiler  accept hostc.cc / hostc.cflags from the config file or UM_OPTIONS\n"
             "                    (without it only --set names the compiler um runs)\n"
             "  --list-apps       list the registered apps with their own config keys and exit\n"
             "  --version         print the version, the licence and the build configuration and exit\n"
             "  --help            this text\n"
             "  --                the end of the options: the next argument is the config, whatever its\n"
             "                    first character (a config is read from a file, never from stdin: '-')\n"
             "  --help-options=markdown  every config key of the runner and of the backends, with its type,\n"
             "                    default and allowed values, as a markdown reference (docs/options.md)\n"
             "  --help-options=man|bash|zsh  this manual page (umrun.1) or the shell completion, as\n"
             "                    installed\n"
             "\n"
             "precedence: config file < environment variable UM_OPTIONS < --set.\n"
             "  UM_OPTIONS holds whitespace-separated key=value pairs: UM_OPTIONS='run.backend=seq'\n"
             "\n"
             "config keys (one schema for every app; every one with its type, default and allowed values:\n"
             "umrun --help-options=markdown, docs/options.md):\n");
  umrun_options_help(f);
  fprintf(f,
          "\n"
          "  <backend>.<key>     a backend's own settings (below); every one can also come from\n"
          "                      the environment variable UM_<BACKEND>_<KEY>\n"
          "  UM_VERBOSE=1|2      the engine's details on stderr (1: choices, e.g. each backend's\n"
          "                      summary at the end; 2: more)\n"
          "\n"
          "exit status: 0 success (and validation passed, if configured); 1 bad command\n"
          "line or config, or an input/output path that does not work (a validation\n"
          "reference and its field files included; checked before the\n"
          "first loop); 2 the run failed (invalid mesh, diverged: a NaN or infinite result,\n"
          "an output that could not be written, a checkpoint that cannot be read); 3\n"
          "validation failed; 4 stopped at a checkpoint as asked (checkpoint.on_signal,\n"
          "checkpoint.stop_after): continue with --restart.\n");
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

extern const char um_commit_id[]; /* cmake/um_commit.cmake: the source's git commit, "-dirty" when changed */

/* VERSION names a release; between releases it is the next one's number, and the commit tells builds apart. */
static void print_version(FILE *f) {
  const char *c = um_commit_id;
  const int hash = strspn(c, "0123456789abcdef") == 40; /* a full hash shown as its first 12 digits (git's short) */
  fprintf(f, "um %s (commit %.*s%s, %s build, %s; OpenMP %s, CUDA %s, MPI %s, HDF5 %s)\n", UM_VERSION,
          hash ? 12 : (int)strlen(c), c, hash ? c + 40 : "", UM_BUILD_TYPE, UM_C_COMPILER, UM_BUILD_OPENMP,
          UM_BUILD_CUDA, UM_BUILD_MPI, UM_BUILD_HDF5);
}

void umrun_print_usage(const um_runner *r, FILE *f) { usage(r, f); }

static void list_apps(const um_runner *r, FILE *f) {
  fprintf(f, "registered apps:\n");
  for (int i = 0; i < um_app_count(r); i++) {
    const um_app *a = um_app_at(r, i);
    fprintf(f, "  %-10s %s\n", a->name, a->description);
    umrun_options_help_table(f, a->options, a->noptions, 15); /* its options, from its table */
  }
}

/* ---- command line ----------------------------------------------------------------- */


/* The flags together: outputs that are not the config, and what goes with a sweep or --draw. -1 to go on. */
static int check_flags(const um_runner *r, const cmdline *c) {
  const char *const ins[] = {c->config_path};
  const char *outs[] = {c->json_path, c->csv_path, c->draw.kind ? c->draw.path : NULL},
             *flags[] = {"--json", "--csv", "--draw"};
  for (int k = 0; k < 3; k++) {
    if (umrun_output_is_input(outs[k], ins, 1) >= 0) {
      umrun_err(r, "%s '%s' is the config file; write it elsewhere\n", flags[k], outs[k]);
      return EXIT_USAGE;
    }
    struct stat st; /* one file each, the later would replace the earlier; not a device or FIFO (/dev/null) */
    const int file = outs[k] && *outs[k] && (stat(outs[k], &st) != 0 || S_ISREG(st.st_mode));
    for (int q = 0; q < k && file; q++)
      if (outs[q] && (!strcmp(outs[k], outs[q]) || umrun_output_is_input(outs[k], &outs[q], 1) == 0)) {
        umrun_err(r, "%s and %s both name '%s': give each its own file\n", flags[q], flags[k], outs[k]);
        return EXIT_USAGE;
      }
  }
  if (c->sweep.nkeys && (c->json_path || c->csv_path)) { /* each run of a sweep writes its own, in --sweep-out */
    umrun_err(r, "--sweep writes each run's JSON and the table of runs in its folder (--sweep-out); leave out %s\n",
              c->json_path ? "--json" : "--csv");
    return EXIT_USAGE;
  }
  if (c->draw.kind && (c->repeat > 1 || c->sweep.nkeys)) {
    umrun_err(r, "--draw draws the plan or partition of one run: leave out %s (or draw one of its runs alone)\n",
              c->repeat > 1 ? "--repeat" : "--sweep");
    return EXIT_USAGE;
  }
  return -1;
}

/* Returns -1 to go on, or the exit status. */
static int parse_args(const um_runner *r, int argc, char **argv, cmdline *c) {
  char err[4096];
  for (int i = 1; i < argc && strcmp(argv[i], "--"); i++) { /* the multi-run tools take the whole command line */
    if (!strcmp(argv[i], "--suite")) return umrun_suite_main(r, argv[0], argc - 1, argv + 1);
    if (!strcmp(argv[i], "--compare")) return umrun_compare_main(argc - 1, argv + 1);
    if (!strcmp(argv[i], "--report")) return umrun_report_main(r, argc - 1, argv + 1);
    if (!strcmp(argv[i], "--validate")) return umrun_validate_main(argc - 1, argv + 1);
  }
  for (int i = 1; i < argc && strcmp(argv[i], "--"); i++) { /* flags that need no config */
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      for (int j = 1; j < argc; j++) /* umrun --sweep --help: the sweep's own */
        if (!strcmp(argv[j], "--sweep")) return umrun_sweep_usage(stdout), EXIT_OK;
      return usage(r, stdout), EXIT_OK;
    }
    if (!strcmp(argv[i], "--list-apps")) return list_apps(r, stdout), EXIT_OK;
    if (!strcmp(argv[i], "--help-options=markdown")) return umrun_options_markdown(stdout, r), EXIT_OK;
    if (!strcmp(argv[i], "--help-options=man")) return umrun_man_page(stdout, r), EXIT_OK;
    if (!strncmp(argv[i], "--help-options=", 15) && !umrun_completion(stdout, r, argv[i] + 15)) return EXIT_OK;
    if (!strncmp(argv[i], "--help-options", 14)) {
      umrun_err(r, "%s: give --help-options=markdown (the reference of every option), man, bash or zsh\n", argv[i]);
      return EXIT_USAGE;
    }
    if (!strcmp(argv[i], "--version")) {
      print_version(stdout);
      fputs("licence: BSD-3-Clause (LICENSE); third-party validation data keeps its own (THIRD_PARTY.md)\n", stdout);
      return EXIT_OK;
    }
  }
  c->csv_label = "run";
  c->sets = calloc((size_t)argc, sizeof *c->sets);
  c->set_origins = calloc((size_t)argc, sizeof *c->set_origins);
  if (!c->sets || !c->set_origins) return EXIT_RUN;
  const char *case_origin = "suite case"; /* --suite-case NAME: the origin of the --suite-set values */
  int ended = 0; /* past "--": the config's path, whatever its first character */
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!ended && !strcmp(a, "--")) {
      ended = 1;
    } else if (ended || a[0] != '-') {
      if (c->config_path) {
        umrun_err(r, "two config files given ('%s' and '%s'); give one, and --set to change values\n", c->config_path,
                  a);
        return EXIT_USAGE;
      }
      c->config_path = a;
    } else if (!strcmp(a, "-")) {
      umrun_err(r, "'-': umrun reads its config from a file, not from standard input (each run of --repeat and "
                   "--sweep, and each MPI rank, reads it again): save it to a file and give its path\n");
      return EXIT_USAGE;
    } else if (!strcmp(a, "--set") || !strcmp(a, "--json") || !strcmp(a, "--sweep") || !strcmp(a, "--sweep-out") ||
               !strcmp(a, "--csv") || !strcmp(a, "--csv-label") || !strcmp(a, "--suite-set") ||
               !strcmp(a, "--suite-case") || !strcmp(a, "--repeat") || !strcmp(a, "--restart") ||
               !strcmp(a, "--draw")) {
      if (i + 1 >= argc) {
        umrun_err(r, "%s needs an argument (see umrun --help)\n", a);
        return EXIT_USAGE;
      }
      const char *v = argv[++i];
      if (!*v && (!strcmp(a, "--restart") || !strcmp(a, "--sweep-out"))) { /* an unset $VAR: not "start afresh" */
        umrun_err(r, "%s '': no path given (see umrun --help)\n", a);
        return EXIT_USAGE;
      }
      if (!strcmp(a, "--set") || !strcmp(a, "--suite-set")) { /* --suite-set: a suite case's value (umrun --suite) */
        c->set_origins[c->nsets] = !strcmp(a, "--suite-set") ? case_origin : "--set";
        c->sets[c->nsets++] = v;
      } else if (!strcmp(a, "--suite-case")) case_origin = v;
      else if (!strcmp(a, "--repeat")) {
        char *end = NULL;
        const long n = strtol(v, &end, 10);
        if (!end || *end || n < 1 || n > 100) {
          umrun_err(r, "--repeat '%s': expected a number of runs from 1 to 100 (e.g. 5)\n", v);
          return EXIT_USAGE;
        }
        c->repeat = (int)n;
      }
      else if (!strcmp(a, "--restart")) { /* the same as --set checkpoint.restart=PATH */
        const size_t n = strlen(v) + sizeof "checkpoint.restart=";
        free(c->restart_set);
        if (!(c->restart_set = malloc(n))) return EXIT_RUN;
        snprintf(c->restart_set, n, "checkpoint.restart=%s", v);
        c->set_origins[c->nsets] = "--restart";
        c->sets[c->nsets++] = c->restart_set;
      }
      else if (!strcmp(a, "--draw")) { /* --draw WHAT FILE */
        if (umrun_draw_parse(&c->draw, v, i + 1 < argc ? argv[++i] : NULL, err, sizeof err))
          return umrun_err(r, "%s\n", err), EXIT_USAGE;
      }
      else if (!strcmp(a, "--json")) c->json_path = strcmp(v, "-") ? v : "/dev/stdout"; /* -: stdout, as is usual */
      else if (!strcmp(a, "--sweep-out")) c->sweep_out = v;
      else if (!strcmp(a, "--csv")) c->csv_path = v;
      else if (!strcmp(a, "--csv-label")) c->csv_label = v;
      else if (umrun_sweep_add(&c->sweep, v, err, sizeof err)) {
        umrun_err(r, "%s\n", err);
        return EXIT_USAGE;
      }
    } else if (!strncmp(a, "--set=", 6)) {
      c->set_origins[c->nsets] = "--set";
      c->sets[c->nsets++] = a + 6;
    } else if (!strncmp(a, "--json=", 7)) {
      c->json_path = a + 7;
    } else if (!strcmp(a, "--sweep-child")) {
      c->sweep_child = 1;
    } else if (!strcmp(a, "--quiet") || !strcmp(a, "-q")) {
      c->quiet = 1;
    } else if (!strcmp(a, "--print-config")) {
      c->print_config = 1;
    } else if (!strcmp(a, "--allow-compiler")) {
      c->allow_compiler = 1;
    } else if (!strcmp(a, "--no-validate")) {
      c->no_validate = 1;
    } else {
      umrun_err(r, "unknown option '%s' (see umrun --help; a config whose name begins with '-': after --)\n", a);
      return EXIT_USAGE;
    }
  }
  return check_flags(r, c);
}

/* The config in effect: file (or the embedded default) < UM_OPTIONS < --set; its paths resolved (paths.c). */
/* The config's validation.reference (NULL if none); does not mark it read. */
static const char *reference_of(um_config *cfg, char *buf, size_t len) {
  const char *v = NULL;
  um_config_kind_t kind;
  if (umrun_opt_kind(cfg, "validation.reference", &kind, NULL, 0) || kind != UM_CONFIG_SCALAR) return NULL;
  if (umrun_opt_string(cfg, "validation.reference", &v, NULL, 0) || !v || !*v) return NULL;
  snprintf(buf, len, "%s", v);
  return buf;
}

/* --no-validate: the reference the run would have been checked against goes to unvalidated (said once the run
 * starts) and out of the config before its paths are resolved: a reference not found where the run starts stops
 * nothing. */
static int load_config(const um_runner *r, const cmdline *c, um_config **cfg, char *unvalidated, char *err, size_t len) {
  int rc = load_base(r, c->config_path, cfg, err, len);
  char ref[1024];
  const char *named = rc ? NULL : reference_of(*cfg, ref, sizeof ref);
  const char *by = NULL;
  if (!rc) rc = um_config_apply_env(*cfg, "UM_OPTIONS", err, len);
  if (!rc && named && !reference_of(*cfg, (char[1024]){0}, 1024)) by = "UM_OPTIONS";
  for (int i = 0; !rc && i < c->nsets; i++)
    rc = um_config_set_assignment(*cfg, c->sets[i], c->set_origins[i] ? c->set_origins[i] : "--set", err, len);
  for (int i = 0; !rc && i < c->nsets; i++) /* --set key=: a value forgotten, unless empty means none for key */
    if (!c->set_origins[i] || !strcmp(c->set_origins[i], "--set")) rc = umrun_check_empty_set(r, *cfg, c->sets[i], err, len);
  if (!rc && named && !by && !reference_of(*cfg, (char[1024]){0}, 1024)) by = "--set";
  if (!rc && c->no_validate && reference_of(*cfg, unvalidated, sizeof c->unvalidated_ref))
    rc = um_config_set(*cfg, "validation.reference", "''", "--no-validate", err, len);
  if (!rc) rc = umrun_resolve_paths(r, c->config_path, *cfg, err, len); /* the config's paths from its folder */
  /* Validation switched off by a later source is said even under --quiet (and in a sweep's run logs). */
  if (!rc && named && by)
    umrun_err(r, "note: the config names validation.reference %s, but %s removes it: this run is NOT "
                    "validated\n", ref, by);
  return rc;
}

/* The config (s[0]) and the config with each value the sweep sets (s[1], each in turn) checked as a run checks them:
 * 0, or the exit status after the message. */
static int check_sweep(const um_runner *r, cmdline *c, um_config *cfg, int from_config, run_settings *s, char *err,
                       size_t len) {
  if (umrun_read_settings(r, cfg, c->config_path, &s[0], stdout, err, len))
    return umrun_err(r, "%s\n", err), EXIT_USAGE;
  const um_app *sapp = um_app_find(r, s[0].app);
  if (from_config && umrun_sweep_resolve_paths(&c->sweep, r, c->config_path, s[0].app, err, len))
    return umrun_err(r, "sweep: %s\n", err), EXIT_USAGE; /* its paths, as the file's own, from its folder */
  if (umrun_sweep_check_keys(&c->sweep, sapp, c->sets, c->nsets, err, len)) /* each run would fail alike */
    return umrun_err(r, "%s\n", err), EXIT_USAGE;
  FILE *quiet = fopen("/dev/null", "w"); /* notes were printed once above */
  for (int k = 0; k < c->sweep.nkeys; k++)
    for (int v = 0; v < c->sweep.nvalues[k]; v++) {
      char set[1200];
      um_config *one = NULL;
      snprintf(set, sizeof set, "%s=%s", c->sweep.key[k], c->sweep.values[k][v]);
      memset(&s[1], 0, sizeof s[1]);
      int rc = load_config(r, c, &one, (char[sizeof c->unvalidated_ref]){0}, err, len);
      if (!rc) rc = um_config_set_assignment(one, set, "--sweep", err, len);
      if (!rc) rc = umrun_read_settings(r, one, c->config_path, &s[1], quiet ? quiet : stdout, err, len);
      um_config_free(one);
      if (rc) {
        umrun_err(r, "--sweep %s: %s\n", set, err);
        if (quiet) fclose(quiet);
        return EXIT_USAGE;
      }
    }
  if (quiet) fclose(quiet);
  return 0;
}

/* A sweep from --sweep or the config's "sweep: [key=v1,v2, ...]": runs it and
 * returns the exit status; -1 when there is no sweep to run. */
static int maybe_sweep(const um_runner *r, cmdline *c, char **argv, um_config *cfg) {
  char err[4096];
  um_config_kind_t kind = UM_CONFIG_ABSENT;
  int rc = umrun_opt_kind(cfg, "sweep", &kind, err, sizeof err);
  if (rc) return umrun_err(r, "%s\n", err), EXIT_USAGE;
  const int from_config = !c->sweep_child && kind == UM_CONFIG_SEQUENCE && !c->sweep.nkeys;
  if (from_config) {
    int n = 0;
    rc = um_config_size(cfg, "sweep", &n, err, sizeof err);
    for (int i = 0; !rc && i < n; i++) {
      char key[32];
      const char *v = NULL;
      snprintf(key, sizeof key, "sweep.%d", i);
      rc = umrun_opt_string(cfg, key, &v, err, sizeof err);
      if (!rc && v && !c->allow_compiler && umrun_names_compiler(v)) {
        snprintf(err, sizeof err, "'%s': the compiler and its flags are a program um runs; sweep them from the "
                                  "command line (--sweep), or pass --allow-compiler", v);
        rc = UM_ERR_CONFIG;
      }
      if (!rc && v && umrun_sweep_add(&c->sweep, v, err, sizeof err)) rc = UM_ERR_CONFIG;
    }
    if (rc) {
      umrun_err(r, "sweep: %s\n", err);
      return EXIT_USAGE;
    }
  }
  if (kind != UM_CONFIG_ABSENT) um_config_mark_read(cfg, "sweep", NULL, 0);
  if (!c->sweep.nkeys || c->sweep_child) return -1;
  if (c->draw.kind) /* the config's sweep: each run its own, and one picture is of one run */
    return umrun_err(r, "--draw draws the plan or partition of one run, and this config sweeps: draw one of its "
                        "runs alone (--set the sweep's values)\n"), EXIT_USAGE;
  /* Before anything runs or is written: the config (app and every key), and
   * the config with each value the sweep sets, are checked as a run checks
   * them; the output folder is built from the checked app name only. */
  run_settings *s = calloc(2, sizeof *s); /* the config's and a value's: 54 KB, on the heap (a small stack) */
  if (!s) return umrun_err(r, "out of memory\n"), EXIT_RUN;
  const int bad = check_sweep(r, c, cfg, from_config, s, err, sizeof err);
  char outdir[4096];
  const char *appname = bad ? "" : s->app;
  if (c->sweep_out) snprintf(outdir, sizeof outdir, "%s", c->sweep_out);
  else snprintf(outdir, sizeof outdir, "out/sweep_%s", appname);
  free(s);
  if (bad) return bad;
  c->sweep.allow_compiler = c->allow_compiler;
  c->sweep.no_validate = c->no_validate;
  return umrun_sweep_run(argv[0], c->config_path, c->sets, c->nsets, &c->sweep, outdir);
}

/* The library's messages (warnings, verbose details) go to stderr. */
static void log_to_stderr(void *user, um_log_level level, const char *msg) {
  (void)user;
  (void)level;
  fprintf(stderr, "%s\n", msg);
}
/* Under mpirun, ranks other than 0 hold their messages (stderr) until the ranks agree how the start went
 * (release_err): the command line and the config are the same on every rank, so rank 0 alone says what is wrong
 * with them; a rank that stopped where rank 0 did not shows what it held. */
typedef struct {
  FILE *held; /* where stderr goes meanwhile (unnamed: nothing is left behind); NULL: not held */
  int fd;     /* the real stderr */
} held_err;

static void hold_err(held_err *h) {
  h->held = NULL;
  h->fd = -1;
  if (um_mpi_size() < 2 || um_mpi_rank() == 0) return;
  fflush(stderr);
  FILE *f = tmpfile();
  const int fd = f ? dup(STDERR_FILENO) : -1;
  if (fd < 0 || dup2(fileno(f), STDERR_FILENO) < 0) {
    if (fd >= 0) close(fd);
    if (f) fclose(f);
    return;
  }
  h->held = f;
  h->fd = fd;
}

/* Every rank calls it once, on every path, when the checks before the first loop are done (a collective step):
 * returns the status the ranks agree on (the largest), and gives stderr back. v (may be NULL): its temporary
 * field folder is removed before a rank that cannot reach the others stops the job. */
static int release_err(const um_runner *r, held_err *h, int status, double deadline_s, validation *v) {
  const int rank = um_mpi_rank(), nranks = um_mpi_size();
  int all = status, first = status;
  if (nranks > 1) {
    all = um_mpi_agree(status, status ? deadline_s : -1);
    if (all >= 0) um_mpi_bcast_int(&first, 1); /* rank 0's */
  }
  if (h->held) {
    fflush(stderr);
    dup2(h->fd, STDERR_FILENO);
    close(h->fd);
    if (status && (all < 0 || !first)) { /* rank 0 did not say it: this rank's messages */
      fprintf(stderr, "%s: rank %d of %d stopped before the first loop, where rank 0 did not:\n", r->prog, rank, nranks);
      rewind(h->held);
      char buf[4096];
      size_t n;
      while ((n = fread(buf, 1, sizeof buf, h->held)) > 0) fwrite(buf, 1, n, stderr);
    }
    fclose(h->held);
    h->held = NULL;
  }
  if (all < 0) { /* the others are not at this step: stop every rank rather than hang */
    umrun_err(r, "rank %d of %d: the other ranks did not finish their checks within mpi.deadline_s (%g s); stopping "
              "every rank\n", rank, nranks, deadline_s);
    if (v) umrun_remove_field_dir(r, v); /* MPI_Abort ends this process without its signal handlers */
    um_mpi_abort(status);
  }
  if (all && !status && rank == 0) umrun_err(r, "another rank stopped before the first loop (its message follows)\n");
  return all;
}

#define DEFAULT_DEADLINE_S 60 /* mpi.deadline_s's default, before the config is read */

/* The checks before the first loop: settings, paths, reference; the context; rank 0's output folders. */
static int prepare_run(const um_runner *r, const cmdline *c, um_config *cfg, run_settings *s, validation *v, um_context **ctx,
                       int *unknown_keys) {
  char err[4096] = "";
  FILE *out = stdout;
  if (umrun_read_settings(r, cfg, c->config_path, s, out, err, sizeof err) ||
      umrun_read_unknown_keys(cfg, unknown_keys, err, sizeof err))
    return umrun_err(r, "%s\n", err), EXIT_USAGE;
  if (c->no_validate && c->unvalidated_ref[0]) /* explore mode (load_config removed the reference) */
    fprintf(out, "note: --no-validate: this run is not checked against %s\n", c->unvalidated_ref);
  if (umrun_check_paths(c, s, cfg, err, sizeof err)) return umrun_err(r, "%s\n", err), EXIT_USAGE;
  if (s->reference && *s->reference && umrun_load_reference(s, v, err, sizeof err)) /* before computing */
    return umrun_err(r, "validation.reference: %s\n", err), EXIT_USAGE;
  print_version(out);
  fprintf(out, "config: %s\n", c->config_path ? c->config_path : "(embedded default config)");
  const int rank = um_mpi_rank(), nranks = um_mpi_size();
  const int field_dir = rank == 0 && v->ref && v->ref->nfields && !(s->outdir && *s->outdir);
  const char *tmp = field_dir ? umrun_temp_dir(r->prog) : NULL; /* before um_init starts threads (it may set TMPDIR) */
  if (nranks > 1) fprintf(out, "mpi: %d ranks (rank 0 prints, writes the outputs and validates)\n", nranks);
  s->opts.log = log_to_stderr;
  const char *verbose = getenv("UM_VERBOSE");
  if (verbose && *verbose) s->opts.verbose = verbose[0] == '2' ? 2 : verbose[0] == '1' ? 1 : 0;
  if (um_init(ctx, &s->opts)) return umrun_err(r, "%s\n", um_error_message(*ctx)), EXIT_USAGE;
  /* ranks other than 0 take the same output steps (the gathers are collective) and write nothing
   * (um_app_writes): they create no folder, output.dir's or a temporary one */
  if (rank == 0 && umrun_make_outdir(r, s, err, sizeof err))
    return umrun_err(r, "output.dir: cannot create output directory %s\n", err), EXIT_USAGE;
  if (field_dir && umrun_make_field_dir(tmp, v, err, sizeof err)) return umrun_err(r, "%s\n", err), EXIT_RUN;
  return EXIT_OK;
}

/* Where the run runs, at its start: ranks, threads per rank, device, and the machine's load, with a warning
 * (on stderr, so that --quiet and a JSON on stdout keep it) when the load is above the cores. */
static void print_where(const um_runner *r, FILE *out, const run_settings *s, um_context *ctx) {
  const char *backend = um_context_backend(ctx), *device = um_context_device(ctx);
  const long cores = sysconf(_SC_NPROCESSORS_ONLN);
  char load[32] = "unknown"; /* no /proc/loadavg (a container without /proc) */
  if (s->load_start >= 0) snprintf(load, sizeof load, "%.2f", s->load_start);
  fprintf(out, "where: %d rank%s x %d thread%s per rank (%s backend), device %s; load average %s on %ld cores\n",
          um_mpi_size(), um_mpi_size() == 1 ? "" : "s", umrun_threads_of(s, backend),
          umrun_threads_of(s, backend) == 1 ? "" : "s", backend, *device ? device : "none (CPU)", load, cores);
  if (umrun_busy(s->load_start, cores) && um_mpi_rank() == 0)
    umrun_err(r, "warning: the machine is busy (load average %.2f on %ld cores): this run shares the CPU with other "
                 "work and its timings are noisy; rerun on an idle machine, or measure with --repeat N\n",
              s->load_start, cores);
}

/* A run refused before it began: what it made goes (its empty output folders, the field folder), the rest freed. */
/* output.dir's claim (umrun_claim_outdir) given up: the run writes nothing more there. */
static void release_outdir(run_settings *s) {
  if (s->outdir_fd >= 0) close(s->outdir_fd); /* the flock goes with it */
  s->outdir_fd = -1;
}

static void abandon_run(const um_runner *r, run_settings *s, validation *v, um_context **ctx) {
  release_outdir(s);
  umrun_remove_made_dirs(s);
  umrun_remove_field_dir(r, v);
  um_finalize(ctx);
  um_ref_free(v->ref);
  free(v->wanted);
}

/* The checkpoint.* settings into run (the same config on every rank: the same answer); on an error, said, and the
 * run abandoned. */
static int ckpt_settings(const um_runner *r, um_app_run *run, um_config *cfg, run_settings *s, validation *v) {
  char err[1024] = "";
  if (!umrun_ckpt_settings(run, cfg, err, sizeof err)) return 0;
  umrun_err(r, "%s\n", err);
  umrun_ckpt_free(run);
  abandon_run(r, s, v, &run->ctx);
  return 1;
}

/* What one run holds (run_config): its settings, its validation and what the app hands back. */
typedef struct {
  run_settings s;
  validation v;
  um_app_run run;
} run_state;

/* Set up the context, run the app, report, validate, write outputs. */
static int run_config(const um_runner *r, const cmdline *c, um_config *cfg, held_err *held) {
  FILE *out = stdout;
  run_state *rs = calloc(1, sizeof *rs); /* on the heap: 200 KB, too much for a small stack (ulimit -s 256) */
  if (!rs) return umrun_err(r, "out of memory\n"), release_err(r, held, EXIT_RUN, DEFAULT_DEADLINE_S, NULL);
  run_settings *s = &rs->s;
  validation *v = &rs->v;
  um_app_run *run = &rs->run;
  s->outdir_fd = -1;
  int unknown_keys = UM_APP_KEYS_ERROR;
  v->field_dir_slot = -1;
  um_context *ctx = NULL;
  s->load_start = umrun_loadavg(); /* provenance: the load before the run, the config and its file */
  s->cfg = cfg;
  s->config_path = c->config_path;
  int st = prepare_run(r, c, cfg, s, v, &ctx, &unknown_keys);
  st = release_err(r, held, st, s->deadline_s > 0 ? s->deadline_s : DEFAULT_DEADLINE_S, v);
  if (st) return abandon_run(r, s, v, &ctx), free(rs), st;
  const um_app *app = um_app_find(r, s->app);
  const int rank = um_mpi_rank(), nranks = um_mpi_size();
  umrun_print_backend(out, s, ctx);
  print_where(r, out, s, ctx);
  if (!c->quiet) {
    fprintf(out, "options in effect:\n");
    um_config_print(cfg, out);
  }

  run->ctx = ctx;
  run->cfg = cfg;
  run->app = app;
  run->runner = r;
  run->log = out;
  run->progress = !c->quiet && rank == 0 && isatty(STDERR_FILENO);
  run->output_dir = s->outdir;
  run->write_hdf5 = s->write_hdf5;
  run->field_dir = v->field_dir[0] ? v->field_dir : NULL;
  if (rank > 0 && v->ref && v->ref->nfields && !(s->outdir && *s->outdir)) /* a path that cannot exist stands */
    run->field_dir = "/dev/null/umrun: rank 0 writes the field files"; /* for rank 0's temporary folder */
  run->wanted_fields = v->wanted;
  run->nwanted_fields = v->nwanted;
  /* rank 0 warns; every rank stops on an unknown key (the same config: the same answer) */
  run->unknown_keys = rank == 0 || unknown_keys == UM_APP_KEYS_ERROR ? unknown_keys : UM_APP_KEYS_UNCHECKED;
  if (ckpt_settings(r, run, cfg, s, v)) return free(rs), EXIT_USAGE;
  fprintf(out, "running %s ...\n", app->name);
  fflush(out);
  double t0 = um_wtime();
  run->t_start = t0;
  um_setup_start(ctx, UM_SETUP_MESH); /* the app closes it (um_app_setup_done) */
  int rc = app->run(run);
  if (!rc) rc = um_sync(ctx); /* device work finished, its timings read */
  double total = um_wtime() - t0;
  um_app_progress_clear(run);
  int status = EXIT_OK, draw_status = EXIT_OK;
  umrun_draw drawn = c->draw; /* --draw: what the picture shows, for the JSON */
  const char *status_text = "ok";
  if (nranks > 1) { /* one outcome for every rank; a rank that failed alone stops the job rather than hang it */
    const int mine = rc ? (rc == UM_ERR_CONFIG ? EXIT_USAGE : rc == UM_ERR_STOPPED ? EXIT_STOPPED : EXIT_RUN) : EXIT_OK;
    const int all = um_mpi_agree(mine, mine ? s->deadline_s : -1);
    if (all < 0) { /* the others wait in a loop for this rank: say why, then stop every rank */
      umrun_err(r, "rank %d of %d: %s failed: %s\n", rank, nranks, app->name, um_error_message(ctx));
      umrun_remove_field_dir(r, v); /* MPI_Abort ends this process without its signal handlers */
      um_mpi_abort(mine);
    }
    int first[2] = {rc, run->failed_elsewhere};
    um_mpi_bcast_int(first, 2); /* rank 0's outcome, and whether it was another rank's failure */
    if (rc && !run->failed_elsewhere && (!first[0] || first[1])) /* rank 0 will not say it: this rank does */
      umrun_err(r, "rank %d of %d: %s failed: %s\n", rank, nranks, app->name, um_error_message(ctx));
    if (all && !rc) rc = um_error_set(ctx, all == EXIT_USAGE ? UM_ERR_CONFIG : UM_ERR_BACKEND, "another rank failed");
  }
  if (rc == UM_ERR_STOPPED) { /* stopped at a checkpoint, as asked: not a failure, not a finished run */
    if (rank == 0) fprintf(out, "%s %s\n", app->name, um_error_message(ctx));
    status = EXIT_STOPPED;
    status_text = "stopped at a checkpoint";
  } else if (rc && rank == 0) umrun_err(r, "%s failed: %s\n", app->name, um_error_message(ctx));
  if (rc == UM_ERR_STOPPED) {
  } else if (rc) {
    /* a bad config value found by the app is the user's input, not a failed run */
    status = rc == UM_ERR_CONFIG ? EXIT_USAGE : EXIT_RUN;
    status_text = rc == UM_ERR_CONFIG ? "config error" : "run failed";
  } else {
    if (nranks > 1) { /* every rank: each loop's time on the slowest rank, and the imbalance */
      const int src = um_loop_stats_across_ranks(ctx);
      if (src && rank == 0) { /* the message, not its trail of source lines */
        const char *m = um_error_message(ctx);
        umrun_err(r, "note: %.*s; the loop table shows rank 0's times\n", (int)strcspn(m, "\n"), m);
      }
    }
    if (umrun_measure_memory(run, ctx) && rank == 0) umrun_err(r, "note: the ranks' memory could not be gathered\n");
    umrun_print_report(out, app, run, s, ctx, total);
    draw_status = umrun_draw_run(&drawn, ctx, out, r->prog); /* every rank: a partition gathers from each */
  }
  if (!rc && v->ref && rank == 0) {
    char changed[2048] = "";
    um_config *base = NULL; /* the config file (or the embedded default) alone */
    if (load_base(r, c->config_path, &base, NULL, 0)) base = NULL;
    umrun_changed_settings(cfg, base, changed, sizeof changed);
    um_config_free(base);
    status = umrun_validate_run(r, out, s, app, run, v, changed, &status_text);
  }
  umrun_remove_field_dir(r, v);
  if (!rc && rank == 0 && !run->unknown_keys_checked) /* an app that never called um_app_prepare */
    um_config_warn_unread(cfg, stderr); /* after a failure, unread keys are no news */
  if (!rc && rank == 0) umrun_warn_loop_keys(run, stderr);
  if (!rc && rank == 0) umrun_ckpt_note_unused(run, r->prog ? r->prog : "umrun");
  if (!rc && drawn.kind && status == EXIT_OK) status = draw_status;
  if (rank == 0) status = umrun_write_outputs(r, c, s, ctx, app, run, total, v, rc, status, status_text, &drawn);
  um_mpi_bcast_int(&status, 1); /* every rank exits with rank 0's status */
  umrun_free_memory(run);
  umrun_ckpt_free(run);
  um_validation_result_free(&v->val);
  um_ref_free(v->ref);
  free(v->wanted);
  um_finalize(&ctx);
  release_outdir(s);
  if (status != EXIT_OK && status != EXIT_VALIDATION && status != EXIT_STOPPED) umrun_remove_made_dirs(s);
  free(rs);
  return status;
}

/* Under mpirun: MPI started, and ranks other than 0 print nothing on stdout
 * (their errors still reach stderr). Returns -1 to go on, or an exit status. */
static int start_ranks(const um_runner *r, int *argc, char ***argv) {
  if (um_mpi_launched() && !um_mpi_built()) {
    umrun_err(r, "launched by mpirun on several ranks, but this umrun was built without MPI: install "
                    "libopenmpi-dev and openmpi-bin (scripts/install-deps.sh), configure and build again (MPI is on "
                    "when found); or run it without mpirun\n");
    return EXIT_USAGE;
  }
  int rank = 0, n = 1;
  if (um_mpi_start(argc, argv, &rank, &n) != UM_SUCCESS) {
    umrun_err(r, "MPI_Init failed\n");
    return EXIT_RUN;
  }
  if (rank > 0 && !freopen("/dev/null", "w", stdout)) return EXIT_RUN;
  return -1;
}

int um_run_main(int argc, char **argv, const um_run_args *args) {
  cmdline c;
  um_runner runner; /* the runner's state: the apps, the default job, the program's name */
  if (umrun_runner_init(&runner, args, argc > 0 ? argv[0] : NULL)) return EXIT_USAGE;
  const um_runner *r = &runner;
  memset(&c, 0, sizeof c);
  um_safe_cleanup_on_signals(); /* SIGINT/SIGTERM: the temporaries of unfinished outputs are removed */
  um_hdf5_no_exit_cleanup(); /* a file whose close failed is not closed again (and crashed) at exit */
  umrun_signal_note(r, -1);
  int status = start_ranks(r, &argc, &argv);
  if (status >= 0) return status;
  held_err held; /* ranks other than 0: their messages until the checks are done (release_err) */
  hold_err(&held);
  status = parse_args(r, argc, argv, &c);
  if (status >= 0) {
    status = release_err(r, &held, status, DEFAULT_DEADLINE_S, NULL);
    free(c.sets);
    free(c.set_origins);
    free(c.restart_set);
    um_mpi_finish();
    return status;
  }
  const char **outs[] = {&c.json_path, &c.csv_path}; /* --json /dev/stdout > run.json: the JSON alone */
  umrun_outputs_own_stdout(outs, 2, c.stdout_path, sizeof c.stdout_path);
  if (c.repeat > 1 && !c.print_config) { /* the run N times, each its own process (repeat.c) */
    status = umrun_repeat_main(r, argc, argv, &c);
    status = release_err(r, &held, status, DEFAULT_DEADLINE_S, NULL);
    free(c.sets);
    free(c.set_origins);
    free(c.restart_set);
    um_mpi_finish();
    return status;
  }
  char err[4096] = "";
  um_config *cfg = NULL;
  if (load_config(r, &c, &cfg, c.unvalidated_ref, err, sizeof err)) {
    umrun_err(r, "%s\n", err);
    status = release_err(r, &held, EXIT_USAGE, DEFAULT_DEADLINE_S, NULL);
  } else if (c.print_config) { /* the config, and nothing run: not its sweep, not --repeat's runs */
    int rc = um_config_write_yaml(cfg, stdout, err, sizeof err);
    if (rc) umrun_err(r, "%s\n", err);
    status = release_err(r, &held, rc ? EXIT_RUN : EXIT_OK, DEFAULT_DEADLINE_S, NULL);
  } else if ((status = maybe_sweep(r, &c, argv, cfg)) >= 0) {
    status = release_err(r, &held, status, DEFAULT_DEADLINE_S, NULL); /* the sweep ran */
  } else {
    status = run_config(r, &c, cfg, &held);
  }
  if (status != EXIT_OK && um_mpi_size() > 1) umrun_signal_note(r, status); /* mpirun may stop this rank now */
  um_config_free(cfg);
  free(c.sets);
  free(c.set_origins);
  free(c.restart_set);
  um_mpi_finish();
  if ((fflush(stdout) != 0 || ferror(stdout)) && status == EXIT_OK) { /* a full disk or /dev/full: nothing was said */
    umrun_err(r, "cannot write the run's report on standard output: %s\n", strerror(errno ? errno : EIO));
    status = EXIT_RUN;
  }
  return status;
}
