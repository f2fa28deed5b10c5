/* umrun --suite: a validation suite. validation/suite.yaml lists cases (a
 * config, overrides, tags, and the backends x strategies x layouts x
 * reorderings x block sizes to run it with); each combination runs as its own
 * umrun child process (a crash or a timeout ends that run only), writes its
 * --json summary, and is judged by its exit status and validation. The
 * results file records the machine, the build and every run's JSON whole, so
 * that --compare and --report can read it later on another machine. --repeat N
 * runs each combination N times and keeps per loop the median and the spread;
 * the load average around each run says whether the machine was busy.
 * The suite file is read by suite_file.c; runs are judged and written by suite_run.c;
 * suite_internal.h holds what they share. */
#include "options.h"
#include "suite_internal.h"

/* ---- the command ------------------------------------------------------------------- */
void umrun_suite_usage(FILE *f) {
  fputs("usage: umrun --suite SUITE.yaml [--tags T1,T2] [--only APP] [--out DIR] [--set key=value]...\n"
        "                    [--timeout S] [--repeat N] [--list]\n"
        "\n"
        "Runs every case of the suite whose tags match (default: quick) over its matrix of\n"
        "backends x strategies x layouts x reorderings x block sizes x MPI ranks, each as its own\n"
        "umrun process (matrix.ranks: [1, 2, 4] launches those runs with mpirun -np N and its\n"
        "flags --oversubscribe where the cores are fewer and --allow-run-as-root as root; results.json\n"
        "records each run's ranks and partitioner), and prints a PASS/FAIL line per run and a\n"
        "matrix per case. One failing run does not stop the others. Writes, in DIR (default\n"
        "out/suite):\n"
        "  results.json   the machine (CPU, GPU, driver, CUDA), the um commit and build, and per\n"
        "                 run its status, every metric with reference and tolerance, per-loop\n"
        "                 times and useful GB/s, plan statistics (for --compare and --report)\n"
        "  junit.xml      one testcase per run, for CI dashboards\n"
        "  summary.md     the table of runs\n"
        "  runs/*.json, logs/*.log   each run's --json and output\n"
        "\n"
        "  --tags T1,T2   run cases having any of these tags ('all': every case)\n"
        "  --only APP     only the cases of this app\n"
        "  --set k=v      applied to every run (after the case's own), e.g. cuda.profile=h100;\n"
        "                 a key neither umrun nor a selected case's app has is refused before any run\n"
        "  --timeout S    per-run limit in seconds (overrides the suite's timeout_s)\n"
        "  --allow-compiler  accept hostc.cc / hostc.cflags from the suite's set: lists and the\n"
        "                 cases' configs (without it only --set names the compiler)\n"
        "  --repeat N     run each case N times (1 to 100): per loop results.json keeps the median\n"
        "                 time (seconds) and its spread (seconds_min, seconds_max, samples), which\n"
        "                 --compare and --report use; a failing sample ends the repeats\n"
        "  --list         list the runs the selection would make, and exit\n"
        "\n"
        "Before and after each run the machine's load average (/proc/loadavg) is recorded with the\n"
        "cores and the run's threads (results.json: cases[].load); a load above the cores prints a\n"
        "warning: the run shared the CPU and its timings are noisy.\n"
        "\n"
        "A case with same_bits: true also asks every passing run of its matrix for the first\n"
        "passing run's validated metrics bit for bit (e.g. run.reproducible across strategies,\n"
        "backends and rank counts); a run that differs fails, naming the metric.\n"
        "\n"
        "A case with draw: plan (plan=LOOP, partition, partition=SET: umrun's --draw) has each\n"
        "run write that picture beside its JSON (runs/<run>.svg); --report shows an app's first.\n"
        "\n"
        "A selection makes at most 5000 runs (the product of each case's axes, summed over the\n"
        "cases): it is counted before anything is expanded, and a larger one is refused with\n"
        "its count.\n"
        "\n"
        "exit status: 0 every run passed; 1 bad suite file or command line; 3 a run failed or\n"
        "could not run.\n",
        f);
}

