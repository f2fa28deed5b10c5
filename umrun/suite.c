/* umrun --suite: a validation suite. validation/suite.yaml lists cases (a
 * config, overrides, tags, and the backends x strategies x layouts x
 * reorderings x block sizes to run it with); each combination runs as its own
 * umrun child process (a crash or a timeout ends that run only), writes its
 * --json summary, and is judged by its exit status and validation. The
 * results file records the machine, the build and every run's JSON whole, so
 * that --compare and --report can read it later on another machine. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "um/app.h"
#include "child.h"
#include "um/safe_file.h"
#include "tools.h"
#include "um/build_config.h"
#include "um/config.h"
#include "um/report.h"

extern const char um_commit_id[];

enum { EXIT_OK = 0, EXIT_USAGE = 1, EXIT_RUN = 2, EXIT_VALIDATION = 3 };

/* ---- shared helpers (tools.h) ------------------------------------------------ */
double umrun_metric_allowance(const uj *m) {
  const double ref = uj_getn(m, "ref", NAN), rt = uj_getn(m, "rel_tol", NAN), at = uj_getn(m, "abs_tol", NAN);
  double a = -1;
  if (isfinite(at)) a = at;
  if (isfinite(rt) && isfinite(ref) && rt * fabs(ref) > a) a = rt * fabs(ref);
  return a;
}

void umrun_write_build_json(FILE *f) {
  fputs("{\"version\": ", f);
  um_json_string(f, UM_VERSION);
  fputs(", \"commit\": ", f);
  um_json_string(f, um_commit_id);
  fputs(", \"build_type\": ", f);
  um_json_string(f, UM_BUILD_TYPE);
  fputs(", \"compiler\": ", f);
  um_json_string(f, UM_C_COMPILER);
  fputs(", \"openmp\": ", f);
  um_json_string(f, UM_BUILD_OPENMP);
  fputs(", \"cuda\": ", f);
  um_json_string(f, UM_BUILD_CUDA);
  fputs(", \"hdf5\": ", f);
  um_json_string(f, UM_BUILD_HDF5);
  fputc('}', f);
}

void umrun_xml_escape(FILE *f, const char *s) {
  for (; s && *s; s++) {
    switch (*s) {
      case '<': fputs("&lt;", f); break;
      case '>': fputs("&gt;", f); break;
      case '&': fputs("&amp;", f); break;
      case '"': fputs("&quot;", f); break;
      case '\'': fputs("&#39;", f); break;
      default:
        if ((unsigned char)*s < 0x20 && *s != '\n' && *s != '\t') fputc('?', f);
        else fputc(*s, f);
    }
  }
}

void umrun_md_escape(FILE *f, const char *s) {
  for (const char *p = s; p && *p; p++) {
    switch (*p) {
      case '<': fputs("&lt;", f); break; /* markdown passes HTML through: no element, no autolink */
      case '>': fputs("&gt;", f); break;
      case '&': fputs("&amp;", f); break;
      case '|': fputc('/', f); break; /* a table cell's end */
      case '\n': case '\r': fputc(' ', f); break;
      case '(': /* "](" makes a link or an image: its parenthesis escaped */
        if (p > s && p[-1] == ']') fputc('\\', f);
        fputc('(', f);
        break;
      default:
        if ((unsigned char)*p < 0x20 || *p == 0x7f) fputc('?', f);
        else fputc(*p, f);
    }
  }
}

const char *umrun_md_str(char *buf, size_t n, const char *s) {
  FILE *f = n ? fmemopen(buf, n, "w") : NULL;
  if (!f) return n ? (buf[0] = '\0', buf) : "";
  setvbuf(f, NULL, _IONBF, 0);
  umrun_md_escape(f, s);
  fclose(f);
  buf[n - 1] = '\0';
  return buf;
}

void umrun_html_id(FILE *f, const char *s) {
  static const char hex[] = "0123456789abcdef";
  for (; s && *s; s++) {
    const unsigned char c = (unsigned char)*s;
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-') fputc(c, f);
    else {
      fputc('_', f);
      fputc(hex[c >> 4], f);
      fputc(hex[c & 15], f);
    }
  }
}

