/* umrun --sweep: every combination runs as its own umrun process (a fresh
 * engine each time, nothing shared), appending its per-loop rows to one CSV;
 * then the CSV is regrouped per loop and plotted with gnuplot, run as an
 * argument vector (never through a shell). */
#include "sweep.h"
#include "child.h"
#include "options.h"
#include "paths.h"
#include "um/safe_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int umrun_sweep_add(umrun_sweep_spec *s, const char *arg, char *err, size_t errlen) {
  const char *eq = strchr(arg, '=');
  if (!eq || eq == arg || !eq[1])
    return um_format_error(err, errlen, -1, "--sweep '%s': expected key=value1,value2,... (e.g. run.block_size=64,128,256)",
                           arg);
  if (s->nkeys >= UMRUN_SWEEP_MAX_KEYS)
    return um_format_error(err, errlen, -1, "--sweep: at most %d keys", UMRUN_SWEEP_MAX_KEYS);
  int k = s->nkeys;
  size_t klen = (size_t)(eq - arg);
  if (klen >= sizeof s->key[k] || strlen(eq + 1) >= sizeof s->storage[k])
    return um_format_error(err, errlen, -1, "--sweep '%s': too long", arg);
  for (int j = 0; j < k; j++)
    if (strlen(s->key[j]) == klen && !strncmp(s->key[j], arg, klen))
      return um_format_error(err, errlen, -1, "--sweep: key '%.*s' given twice", (int)klen, arg);
  memcpy(s->key[k], arg, klen);
  s->key[k][klen] = '\0';
  strcpy(s->storage[k], eq + 1);
  s->nvalues[k] = 0;
  for (char *tok = s->storage[k];;) { /* every value, the empty ones too (strtok skips them) */
    char *comma = strchr(tok, ',');
    if (comma) *comma = '\0';
    while (*tok == ' ' || *tok == '\t') tok++; /* "64, 128": the blanks around a value are not part of it */
    for (char *end = tok + strlen(tok); end > tok && (end[-1] == ' ' || end[-1] == '\t');) *--end = '\0';
    if (!*tok)
      return um_format_error(err, errlen, -1,
                             "--sweep %s=%s: value %d is empty (an unset variable?); list the values "
                             "with one comma between each two (e.g. 64,128)",
                             s->key[k], eq + 1, s->nvalues[k] + 1);
    for (int j = 0; j < s->nvalues[k]; j++)
      if (!strcmp(s->values[k][j], tok))
        return um_format_error(err, errlen, -1,
                               "--sweep %s lists '%s' twice: each value is a run, and the second "
                               "would repeat the first; list it once",
                               s->key[k], tok);
    if (s->nvalues[k] >= 64) return um_format_error(err, errlen, -1, "--sweep %s: at most 64 values", s->key[k]);
    s->values[k][s->nvalues[k]++] = tok;
    if (!comma) break;
    tok = comma + 1;
  }
  s->nkeys++;
  return 0;
}

int umrun_sweep_check_keys(const umrun_sweep_spec *s, const um_app *app, const char *const *sets, int nsets, char *err,
                           size_t errlen) {
  for (int k = 0; k < s->nkeys; k++) {
    const char *key = s->key[k];
    if (!strcmp(key, "app"))
      return um_format_error(err, errlen, -1,
                             "--sweep app: a sweep runs one app's config over that app's options; "
                             "to run several apps, run each config (or umrun --suite, a case per app)");
    if (!umrun_key_declared(app, key)) { /* every run would fail alike */
      const char *near = umrun_option_suggest(app, key);
      return um_format_error(err, errlen, -1,
                             "--sweep %s: neither umrun nor %s nor a backend has an option of that name%s%s%s "
                             "(umrun --help, and the app's options in docs/options.md)",
                             key, app ? app->name : "the app", near ? "; did you mean '" : "", near ? near : "",
                             near ? "'?" : "");
    }
    const size_t kl = strlen(key);
    for (int i = 0; i < nsets; i++) /* the swept value would replace the --set one in every run, silently */
      if (!strncmp(sets[i], key, kl) && (sets[i][kl] == '=' || sets[i][kl] == ' '))
        return um_format_error(err, errlen, -1,
                               "--sweep %s and --set %s name the same key: the sweep's values would "
                               "replace the --set one in every run; leave out one of them",
                               key, sets[i]);
  }
  return 0;
}