static int split_list(const char *s, char ***out, int *n) {
  *out = NULL;
  *n = 0;
  char *copy = strdup(s), *save = NULL;
  if (!copy) return -1;
  char **v = calloc(strlen(s) + 2, sizeof *v);
  for (char *t = strtok_r(copy, ",", &save); v && t; t = strtok_r(NULL, ",", &save))
    if (*t) v[(*n)++] = strdup(t);
  free(copy);
  *out = v;
  return v ? 0 : -1;
}

/* One run of r as a child process (args: its command line), judged. */
static void run_child(suite_run *r, const char **args, int np, const char *tmp) {
  /* each run's temporaries (its field folder, mpirun's session) in a folder of
   * the suite's own under tmp, removed after the run: a TIMEOUT leaves nothing behind */
  char tmpdir[4096] = "";
  snprintf(tmpdir, sizeof tmpdir, "%s/umrun-suite-run-XXXXXX", tmp);
  const int have_tmp = mkdtemp(tmpdir) != NULL;
  const int tmp_slot = have_tmp ? um_safe_dir_register(tmpdir) : -1;
  const int started = umrun_run_in(args, np <= 1, r->log_path, r->c->timeout_s, have_tmp ? tmpdir : NULL, &r->res);
  if (have_tmp && umrun_remove_tree(tmpdir))
    fprintf(stderr, "\numrun --suite: note: cannot remove the run's temporary folder '%s': %s\n", tmpdir,
            strerror(errno));
  um_safe_dir_unregister(tmp_slot);
  if (started != 0) {
    r->res.exit_code = -1;
    snprintf(r->status, sizeof r->status, "error");
    snprintf(r->message, sizeof r->message, "could not start %s: %s%s", args[0], strerror(errno),
             np > 1 ? " (the ranks axis needs mpirun: apt-get install openmpi-bin)" : "");
    r->worst_margin = -1;
  } else {
    suite_judge(r);
  }
}

/* the command line */
typedef struct {
  const char *path, *only, *outdir; /* the suite file, --only, --out */
  char **tags;                      /* --tags (default: quick) */
  int ntags, all;                   /* all: the tag "all" among them */
  int list, repeat, allow_compiler;
  double timeout;                   /* --timeout, or 0 */
  const char **gsets;               /* --set key=value, each */
  int ngsets;
} suite_opts;

/* --help anywhere (umrun --suite --help too), unless it is another option's value */
static int suite_help_asked(int argc, char **argv) {
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i], *prev = i ? argv[i - 1] : "";
    const int value = !strcmp(prev, "--tags") || !strcmp(prev, "--only") || !strcmp(prev, "--out") ||
                      !strcmp(prev, "--set") || !strcmp(prev, "--timeout") || !strcmp(prev, "--repeat");
    if ((!strcmp(a, "--help") || !strcmp(a, "-h")) && !value) return 1;
  }
  return 0;
}