double umrun_loop_gbs(const uj *l) {
  const double s = uj_getn(l, "seconds", 0), calls = uj_getn(l, "calls", 0), b = uj_getn(l, "bytes_per_call", 0);
  return s > 0 ? b * calls / s * 1e-9 : 0;
}

const char *umrun_loop_parent(const uj *l) {
  const char *p = uj_gets(l, "parent", NULL);
  return p && *p ? p : NULL;
}

int umrun_loop_order(const uj *loops, int *idx, int *depth) {
  const int n = uj_len(loops);
  int k = 0;
  for (int i = 0; i < n; i++) {
    if (umrun_loop_parent(uj_at(loops, i))) continue;
    const char *name = uj_gets(uj_at(loops, i), "name", "");
    int dup = 0; /* a name given twice (a file not written by umrun): its generated loops under the first */
    for (int q = 0; q < i && !dup; q++)
      dup = !umrun_loop_parent(uj_at(loops, q)) && !strcmp(uj_gets(uj_at(loops, q), "name", ""), name);
    idx[k] = i, depth[k++] = 0;
    for (int j = 0; j < n && !dup && k < n; j++) {
      const char *p = umrun_loop_parent(uj_at(loops, j));
      if (p && !strcmp(p, name)) idx[k] = j, depth[k++] = 1;
    }
  }
  for (int j = 0; j < n; j++) { /* a generated loop whose parent is not in the list: last, on its own */
    const char *p = umrun_loop_parent(uj_at(loops, j));
    int found = 0;
    for (int i = 0; p && i < n && !found; i++)
      found = !umrun_loop_parent(uj_at(loops, i)) && !strcmp(uj_gets(uj_at(loops, i), "name", ""), p);
    if (p && !found && k < n) idx[k] = j, depth[k++] = 0;
  }
  return k;
}

void umrun_variant_label(const uj *c, char *buf, size_t len) {
  snprintf(buf, len, "%s/%s/%s/%s", uj_gets(c, "backend", "?"), uj_gets(c, "strategy", "?"),
           uj_gets(c, "layout", "?"), uj_gets(c, "reorder", "?"));
  const double bs = uj_getn(c, "block_size_axis", 0);
  if (bs > 0) {
    size_t n = strlen(buf);
    snprintf(buf + n, len - n, "/b%.0f", bs);
  }
}

/* ---- the suite file ------------------------------------------------------------ */
#define AXES 6
#define AXIS_RANKS 5 /* not a config key: the run is launched by mpirun -np N (1: a plain run) */
static const char *const axis_names[AXES] = {"backend", "strategy", "layout", "reorder", "block_size", "ranks"};
static const char *const axis_keys[AXES] = {"run.backend", "run.strategy", "run.layout", "run.reorder",
                                            "run.block_size", NULL};

typedef struct {
  char *name, *config, *app;
  char **tags;
  int ntags;
  char **sets;
  int nsets;
  char **axis[AXES]; /* values per axis (NULL: the config's own) */
  int naxis[AXES];
  double timeout_s;
  int same_bits; /* every passing run of the matrix must give the first one's metrics bit for bit */
  int selected;  /* by --tags and --only */
  double combos; /* the product of its axes' lengths (counted before anything is expanded) */
} suite_case;

/* The most runs one suite command makes (docs/validation.md): the matrix is
 * counted before it is expanded, and a larger one is refused with its count. */
#define UMRUN_SUITE_MAX_RUNS 5000

typedef struct {
  char *path;
  suite_case *cases;
  int ncases;
  double timeout_s;
  char **sets;
  int nsets;
} suite_file;

static void free_strs(char **v, int n) {
  for (int i = 0; i < n; i++) free(v[i]);
  free(v);
}

static void suite_free(suite_file *s) {
  for (int i = 0; i < s->ncases; i++) {
    suite_case *c = &s->cases[i];
    free(c->name);
    free(c->config);
    free(c->app);
    free_strs(c->tags, c->ntags);
    free_strs(c->sets, c->nsets);
    for (int a = 0; a < AXES; a++) free_strs(c->axis[a], c->naxis[a]);
  }
  free(s->cases);
  free_strs(s->sets, s->nsets);
  free(s->path);
}