int umrun_sweep_resolve_paths(umrun_sweep_spec *s, const um_runner *r, const char *config_path, const char *app,
                              char *err, size_t errlen) {
  for (int k = 0; k < s->nkeys; k++) {
    char buf[sizeof s->storage[k]], one[4096];
    size_t used = 0, at[64];
    for (int v = 0; v < s->nvalues[k]; v++) {
      if (umrun_resolve_path_value(r, config_path, app, s->key[k], s->values[k][v], one, sizeof one, err, errlen))
        return -1;
      const size_t n = strlen(one) + 1;
      if (used + n > sizeof buf) return um_format_error(err, errlen, -1, "%s: the values' paths are too long", s->key[k]);
      memcpy(buf + used, one, n);
      at[v] = used;
      used += n;
    }
    memcpy(s->storage[k], buf, used);
    for (int v = 0; v < s->nvalues[k]; v++) s->values[k][v] = s->storage[k] + at[v];
  }
  return 0;
}

void umrun_csv_header(FILE *f) {
  fputs("variant,app,backend,strategy,layout,reorder,block_size,loop,calls,seconds,ms_per_call,gb_per_s,set_size,"
        "blocks,block_colours,thread_colours_mean,shared_bytes_mean,reuse_factor,cache_lines_mean,status,parent\n",
        f);
}

void umrun_csv_rows(FILE *f, const char *label, const char *app, const um_context *ctx, const char *layout,
                    const char *reorder, int block_size, const char *status) {
  um_loop_stats s;
  for (int i = 0; i < um_loop_stats_count(ctx); i++) {
    if (um_loop_stats_get(ctx, i, &s) != UM_SUCCESS || s.calls == 0) continue;
    double per = s.seconds / (double)s.calls;
    fprintf(f, "%s,%s,%s,%s,%s,%s,%d,%s,%ld,%.6f,%.6f,%.4f,%d,%d,%d,%.3f,%.1f,%.4f,%.2f,%s,%s\n", label, app,
            um_context_backend(ctx), um_strategy_name(um_context_strategy(ctx)), layout, reorder,
            block_size, s.name, s.calls, s.seconds, 1e3 * per, per > 0 ? s.bytes / per * 1e-9 : 0.0, s.set_size,
            s.nblocks, s.nblock_colours, s.mean_thread_colours, s.shared_bytes_mean, s.reuse_factor,
            s.cache_lines_mean, status, s.parent ? s.parent : "");
  }
}

/* ---- plots ------------------------------------------------------------------ */
#define MAXROWS 20000
typedef struct {
  char variant[256], loop[64];
  int block_size;
  double gbs;
} row;

static int read_rows(const char *csv, row *rows, int cap) {
  FILE *f = um_read_open(csv, 0, NULL, NULL, 0);
  if (!f) return -1;
  char line[2048];
  int n = 0;
  if (!fgets(line, sizeof line, f)) { fclose(f); return 0; }
  while (n < cap && fgets(line, sizeof line, f)) {
    char *field[24];
    int nf = 0;
    for (char *p = line; nf < 24;) { /* split at commas; no field is quoted */
      field[nf++] = p;
      p += strcspn(p, ",\n");
      if (*p != ',') { *p = '\0'; break; }
      *p++ = '\0';
    }
    if (nf < 12) continue;
    snprintf(rows[n].variant, sizeof rows[n].variant, "%s", field[0]);
    snprintf(rows[n].loop, sizeof rows[n].loop, "%s", field[7]);
    rows[n].block_size = atoi(field[6]);
    rows[n].gbs = atof(field[11]);
    n++;
  }
  fclose(f);
  return n;
}

