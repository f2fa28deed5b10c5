#define _XOPEN_SOURCE 700 /* realpath */
/* umrun --validate RUN.json REF.yaml: check a finished run, from the JSON
 * that `umrun CONFIG --json RUN.json` wrote, against a reference, without
 * running it again. For runs that take hours (the 14M-element BookLeaf decks
 * on 2 CPU cores) when the reference comes later, and for checking old runs
 * against a revised reference. Metrics only: a run's JSON holds no field
 * files, so a reference's fields are listed as not checked. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "um/safe_file.h"
#include "provenance.h"
#include "tools.h"
#include "um/um.h"
#include "um/validate.h"

enum { EXIT_OK = 0, EXIT_USAGE = 1, EXIT_VALIDATION = 3 };

void umrun_validate_usage(FILE *f) {
  fputs("usage: umrun --validate RUN.json REF.yaml [--json FILE]\n"
        "\n"
        "Checks a finished run against a reference without running it again: RUN.json is\n"
        "what `umrun CONFIG --json RUN.json` wrote, REF.yaml a validation/<app>/<case>.ref.yaml.\n"
        "Each of the reference's metrics is compared with the run's value (rel_tol / abs_tol as\n"
        "the reference says) and printed as a table, as at the end of a run.\n"
        "Metrics only: a run's JSON holds no field files, so the reference's fields (if any)\n"
        "are named as not checked; rerun with --set validation.reference=REF.yaml for those.\n"
        "  --json FILE   write the result as JSON too (the format of a run's \"validation\")\n"
        "\n"
        "A run that did not finish (its \"status\" is \"run failed\", \"config error\" or missing)\n"
        "never passes, whatever its metrics.\n"
        "\n"
        "A run whose command line changed its config's mesh.*, params.* or run.iterations (the\n"
        "JSON's \"options\" say where each value came from) and that fails is NOT COMPARABLE, as\n"
        "the run itself said: the reference holds the numbers of the config's run, not of this one.\n"
        "\n"
        "exit status: 0 every metric passed; 1 bad command line, unreadable file, not a run's\n"
        "JSON, not a reference, or a reference for another app; 3 a metric failed or is missing\n"
        "from the run, the run is not comparable, or the run did not finish.\n",
        f);
}

static int exists(const char *p) {
  struct stat st;
  return stat(p, &st) == 0;
}

const char *umrun_data_dir(char *dir, size_t len) {
  dir[0] = '\0';
  const char *env = getenv("UM_DATA_DIR");
  if (env && *env) return snprintf(dir, len, "%s", env), dir;
  char exe[4096];
  const ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0) return dir;
  exe[n] = 0;
  char *slash = strrchr(exe, '/');
  if (!slash) return dir;
  *slash = 0; /* the program's folder, bin/ */
  char cand[4200];
  snprintf(cand, sizeof cand, "%s/../share/um", exe);
  char *real = realpath(cand, NULL); /* PREFIX/share/um, without bin/..; NULL when it does not exist */
  if (real && strlen(real) < len) memcpy(dir, real, strlen(real) + 1);
  free(real);
  return dir;
}

void umrun_data_dir_hint(const char *given, char *err, size_t len) {
  char dir[4096], path[8200];
  if (!given || !*given || given[0] == '/' || exists(given) || !*umrun_data_dir(dir, sizeof dir)) return;
  snprintf(path, sizeof path, "%s/%s", dir, given);
  const size_t used = strlen(err);
  if (exists(path) && used < len)
    snprintf(err + used, len - used, "; um's data folder has it: %s", path);
}

int umrun_ref_load(const char *given, um_ref **ref, char *err, size_t errlen) {
  char path[8200];
  snprintf(path, sizeof path, "%s", given);
  char dir[4096];
  if (!exists(path) && given[0] != '/' && *umrun_data_dir(dir, sizeof dir))
    snprintf(path, sizeof path, "%s/%s", dir, given);
  return um_ref_load(exists(path) ? path : given, ref, err, errlen);
}

/* The command line of --validate: the run's JSON, the reference and --json's file. -1: go on; else the exit
 * status (--help, or a usage error told on stderr). */
static int validate_args(int argc, char **argv, const char **frun, const char **fref, const char **fjson) {
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--validate")) continue;
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) return umrun_validate_usage(stdout), EXIT_OK;
    if (!strcmp(a, "--json")) {
      if (i + 1 >= argc) {
        fprintf(stderr, "umrun --validate: --json needs a file name\n");
        return EXIT_USAGE;
      }
      *fjson = argv[++i];
    } else if (a[0] == '-' && a[1]) {
      fprintf(stderr, "umrun --validate: unknown option '%s' (see umrun --validate --help)\n", a);
      return EXIT_USAGE;
    } else if (!*frun) *frun = a;
    else if (!*fref) *fref = a;
    else {
      fprintf(stderr, "umrun --validate: give a run's JSON and a reference; '%s' is a third file\n", a);
      return EXIT_USAGE;
    }
  }
  if (!*frun || !*fref) {
    fprintf(stderr, "usage: umrun --validate RUN.json REF.yaml [--json FILE] (see umrun --validate --help)\n");
    return EXIT_USAGE;
  }
  const char *const ins[] = {*frun, *fref};
  if (umrun_output_is_input(*fjson, ins, 2) >= 0) {
    fprintf(stderr, "umrun --validate: --json '%s' is the run or the reference it checks; write it elsewhere\n", *fjson);
    return EXIT_USAGE;
  }
  return -1;
}