/* the command line into *o: 0, or -1 for a bad one (said on stderr) */
static int parse_suite_args(int argc, char **argv, suite_opts *o) {
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i];
    const int takes = !strcmp(a, "--suite") || !strcmp(a, "--tags") || !strcmp(a, "--only") || !strcmp(a, "--out") ||
                      !strcmp(a, "--set") || !strcmp(a, "--timeout") || !strcmp(a, "--repeat");
    if (takes && i + 1 >= argc) {
      fprintf(stderr, "umrun: %s needs an argument (see umrun --suite --help)\n", a);
      return -1;
    }
    if (takes && !argv[i + 1][0]) { /* --out '': "/runs", "/logs" ... */
      fprintf(stderr, "umrun --suite: %s '': an empty value; give one (see umrun --suite --help)\n", a);
      return -1;
    }
    if (!strcmp(a, "--suite")) o->path = argv[++i];
    else if (!strcmp(a, "--tags")) {
      suite_free_strs(o->tags, o->ntags);
      split_list(argv[++i], &o->tags, &o->ntags);
    } else if (!strcmp(a, "--only")) o->only = argv[++i];
    else if (!strcmp(a, "--out")) o->outdir = argv[++i];
    else if (!strcmp(a, "--set")) {
      if (!strchr(argv[i + 1], '=')) {
        fprintf(stderr, "umrun --suite: --set '%s': expected key=value\n", argv[i + 1]);
        return -1;
      }
      o->gsets[o->ngsets++] = argv[++i];
    } else if (!strcmp(a, "--timeout")) {
      char *end = NULL;
      o->timeout = strtod(argv[++i], &end);
      if (!end || *end || !isfinite(o->timeout) || !(o->timeout > 0)) {
        fprintf(stderr, "umrun --suite: --timeout '%s': expected a finite number of seconds > 0\n", argv[i]);
        return -1;
      }
    } else if (!strcmp(a, "--repeat")) {
      char *end = NULL;
      const long v = strtol(argv[++i], &end, 10);
      if (!end || *end || v < 1 || v > 100) {
        fprintf(stderr, "umrun --suite: --repeat '%s': expected a number of runs per case from 1 to 100 (e.g. 5)\n",
                argv[i]);
        return -1;
      }
      o->repeat = (int)v;
    } else if (!strcmp(a, "--list")) o->list = 1;
    else if (!strcmp(a, "--allow-compiler")) o->allow_compiler = 1;
    else {
      fprintf(stderr, "umrun --suite: unknown argument '%s' (see umrun --suite --help)\n", a);
      return -1;
    }
  }
  if (!o->path) {
    fprintf(stderr, "umrun: --suite needs a suite file, e.g. umrun --suite validation/suite.yaml --tags quick\n");
    return -1;
  }
  if (!o->ntags) split_list("quick", &o->tags, &o->ntags);
  for (int i = 0; i < o->ntags; i++) o->all |= !strcmp(o->tags[i], "all");
  return 0;
}

/* the selection past UMRUN_SUITE_MAX_RUNS, said with its largest matrices */
static void say_too_many_runs(const suite_file *S, double total) {
  fprintf(stderr, "umrun --suite: the selection makes %.6g runs, more than the %d a suite may run; its largest "
                  "matrices:", total, UMRUN_SUITE_MAX_RUNS);
  for (int i = 0; i < S->ncases; i++)
    if (S->cases[i].selected && S->cases[i].combos > UMRUN_SUITE_MAX_RUNS / 10.0) {
      fprintf(stderr, " case '%s' %.6g (", S->cases[i].name, S->cases[i].combos);
      for (int a = 0, f = 1; a < AXES; a++)
        if (S->cases[i].naxis[a]) fprintf(stderr, "%s%d %s", f ? "" : " x ", S->cases[i].naxis[a], axis_names[a]), f = 0;
      fputc(')', stderr);
    }
  fprintf(stderr, "; narrow the matrices, select fewer cases (--tags, --only) or split the suite file\n");
}

/* The runs: selected cases x their matrices, counted first (a few axes of many values make more runs than
 * memory holds), refused past UMRUN_SUITE_MAX_RUNS; they are expanded one at a time later. Marks the cases
 * selected; returns the number of runs, or -1 for a selection that cannot run (said on stderr). */
/* Whether some case of S has tag t (its name, a file's tag). */
static int some_case_has(const suite_file *S, const char *t) {
  for (int i = 0; i < S->ncases; i++)
    for (int k = 0; k < S->cases[i].ntags; k++)
      if (!strcmp(S->cases[i].tags[k], t)) return 1;
  return 0;
}

/* The tags of S's cases, each once, in the order they first appear, on stderr. */
static void say_tags(const suite_file *S) {
  for (int i = 0; i < S->ncases; i++)
    for (int t = 0; t < S->cases[i].ntags; t++) {
      int seen = 0;
      for (int j = 0; j <= i && !seen; j++)
        for (int u = 0; u < (j < i ? S->cases[j].ntags : t) && !seen; u++)
          seen = !strcmp(S->cases[j].tags[u], S->cases[i].tags[t]);
      if (!seen) fprintf(stderr, " %s", S->cases[i].tags[t]);
    }
}