static int cmp_rows(const void *a, const void *b) {
  const row *x = a, *y = b;
  int c = strcmp(x->loop, y->loop);
  if (!c) c = strcmp(x->variant, y->variant);
  if (!c) c = (x->block_size > y->block_size) - (x->block_size < y->block_size);
  return c;
}

void umrun_sweep_usage(FILE *f) {
  fputs("usage: umrun CONFIG.yaml --sweep key=v1,v2,... [--sweep key2=...]... [--sweep-out DIR] [--set key=value]...\n"
        "\n"
        "Runs CONFIG once for every combination of the listed values (at most 8 keys), each as its own\n"
        "umrun process, validated as the config says, e.g.\n"
        "  umrun configs/airfoil_small.yaml --sweep run.block_size=64,128,256,512 --sweep run.layout=aos,soa\n"
        "The config and each value are checked before the first run: a key neither umrun nor the app\n"
        "has (with the closest that is, as --set's), an empty value or one listed twice, a key --set\n"
        "sets too (the sweep's values would replace it) and app (sweep one app's options; --suite\n"
        "runs several apps) are refused. A config can carry the list too:\n"
        "  sweep: [\"run.block_size=64,128,256\", \"run.layout=aos,soa\"]\n"
        "\n"
        "  --sweep key=v1,v2,...  one key and its values (repeatable)\n"
        "  --sweep-out DIR        where to write (default out/sweep_<app>)\n"
        "  --set key=value        applied to every run, before the swept value\n"
        "\n"
        "writes, in DIR: sweep.csv (one row per loop and run: time, useful GB/s, plan statistics;\n"
        "an earlier sweep.csv is replaced when the sweep is done), run_<k>.log per run, and per loop\n"
        "sweep_<loop>.svg and .png: useful GB/s (from 0) against block size, one line per variant\n"
        "(gnuplot, run without a shell; the script is sweep.gp).\n"
        "\n"
        "exit status: 0 every run succeeded; 1 bad command line or config (before any run);\n"
        "2 the sweep's files could not be written; 3 some run failed (its log says why).\n",
        f);
}

/* A loop name as it goes into file names and the gnuplot script: letters,
 * digits, '_', '-' and '.' only (anything else becomes '_'), so no text from
 * the CSV can end a quoted gnuplot string or reach a shell. */
static void safe_name(char *dst, size_t len, const char *src) {
  size_t k = 0;
  for (; *src && k + 1 < len; src++, k++) {
    const char c = *src;
    const int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                   c == '-' || (c == '.' && k > 0);
    dst[k] = ok ? c : '_';
  }
  dst[k] = '\0';
  if (!k) snprintf(dst, len, "loop");
}

/* One data file per loop with a block per variant, and one gnuplot script,
 * each written through a temporary renamed into place. The script names its
 * files relative to the sweep folder (gnuplot runs there), never the folder. */