/* a sequence of scalars (or one scalar) at key into a malloc'ed array */
static int read_list(um_config *cfg, const char *key, char ***out, int *n, char *err, size_t len) {
  *out = NULL;
  *n = 0;
  um_config_kind_t k = um_config_kind(cfg, key);
  if (k == UM_CONFIG_ABSENT || k == UM_CONFIG_NULL) return 0;
  int cnt = 1;
  if (k == UM_CONFIG_SEQUENCE && um_config_size(cfg, key, &cnt, err, len)) return -1;
  if (k == UM_CONFIG_MAPPING) {
    char where[256] = "";
    um_config_origin(cfg, key, where, sizeof where);
    snprintf(err, len, "%s (%s): expected a list of values, e.g. [a, b], not a mapping", key, where);
    return -1;
  }
  char **v = calloc((size_t)cnt + 1, sizeof *v);
  if (!v) return snprintf(err, len, "out of memory"), -1;
  for (int i = 0; i < cnt; i++) {
    char ik[512];
    if (k == UM_CONFIG_SEQUENCE) snprintf(ik, sizeof ik, "%s.%d", key, i);
    else snprintf(ik, sizeof ik, "%s", key);
    const char *s = NULL;
    if (um_config_kind(cfg, ik) != UM_CONFIG_SCALAR || um_config_get_string(cfg, ik, NULL, &s, err, len) || !s) {
      char where[256] = "";
      um_config_origin(cfg, ik, where, sizeof where);
      if (!err[0]) snprintf(err, len, "%s (%s): expected a plain value", ik, where);
      free_strs(v, i);
      return -1;
    }
    v[i] = strdup(s);
  }
  *out = v;
  *n = cnt;
  return 0;
}

static int check_keys(um_config *cfg, const char *key, const char *const *allowed, char *err, size_t len) {
  int n = 0;
  if (um_config_keys(cfg, key, &n, NULL, 0, err, len)) return -1;
  const char **names = calloc((size_t)n + 1, sizeof *names);
  if (!names) return -1;
  um_config_keys(cfg, key, &n, names, n, err, len);
  for (int i = 0; i < n; i++) {
    int ok = 0;
    for (int j = 0; allowed[j]; j++) ok |= !strcmp(names[i], allowed[j]);
    if (!ok) {
      char full[600], where[256] = "";
      snprintf(full, sizeof full, "%s%s%s", key ? key : "", key && *key ? "." : "", names[i]);
      um_config_origin(cfg, full, where, sizeof where);
      size_t l = (size_t)snprintf(err, len, "%s (%s): unknown key; known here:", full, where);
      for (int j = 0; allowed[j] && l < len; j++) l += (size_t)snprintf(err + l, len - l, " %s", allowed[j]);
      free(names);
      return -1;
    }
  }
  free(names);
  return 0;
}

static int valid_name(const char *s) {
  if (!s || !*s || strlen(s) > 100) return 0;
  for (; *s; s++)
    if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '_' ||
          *s == '-' || *s == '.'))
      return 0;
  return 1;
}

/* A case's app must be registered: refused before the suite runs anything. */
static int check_app(const char *app, char *err, size_t len) {
  if (app && um_app_find(app)) return 0;
  size_t l = (size_t)snprintf(err, len, "app '%.200s' is not a registered app; registered:", app ? app : "");
  for (int i = 0; i < um_app_count() && l < len; i++) l += (size_t)snprintf(err + l, len - l, " %s", um_app_at(i)->name);
  if (l < len) snprintf(err + l, len - l, " (umrun --list-apps)");
  return -1;
}

