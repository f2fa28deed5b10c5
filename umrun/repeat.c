/* umrun CONFIG --repeat N: one run made N times, as the suite's --repeat does, each sample its own umrun
 * process (so no sample inherits another's caches in memory, and a crash ends one sample); per loop the
 * median time and its spread (min .. max) are printed and, with --json, written as the suite writes them
 * (seconds the median, seconds_min, seconds_max, samples). A failing sample ends the repeats. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "um/safe_file.h"
#include "child.h"
#include "provenance.h"
#include "runner.h"
#include "tools.h"

/* the child's command line: the parent's, without --repeat N, --json F and --csv F, with --json path */
static const char **child_args(int argc, char **argv, const char *json_path) {
  const char **a = calloc((size_t)argc + 4, sizeof *a);
  if (!a) return NULL;
  int n = 0;
  for (int i = 0; i < argc; i++) {
    const char *x = argv[i];
    if (i > 0 && (!strcmp(x, "--repeat") || !strcmp(x, "--json") || !strcmp(x, "--csv")) && i + 1 < argc) {
      i++;
      continue;
    }
    if (i > 0 && !strncmp(x, "--json=", 7)) continue;
    a[n++] = x;
  }
  a[n++] = "--json";
  a[n++] = json_path;
  a[n] = NULL;
  return a;
}

/* the per-loop table of the merged run: median ms per call and the spread of the samples */
static void print_spread(FILE *out, const uj *run, int n) {
  fprintf(out, "\nrepeat: %d samples; per loop the median and the spread (min .. max) of its time:\n", n);
  fprintf(out, "  %-28s %8s %12s %12s %12s %8s\n", "loop", "calls", "median (s)", "min (s)", "max (s)", "spread");
  const uj *loops = uj_get(run, "loops");
  for (int i = 0; i < uj_len(loops); i++) {
    const uj *l = uj_at(loops, i);
    const double med = uj_getn(l, "seconds", NAN), lo = uj_getn(l, "seconds_min", NAN), hi = uj_getn(l, "seconds_max", NAN);
    fprintf(out, "  %-28s %8.0f %12.6f %12.6f %12.6f %7.1f%%\n", uj_gets(l, "name", "?"), uj_getn(l, "calls", 0), med,
            lo, hi, med > 0 ? 100 * (hi - lo) / med : 0);
  }
  fprintf(out, "  %-28s %8s %12.6f %12.6f %12.6f\n", "(whole run)", "", uj_getn(run, "total_seconds", NAN),
          uj_getn(run, "total_seconds_min", NAN), uj_getn(run, "total_seconds_max", NAN));
}

/* the load around the samples: the first's start, the last's end, busy when any sample's was */
static void merge_load(uj *run, uj *const *samples, int n) {
  uj *load = (uj *)uj_get(run, "load");
  if (!load || load->kind != UJ_OBJ) return;
  int busy = 0;
  for (int s = 0; s < n; s++) busy |= uj_is_true(uj_get(uj_get(samples[s], "load"), "busy"));
  uj_set_num(load, "start", uj_getn(uj_get(samples[0], "load"), "start", NAN));
  for (int i = 0; i < load->n; i++)
    if (!strcmp(load->keys[i], "busy")) load->items[i].kind = UJ_BOOL, load->items[i].num = busy;
}

/* the merged JSON written to --json (through a temporary renamed into place): 0, or -1 (said) */
static int write_merged(const um_runner *r, const char *path, const uj *run) {
  char err[4096];
  um_safe_file sf;
  if (um_safe_open(&sf, path, err, sizeof err) == 0) {
    uj_write(sf.f, run);
    fputc('\n', sf.f);
    if (um_safe_commit(&sf, err, sizeof err) == 0) return 0;
  }
  umrun_err(r, "--json: %s\n", err);
  return -1;
}

