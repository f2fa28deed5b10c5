/* umrun --suite: the machine (its description and host copy bandwidth), one run (judged by its
 * exit status, validation and log; same_bits across a case's runs) and the outputs (results JSON,
 * JUnit XML, markdown) and the expansion of a case into its runs. */
#include "suite_internal.h"
#include "provenance.h"

/* ---- the machine ------------------------------------------------------------------ */

static void write_machine(FILE *f, double host_gbs, const suite_info *info, const uj *gpu) {
  char cpu[256], mem[128];
  umrun_proc_field("/proc/cpuinfo", "model name", cpu, sizeof cpu);
  umrun_proc_field("/proc/meminfo", "MemTotal", mem, sizeof mem);
  struct utsname u;
  memset(&u, 0, sizeof u);
  uname(&u);
  char host[256] = "";
  gethostname(host, sizeof host - 1);
  fputs("{\"host\": ", f);
  um_json_string(f, host);
  fputs(", \"os\": ", f);
  char os[600];
  snprintf(os, sizeof os, "%s %s %s", u.sysname, u.release, u.machine);
  um_json_string(f, os);
  fputs(", \"cpu\": ", f);
  um_json_string(f, cpu[0] ? cpu : "unknown");
  fprintf(f, ", \"cores\": %ld, \"memory_gib\": %.1f, \"threads\": %d, \"host_copy_gb_per_s\": ",
          sysconf(_SC_NPROCESSORS_ONLN), atof(mem) / (1024.0 * 1024.0),
#ifdef _OPENMP
          omp_get_max_threads()
#else
          1
#endif
  );
  um_json_number(f, host_gbs > 0 ? host_gbs : NAN);
  fputs(", \"host_copy_samples_gb_per_s\": [", f); /* host_copy_gb_per_s is their median */
  for (int i = 0; i < info->ncopy; i++) {
    fputs(i ? ", " : "", f);
    um_json_number(f, info->copy[i]);
  }
  fputs("], \"host_peak_fp64_gflop_per_s\": ", f);
  um_json_number(f, info->peak_gflops > 0 ? info->peak_gflops : NAN);
  fputs(", \"gpu\": ", f);
  if (!gpu) {
    fputs("null}", f);
    return;
  }
  fputs("{\"name\": ", f);
  um_json_string(f, uj_gets(gpu, "name", ""));
  fputs(", \"compute_capability\": ", f);
  um_json_string(f, uj_gets(gpu, "compute_capability", ""));
  fputs(", \"multiprocessors\": ", f);
  um_json_number(f, uj_getn(gpu, "multiprocessors", NAN));
  fputs(", \"memory_gib\": ", f);
  um_json_number(f, uj_getn(gpu, "memory_gib", NAN));
  fputs(", \"driver\": ", f);
  um_json_string(f, uj_gets(gpu, "driver", ""));
  fputs(", \"cuda_runtime\": ", f);
  um_json_string(f, uj_gets(gpu, "cuda_runtime", ""));
  /* the kernel driver's release (e.g. 580.159.04): cudaDriverGetVersion gives only its CUDA level */
  char rel[64] = "";
  FILE *dv = fopen("/proc/driver/nvidia/version", "r");
  if (dv) {
    char line[512];
    if (fgets(line, sizeof line, dv)) {
      /* "NVRM version: NVIDIA UNIX [Open ]Kernel Module [for x86_64]  580.159.04  ...": the first
       * token of digits and dots after "Module" */
      const char *k = strstr(line, "Module");
      for (char tok[64]; k && sscanf(k, " %63s", tok) == 1; k = strstr(k, tok) + strlen(tok))
        if (tok[0] >= '0' && tok[0] <= '9' && strchr(tok, '.') && strspn(tok, "0123456789.") == strlen(tok)) {
          snprintf(rel, sizeof rel, "%s", tok);
          break;
        }
    }
    fclose(dv);
  }
  fputs(", \"driver_release\": ", f);
  um_json_string(f, rel);
  fputs(", \"copy_gb_per_s\": ", f);
  um_json_number(f, uj_getn(gpu, "copy_gb_per_s", NAN));
  fputs(", \"peak_fp64_gflop_per_s\": ", f);
  um_json_number(f, uj_getn(gpu, "peak_fp64_gflop_per_s", NAN));
  fputs("}}", f);
}

double suite_loadavg(void) { return umrun_loadavg(); }

