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
#include "suite_internal.h"

/* ---- the command ------------------------------------------------------------------- */
void umrun_suite_usage(FILE *f) {
  fputs("usage: umrun --suite SUITE.yaml [--tags T1,T2] [--only APP] [--out DIR] [--set key=value]...\n"
        "                    [--timeout S] [--repeat N] [--list]\n"
        "\n"
        "Runs every case of the suite whose tags match (default: quick) over its matrix of\n"
        "backends x strategies x layouts x reorderings x block sizes x MPI ranks, each as its own\n"
        "umrun process (matrix.ranks: [1, 2, 4] launches those runs with mpirun -np N, with\n"
        "--oversubscribe where the cores are fewer and --allow-run-as-root as root; results.json\n"
        "records each run's ranks and partitioner), and prints a PASS/FAIL line per run and a\n"
        "matrix per case. One failing run\n"
        "does not stop the others. Writes, in DIR (default out/suite):\n"
        "  results.json   the machine (CPU, GPU, driver, CUDA), the um commit and build, and per\n"
        "                 run its status, every metric with reference and tolerance, per-loop\n"
        "                 times and useful GB/s, plan statistics (for --compare and --report)\n"
        "  junit.xml      one testcase per run, for CI dashboards\n"
        "  summary.md     the table of runs\n"
        "  runs/*.json, logs/*.log   each run's --json and output\n"
        "\n"
        "  --tags T1,T2   run cases having any of these tags ('all': every case)\n"
        "  --only APP     only the cases of this app\n"
        "  --set k=v      applied to every run (after the case's own), e.g. cuda.profile=h100\n"
        "  --timeout S    per-run limit in seconds (overrides the suite's timeout_s)\n"
        "  --allow-compiler  accept run.cc / run.cflags from the suite's set: lists and the\n"
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
static void run_child(suite_run *r, const char **args, int np) {
  /* each run's temporaries (its field folder, mpirun's session) in a folder of
   * the suite's own, removed after the run: a TIMEOUT leaves nothing behind */
  char tmpdir[4096] = "";
  const char *base = getenv("TMPDIR");
  snprintf(tmpdir, sizeof tmpdir, "%s/umrun-suite-run-XXXXXX", base && *base ? base : "/tmp");
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

int umrun_suite_main(const char *argv0, int argc, char **argv) {
  const char *path = NULL, *only = NULL, *outdir = "out/suite";
  char **tags = NULL;
  int ntags = 0, list = 0, repeat = 1, allow_compiler = 0;
  double timeout = 0;
  const char **gsets = calloc((size_t)argc + 1, sizeof *gsets);
  int ngsets = 0, rc = EXIT_USAGE;
  if (!gsets) return EXIT_RUN;
  for (int i = 0; i < argc; i++) { /* --help anywhere (umrun --suite --help too), unless it is another option's value */
    const char *a = argv[i], *prev = i ? argv[i - 1] : "";
    const int value = !strcmp(prev, "--tags") || !strcmp(prev, "--only") || !strcmp(prev, "--out") ||
                      !strcmp(prev, "--set") || !strcmp(prev, "--timeout") || !strcmp(prev, "--repeat");
    if ((!strcmp(a, "--help") || !strcmp(a, "-h")) && !value) {
      umrun_suite_usage(stdout);
      free(gsets);
      return EXIT_OK;
    }
  }
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i];
    const int takes = !strcmp(a, "--suite") || !strcmp(a, "--tags") || !strcmp(a, "--only") || !strcmp(a, "--out") ||
                      !strcmp(a, "--set") || !strcmp(a, "--timeout") || !strcmp(a, "--repeat");
    if (takes && i + 1 >= argc) {
      fprintf(stderr, "umrun: %s needs an argument (see umrun --suite --help)\n", a);
      goto done;
    }
    if (!strcmp(a, "--suite")) path = argv[++i];
    else if (!strcmp(a, "--tags")) {
      suite_free_strs(tags, ntags);
      split_list(argv[++i], &tags, &ntags);
    } else if (!strcmp(a, "--only")) only = argv[++i];
    else if (!strcmp(a, "--out")) outdir = argv[++i];
    else if (!strcmp(a, "--set")) {
      if (!strchr(argv[i + 1], '=')) {
        fprintf(stderr, "umrun --suite: --set '%s': expected key=value\n", argv[i + 1]);
        goto done;
      }
      gsets[ngsets++] = argv[++i];
    } else if (!strcmp(a, "--timeout")) {
      char *end = NULL;
      timeout = strtod(argv[++i], &end);
      if (!end || *end || !isfinite(timeout) || !(timeout > 0)) {
        fprintf(stderr, "umrun --suite: --timeout '%s': expected a finite number of seconds > 0\n", argv[i]);
        goto done;
      }
    } else if (!strcmp(a, "--repeat")) {
      char *end = NULL;
      const long v = strtol(argv[++i], &end, 10);
      if (!end || *end || v < 1 || v > 100) {
        fprintf(stderr, "umrun --suite: --repeat '%s': expected a number of runs per case from 1 to 100 (e.g. 5)\n",
                argv[i]);
        goto done;
      }
      repeat = (int)v;
    } else if (!strcmp(a, "--list")) list = 1;
    else if (!strcmp(a, "--allow-compiler")) allow_compiler = 1;
    else {
      fprintf(stderr, "umrun --suite: unknown argument '%s' (see umrun --suite --help)\n", a);
      goto done;
    }
  }
  if (!path) {
    fprintf(stderr, "umrun: --suite needs a suite file, e.g. umrun --suite validation/suite.yaml --tags quick\n");
    goto done;
  }
  if (!ntags) split_list("quick", &tags, &ntags);
  int all = 0;
  for (int i = 0; i < ntags; i++) all |= !strcmp(tags[i], "all");

  suite_file S;
  char err[4096] = "";
  const char *app_override = NULL; /* --set app=X runs every case as X (checked with the cases) */
  for (int s = 0; s < ngsets; s++)
    if (!strncmp(gsets[s], "app=", 4)) app_override = gsets[s] + 4;
  if (suite_load(path, app_override, allow_compiler, &S, err, sizeof err)) {
    fprintf(stderr, "umrun --suite: %s\n", err);
    suite_free(&S);
    goto done;
  }
  /* the runs: selected cases x their matrices, counted first (a few axes of
   * many values make more runs than memory holds), refused past
   * UMRUN_SUITE_MAX_RUNS, and expanded one at a time: --list prints each as it
   * comes, a run's entry is filled just before it starts */
  int nruns = 0, known_tag = all;
  suite_run *runs = NULL;
  double total = 0;
  for (int i = 0; i < S.ncases; i++) {
    suite_case *c = &S.cases[i];
    known_tag |= suite_has_tag(c, tags, ntags);
    if ((!all && !suite_has_tag(c, tags, ntags)) || (only && strcmp(only, c->app))) continue;
    if (timeout > 0) c->timeout_s = timeout;
    c->selected = 1;
    c->combos = 1;
    for (int a = 0; a < AXES; a++) c->combos *= c->naxis[a] ? c->naxis[a] : 1; /* a double: never overflows */
    total += c->combos;
  }
  if (total > UMRUN_SUITE_MAX_RUNS) {
    fprintf(stderr, "umrun --suite: the selection makes %.6g runs, more than the %d a suite may run; its largest "
                    "matrices:", total, UMRUN_SUITE_MAX_RUNS);
    for (int i = 0; i < S.ncases; i++)
      if (S.cases[i].selected && S.cases[i].combos > UMRUN_SUITE_MAX_RUNS / 10.0) {
        fprintf(stderr, " case '%s' %.6g (", S.cases[i].name, S.cases[i].combos);
        for (int a = 0, f = 1; a < AXES; a++)
          if (S.cases[i].naxis[a]) fprintf(stderr, "%s%d %s", f ? "" : " x ", S.cases[i].naxis[a], axis_names[a]), f = 0;
        fputc(')', stderr);
      }
    fprintf(stderr, "; narrow the matrices, select fewer cases (--tags, --only) or split the suite file\n");
    goto free_runs;
  }
  nruns = (int)total;
  if (!known_tag) {
    fprintf(stderr, "umrun --suite: no case of %s has the tag%s", path, ntags > 1 ? "s" : "");
    for (int i = 0; i < ntags; i++) fprintf(stderr, " '%s'", tags[i]);
    fprintf(stderr, "; its cases' tags are:");
    for (int i = 0; i < S.ncases; i++)
      for (int t = 0; t < S.cases[i].ntags; t++) fprintf(stderr, " %s", S.cases[i].tags[t]);
    fprintf(stderr, " (or --tags all)\n");
    goto free_runs;
  }
  if (!nruns) {
    fprintf(stderr, "umrun --suite: the selection is empty (tags and --only %s match no case)\n", only ? only : "");
    goto free_runs;
  }
  if (list) { /* one at a time: nothing is kept */
    suite_run one;
    for (int i = 0, n = 0; i < S.ncases; i++)
      for (long k = 0; S.cases[i].selected && k < (long)S.cases[i].combos; k++) {
        suite_expand(&one, &S.cases[i], k, ++n);
        printf("%s  (%s, %s)\n", one.id, one.c->app, one.c->config);
      }
    printf("%d runs\n", nruns);
    rc = EXIT_OK;
    goto free_runs;
  }
  runs = calloc((size_t)nruns, sizeof *runs); /* at most UMRUN_SUITE_MAX_RUNS entries */
  if (!runs) {
    fprintf(stderr, "umrun --suite: out of memory for %d runs\n", nruns);
    rc = EXIT_RUN;
    goto free_runs;
  }
  char runsdir[3000], logsdir[3000];
  snprintf(runsdir, sizeof runsdir, "%s/runs", outdir);
  snprintf(logsdir, sizeof logsdir, "%s/logs", outdir);
  if (umrun_mkdirs(runsdir, err, sizeof err) || umrun_mkdirs(logsdir, err, sizeof err)) {
    fprintf(stderr, "umrun --suite: cannot create the folder %s\n", err);
    goto free_runs;
  }
  const char *outs[] = {outdir, runsdir, logsdir};
  for (int k = 0; k < 3; k++) /* before the first run, not when the results are written */
    if (umrun_probe_writable(outs[k], err, sizeof err)) {
      fprintf(stderr, "umrun --suite: the folder '%s' is not writable (%s); make it writable or choose another --out\n",
              outs[k], err);
      goto free_runs;
    }
  char started[64];
  time_t now = time(NULL);
  strftime(started, sizeof started, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
  printf("umrun --suite %s: %d runs (tags", path, nruns);
  for (int i = 0; i < ntags; i++) printf(" %s", tags[i]);
  printf("%s%s), results in %s\n", only ? ", only " : "", only ? only : "", outdir);
  const long cores = sysconf(_SC_NPROCESSORS_ONLN);
  int threads = 1; /* what the runs inherit (OMP_NUM_THREADS), unless their JSON says */
#ifdef _OPENMP
  threads = omp_get_max_threads();
#endif
  suite_info info = {repeat, suite_loadavg(), -1, 0};
  if (suite_busy(info.load_start, cores))
    printf("warning: the machine is busy before the first run (load average %.2f on %ld cores): timings will be noisy\n",
           info.load_start, cores);
  uj **samples = calloc((size_t)repeat, sizeof *samples);
  double walls[100]; /* each sample's wall time (--repeat is at most 100) */
  if (!samples) {
    rc = EXIT_RUN;
    goto free_runs;
  }
  const double host_gbs = suite_host_copy_gbs();
  const double t0 = um_wtime();
  for (int i = 0, ci = -1, k = 0, kmax = 0; i < nruns; i++) {
    while (k >= kmax) { /* the next selected case */
      ci++;
      k = 0;
      kmax = S.cases[ci].selected ? (int)S.cases[ci].combos : 0;
    }
    suite_run *r = &runs[i];
    suite_expand(r, &S.cases[ci], k++, i + 1); /* this combination, expanded now */
    snprintf(r->json_path, sizeof r->json_path, "%s/%s.json", runsdir, r->file_id);
    snprintf(r->log_path, sizeof r->log_path, "%s/%s.log", logsdir, r->file_id);
    unlink(r->json_path);
    const char *args[520];
    char setbuf[AXES][600];
    int na = 0;
    const int np = r->val[AXIS_RANKS] ? atoi(r->val[AXIS_RANKS]) : 1;
    if (np > 1) { /* several ranks: mpirun (--oversubscribe where cores are fewer, as root where root) */
      args[na++] = "mpirun";
      if (np > (int)sysconf(_SC_NPROCESSORS_ONLN)) args[na++] = "--oversubscribe";
      if (geteuid() == 0) args[na++] = "--allow-run-as-root";
      args[na++] = "-np";
      args[na++] = r->val[AXIS_RANKS];
    }
    args[na++] = argv0;
    args[na++] = r->c->config;
    args[na++] = "--quiet";
    args[na++] = "--json";
    args[na++] = r->json_path;
    args[na++] = "--set";
    args[na++] = "output.dir=";
    if (allow_compiler) args[na++] = "--allow-compiler";
    for (int s = 0; s < S.nsets && na < 400; s++) args[na++] = "--set", args[na++] = S.sets[s];
    for (int s = 0; s < r->c->nsets && na < 400; s++) args[na++] = "--set", args[na++] = r->c->sets[s];
    for (int a = 0; a < AXES; a++)
      if (r->val[a] && axis_keys[a]) {
        snprintf(setbuf[a], sizeof setbuf[a], "%s=%s", axis_keys[a], r->val[a]);
        args[na++] = "--set";
        args[na++] = setbuf[a];
      }
    for (int s = 0; s < ngsets && na < 500; s++) args[na++] = "--set", args[na++] = gsets[s];
    args[na] = NULL;
    printf("[%d/%d] %s ...", i + 1, nruns, r->id);
    fflush(stdout);
    r->load_start = suite_loadavg();
    for (int rep = 0; rep < repeat; rep++) { /* --repeat: the same run again; a failing sample ends it */
      if (rep) {
        samples[rep - 1] = r->json; /* the last sample's JSON stays r's */
        r->json = NULL;
        free(r->json_text);
        r->json_text = NULL;
        unlink(r->json_path);
      }
      run_child(r, args, np);
      walls[rep] = r->res.seconds;
      r->samples = rep + 1;
      if (strcmp(r->status, "pass")) break;
    }
    if (r->samples > 1) { /* the wall time: the median of the samples' */
      double w[100];
      memcpy(w, walls, (size_t)r->samples * sizeof *w);
      for (int x = 1; x < r->samples; x++)
        for (int y = x; y > 0 && w[y] < w[y - 1]; y--) {
          const double t = w[y];
          w[y] = w[y - 1], w[y - 1] = t;
        }
      r->res.seconds = r->samples % 2 ? w[r->samples / 2] : 0.5 * (w[r->samples / 2 - 1] + w[r->samples / 2]);
    }
    r->load_end = suite_loadavg();
    r->threads = (int)uj_getn(r->json, "threads", threads);
    if (r->samples > 1 && !strcmp(r->status, "pass")) {
      samples[r->samples - 1] = r->json;
      suite_merge_samples(r, samples, r->samples);
    }
    for (int q = 0; q + 1 < r->samples; q++) uj_free(samples[q]);
    const int busy = suite_busy(r->load_start, cores) || suite_busy(r->load_end, cores);
    info.busy_runs += busy;
    printf(" %s  %.1f s", suite_status_word(r->status), r->res.seconds);
    if (r->samples > 1) {
      printf(" (median of %d:", r->samples);
      for (int q = 0; q < r->samples; q++) printf("%s %.2f", q ? "," : "", walls[q]);
      printf(" s)");
    }
    if (strcmp(r->status, "pass")) printf("\n      %s", r->message);
    if (busy)
      printf("\n      warning: the machine was busy (load average %.2f before, %.2f after, on %ld cores, %d threads): "
             "these timings share the CPU with other work; rerun on an idle machine%s",
             r->load_start, r->load_end, cores, r->threads,
             repeat > 1 ? " (the median of the samples resists some of it)" : ", or with --repeat N");
    printf("\n");
  }
  const double seconds = um_wtime() - t0;
  free(samples);
  info.load_end = suite_loadavg();
  suite_same_bits(runs, nruns);
  /* the PASS/FAIL matrix: a line per case */
  int np = 0, nfail = 0;
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
  nfail = nruns - np;
  /* the three files */
  const char *names[3] = {"results.json", "junit.xml", "summary.md"};
  int wrote = 1;
  for (int k = 0; k < 3; k++) {
    char p[4096];
    snprintf(p, sizeof p, "%s/%s", outdir, names[k]);
    um_safe_file sf;
    if (um_safe_open(&sf, p, err, sizeof err)) {
      fprintf(stderr, "umrun --suite: %s\n", err);
      wrote = 0;
      continue;
    }
    if (k == 0) suite_write_results(sf.f, path, tags, ntags, only, runs, nruns, host_gbs, started, seconds, &info);
    else if (k == 1) suite_write_junit(sf.f, runs, nruns, seconds);
    else suite_write_markdown(sf.f, path, runs, nruns, started, seconds, host_gbs);
    if (um_safe_commit(&sf, err, sizeof err)) {
      fprintf(stderr, "umrun --suite: %s\n", err);
      wrote = 0;
    }
  }
  printf("\numrun --suite: %d of %d runs pass%s (%.1f s); wrote %s/results.json, junit.xml, summary.md\n", np, nruns,
         nfail ? ", SOME FAILED" : "", seconds, outdir);
  if (info.busy_runs)
    printf("umrun --suite: warning: %d of %d runs ran on a busy machine (load average above its %ld cores): their "
           "timings are noisy (results.json: cases[].load)\n", info.busy_runs, nruns, cores);
  rc = nfail ? EXIT_VALIDATION : wrote ? EXIT_OK : EXIT_RUN;
free_runs:
  for (int i = 0; runs && i < nruns; i++) {
    free(runs[i].json_text);
    uj_free(runs[i].json);
  }
  free(runs);
  suite_free(&S);
done:
  suite_free_strs(tags, ntags);
  free(gsets);
  return rc;
}