/* A reference given as one of umrun's JSON files (a run's --json, a suite's results): 1, said on stderr (the
 * YAML loader would complain of its dotted keys instead). A JSON reference in YAML's flow style goes on. */
static int ref_is_umrun_json(const char *fref) {
  uj *v = NULL;
  char err[512];
  if (uj_parse_file(fref, &v, err, sizeof err)) return 0; /* not JSON, or not here: the loader says */
  const char *fmt = uj_gets(v, "format", "");
  const int results = !strncmp(fmt, "um-suite-results-", 17) || uj_get(v, "cases");
  const int run = !strncmp(fmt, "um-run-", 7) || uj_get(v, "loops") || uj_get(v, "options");
  uj_free(v);
  if (results || run)
    fprintf(stderr,
            "umrun --validate: '%s' is %s, not a reference (a .ref.yaml with app: and metrics:, as in "
            "validation/<app>/); give a run's JSON, then its reference: umrun --validate RUN.json REF.yaml\n",
            fref, results ? "a results file of umrun --suite" : "a run's --json");
  return results || run;
}

/* The run's JSON, checked to be one run's: 0, or the exit status (said on stderr). */
static int load_run(const char *frun, uj **R) {
  char err[4096];
  if (uj_parse_file(frun, R, err, sizeof err)) {
    const size_t l = strlen(frun);
    const int yaml = (l > 5 && !strcmp(frun + l - 5, ".yaml")) || (l > 4 && !strcmp(frun + l - 4, ".yml"));
    fprintf(stderr, "umrun --validate: %s%s\n", err,
            yaml ? "; the run's JSON comes first, then the reference: umrun --validate RUN.json REF.yaml" : "");
    return EXIT_USAGE;
  }
  const uj *metrics = uj_get(*R, "metrics");
  const char *fmt = uj_gets(*R, "format", NULL); /* none: an older file (no provenance), read as it is */
  if (fmt && !strcmp(fmt, UMRUN_RESULTS_FORMAT))
    fprintf(stderr, "umrun --validate: '%s' is a results file of umrun --suite (many runs); give one run's JSON, "
                    "as `umrun CONFIG --json RUN.json` writes it\n", frun);
  else if (fmt && strcmp(fmt, UMRUN_RUN_FORMAT) != 0)
    fprintf(stderr, "umrun --validate: '%s' is of format '%s'; this umrun reads %s (and older files without a "
                    "format): validate it with the umrun that wrote it\n", frun, fmt, UMRUN_RUN_FORMAT);
  else if (!uj_gets(*R, "app", NULL) || !metrics || metrics->kind != UJ_OBJ)
    fprintf(stderr, "umrun --validate: '%s' is not a run's JSON (it needs \"app\" and a \"metrics\" object, as "
                    "`umrun CONFIG --json RUN.json` writes them)\n", frun);
  else
    return 0;
  uj_free(*R);
  *R = NULL;
  return EXIT_USAGE;
}

/* --json FILE: the result in the format of a run's "validation"; the exit status, or EXIT_USAGE when it cannot be
 * written */
static int write_result(const char *fjson, const um_ref *ref, const um_validation_result *res, int status) {
  char err[4096];
  um_safe_file sf;
  int bad = um_safe_open(&sf, fjson, err, sizeof err);
  if (!bad) {
    um_validation_write_json(ref, res, sf.f);
    fputc('\n', sf.f);
    bad = um_safe_commit(&sf, err, sizeof err); /* removes the temporary on failure */
  }
  if (!bad) return status;
  fprintf(stderr, "umrun --validate: --json %s: %s\n", fjson, err);
  return EXIT_USAGE;
}

/* The run R's metrics against ref: the table (held until the reference is known to be the run's app's, so that
 * a refused reference leaves no header without a table), the verdict, the exit status. */