int suite_busy(double load, long cores) { return umrun_busy(load, cores); }

static int cmp_double(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* the median of v[0..n) (sorted in place); min and max */
static double median_of(double *v, int n, double *mn, double *mx) {
  if (n > 1) qsort(v, (size_t)n, sizeof *v, cmp_double);
  *mn = v[0];
  *mx = v[n - 1];
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Loop `name`'s value of key in each sample that has it, into v: how many. */
static int loop_samples(uj *const *samples, int n, const char *name, const char *key, double *v) {
  int k = 0;
  for (int s = 0; s < n; s++) { /* the same loop in each sample (by name: the loops' order is the run's) */
    const uj *ls = uj_get(samples[s], "loops");
    for (int q = 0; q < uj_len(ls); q++)
      if (!strcmp(uj_gets(uj_at(ls, q), "name", ""), name)) {
        if (uj_get(uj_at(ls, q), key)) v[k++] = uj_getn(uj_at(ls, q), key, NAN);
        break;
      }
  }
  return k;
}

void umrun_merge_samples(uj *run, uj *const *samples, int n) {
  if (!run || n < 1) return;
  double *v = malloc((size_t)n * sizeof *v), mn, mx;
  if (!v) return;
  uj *loops = (uj *)uj_get(run, "loops");
  for (int i = 0; i < uj_len(loops); i++) {
    uj *l = &loops->items[i];
    const char *name = uj_gets(l, "name", "");
    int k = loop_samples(samples, n, name, "seconds", v);
    if (!k) continue;
    double med = median_of(v, k, &mn, &mx);
    uj_set_num(l, "seconds", med);
    uj_set_num(l, "seconds_min", mn);
    uj_set_num(l, "seconds_max", mx);
    uj_set_num(l, "samples", k);
    /* under MPI the run's time is its slowest rank's and its bytes every rank's (report.c's gb_per_s) */
    const int ranks = uj_get(l, "seconds_rank_max") && uj_get(l, "bytes_per_call_all_ranks");
    if (ranks && (k = loop_samples(samples, n, name, "seconds_rank_max", v)) > 0)
      uj_set_num(l, "seconds_rank_max", med = median_of(v, k, &mn, &mx));
    const double calls = uj_getn(l, "calls", 0), per = calls > 0 ? med / calls : 0, ops = uj_getn(l, "ops_estimate", NAN);
    const double bytes = uj_getn(l, ranks ? "bytes_per_call_all_ranks" : "bytes_per_call", 0),
                 elems = uj_getn(l, ranks ? "set_size_all_ranks" : "set_size", 0);
    uj_set_num(l, "gb_per_s", per > 0 ? bytes / per * 1e-9 : 0);
    if (uj_get(l, "gflop_per_s")) uj_set_num(l, "gflop_per_s", per > 0 ? ops * elems / per * 1e-9 : NAN);
  }
  int k = 0;
  for (int s = 0; s < n; s++) v[k++] = uj_getn(samples[s], "total_seconds", NAN);
  const double med = median_of(v, k, &mn, &mx);
  uj_set_num(run, "total_seconds", med);
  uj_set_num(run, "total_seconds_min", mn);
  uj_set_num(run, "total_seconds_max", mx);
  uj_set_num(run, "repeat", n);
  free(v);
}

void suite_merge_samples(suite_run *r, uj *const *samples, int n) {
  if (!r->json || n < 1) return;
  umrun_merge_samples(r->json, samples, n);
  uj *run = r->json;
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  if (!f) return;
  uj_write(f, run);
  fclose(f);
  free(r->json_text);
  r->json_text = text;
}

/* ---- one run ----------------------------------------------------------------------- */
static void last_lines(const char *path, char *out, size_t len, int nlines) {
  out[0] = '\0';
  FILE *f = fopen(path, "r");
  if (!f) return;
  char ring[8][512];
  int n = 0;
  char line[512];
  while (fgets(line, sizeof line, f)) {
    line[strcspn(line, "\n")] = '\0';
    if (!line[0]) continue;
    snprintf(ring[n % 8], sizeof ring[0], "%s", line);
    n++;
  }
  fclose(f);
  if (nlines > 8) nlines = 8;
  size_t l = 0;
  for (int i = n > nlines ? n - nlines : 0; i < n && l < len; i++)
    l += (size_t)snprintf(out + l, len - l, "%s%s", l ? " | " : "", ring[i % 8]);
}

void suite_judge(suite_run *r) {
  r->worst_margin = -1;
  char err[1024] = "";
  size_t len = 0;
  r->json_text = uj_read_file(r->json_path, (size_t)64 << 20, &len, err, sizeof err); /* a run's --json */
  if (r->json_text && uj_parse(r->json_text, len, r->json_path, &r->json, err, sizeof err)) {
    free(r->json_text);
    r->json_text = NULL;
    r->json = NULL;
  }
  const uj *val = uj_get(r->json, "validation");
  const uj *ms = uj_get(val, "metrics");
  for (int i = 0; i < uj_len(ms); i++) {
    const uj *m = uj_at(ms, i);
    const double allow = umrun_metric_allowance(m), d = uj_getn(m, "abs_err", NAN);
    double margin = allow > 0 ? d / allow : (d == 0 ? 0 : INFINITY);
    if (!uj_is_true(uj_get(m, "produced"))) margin = INFINITY;
    if (isnan(margin)) margin = INFINITY;
    if (margin > r->worst_margin) {
      r->worst_margin = margin;
      snprintf(r->worst_metric, sizeof r->worst_metric, "%s", uj_gets(m, "name", "?"));
    }
  }
  if (r->res.timed_out) {
    snprintf(r->status, sizeof r->status, "timeout");
    snprintf(r->message, sizeof r->message, "killed after %.0f s (timeout_s); see %.1900s", r->c->timeout_s, r->log_path);
    return;
  }
  if (r->res.signal) {
    snprintf(r->status, sizeof r->status, "error");
    snprintf(r->message, sizeof r->message, "ended by signal %d; see %.1900s", r->res.signal, r->log_path);
    return;
  }
  if (r->res.exit_code == 0 && r->json) {
    snprintf(r->status, sizeof r->status, "pass");
    if (!val) snprintf(r->message, sizeof r->message, "ran (no validation reference in this config)");
    return;
  }
  if (r->res.exit_code == EXIT_VALIDATION) {
    snprintf(r->status, sizeof r->status, "fail");
    size_t l = (size_t)snprintf(r->message, sizeof r->message, "validation failed:");
    for (int i = 0; i < uj_len(ms) && l < sizeof r->message; i++) {
      const uj *m = uj_at(ms, i);
      if (uj_is_true(uj_get(m, "pass"))) continue;
      l += (size_t)snprintf(r->message + l, sizeof r->message - l, " %s (got %.9g, ref %.9g, rel err %.2g)",
                            uj_gets(m, "name", "?"), uj_getn(m, "got", NAN), uj_getn(m, "ref", NAN),
                            uj_getn(m, "rel_err", NAN));
    }
    const uj *fs = uj_get(val, "fields");
    for (int i = 0; i < uj_len(fs) && l < sizeof r->message; i++)
      if (!uj_is_true(uj_get(uj_at(fs, i), "pass")))
        l += (size_t)snprintf(r->message + l, sizeof r->message - l, " field %s: %s", uj_gets(uj_at(fs, i), "name", "?"),
                              uj_gets(uj_at(fs, i), "message", ""));
    return;
  }
  snprintf(r->status, sizeof r->status, "error");
  char tail[1500];
  last_lines(r->log_path, tail, sizeof tail, 3);
  snprintf(r->message, sizeof r->message, "exit status %d%s: %s", r->res.exit_code,
           r->json ? "" : ", no results", tail[0] ? tail : "(no output)");
}

/* same_bits: each passing run of the case against the case's first passing run, metric by metric (the
 * validated metrics, printed with 17 digits: equal text, equal bits). A run that differs fails. */
void suite_same_bits(suite_run *runs, int nruns) {
  for (int i = 0; i < nruns; i++) {
    if (!runs[i].c->same_bits || strcmp(runs[i].status, "pass") != 0) continue;
    const suite_run *base = NULL;
    for (int j = 0; j < i && !base; j++)
      if (runs[j].c == runs[i].c && !strcmp(runs[j].status, "pass")) base = &runs[j];
    if (!base) continue;
    const uj *bm = uj_get(uj_get(base->json, "validation"), "metrics"), *rm = uj_get(uj_get(runs[i].json, "validation"), "metrics");
    for (int a = 0; a < uj_len(bm); a++) {
      const uj *m = uj_at(bm, a);
      const char *name = uj_gets(m, "name", "?");
      const uj *o = NULL;
      for (int b = 0; b < uj_len(rm) && !o; b++)
        if (!strcmp(uj_gets(uj_at(rm, b), "name", ""), name)) o = uj_at(rm, b);
      const double x = uj_getn(m, "got", NAN), y = o ? uj_getn(o, "got", NAN) : NAN;
      if (o && (memcmp(&x, &y, sizeof x) == 0 || (isnan(x) && isnan(y)))) continue;
      snprintf(runs[i].status, sizeof runs[i].status, "fail");
      snprintf(runs[i].message, sizeof runs[i].message,
               "not bit-identical to %.400s (the case asks same_bits): metric %.120s got %.17g here, %.17g there",
               base->id, name, y, x);
      printf("  %s: %s\n", runs[i].id, runs[i].message);
      break;
    }
  }
}

/* ---- outputs ---------------------------------------------------------------------- */
void suite_write_results(FILE *f, const char *suite_path, char **tags, int ntags, const char *only, suite_run *runs,
                   int nruns, double host_gbs, const char *started, double seconds, const suite_info *info) {
  const uj *gpu = NULL;
  for (int i = 0; i < nruns && !gpu; i++) gpu = uj_get(runs[i].json, "device");
  int np = 0, nf = 0, ne = 0;
  for (int i = 0; i < nruns; i++) {
    if (!strcmp(runs[i].status, "pass")) np++;
    else if (!strcmp(runs[i].status, "fail")) nf++;
    else ne++;
  }
  fputs("{\n  \"format\": \"um-suite-results-1\",\n  \"suite\": ", f);
  um_json_string(f, suite_path);
  fputs(",\n  \"tags\": [", f);
  for (int i = 0; i < ntags; i++) {
    fputs(i ? ", " : "", f);
    um_json_string(f, tags[i]);
  }
  fputs("],\n  \"only\": ", f);
  if (only) um_json_string(f, only);
  else fputs("null", f);
  fputs(",\n  \"started\": ", f);
  um_json_string(f, started);
  fprintf(f, ",\n  \"seconds\": %.3f,\n  \"repeat\": %d,\n  \"load\": {\"start\": ", seconds, info->repeat);
  um_json_number(f, info->load_start >= 0 ? info->load_start : NAN);
  fputs(", \"end\": ", f);
  um_json_number(f, info->load_end >= 0 ? info->load_end : NAN);
  fprintf(f, ", \"cores\": %ld, \"busy_runs\": %d},\n  \"um\": ", sysconf(_SC_NPROCESSORS_ONLN), info->busy_runs);
  umrun_write_build_json(f);
  fputs(",\n  \"machine\": ", f);
  write_machine(f, host_gbs, info, gpu);
  fprintf(f, ",\n  \"summary\": {\"runs\": %d, \"pass\": %d, \"fail\": %d, \"error\": %d},\n  \"cases\": [", nruns,
          np, nf, ne);
  for (int i = 0; i < nruns; i++) {
    const suite_run *r = &runs[i];
    fputs(i ? ",\n    {\"id\": " : "\n    {\"id\": ", f);
    um_json_string(f, r->id);
    fputs(", \"case\": ", f);
    um_json_string(f, r->c->name);
    fputs(", \"app\": ", f);
    um_json_string(f, r->c->app);
    fputs(", \"config\": ", f);
    um_json_string(f, r->c->config);
    fputs(", \"tags\": [", f);
    for (int t = 0; t < r->c->ntags; t++) {
      fputs(t ? ", " : "", f);
      um_json_string(f, r->c->tags[t]);
    }
    fputs("], \"set\": [", f);
    for (int t = 0; t < r->c->nsets; t++) {
      fputs(t ? ", " : "", f);
      um_json_string(f, r->c->sets[t]);
    }
    fputs("]", f);
    /* the variant: what the matrix chose, else what the run reports it used */
    const char *used[AXES] = {uj_gets(r->json, "backend", NULL), uj_gets(r->json, "strategy", NULL),
                              uj_gets(r->json, "layout", NULL), uj_gets(r->json, "reorder", NULL), NULL};
    for (int a = 0; a < 4; a++) {
      fprintf(f, ", \"%s\": ", axis_names[a]);
      um_json_string(f, r->val[a] ? r->val[a] : used[a] ? used[a] : "default");
    }
    fprintf(f, ", \"block_size_axis\": %s", r->val[4] ? r->val[4] : "0");
    fprintf(f, ", \"ranks\": %s", r->val[AXIS_RANKS] ? r->val[AXIS_RANKS] : "1");
    fputs(", \"partitioner\": ", f);
    const uj *part = uj_get(r->json, "partition");
    um_json_string(f, part ? uj_gets(part, "partitioner", "") : "");
    fputs(", \"status\": ", f);
    um_json_string(f, r->status);
    fprintf(f, ", \"exit_code\": %d, \"seconds\": %.3f, \"message\": ", r->res.exit_code, r->res.seconds);
    um_json_string(f, r->message);
    fputs(", \"worst_metric\": ", f);
    um_json_string(f, r->worst_metric);
    fputs(", \"worst_margin\": ", f);
    um_json_number(f, r->worst_margin >= 0 ? r->worst_margin : NAN);
    fprintf(f, ", \"samples\": %d, \"load\": {\"start\": ", r->samples);
    um_json_number(f, r->load_start >= 0 ? r->load_start : NAN);
    fputs(", \"end\": ", f);
    um_json_number(f, r->load_end >= 0 ? r->load_end : NAN);
    fprintf(f, ", \"cores\": %ld, \"threads\": %d, \"busy\": %s}", sysconf(_SC_NPROCESSORS_ONLN), r->threads,
            suite_busy(r->load_start, sysconf(_SC_NPROCESSORS_ONLN)) || suite_busy(r->load_end, sysconf(_SC_NPROCESSORS_ONLN))
                ? "true" : "false");
    fputs(", \"log\": ", f);
    um_json_string(f, r->log_path);
    fputs(",\n     \"run\": ", f);
    if (r->json_text) {
      size_t n = strlen(r->json_text);
      while (n && (r->json_text[n - 1] == '\n' || r->json_text[n - 1] == ' ')) n--;
      fwrite(r->json_text, 1, n, f);
    } else {
      fputs("null", f);
    }
    fputc('}', f);
  }
  fputs("\n  ]\n}\n", f);
}

void suite_write_junit(FILE *f, suite_run *runs, int nruns, double seconds) {
  int nf = 0, ne = 0;
  for (int i = 0; i < nruns; i++) {
    if (!strcmp(runs[i].status, "fail")) nf++;
    else if (strcmp(runs[i].status, "pass")) ne++;
  }
  fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"um validation suite\" tests=\"%d\" "
             "failures=\"%d\" errors=\"%d\" time=\"%.3f\">\n",
          nruns, nf, ne, seconds);
  for (int i = 0; i < nruns;) {
    int j = i;
    double t = 0;
    int cf = 0, ce = 0;
    while (j < nruns && runs[j].c == runs[i].c) {
      t += runs[j].res.seconds;
      cf += !strcmp(runs[j].status, "fail");
      ce += strcmp(runs[j].status, "pass") && strcmp(runs[j].status, "fail");
      j++;
    }
    fputs("  <testsuite name=\"", f);
    umrun_xml_escape(f, runs[i].c->name);
    fprintf(f, "\" tests=\"%d\" failures=\"%d\" errors=\"%d\" time=\"%.3f\">\n", j - i, cf, ce, t);
    for (int k = i; k < j; k++) {
      const suite_run *r = &runs[k];
      fputs("    <testcase classname=\"", f);
      umrun_xml_escape(f, r->c->app);
      fputs("\" name=\"", f);
      umrun_xml_escape(f, r->id);
      fprintf(f, "\" time=\"%.3f\"", r->res.seconds);
      if (!strcmp(r->status, "pass")) {
        fputs("/>\n", f);
        continue;
      }
      fprintf(f, ">\n      <%s message=\"", !strcmp(r->status, "fail") ? "failure" : "error");
      umrun_xml_escape(f, r->message);
      fputs("\">", f);
      umrun_xml_escape(f, r->message);
      fprintf(f, "</%s>\n      <system-out>log: ", !strcmp(r->status, "fail") ? "failure" : "error");
      umrun_xml_escape(f, r->log_path);
      fputs("</system-out>\n    </testcase>\n", f);
    }
    fputs("  </testsuite>\n", f);
    i = j;
  }
  fputs("</testsuites>\n", f);
}

const char *suite_status_word(const char *s) {
  return !strcmp(s, "pass") ? "PASS" : !strcmp(s, "fail") ? "FAIL" : !strcmp(s, "timeout") ? "TIMEOUT" : "ERROR";
}

void suite_variant_of(const suite_run *r, char *buf, size_t len) {
  size_t l = 0;
  buf[0] = '\0';
  for (int a = 0; a < AXES && l < len; a++)
    if (r->val[a])
      l += (size_t)snprintf(buf + l, len - l, "%s%s%s", l ? " " : "", a == 4 ? "b" : a == AXIS_RANKS ? "np" : "",
                            r->val[a]);
  if (!buf[0]) snprintf(buf, len, "(config)");
}

void suite_write_markdown(FILE *f, const char *suite_path, suite_run *runs, int nruns, const char *started,
                    double seconds, double host_gbs) {
  int np = 0;
  for (int i = 0; i < nruns; i++) np += !strcmp(runs[i].status, "pass");
  const uj *gpu = NULL;
  for (int i = 0; i < nruns && !gpu; i++) gpu = uj_get(runs[i].json, "device");
  char cpu[256];
  umrun_proc_field("/proc/cpuinfo", "model name", cpu, sizeof cpu);
  fputs("# um validation suite: ", f);
  umrun_md_escape(f, suite_path);
  fprintf(f, "\n\n- started %s, %.1f s; um %s, commit `%s` (%s build, %s)\n", started, seconds, UM_VERSION, um_commit_id,
          UM_BUILD_TYPE, UM_C_COMPILER);
  fputs("- CPU: ", f);
  umrun_md_escape(f, cpu[0] ? cpu : "unknown");
  fprintf(f, ", %ld cores, host copy %.0f GB/s\n", sysconf(_SC_NPROCESSORS_ONLN), host_gbs);
  if (gpu) { /* from a run's JSON: every string escaped */
    fputs("- GPU: ", f);
    umrun_md_escape(f, uj_gets(gpu, "name", "?"));
    fputs(" (cc ", f);
    umrun_md_escape(f, uj_gets(gpu, "compute_capability", "?"));
    fprintf(f, ", %.0f GiB, driver CUDA ", uj_getn(gpu, "memory_gib", 0));
    umrun_md_escape(f, uj_gets(gpu, "driver", "?"));
    fputs(", CUDA runtime ", f);
    umrun_md_escape(f, uj_gets(gpu, "cuda_runtime", "?"));
    fprintf(f, "), copy %.0f GB/s\n", uj_getn(gpu, "copy_gb_per_s", 0));
  }
  fprintf(f, "- **%d of %d runs pass**\n\n", np, nruns);
  fputs("| case | app | variant | status | time (s) | worst metric (share of tolerance) | note |\n", f);
  fputs("|---|---|---|---|---:|---|---|\n", f);
  for (int i = 0; i < nruns; i++) {
    const suite_run *r = &runs[i];
    char v[256], worst[200] = "";
    suite_variant_of(r, v, sizeof v);
    if (r->worst_margin >= 0) {
      if (isinf(r->worst_margin)) snprintf(worst, sizeof worst, "%s (missing or no tolerance)", r->worst_metric);
      else snprintf(worst, sizeof worst, "%s (%.3g)", r->worst_metric, r->worst_margin);
    }
    const char *cells[] = {r->c->name, r->c->app, v, suite_status_word(r->status), NULL, worst,
                           strcmp(r->status, "pass") ? r->message : ""};
    fputs("|", f);
    for (int k = 0; k < 7; k++) {
      fputc(' ', f);
      if (k == 4) fprintf(f, "%.1f", r->res.seconds);
      else umrun_md_escape(f, cells[k]); /* names, paths and messages reach markdown escaped */
      fputs(" |", f);
    }
    fputc('\n', f);
  }
}

/* Combination k of case c (the last axis fastest), as run number n. */
void suite_expand(suite_run *r, const suite_case *c, long k, int n) {
  memset(r, 0, sizeof *r);
  r->c = c;
  long rest = k;
  for (int a = AXES - 1; a >= 0; a--)
    if (c->naxis[a]) {
      r->val[a] = c->axis[a][rest % c->naxis[a]];
      rest /= c->naxis[a];
    }
  char v[256];
  suite_variant_of(r, v, sizeof v);
  snprintf(r->id, sizeof r->id, "%s[%s]", c->name, v);
  snprintf(r->file_id, sizeof r->file_id, "%04d_%s", n, c->name);
  for (char *p = r->file_id; *p; p++)
    if (*p == '/' || *p == ' ') *p = '_';
}
