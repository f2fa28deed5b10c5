/* Provenance of a run (provenance.h): options with their sources, the files read with their hashes,
 * the machine and its load. */
#include "provenance.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "um/backend.h"
#include "um/report.h"
#include "options.h"

double umrun_loadavg(void) {
  double l = -1;
  const char *path = getenv("UMRUN_LOADAVG"); /* tests: a file in /proc/loadavg's format instead */
  FILE *f = fopen(path && *path ? path : "/proc/loadavg", "r");
  if (!f) return -1;
  if (fscanf(f, "%lf", &l) != 1) l = -1;
  fclose(f);
  return l;
}

int umrun_busy(double load, long cores) { return cores > 0 && load > (double)cores; }

void umrun_proc_field(const char *path, const char *key, char *out, size_t len) {
  out[0] = '\0';
  FILE *f = fopen(path, "r");
  if (!f) return;
  char line[1024];
  const size_t kl = strlen(key);
  while (fgets(line, sizeof line, f))
    if (!strncmp(line, key, kl)) {
      char *v = strchr(line, ':');
      if (!v) continue;
      v++;
      while (*v == ' ' || *v == '\t') v++;
      v[strcspn(v, "\n")] = '\0';
      snprintf(out, len, "%s", v);
      break;
    }
  fclose(f);
}

const char *umrun_option_source(const char *origin) {
  if (!origin || !strcmp(origin, "default")) return "default";
  if (!strncmp(origin, "UM_OPTIONS", 10)) return "UM_OPTIONS";
  if (!strncmp(origin, "--set", 5)) return "--set";
  if (!strncmp(origin, "--sweep", 7)) return "--sweep";
  if (!strncmp(origin, "suite", 5)) return "suite";
  return "config"; /* "file configs/x.yaml:12", or the program's embedded config */
}

/* the keys written so far, so that a declared option is written once */
typedef struct {
  FILE *f;
  char **keys;
  int n, cap;
} opt_list;

static int listed(const opt_list *l, const char *key) {
  for (int i = 0; i < l->n; i++)
    if (!strcmp(l->keys[i], key)) return 1;
  return 0;
}

static void entry(opt_list *l, const char *key, const char *value, const char *origin) {
  if (l->n == l->cap) {
    const int cap = l->cap ? 2 * l->cap : 64;
    char **k = realloc(l->keys, (size_t)cap * sizeof *k);
    if (!k) return;
    l->keys = k, l->cap = cap;
  }
  char *copy = strdup(key);
  if (!copy) return;
  fputs(l->n ? ",\n    " : "\n    ", l->f);
  l->keys[l->n++] = copy;
  um_json_string(l->f, key);
  fputs(": {\"value\": ", l->f);
  if (value) um_json_string(l->f, value);
  else fputs("null", l->f);
  fputs(", \"source\": ", l->f);
  um_json_string(l->f, umrun_option_source(origin));
  fputs(", \"origin\": ", l->f);
  um_json_string(l->f, origin);
  fputc('}', l->f);
}

static int one_option(const char *key, const char *value, const char *origin, int read, void *user) {
  (void)read;
  opt_list *l = user;
  if (!listed(l, key)) entry(l, key, value, origin);
  return 0;
}

/* a declared option stands for one key (not "mesh.*", "split.<loop>", a list or an earlier spelling) */
static int plain(const um_option *o) {
  return o && o->key && !strchr(o->key, '*') && !strchr(o->key, '<') && !o->renamed_to && o->type != UM_OPT_LIST &&
         o->type != UM_OPT_APP;
}

void umrun_write_options_json(FILE *f, const um_config *cfg, const um_app *app, const char *backend) {
  opt_list l = {f, NULL, 0, 0};
  fputc('{', f);
  um_config_each(cfg, one_option, &l);
  for (int i = 0; i < umrun_option_count(); i++) {
    const um_option *o = umrun_option_at(i);
    if (plain(o) && !listed(&l, o->key)) entry(&l, o->key, o->def, "default");
  }
  for (int i = 0; app && i < app->noptions; i++) {
    const um_option *o = &app->options[i];
    if (o->key && !strchr(o->key, '*') && !strchr(o->key, '<') && !listed(&l, o->key)) entry(&l, o->key, o->def, "default");
  }
  for (int k = 0; backend && k < um_backend_option_count(backend); k++) {
    const char *key, *def;
    char name[160];
    um_backend_option_at(backend, k, &key, &def, NULL, NULL);
    snprintf(name, sizeof name, "%s.%s", backend, key);
    if (!listed(&l, name)) entry(&l, name, def && *def ? def : NULL, "default");
  }
  fputs(l.n ? "\n  }" : "}", f);
  for (int i = 0; i < l.n; i++) free(l.keys[i]);
  free(l.keys);
}