static int load_suite(const char *path, const char *app_override, suite_file *S, char *err, size_t len) {
  memset(S, 0, sizeof *S);
  S->path = strdup(path);
  um_config *cfg = NULL;
  if (um_config_load_file(path, &cfg, err, len)) return -1;
  static const char *const top[] = {"suite", "description", "defaults", "cases", NULL};
  static const char *const defk[] = {"timeout_s", "set", NULL};
  static const char *const casek[] = {"name",      "config",      "tags",      "set", "matrix",
                                      "timeout_s", "description", "same_bits", NULL};
  int rc = -1, n = 0;
  if (check_keys(cfg, NULL, top, err, len)) goto out;
  if (um_config_kind(cfg, "defaults") == UM_CONFIG_MAPPING && check_keys(cfg, "defaults", defk, err, len)) goto out;
  if (um_config_get_double(cfg, "defaults.timeout_s", 1800, &S->timeout_s, err, len)) goto out;
  if (read_list(cfg, "defaults.set", &S->sets, &S->nsets, err, len)) goto out;
  if (um_config_kind(cfg, "cases") != UM_CONFIG_SEQUENCE || um_config_size(cfg, "cases", &n, err, len) || n == 0) {
    snprintf(err, len, "%s: expected 'cases:' with a list of cases (name, config, tags, set, matrix)", path);
    goto out;
  }
  S->cases = calloc((size_t)n, sizeof *S->cases);
  if (!S->cases) goto out;
  for (int i = 0; i < n; i++) {
    suite_case *c = &S->cases[i];
    S->ncases = i + 1;
    char k[600], where[256] = "";
    snprintf(k, sizeof k, "cases.%d", i);
    um_config_origin(cfg, k, where, sizeof where);
    if (um_config_kind(cfg, k) != UM_CONFIG_MAPPING) {
      snprintf(err, len, "%s (%s): each case is a mapping (name, config, tags, set, matrix)", k, where);
      goto out;
    }
    if (check_keys(cfg, k, casek, err, len)) goto out;
    const char *name = NULL, *config = NULL;
    snprintf(k, sizeof k, "cases.%d.name", i);
    if (um_config_get_string(cfg, k, NULL, &name, err, len)) goto out;
    if (!valid_name(name)) {
      snprintf(err, len, "cases.%d (%s): 'name' must be 1-100 letters, digits, '_', '-' or '.' (got '%s')", i, where,
               name ? name : "");
      goto out;
    }
    for (int j = 0; j < i; j++)
      if (!strcmp(S->cases[j].name, name)) {
        snprintf(err, len, "cases.%d (%s): the name '%s' is used twice", i, where, name);
        goto out;
      }
    c->name = strdup(name);
    snprintf(k, sizeof k, "cases.%d.config", i);
    if (um_config_get_string(cfg, k, NULL, &config, err, len)) goto out;
    if (!config || !*config) {
      snprintf(err, len, "case '%s' (%s): 'config' is missing (a umrun config file)", name, where);
      goto out;
    }
    c->config = strdup(config);
    snprintf(k, sizeof k, "cases.%d.tags", i);
    if (read_list(cfg, k, &c->tags, &c->ntags, err, len)) goto out;
    snprintf(k, sizeof k, "cases.%d.set", i);
    if (read_list(cfg, k, &c->sets, &c->nsets, err, len)) goto out;
    for (int j = 0; j < c->nsets; j++)
      if (!strchr(c->sets[j], '=')) {
        snprintf(err, len, "case '%s': set entry '%s' is not key=value", name, c->sets[j]);
        goto out;
      }
    snprintf(k, sizeof k, "cases.%d.timeout_s", i);
    if (um_config_get_double(cfg, k, S->timeout_s, &c->timeout_s, err, len)) goto out;
    snprintf(k, sizeof k, "cases.%d.same_bits", i);
    if (um_config_get_bool(cfg, k, 0, &c->same_bits, err, len)) goto out;
    snprintf(k, sizeof k, "cases.%d.matrix", i);
    if (um_config_kind(cfg, k) == UM_CONFIG_MAPPING) {
      static const char *const axes[] = {"backend", "strategy", "layout", "reorder", "block_size", "ranks", NULL};
      if (check_keys(cfg, k, axes, err, len)) goto out;
      for (int a = 0; a < AXES; a++) {
        char ak[700];
        snprintf(ak, sizeof ak, "%s.%s", k, axis_names[a]);
        if (read_list(cfg, ak, &c->axis[a], &c->naxis[a], err, len)) goto out;
      }
      for (int v = 0; v < c->naxis[AXIS_RANKS]; v++) {
        char *end = NULL;
        const long n = strtol(c->axis[AXIS_RANKS][v], &end, 10);
        if (!end || *end || n < 1 || n > 4096) {
          snprintf(err, len, "case '%s': matrix.ranks entry '%s' is not a rank count (1, 2, 4, ...)", name,
                   c->axis[AXIS_RANKS][v]);
          goto out;
        }
      }
    }
    /* the app, from the config (for --only and the report), and the path checked now */
    um_config *cc = NULL;
    char cerr[2048] = "";
    if (um_config_load_file(c->config, &cc, cerr, sizeof cerr)) {
      snprintf(err, len, "case '%s' (%s): config: %s", name, where, cerr);
      goto out;
    }
    const char *app = NULL;
    if (um_config_get_string(cc, "app", "airfoil", &app, cerr, sizeof cerr) == 0) c->app = strdup(app);
    for (int j = 0; j < S->nsets; j++) /* the suite's defaults.set, then the case's own set, as the run applies them */
      if (!strncmp(S->sets[j], "app=", 4)) {
        free(c->app);
        c->app = strdup(S->sets[j] + 4);
      }
    for (int j = 0; j < c->nsets; j++)
      if (!strncmp(c->sets[j], "app=", 4)) {
        free(c->app);
        c->app = strdup(c->sets[j] + 4);
      }
    um_config_free(cc);
    if (app_override) { /* --set app=X, applied to every run after the case's own */
      free(c->app);
      c->app = strdup(app_override);
    }
    if (!c->app) c->app = strdup("airfoil");
    if (check_app(c->app, err, len)) { /* before anything runs: its name reaches files and pages */
      char why[1024];
      snprintf(why, sizeof why, "%s", err);
      snprintf(err, len, "case '%s' (%s): %s", name, where, why);
      goto out;
    }
  }
  rc = 0;
out:
  um_config_free(cfg);
  return rc;
}