static int write_plots(const char *outdir, char *err, size_t errlen) {
  char path[4096];
  snprintf(path, sizeof path, "%s/sweep.csv", outdir);
  row *rows = malloc(sizeof(row) * MAXROWS);
  if (!rows) return um_format_error(err, errlen, -1, "out of memory");
  int n = read_rows(path, rows, MAXROWS);
  if (n <= 0) {
    free(rows);
    return um_format_error(err, errlen, -1, "no rows in %s to plot", path);
  }
  qsort(rows, (size_t)n, sizeof *rows, cmp_rows);
  snprintf(path, sizeof path, "%s/sweep.gp", outdir);
  um_safe_file gsf;
  if (um_safe_open(&gsf, path, err, errlen)) {
    free(rows);
    return -1;
  }
  FILE *gp = gsf.f;
  fprintf(gp, "# generated by umrun --sweep: useful bandwidth against block size, one line per variant\n"
              "# run in the sweep folder: gnuplot sweep.gp\n"
              "set datafile separator ','\nset key outside right\nset logscale x 2\nset grid\n"
              "set xlabel 'block size (elements)'\nset ylabel 'useful GB/s'\n"
              "set yrange [0:*]  # bandwidth from 0, so heights compare\n");
  for (int i = 0; i < n;) {
    int j = i;
    while (j < n && !strcmp(rows[j].loop, rows[i].loop)) j++;
    char loop[64], dat[4096];
    safe_name(loop, sizeof loop, rows[i].loop);
    snprintf(dat, sizeof dat, "%s/sweep_%s.dat", outdir, loop);
    um_safe_file dsf;
    if (um_safe_open(&dsf, dat, err, errlen)) {
      um_safe_abort(&gsf);
      free(rows);
      return -1;
    }
    int nblocks = 0;
    for (int k = i; k < j; k++) {
      if (k == i || strcmp(rows[k].variant, rows[k - 1].variant)) {
        fprintf(dsf.f, "%s\"%s\",\n", k == i ? "" : "\n\n", rows[k].variant);
        nblocks++;
      }
      fprintf(dsf.f, "%d,%.4f\n", rows[k].block_size, rows[k].gbs);
    }
    if (um_safe_commit(&dsf, err, errlen)) {
      um_safe_abort(&gsf);
      free(rows);
      return -1;
    }
    for (int fmt = 0; fmt < 2; fmt++) {
      fprintf(gp, "set terminal %s\nset output 'sweep_%s.%s'\nset title 'um sweep: %s'\n",
              /* noenhanced: '_' in loop and variant names is printed, not a subscript */
              fmt ? "pngcairo size 900,500 noenhanced" : "svg size 900,500 dynamic noenhanced", loop,
              fmt ? "png" : "svg", loop);
      fprintf(gp, "plot for [i=0:%d] 'sweep_%s.dat' index i using 1:2 with linespoints title columnheader(1)\n",
              nblocks - 1, loop);
    }
    i = j;
  }
  free(rows);
  return um_safe_commit(&gsf, err, errlen);
}

/* gnuplot sweep.gp in outdir, as an argument vector (no shell), its output in
 * gnuplot.log. Returns its exit status, 127 when gnuplot is not installed. */