static int select_runs(const suite_opts *o, suite_file *S) {
  int known_tag = o->all;
  double total = 0;
  for (int i = 0; !o->all && i < o->ntags; i++)
    if (!some_case_has(S, o->tags[i])) { /* a misspelt tag among others would select less, silently */
      fprintf(stderr, "umrun --suite: no case of %s has the tag '%s'; its cases' tags are:", o->path, o->tags[i]);
      say_tags(S);
      fprintf(stderr, " (or --tags all)\n");
      return -1;
    }
  for (int i = 0; i < S->ncases; i++) {
    suite_case *c = &S->cases[i];
    known_tag |= suite_has_tag(c, o->tags, o->ntags);
    if ((!o->all && !suite_has_tag(c, o->tags, o->ntags)) || (o->only && strcmp(o->only, c->app))) continue;
    if (o->timeout > 0) c->timeout_s = o->timeout;
    c->selected = 1;
    c->combos = 1;
    for (int a = 0; a < AXES; a++) c->combos *= c->naxis[a] ? c->naxis[a] : 1; /* a double: never overflows */
    total += c->combos;
  }
  if (total > UMRUN_SUITE_MAX_RUNS) {
    say_too_many_runs(S, total);
    return -1;
  }
  const int nruns = (int)total;
  if (!known_tag) {
    fprintf(stderr, "umrun --suite: no case of %s has the tag%s", o->path, o->ntags > 1 ? "s" : "");
    for (int i = 0; i < o->ntags; i++) fprintf(stderr, " '%s'", o->tags[i]);
    fprintf(stderr, "; its cases' tags are:");
    say_tags(S);
    fprintf(stderr, " (or --tags all)\n");
    return -1;
  }
  if (!nruns) {
    fprintf(stderr, "umrun --suite: the selection is empty (tags and --only %s match no case)\n", o->only ? o->only : "");
    return -1;
  }
  return nruns;
}

/* 1 when sets[0..n) ("key=value") set run.unknown_keys: the runs warn of a key nothing reads, or run anyway */
static int sets_unknown_keys(char *const *sets, int n) {
  for (int i = 0; i < n; i++)
    if (!strncmp(sets[i], "run.unknown_keys=", 17)) return 1;
  return 0;
}

/* Each --set key is umrun's or the app's of every selected case (checked once: a misspelt key failed every run of
 * the matrix alike), unless run.unknown_keys is set for the runs. 0, or -1 said on stderr. */
static int check_set_keys(const um_runner *r, const suite_opts *o, const suite_file *S) {
  if (sets_unknown_keys((char *const *)o->gsets, o->ngsets) || sets_unknown_keys(S->sets, S->nsets)) return 0;
  for (int i = 0; i < S->ncases; i++) {
    const suite_case *c = &S->cases[i];
    um_config *cc = NULL;
    um_config_kind_t kind = UM_CONFIG_ABSENT;
    if (!c->selected || sets_unknown_keys(c->sets, c->nsets)) continue;
    if (!um_config_load_file(c->config, &cc, NULL, 0)) umrun_opt_kind(cc, "run.unknown_keys", &kind, NULL, 0);
    um_config_free(cc);
    if (kind != UM_CONFIG_ABSENT) continue; /* the config says what an unknown key does */
    const um_app *app = um_app_find(r, c->app);
    for (int k = 0; k < o->ngsets; k++) {
      const char *set = o->gsets[k], *eq = strchr(set, '=');
      char key[256];
      snprintf(key, sizeof key, "%.*s", eq ? (int)(eq - set) : (int)strlen(set), set);
      if (!strcmp(key, "app") || (eq && eq[1] == '{') || umrun_key_declared(app, key))
        continue; /* (a mapping's keys are checked by the runs; a backend's settings: cuda.profile) */
      const char *near = umrun_option_suggest(app, key);
      fprintf(stderr,
              "umrun --suite: --set %s: neither umrun nor %s (case '%s') nor a backend has an option of that name, so "
              "every "
              "run of the case would fail%s%s%s; correct it (umrun --help and umrun --list-apps list the keys), or "
              "add --set run.unknown_keys=warn to run anyway\n",
              set, c->app, c->name, near ? " (did you mean '" : "", near ? near : "", near ? "'?)" : "");
      return -1;
    }
  }
  return 0;
}