/* one sample as a child: its exit status, its JSON in samples[k] (NULL when none); its log printed */
static int run_sample(const char **args, const char *dir, int k, int n, uj **sample) {
  char log[4200], json[4200], err[1024];
  snprintf(log, sizeof log, "%s/sample_%d.log", dir, k);
  snprintf(json, sizeof json, "%s/sample_%d.json", dir, k);
  umrun_child_result res;
  memset(&res, 0, sizeof res);
  for (int i = 0; args[i]; i++) /* this sample's JSON */
    if (!strcmp(args[i], "--json") && args[i + 1]) args[i + 1] = json;
  if (umrun_run_in(args, 1, log, 0, dir, &res)) { /* its temporaries (field folder) in dir, removed with it */
    fprintf(stderr, "umrun: --repeat: cannot start %s: %s\n", args[0], strerror(errno));
    return EXIT_RUN;
  }
  printf("repeat: sample %d of %d: exit status %d, %.2f s\n", k + 1, n, res.exit_code, res.seconds);
  *sample = NULL;
  if (uj_parse_file(json, sample, err, sizeof err)) *sample = NULL;
  if (k == n - 1 || res.exit_code != 0) { /* the last sample's report (or the failing one's) as a run prints it */
    FILE *f = fopen(log, "r");
    char buf[4096];
    size_t m;
    while (f && (m = fread(buf, 1, sizeof buf, f)) > 0) fwrite(buf, 1, m, stdout);
    if (f) fclose(f);
  }
  unlink(log);
  unlink(json);
  return res.exit_code < 0 ? EXIT_RUN : res.exit_code;
}

int umrun_repeat_main(const um_runner *r, int argc, char **argv, const cmdline *c) {
  if (um_mpi_size() > 1) {
    umrun_err(r, "--repeat under mpirun: run the mpirun command several times, or use umrun --suite with a ranks axis "
                 "and --repeat N\n");
    return EXIT_USAGE;
  }
  if (c->sweep.nkeys || c->csv_path) {
    umrun_err(r, "--repeat goes with a single run and --json (not with --sweep or --csv)\n");
    return EXIT_USAGE;
  }
  const char *base = umrun_temp_dir(r->prog);
  char dir[4096];
  snprintf(dir, sizeof dir, "%s/umrun-repeat-XXXXXX", base);
  uj **samples = calloc((size_t)c->repeat, sizeof *samples);
  const char *made = samples ? mkdtemp(dir) : NULL;
  const int eno = errno;
  const char **args = made ? child_args(argc, argv, dir) : NULL;
  if (!args) {
    free(samples);
    if (made) rmdir(dir);
    umrun_err(r, "--repeat: cannot create a temporary folder under '%s': %s; set TMPDIR to a writable folder\n", base,
              strerror(made ? ENOMEM : eno));
    return EXIT_RUN;
  }
  const int slot = um_safe_dir_register(dir);
  int status = EXIT_OK, n = 0, k = 0, lost = 0;
  printf("repeat: the run %d times, each its own process; per loop the median and the spread\n", c->repeat);
  fflush(stdout);
  for (; k < c->repeat && status == EXIT_OK; k++) {
    status = run_sample(args, dir, k, c->repeat, &samples[n]);
    fflush(stdout);
    lost = !samples[n];
    if (samples[n]) n++;
  }
  if (status != EXIT_OK) { /* the last word: the sample's own report ends with its verdict, which may read PASS */
    char where[4400] = "";
    if (lost)
      snprintf(where, sizeof where,
               "; it left no results in the repeat's folder under '%s': if that disk is full, "
               "set TMPDIR to a folder with room",
               base);
    umrun_err(r,
              "--repeat: stopped after sample %d of %d, which ended with exit status %d (its log above says why)%s\n",
              k, c->repeat, status, where);
  }
  umrun_remove_tree(dir);
  um_safe_dir_unregister(slot);
  if (n > 0) { /* every sample's, merged; or the failing sample's own JSON (its status says why) */
    uj *run = samples[n - 1];
    if (status == EXIT_OK) {
      umrun_merge_samples(run, samples, n);
      merge_load(run, samples, n);
      print_spread(stdout, run, n);
    }
    if (c->json_path && write_merged(r, c->json_path, run) && status == EXIT_OK) status = EXIT_RUN;
  }
  for (int k = 0; k < n; k++) uj_free(samples[k]);
  free(samples);
  free(args);
  return status;
}