static int run_gnuplot(const char *outdir) {
  char logp[4096];
  snprintf(logp, sizeof logp, "%s/gnuplot.log", outdir);
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    int fd = open(logp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      dup2(fd, STDOUT_FILENO);
      dup2(fd, STDERR_FILENO);
      close(fd);
    }
    if (chdir(outdir) != 0) _exit(126);
    char *const argv[] = {"gnuplot", "sweep.gp", NULL};
    execvp(argv[0], argv);
    _exit(127);
  }
  int st = 0;
  if (pid < 0 || waitpid(pid, &st, 0) < 0) return -1;
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* ---- driver ----------------------------------------------------------------- */
int umrun_sweep_run(const char *argv0, const char *config_path, const char *const *sets, int nsets,
                    const umrun_sweep_spec *spec, const char *outdir) {
  char errbuf[4096];
  if (umrun_mkdirs(outdir, errbuf, sizeof errbuf)) {
    fprintf(stderr, "umrun --sweep: cannot create %s\n", errbuf);
    return 2;
  }
  /* the children append to a temporary beside sweep.csv, renamed over it when all
   * have run: an earlier sweep.csv stays whole until then */
  char csvpath[4096];
  snprintf(csvpath, sizeof csvpath, "%s/sweep.csv", outdir);
  um_safe_file csvf;
  if (um_safe_open(&csvf, csvpath, errbuf, sizeof errbuf)) {
    fprintf(stderr, "umrun --sweep: %s\n", errbuf);
    return 2;
  }
  umrun_csv_header(csvf.f);
  if (fflush(csvf.f) != 0) {
    fprintf(stderr, "umrun --sweep: cannot write '%s': %s (%s)\n", csvpath, strerror(errno), um_safe_why(errno));
    um_safe_abort(&csvf);
    return 2;
  }
  const char *csv = csvf.tmp;
  long total = 1;
  for (int k = 0; k < spec->nkeys; k++) total *= spec->nvalues[k];
  printf("umrun --sweep: %ld runs of %s, results in %s\n", total, config_path ? config_path : "(default config)",
         outdir);
  int failures = 0, idx[UMRUN_SWEEP_MAX_KEYS] = {0};
  for (long r = 0; r < total; r++) {
    /* child: umrun CONFIG [--set ...] --set k=v ... --quiet --csv FILE --csv-label L */
    const char *args[256];
    char sets_buf[UMRUN_SWEEP_MAX_KEYS][1200], label[512] = "", logp[4096];
    int na = 0;
    args[na++] = argv0;
    if (config_path) args[na++] = config_path;
    for (int i = 0; i < nsets && na < 200; i++) { args[na++] = "--set"; args[na++] = sets[i]; }
    for (int k = 0; k < spec->nkeys; k++) {
      snprintf(sets_buf[k], sizeof sets_buf[k], "%s=%s", spec->key[k], spec->values[k][idx[k]]);
      args[na++] = "--set";
      args[na++] = sets_buf[k];
      if (strcmp(spec->key[k], "run.block_size")) { /* the x axis is not part of a variant's name */
        size_t l = strlen(label);
        snprintf(label + l, sizeof label - l, "%s%.200s", l ? " " : "", sets_buf[k]);
      }
    }
    if (!label[0]) snprintf(label, sizeof label, "default");
    for (char *p = label; *p; p++)
      if (*p == ',' || *p == '"' || *p == '\n' || *p == '\r') *p = ';';
    args[na++] = "--quiet";
    args[na++] = "--sweep-child";
    if (spec->allow_compiler) args[na++] = "--allow-compiler";
    if (spec->no_validate) args[na++] = "--no-validate";
    args[na++] = "--csv";
    args[na++] = csv;
    args[na++] = "--csv-label";
    args[na++] = label;
    args[na] = NULL;
    snprintf(logp, sizeof logp, "%s/run_%ld.log", outdir, r);
    printf("[%ld/%ld]", r + 1, total);
    for (int k = 0; k < spec->nkeys; k++) printf(" %s", sets_buf[k]);
    fflush(stdout);
    umrun_child_result cr;
    const int code = umrun_run_child(args, logp, 0, &cr) == 0 ? cr.exit_code : -1;
    const char *what = code == 0 ? "ok" : code == 3 ? "VALIDATION FAILED" : "FAILED";
    printf("  %s  %.1f s%s%s\n", what, cr.seconds, code ? "  see " : "", code ? logp : "");
    if (code) failures++;
    for (int k = spec->nkeys - 1; k >= 0; k--) { /* next combination */
      if (++idx[k] < spec->nvalues[k]) break;
      idx[k] = 0;
    }
  }
  if (um_safe_commit(&csvf, errbuf, sizeof errbuf)) {
    fprintf(stderr, "umrun --sweep: %s\n", errbuf);
    return 2;
  }
  if (failures == total) { /* no row to plot: the runs' failure is the news (exit 3), not the plots' */
    printf("umrun --sweep: %ld runs, all failed (their logs: %s/run_<n>.log); nothing to plot\n", total, outdir);
    return 3;
  }
  if (write_plots(outdir, errbuf, sizeof errbuf)) {
    fprintf(stderr, "umrun --sweep: %s\n", errbuf);
    return 2;
  }
  const int gst = run_gnuplot(outdir);
  if (gst == 127)
    printf("umrun --sweep: gnuplot not found (apt-get install gnuplot-nox); the script is %s/sweep.gp\n", outdir);
  else if (gst != 0)
    printf("umrun --sweep: gnuplot failed, see %s/gnuplot.log\n", outdir);
  else
    printf("umrun --sweep: wrote %s/sweep.csv and plots %s/sweep_<loop>.svg/.png\n", outdir, outdir);
  printf("umrun --sweep: %ld runs, %d failed\n", total, failures);
  return failures ? 3 : 0;
}