/* --list: each run as it is expanded, one at a time (nothing is kept) */
static void list_runs(const suite_file *S, int nruns) {
  suite_run one;
  for (int i = 0, n = 0; i < S->ncases; i++)
    for (long k = 0; S->cases[i].selected && k < (long)S->cases[i].combos; k++) {
      suite_expand(&one, &S->cases[i], k, ++n);
      printf("%s  (%s, %s)\n", one.id, one.c->app, one.c->config);
    }
  printf("%d runs\n", nruns);
}

/* what the runs share, as they are made one after another */
typedef struct {
  const suite_opts *o;
  const suite_file *S;
  const char *argv0;
  const char *tmp; /* where each run's temporary folder is made: $TMPDIR, or /tmp (umrun_temp_dir, said once) */
  char runsdir[3000], logsdir[3000]; /* each run's JSON and log */
  long cores;
  int threads;   /* what the runs inherit (OMP_NUM_THREADS), unless their JSON says */
  uj **samples;  /* --repeat: the samples' JSON */
  double walls[100]; /* each sample's wall time (--repeat is at most 100) */
  suite_info info;
} suite_ctx;

/* the runs' folders under --out, made and checked to be writable before the first run: 0, or -1 (said) */
static int make_out_dirs(suite_ctx *x, char *err, size_t len) {
  const char *outdir = x->o->outdir;
  snprintf(x->runsdir, sizeof x->runsdir, "%s/runs", outdir);
  snprintf(x->logsdir, sizeof x->logsdir, "%s/logs", outdir);
  if (umrun_mkdirs(x->runsdir, err, len) || umrun_mkdirs(x->logsdir, err, len)) {
    fprintf(stderr, "umrun --suite: cannot create the folder %s\n", err);
    return -1;
  }
  const char *outs[] = {outdir, x->runsdir, x->logsdir};
  for (int k = 0; k < 3; k++) /* before the first run, not when the results are written */
    if (umrun_probe_writable(outs[k], err, len)) {
      fprintf(stderr, "umrun --suite: the folder '%s' is not writable (%s); make it writable or choose another --out\n",
              outs[k], err);
      return -1;
    }
  return 0;
}

/* run r's command line into args (NULL-ended; setbuf holds its axes' values and the case's origin); returns its ranks */
static int run_args(const suite_ctx *x, const suite_run *r, const char **args, char (*setbuf)[600]) {
  int na = 0;
  const int np = r->val[AXIS_RANKS] ? atoi(r->val[AXIS_RANKS]) : 1;
  if (np > 1) { /* several ranks: mpirun (--oversubscribe where cores are fewer, as root where root) */
    args[na++] = "mpirun";
    if (np > (int)sysconf(_SC_NPROCESSORS_ONLN)) args[na++] = "--oversubscribe";
    if (geteuid() == 0) args[na++] = "--allow-run-as-root";
    args[na++] = "-np";
    args[na++] = r->val[AXIS_RANKS];
  }
  args[na++] = x->argv0;
  args[na++] = r->c->config;
  args[na++] = "--quiet";
  args[na++] = "--json";
  args[na++] = r->json_path;
  args[na++] = "--set";
  args[na++] = "output.dir=";
  if (x->o->allow_compiler) args[na++] = "--allow-compiler";
  if (r->draw_path[0]) args[na++] = "--draw", args[na++] = r->c->draw, args[na++] = r->draw_path;
  /* the suite's values reach the run as a suite case's (their source in the run's JSON: "suite") */
  snprintf(setbuf[AXES], sizeof setbuf[AXES], "suite case %s", r->c->name);
  args[na++] = "--suite-case";
  args[na++] = setbuf[AXES];
  for (int s = 0; s < x->S->nsets && na < 400; s++) args[na++] = "--suite-set", args[na++] = x->S->sets[s];
  for (int s = 0; s < r->c->nsets && na < 400; s++) args[na++] = "--suite-set", args[na++] = r->c->sets[s];
  for (int a = 0; a < AXES; a++)
    if (r->val[a] && axis_keys[a]) {
      snprintf(setbuf[a], sizeof setbuf[a], "%s=%s", axis_keys[a], r->val[a]);
      args[na++] = "--suite-set";
      args[na++] = setbuf[a];
    }
  for (int s = 0; s < x->o->ngsets && na < 500; s++) args[na++] = "--set", args[na++] = x->o->gsets[s];
  args[na] = NULL;
  return np;
}