static int judge(const uj *R, const char *frun, const char *fref, const um_ref *ref, const char *fjson) {
  const uj *metrics = uj_get(R, "metrics");
  const char *app = uj_gets(R, "app", NULL);
  const int n = metrics->n;
  const char **names = malloc((size_t)(n ? n : 1) * sizeof *names);
  double *values = malloc((size_t)(n ? n : 1) * sizeof *values);
  char *held = NULL;
  size_t nheld = 0;
  FILE *out = names && values ? open_memstream(&held, &nheld) : NULL;
  if (!out) {
    fprintf(stderr, "umrun --validate: out of memory\n");
    free(names), free(values);
    return EXIT_USAGE;
  }
  for (int i = 0; i < n; i++) {
    const uj *v = &metrics->items[i];
    names[i] = metrics->keys[i];
    values[i] = v->kind == UJ_NUM ? v->num : NAN; /* null: the run wrote a non-finite value */
  }
  /* A run that did not finish cannot pass, whatever its metrics say: only a
   * completed run ("ok"; or judged already, "validation failed" / "validation
   * error" / "not comparable" (its settings differ from the reference's config),
   * which a revised or another reference may judge again) is validated. */
  const char *run_status = uj_gets(R, "status", NULL);
  const int finished = run_status && (!strcmp(run_status, "ok") || !strcmp(run_status, "validation failed") ||
                                      !strcmp(run_status, "validation error") || !strcmp(run_status, "not comparable"));
  um_validation_result res;
  memset(&res, 0, sizeof res);
  const int rc = um_validate(ref, app, n, names, values, out, &res);
  fclose(out);
  free(names), free(values);
  if (rc && rc != UM_ERR_VALIDATION) {
    fprintf(stderr, "umrun --validate: %s\n", res.message);
    free(held);
    um_validation_result_free(&res);
    return EXIT_USAGE;
  }
  printf("run %s: %s, backend %s, strategy %s, layout %s, status %s, commit %s\n", frun, app,
         uj_gets(R, "backend", "?"), uj_gets(R, "strategy", "?"), uj_gets(R, "layout", "?"), uj_gets(R, "status", "?"),
         uj_gets(R, "um_commit", "?"));
  char changed[2048] = "", unknown[2048] = ""; /* the run's settings changed from its config's, as the run judges */
  const int differs = finished && !res.pass &&
                      umrun_changed_settings_json(R, fref, unknown, sizeof unknown, changed, sizeof changed) > 0;
  if (finished && !res.pass && unknown[0])
    printf("note: the run's config %s is not at hand as the run read it (moved, edited since, or a relative path "
           "from another folder), so whether it names this reference, and the run's changes to it make the run "
           "another (%s), could not be checked: judged on the metrics\n",
           uj_gets(R, "config", "?"), unknown);
  if (differs) /* as at the end of the run: the table of a run not comparable is not shown */
    umrun_print_not_comparable(stdout, fref, changed, &res,
                               "To validate, run without these changes (or check it against a reference of the "
                               "changed run).");
  else {
    printf("validation against %s:\n", fref);
    fwrite(held, 1, nheld, stdout);
  }
  free(held);
  if (ref->nfields)
    printf("the reference's %d field%s not checked: a run's JSON holds no field files (rerun with "
           "--set validation.reference=%s for them)\n",
           ref->nfields, ref->nfields == 1 ? " is" : "s are", fref);
  if (!finished) {
    res.pass = 0;
    snprintf(res.message, sizeof res.message,
             "the run did not finish (status '%.200s'): a failed run cannot pass validation, whatever its metrics",
             run_status ? run_status : "missing");
    printf("VALIDATION FAILED: %s; fix the run and run it again\n", res.message);
  } else if (res.pass)
    printf("VALIDATION PASS (%d metrics)\n", res.nmetrics);
  else if (!differs)
    printf("VALIDATION FAILED (%d of %d metrics)\n", res.nfail, res.nmetrics);
  int status = res.pass ? EXIT_OK : EXIT_VALIDATION; /* not comparable: 3, as the run's own check */
  if (fjson) status = write_result(fjson, ref, &res, status);
  um_validation_result_free(&res);
  return status;
}

int umrun_validate_main(int argc, char **argv) {
  const char *frun = NULL, *fref = NULL, *fjson = NULL;
  const int args = validate_args(argc, argv, &frun, &fref, &fjson);
  if (args >= 0) return args;
  char own[32];
  const char **outs[] = {&fjson}; /* --json /dev/stdout > v.json: the JSON alone */
  umrun_outputs_own_stdout(outs, 1, own, sizeof own);

  uj *R = NULL;
  const int bad = load_run(frun, &R);
  if (bad) return bad;
  char err[4096];
  um_ref *ref = NULL;
  if (ref_is_umrun_json(fref)) {
    uj_free(R);
    return EXIT_USAGE;
  }
  if (umrun_ref_load(fref, &ref, err, sizeof err)) {
    fprintf(stderr, "umrun --validate: %s\n", err);
    uj_free(R);
    return EXIT_USAGE;
  }
  const int status = judge(R, frun, fref, ref, fjson);
  um_ref_free(ref);
  uj_free(R);
  return status;
}
