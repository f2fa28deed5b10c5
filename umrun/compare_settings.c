/* umrun --compare: like with like (compare_settings.h). */
#include "compare_settings.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools.h"
#include "um/report.h"

int cmp_allow_add(cmp_allow *a, const char *list) {
  char *copy = strdup(list), *save = NULL;
  if (!copy) return -1;
  for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
    while (*t == ' ') t++;
    if (!*t) continue;
    char **k = realloc(a->keys, (size_t)(a->n + 1) * sizeof *k);
    if (!k || !(k[a->n] = strdup(t))) {
      if (k) a->keys = k;
      free(copy);
      return -1;
    }
    a->keys = k;
    a->n++;
  }
  free(copy);
  return 0;
}

void cmp_allow_free(cmp_allow *a) {
  for (int i = 0; i < a->n; i++) free(a->keys[i]);
  free(a->keys);
  a->keys = NULL;
  a->n = 0;
}

static int allowed(const cmp_allow *a, const char *key) {
  for (int i = 0; a && i < a->n; i++) {
    const char *k = a->keys[i];
    const size_t n = strlen(k);
    if (!strcmp(k, key)) return 1;
    if (n >= 2 && !strcmp(k + n - 2, ".*") && !strncmp(k, key, n - 1)) return 1; /* "params.*" */
  }
  return 0;
}

/* settings that say where and how a run's outputs go, not what it computes or how fast */
static int defining(const char *key) {
  static const char *const not_defining[] = {"output.", "checkpoint.", "run.cache", "run.unknown_keys", "mpi.deadline_s", "sweep"};
  for (size_t i = 0; i < sizeof not_defining / sizeof not_defining[0]; i++)
    if (!strncmp(key, not_defining[i], strlen(not_defining[i]))) return 0;
  return 1;
}

static void value_of(const uj *opt, char *buf, size_t n, char *src, size_t ns) {
  const uj *v = uj_get(opt, "value");
  snprintf(buf, n, "%s", !opt ? "(not set)" : v && v->kind == UJ_STR ? v->str : "(none)");
  snprintf(src, ns, "%s", opt ? uj_gets(opt, "source", "?") : "-");
}

/* key of one side against the other's: a difference into out[*n] (when there is room), counted */
static void one_key(const char *key, const uj *oa, const uj *ob, const cmp_allow *allow, cmp_setting *out, int cap,
                    int *n) {
  if (!defining(key)) return;
  const uj *x = uj_get(oa, key), *y = uj_get(ob, key);
  cmp_setting s;
  memset(&s, 0, sizeof s);
  value_of(x, s.a, sizeof s.a, s.sa, sizeof s.sa);
  value_of(y, s.b, sizeof s.b, s.sb, sizeof s.sb);
  if (!strcmp(s.a, s.b)) return;
  snprintf(s.key, sizeof s.key, "%s", key);
  s.allowed = allowed(allow, key);
  if (*n < cap) out[*n] = s;
  (*n)++;
}

int cmp_settings_differ(const uj *a, const uj *b, const cmp_allow *allow, cmp_setting *out, int cap, int *recorded) {
  const uj *oa = uj_get(a, "options"), *ob = uj_get(b, "options");
  /* (a run has a hundred options or so; a file with thousands is not a run's: its settings are not checked) */
  *recorded = oa && ob && oa->kind == UJ_OBJ && ob->kind == UJ_OBJ && oa->n <= 4096 && ob->n <= 4096;
  if (!*recorded) return 0;
  int n = 0;
  for (int i = 0; i < oa->n; i++) one_key(oa->keys[i], oa, ob, allow, out, cap, &n);
  for (int i = 0; i < ob->n; i++)
    if (!uj_get(oa, ob->keys[i])) one_key(ob->keys[i], oa, ob, allow, out, cap, &n);
  return n;
}

int cmp_loaded(const uj *case_entry) {
  return uj_is_true(uj_get(uj_get(case_entry, "load"), "busy")) ||
         uj_is_true(uj_get(uj_get(uj_get(case_entry, "run"), "load"), "busy"));
}

/* a single run's status as a suite judges it */
static const char *run_status(const uj *run) {
  const char *st = uj_gets(run, "status", "");
  const uj *val = uj_get(run, "validation");
  if (!strcmp(st, "ok")) return val && !uj_is_true(uj_get(val, "pass")) ? "fail" : "pass";
  if (!strcmp(st, "validation failed") || !strcmp(st, "not comparable")) return "fail";
  return "error";
}

/* v as JSON text into a growing buffer */
static void put(FILE *f, const uj *v) {
  if (v) uj_write(f, v);
  else fputs("null", f);
}

int cmp_load_file(const char *path, uj **out, int *single, char *err, size_t len) {
  size_t n = 0;
  *out = NULL;
  *single = 0;
  char *text = uj_read_file(path, UJ_MAX_BYTES, &n, err, len);
  if (!text) return -1;
  uj *v = NULL;
  if (uj_parse(text, n, path, &v, err, len)) return free(text), -1;
  if (uj_get(v, "cases") || !uj_get(v, "loops") || !uj_get(v, "app")) { /* a results file, or neither */
    free(text);
    *out = v;
    return 0;
  }
  char *w = NULL; /* a single run: the results file of that run */
  size_t wn = 0;
  FILE *f = open_memstream(&w, &wn);
  if (!f) return free(text), uj_free(v), snprintf(err, len, "out of memory"), -1;
  const char *app = uj_gets(v, "app", "run");
  fputs("{\"format\": \"um-suite-results-1\", \"single_run\": true, \"machine\": ", f);
  put(f, uj_get(v, "machine"));
  fputs(", \"um\": ", f);
  put(f, uj_get(v, "build"));
  const char *st = run_status(v); /* the summary and the load of a suite of one run (umrun --report shows them) */
  const uj *ld = uj_get(v, "load");
  fprintf(f, ", \"summary\": {\"runs\": 1, \"pass\": %d, \"fail\": %d, \"error\": %d}, \"repeat\": %.0f",
          !strcmp(st, "pass"), !strcmp(st, "fail"), !strcmp(st, "error"), uj_getn(v, "repeat", 1));
  if (ld && ld->kind == UJ_OBJ)
    fprintf(f, ", \"load\": {\"start\": %.17g, \"end\": %.17g, \"cores\": %.0f, \"busy_runs\": %d}",
            uj_getn(ld, "start", 0), uj_getn(ld, "end", 0), uj_getn(ld, "cores", 0), uj_is_true(uj_get(ld, "busy")));
  fputs(", \"cases\": [{\"id\": ", f);
  um_json_string(f, app);
  fputs(", \"case\": ", f);
  um_json_string(f, app);
  fputs(", \"app\": ", f);
  um_json_string(f, app);
  const char *const variant[] = {"backend", "strategy", "layout", "reorder"}; /* as a suite's case names its run */
  for (int i = 0; i < 4; i++) {
    fprintf(f, ", \"%s\": ", variant[i]);
    um_json_string(f, uj_gets(v, variant[i], "?"));
  }
  fprintf(f, ", \"ranks\": %.0f, \"status\": ", uj_getn(v, "ranks", 1));
  um_json_string(f, st);
  fputs(", \"message\": ", f);
  um_json_string(f, uj_gets(v, "status", ""));
  fprintf(f, ", \"run\": %s}]}", text);
  fclose(f);
  free(text);
  uj_free(v);
  const int rc = uj_parse(w, wn, path, out, err, len);
  free(w);
  *single = 1;
  return rc ? -1 : 0;
}