/* r run --repeat times (a failing sample ends it): its wall time the samples' median, its loops merged */
static void run_samples(suite_ctx *x, suite_run *r, const char **args, int np) {
  uj **samples = x->samples;
  for (int rep = 0; rep < x->o->repeat; rep++) { /* --repeat: the same run again; a failing sample ends it */
    if (rep) {
      samples[rep - 1] = r->json; /* the last sample's JSON stays r's */
      r->json = NULL;
      free(r->json_text);
      r->json_text = NULL;
      unlink(r->json_path);
    }
    run_child(r, args, np, x->tmp);
    x->walls[rep] = r->res.seconds;
    r->samples = rep + 1;
    if (strcmp(r->status, "pass")) break;
  }
  if (r->samples > 1) { /* the wall time: the median of the samples' */
    double w[100];
    memcpy(w, x->walls, (size_t)r->samples * sizeof *w);
    for (int i = 1; i < r->samples; i++)
      for (int j = i; j > 0 && w[j] < w[j - 1]; j--) {
        const double t = w[j];
        w[j] = w[j - 1], w[j - 1] = t;
      }
    r->res.seconds = r->samples % 2 ? w[r->samples / 2] : 0.5 * (w[r->samples / 2 - 1] + w[r->samples / 2]);
  }
  r->load_end = suite_loadavg();
  r->threads = (int)uj_getn(r->json, "threads", x->threads);
  if (r->samples > 1 && !strcmp(r->status, "pass")) {
    samples[r->samples - 1] = r->json;
    suite_merge_samples(r, samples, r->samples);
  }
  for (int q = 0; q + 1 < r->samples; q++) uj_free(samples[q]);
}

/* the end of run r's progress line: its status, time, samples, message, and whether the machine was busy */
static void print_run_result(suite_ctx *x, const suite_run *r) {
  const int busy = suite_busy(r->load_start, x->cores) || suite_busy(r->load_end, x->cores);
  x->info.busy_runs += busy;
  printf(" %s  %.1f s", suite_status_word(r->status), r->res.seconds);
  if (r->samples > 1) {
    printf(" (median of %d:", r->samples);
    for (int q = 0; q < r->samples; q++) printf("%s %.2f", q ? "," : "", x->walls[q]);
    printf(" s)");
  }
  if (strcmp(r->status, "pass")) printf("\n      %s", r->message);
  if (busy)
    printf("\n      warning: the machine was busy (load average %.2f before, %.2f after, on %ld cores, %d threads): "
           "these timings share the CPU with other work; rerun on an idle machine%s",
           r->load_start, r->load_end, x->cores, r->threads,
           x->o->repeat > 1 ? " (the median of the samples resists some of it)" : ", or with --repeat N");
  printf("\n");
}