/* ---- inputs -------------------------------------------------------------------------------- */
typedef struct {
  FILE *f;
  int n;
} input_list;

static void input(input_list *x, const char *role, const char *path) {
  char hex[65] = "";
  double bytes = 0;
  const int ok = umrun_sha256_file(path, hex, &bytes) == 0;
  fputs(x->n++ ? ",\n    {\"role\": " : "\n    {\"role\": ", x->f);
  um_json_string(x->f, role);
  fputs(", \"path\": ", x->f);
  um_json_string(x->f, path);
  fprintf(x->f, ", \"bytes\": %.0f, \"sha256\": ", bytes);
  if (ok) um_json_string(x->f, hex);
  else fputs("null", x->f);
  fputc('}', x->f);
}

static int regular_file(const char *p) {
  struct stat st;
  return p && *p && stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

static int one_input(const char *key, const char *value, const char *origin, int read, void *user) {
  (void)origin;
  if (!read || !strncmp(key, "output.", 7) || !regular_file(value)) return 0; /* a key read, naming a file */
  input(user, key, value);
  return 0;
}

void um_app_input(um_app_run *run, const char *path) {
  if (!run || !path || !*path || strlen(path) >= sizeof run->input_paths[0]) return;
  for (int i = 0; i < run->ninputs; i++)
    if (!strcmp(run->input_paths[i], path)) return;
  if (run->ninputs < UM_APP_MAX_INPUTS) snprintf(run->input_paths[run->ninputs++], sizeof run->input_paths[0], "%s", path);
}

void umrun_write_inputs_json(FILE *f, const char *config_path, const um_config *cfg, const um_ref *ref,
                             const um_app_run *run) {
  input_list x = {f, 0};
  fputc('[', f);
  if (config_path) input(&x, "config", config_path);
  um_config_each(cfg, one_input, &x);
  for (int i = 0; run && i < run->ninputs; i++) input(&x, "read by the app", run->input_paths[i]);
  for (int i = 0; ref && i < ref->nfields; i++)
    if (regular_file(ref->fields[i].path)) input(&x, "validation.reference field", ref->fields[i].path);
  fputs(x.n ? "\n  ]" : "]", f);
}

/* ---- the machine ----------------------------------------------------------------------------- */
void umrun_write_machine_json(FILE *f, const char *gpu_json, const char *backend) {
  char cpu[256], mem[128], host[256] = "", os[600];
  umrun_proc_field("/proc/cpuinfo", "model name", cpu, sizeof cpu);
  umrun_proc_field("/proc/meminfo", "MemTotal", mem, sizeof mem);
  struct utsname u;
  memset(&u, 0, sizeof u);
  uname(&u);
  gethostname(host, sizeof host - 1);
  snprintf(os, sizeof os, "%s %s %s", u.sysname, u.release, u.machine);
  fputs("{\"host\": ", f);
  um_json_string(f, host);
  fputs(", \"os\": ", f);
  um_json_string(f, os);
  fputs(", \"cpu\": ", f);
  um_json_string(f, cpu[0] ? cpu : "unknown");
  fprintf(f, ", \"cores\": %ld, \"memory_gib\": %.1f, \"gpu\": ", sysconf(_SC_NPROCESSORS_ONLN),
          atof(mem) / (1024.0 * 1024.0));
  if (gpu_json) {
    fprintf(f, "%s}", gpu_json);
    return;
  }
  char why[512] = "", note[800];
  const int cuda = um_backend_status("cuda", why, sizeof why);
  if (cuda) snprintf(note, sizeof note, "this run's backend (%s) uses no GPU; the cuda backend is available here", backend);
  else snprintf(note, sizeof note, "none: %s", *why ? why : "the cuda backend is not available here");
  fputs("null, \"gpu_note\": ", f);
  um_json_string(f, note);
  fputc('}', f);
}