static int has_tag(const suite_case *c, char **want, int nwant) {
  if (nwant == 0) return 1;
  for (int i = 0; i < nwant; i++)
    for (int j = 0; j < c->ntags; j++)
      if (!strcmp(want[i], c->tags[j])) return 1;
  return 0;
}

/* ---- the machine ------------------------------------------------------------------ */
static void read_field(const char *path, const char *key, char *out, size_t len) {
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

/* Host memory copy bandwidth, all threads (bytes read + written per second,
 * GB/s), 2 x 256 MiB, the median of 5 copies: the CPU runs' floor. */
static double host_copy_gbs(void) {
  const size_t n = (size_t)32 << 20; /* doubles: 256 MiB */
  double *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
  if (!a || !b) {
    free(a);
    free(b);
    return 0;
  }
  double t[5];
  long long N = (long long)n;
  int nt = 1; /* OMP_NUM_THREADS as the runs will take it, within um_threads_max() */
#ifdef _OPENMP
  nt = omp_get_max_threads() < um_threads_max() ? omp_get_max_threads() : um_threads_max();
#endif
  (void)nt;
#pragma omp parallel for schedule(static) num_threads(nt)
  for (long long i = 0; i < N; i++) a[i] = (double)i, b[i] = 0;
  for (int r = 0; r < 5; r++) {
    double t0 = um_wtime();
#pragma omp parallel for schedule(static) num_threads(nt)
    for (long long i = 0; i < N; i++) b[i] = a[i];
    t[r] = um_wtime() - t0;
    double *x = a;
    a = b;
    b = x;
  }
  for (int i = 1; i < 5; i++)
    for (int j = i; j > 0 && t[j] < t[j - 1]; j--) {
      double x = t[j];
      t[j] = t[j - 1];
      t[j - 1] = x;
    }
  free(a);
  free(b);
  return t[2] > 0 ? 2.0 * (double)(n * sizeof(double)) / t[2] * 1e-9 : 0;
}

static void write_machine(FILE *f, double host_gbs, const uj *gpu) {
  char cpu[256], mem[128];
  read_field("/proc/cpuinfo", "model name", cpu, sizeof cpu);
  read_field("/proc/meminfo", "MemTotal", mem, sizeof mem);
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
  fputs("}}", f);
}

/* ---- one run ----------------------------------------------------------------------- */
typedef struct {
  const suite_case *c;
  const char *val[AXES]; /* this combination (NULL: the config's own) */
  char id[512], file_id[512];
  char json_path[4096], log_path[4096];
  umrun_child_result res;
  int started;
  char status[16]; /* pass, fail, error, timeout */
  char message[2048];
  char *json_text; /* the child's --json, whole */
  uj *json;
  double worst_margin; /* largest |got-ref| / allowance over the metrics, -1 none */
  char worst_metric[128];
} suite_run;

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

static void judge(suite_run *r) {
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
static void same_bits(suite_run *runs, int nruns) {
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
static void write_results(FILE *f, const char *suite_path, char **tags, int ntags, const char *only, suite_run *runs,
                          int nruns, double host_gbs, const char *started, double seconds) {
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
  fprintf(f, ",\n  \"seconds\": %.3f,\n  \"um\": ", seconds);
  umrun_write_build_json(f);
  fputs(",\n  \"machine\": ", f);
  write_machine(f, host_gbs, gpu);
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

static void write_junit(FILE *f, suite_run *runs, int nruns, double seconds) {
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

static const char *status_word(const char *s) {
  return !strcmp(s, "pass") ? "PASS" : !strcmp(s, "fail") ? "FAIL" : !strcmp(s, "timeout") ? "TIMEOUT" : "ERROR";
}

static void variant_of(const suite_run *r, char *buf, size_t len) {
  size_t l = 0;
  buf[0] = '\0';
  for (int a = 0; a < AXES && l < len; a++)
    if (r->val[a])
      l += (size_t)snprintf(buf + l, len - l, "%s%s%s", l ? " " : "", a == 4 ? "b" : a == AXIS_RANKS ? "np" : "",
                            r->val[a]);
  if (!buf[0]) snprintf(buf, len, "(config)");
}

static void write_markdown(FILE *f, const char *suite_path, suite_run *runs, int nruns, const char *started,
                           double seconds, double host_gbs) {
  int np = 0;
  for (int i = 0; i < nruns; i++) np += !strcmp(runs[i].status, "pass");
  const uj *gpu = NULL;
  for (int i = 0; i < nruns && !gpu; i++) gpu = uj_get(runs[i].json, "device");
  char cpu[256];
  read_field("/proc/cpuinfo", "model name", cpu, sizeof cpu);
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
    variant_of(r, v, sizeof v);
    if (r->worst_margin >= 0) {
      if (isinf(r->worst_margin)) snprintf(worst, sizeof worst, "%s (missing or no tolerance)", r->worst_metric);
      else snprintf(worst, sizeof worst, "%s (%.3g)", r->worst_metric, r->worst_margin);
    }
    const char *cells[] = {r->c->name, r->c->app, v, status_word(r->status), NULL, worst,
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
static void expand(suite_run *r, const suite_case *c, long k, int n) {
  memset(r, 0, sizeof *r);
  r->c = c;
  long rest = k;
  for (int a = AXES - 1; a >= 0; a--)
    if (c->naxis[a]) {
      r->val[a] = c->axis[a][rest % c->naxis[a]];
      rest /= c->naxis[a];
    }
  char v[256];
  variant_of(r, v, sizeof v);
  snprintf(r->id, sizeof r->id, "%s[%s]", c->name, v);
  snprintf(r->file_id, sizeof r->file_id, "%04d_%s", n, c->name);
  for (char *p = r->file_id; *p; p++)
    if (*p == '/' || *p == ' ') *p = '_';
}

/* ---- the command ------------------------------------------------------------------- */
void umrun_suite_usage(FILE *f) {
  fputs("usage: umrun --suite SUITE.yaml [--tags T1,T2] [--only APP] [--out DIR] [--set key=value]...\n"
        "                    [--timeout S] [--list]\n"
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
        "  --list         list the runs the selection would make, and exit\n"
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

int umrun_suite_main(const char *argv0, int argc, char **argv) {
  const char *path = NULL, *only = NULL, *outdir = "out/suite";
  char **tags = NULL;
  int ntags = 0, list = 0;
  double timeout = 0;
  const char **gsets = calloc((size_t)argc + 1, sizeof *gsets);
  int ngsets = 0, rc = EXIT_USAGE;
  if (!gsets) return EXIT_RUN;
  for (int i = 0; i < argc; i++) { /* --help anywhere (umrun --suite --help too), unless it is another option's value */
    const char *a = argv[i], *prev = i ? argv[i - 1] : "";
    const int value = !strcmp(prev, "--tags") || !strcmp(prev, "--only") || !strcmp(prev, "--out") ||
                      !strcmp(prev, "--set") || !strcmp(prev, "--timeout");
    if ((!strcmp(a, "--help") || !strcmp(a, "-h")) && !value) {
      umrun_suite_usage(stdout);
      free(gsets);
      return EXIT_OK;
    }
  }
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i];
    const int takes = !strcmp(a, "--suite") || !strcmp(a, "--tags") || !strcmp(a, "--only") || !strcmp(a, "--out") ||
                      !strcmp(a, "--set") || !strcmp(a, "--timeout");
    if (takes && i + 1 >= argc) {
      fprintf(stderr, "umrun: %s needs an argument (see umrun --suite --help)\n", a);
      goto done;
    }
    if (!strcmp(a, "--suite")) path = argv[++i];
    else if (!strcmp(a, "--tags")) {
      free_strs(tags, ntags);
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
      if (!end || *end || !(timeout > 0)) {
        fprintf(stderr, "umrun --suite: --timeout '%s': expected a number of seconds > 0\n", argv[i]);
        goto done;
      }
    } else if (!strcmp(a, "--list")) list = 1;
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
  if (load_suite(path, app_override, &S, err, sizeof err)) {
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
    known_tag |= has_tag(c, tags, ntags);
    if ((!all && !has_tag(c, tags, ntags)) || (only && strcmp(only, c->app))) continue;
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
        expand(&one, &S.cases[i], k, ++n);
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
  const double host_gbs = host_copy_gbs();
  const double t0 = um_wtime();
  for (int i = 0, ci = -1, k = 0, kmax = 0; i < nruns; i++) {
    while (k >= kmax) { /* the next selected case */
      ci++;
      k = 0;
      kmax = S.cases[ci].selected ? (int)S.cases[ci].combos : 0;
    }
    suite_run *r = &runs[i];
    expand(r, &S.cases[ci], k++, i + 1); /* this combination, expanded now */
    snprintf(r->json_path, sizeof r->json_path, "%s/%s.json", runsdir, r->file_id);
    snprintf(r->log_path, sizeof r->log_path, "%s/%s.log", logsdir, r->file_id);
    unlink(r->json_path);
    const char *args[520];
    static char setbuf[AXES][600];
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
      judge(r);
    }
    printf(" %s  %.1f s", status_word(r->status), r->res.seconds);
    if (strcmp(r->status, "pass")) printf("\n      %s", r->message);
    printf("\n");
  }
  const double seconds = um_wtime() - t0;
  same_bits(runs, nruns);
  /* the PASS/FAIL matrix: a line per case */
  int np = 0, nfail = 0;
  printf("\n%-28s %s\n", "case", "runs: variant status");
  for (int i = 0; i < nruns;) {
    int j = i;
    printf("%-28s", runs[i].c->name);
    while (j < nruns && runs[j].c == runs[i].c) {
      char v[256];
      variant_of(&runs[j], v, sizeof v);
      printf(" [%s %s]", v, status_word(runs[j].status));
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
    if (k == 0) write_results(sf.f, path, tags, ntags, only, runs, nruns, host_gbs, started, seconds);
    else if (k == 1) write_junit(sf.f, runs, nruns, seconds);
    else write_markdown(sf.f, path, runs, nruns, started, seconds, host_gbs);
    if (um_safe_commit(&sf, err, sizeof err)) {
      fprintf(stderr, "umrun --suite: %s\n", err);
      wrote = 0;
    }
  }
  printf("\numrun --suite: %d of %d runs pass%s (%.1f s); wrote %s/results.json, junit.xml, summary.md\n", np, nruns,
         nfail ? ", SOME FAILED" : "", seconds, outdir);
  rc = nfail ? EXIT_VALIDATION : wrote ? EXIT_OK : EXIT_RUN;
free_runs:
  for (int i = 0; runs && i < nruns; i++) {
    free(runs[i].json_text);
    uj_free(runs[i].json);
  }
  free(runs);
  suite_free(&S);
done:
  free_strs(tags, ntags);
  free(gsets);
  return rc;
}