/* every run, each combination expanded just before it starts, as a child process */
static void run_all(suite_ctx *x, suite_run *runs, int nruns) {
  const suite_file *S = x->S;
  for (int i = 0, ci = -1, k = 0, kmax = 0; i < nruns; i++) {
    while (k >= kmax) { /* the next selected case */
      ci++;
      k = 0;
      kmax = S->cases[ci].selected ? (int)S->cases[ci].combos : 0;
    }
    suite_run *r = &runs[i];
    suite_expand(r, &S->cases[ci], k++, i + 1); /* this combination, expanded now */
    snprintf(r->json_path, sizeof r->json_path, "%s/%s.json", x->runsdir, r->file_id);
    snprintf(r->log_path, sizeof r->log_path, "%s/%s.log", x->logsdir, r->file_id);
    unlink(r->json_path);
    r->draw_path[0] = '\0';
    if (r->c->draw) { /* the picture beside the run's JSON */
      snprintf(r->draw_path, sizeof r->draw_path, "%s/%s.svg", x->runsdir, r->file_id);
      unlink(r->draw_path);
    }
    const char *args[520];
    char setbuf[AXES + 1][600];
    const int np = run_args(x, r, args, setbuf);
    printf("[%d/%d] %s ...", i + 1, nruns, r->id);
    fflush(stdout);
    r->load_start = suite_loadavg();
    run_samples(x, r, args, np);
    print_run_result(x, r);
  }
}

/* the PASS/FAIL matrix, a line per case; returns the runs that pass */
static int print_matrix(const suite_run *runs, int nruns) {
  int np = 0;
  printf("\n%-28s %s\n", "case", "runs: variant status");
  for (int i = 0; i < nruns;) {
    int j = i;
    printf("%-28s", runs[i].c->name);
    while (j < nruns && runs[j].c == runs[i].c) {
      char v[256];
      suite_variant_of(&runs[j], v, sizeof v);
      printf(" [%s %s]", v, suite_status_word(runs[j].status));
      np += !strcmp(runs[j].status, "pass");
      j++;
    }
    printf("\n");
    i = j;
  }
  return np;
}

/* results.json, junit.xml and summary.md, in that order, each whole or not at all; the first that cannot be
 * written stops the others, so that no file of this suite stands beside an earlier suite's of a file before it.
 * Returns how many were written (3: all). */
static int write_suite_files(const suite_ctx *x, suite_run *runs, int nruns, double host_gbs, const char *started,
                             double seconds, char *err, size_t len) {
  const suite_opts *o = x->o;
  const char *names[3] = {"results.json", "junit.xml", "summary.md"};
  for (int k = 0; k < 3; k++) {
    char p[4096];
    snprintf(p, sizeof p, "%s/%s", o->outdir, names[k]);
    um_safe_file sf;
    if (um_safe_open(&sf, p, err, len)) {
      fprintf(stderr, "umrun --suite: %s\n", err);
      return k;
    }
    if (k == 0)
      suite_write_results(sf.f, o->path, o->tags, o->ntags, o->only, runs, nruns, host_gbs, started, seconds, &x->info);
    else if (k == 1) suite_write_junit(sf.f, runs, nruns, seconds);
    else suite_write_markdown(sf.f, o->path, runs, nruns, started, seconds, host_gbs);
    if (um_safe_commit(&sf, err, len)) {
      fprintf(stderr, "umrun --suite: %s\n", err);
      return k;
    }
  }
  return 3;
}

/* the selected runs made, judged and written: the exit status */
static int run_suite(const char *argv0, const suite_opts *o, suite_file *S, suite_run *runs, int nruns, char *err,
                     size_t len) {
  suite_ctx x = {.o = o, .S = S, .argv0 = argv0};
  if (make_out_dirs(&x, err, len)) return EXIT_USAGE;
  x.tmp = umrun_temp_dir("umrun --suite");
  char started[64];
  time_t now = time(NULL);
  strftime(started, sizeof started, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
  printf("umrun --suite %s: %d runs (tags", o->path, nruns);
  for (int i = 0; i < o->ntags; i++) printf(" %s", o->tags[i]);
  printf("%s%s), results in %s\n", o->only ? ", only " : "", o->only ? o->only : "", o->outdir);
  x.cores = sysconf(_SC_NPROCESSORS_ONLN);
  x.threads = 1;
#ifdef _OPENMP
  x.threads = omp_get_max_threads();
#endif
  x.info = (suite_info){.repeat = o->repeat, .load_start = suite_loadavg(), .load_end = -1};
  if (suite_busy(x.info.load_start, x.cores))
    printf("warning: the machine is busy before the first run (load average %.2f on %ld cores): timings will be noisy\n",
           x.info.load_start, x.cores);
  x.samples = calloc((size_t)o->repeat, sizeof *x.samples);
  if (!x.samples) return EXIT_RUN;
  suite_sample_copy(&x.info); /* before the runs and after them: the report reads the median */
  x.info.peak_gflops = suite_host_peak_gflops();
  const double t0 = um_wtime();
  run_all(&x, runs, nruns);
  const double seconds = um_wtime() - t0;
  free(x.samples);
  x.info.load_end = suite_loadavg();
  suite_sample_copy(&x.info);
  const double host_gbs = umrun_median(x.info.copy, x.info.ncopy);
  suite_same_bits(runs, nruns);
  const int np = print_matrix(runs, nruns), nfail = nruns - np;
  const int wrote = write_suite_files(&x, runs, nruns, host_gbs, started, seconds, err, len);
  static const char *const written[] = {"wrote none of its files (above)", "wrote %s/results.json only (above)",
                                        "wrote %s/results.json and junit.xml only (above)",
                                        "wrote %s/results.json, junit.xml, summary.md"};
  fflush(stdout); /* after the messages on stderr */
  printf("\numrun --suite: %d of %d runs pass%s (%.1f s); ", np, nruns, nfail ? ", SOME FAILED" : "", seconds);
  printf(written[wrote], o->outdir);
  putchar('\n');
  if (x.info.busy_runs)
    printf("umrun --suite: warning: %d of %d runs ran on a busy machine (load average above its %ld cores): their "
           "timings are noisy (results.json: cases[].load)\n", x.info.busy_runs, nruns, x.cores);
  return wrote < 3 ? EXIT_RUN : nfail ? EXIT_VALIDATION : EXIT_OK; /* files not written: the suite's record failed */
}

int umrun_suite_main(const um_runner *r, const char *argv0, int argc, char **argv) {
  suite_opts o = {.outdir = "out/suite", .repeat = 1};
  int rc = EXIT_USAGE;
  o.gsets = calloc((size_t)argc + 1, sizeof *o.gsets);
  if (!o.gsets) return EXIT_RUN;
  if (suite_help_asked(argc, argv)) {
    umrun_suite_usage(stdout);
    free(o.gsets);
    return EXIT_OK;
  }
  if (parse_suite_args(argc, argv, &o)) goto done;
  suite_file S;
  char err[4096] = "";
  const char *app_override = NULL; /* --set app=X runs every case as X (checked with the cases) */
  for (int s = 0; s < o.ngsets; s++)
    if (!strncmp(o.gsets[s], "app=", 4)) app_override = o.gsets[s] + 4;
  if (suite_load(r, o.path, app_override, o.allow_compiler, &S, err, sizeof err)) {
    fprintf(stderr, "umrun --suite: %s\n", err);
    suite_free(&S);
    goto done;
  }
  const int nruns = select_runs(&o, &S);
  suite_run *runs = NULL;
  if (nruns < 0 || check_set_keys(r, &o, &S)) goto free_runs;
  if (o.list) {
    list_runs(&S, nruns);
    rc = EXIT_OK;
    goto free_runs;
  }
  runs = calloc((size_t)nruns, sizeof *runs); /* at most UMRUN_SUITE_MAX_RUNS entries */
  if (!runs) {
    fprintf(stderr, "umrun --suite: out of memory for %d runs\n", nruns);
    rc = EXIT_RUN;
    goto free_runs;
  }
  rc = run_suite(argv0, &o, &S, runs, nruns, err, sizeof err);
free_runs:
  for (int i = 0; runs && i < nruns; i++) {
    free(runs[i].json_text);
    uj_free(runs[i].json);
  }
  free(runs);
  suite_free(&S);
done:
  suite_free_strs(o.tags, o.ntags);
  free(o.gsets);
  return rc;
}
