/* umrun's helpers shared by --suite, --compare, --report and --validate (declared in tools.h):
 * metric allowances, the build's JSON, XML/markdown/HTML escaping, the loop tree of a run's JSON
 * and the label of a suite variant. */
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tools.h"
#include "provenance.h"
#include "um/build_config.h"
#include "um/report.h"
#include "um/safe_file.h"
#include "um/um.h"

extern const char um_commit_id[];

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
  fputs(", \"c_flags\": ", f);
  um_json_string(f, UM_C_FLAGS);
  fputs(", \"cuda_toolkit\": ", f);
  um_json_string(f, UM_CUDA_TOOLKIT);
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

static int by_value(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

double umrun_median(const double *v, int n) {
  if (n <= 0) return 0;
  double *s = malloc((size_t)n * sizeof *s);
  if (!s) return v[0];
  memcpy(s, v, (size_t)n * sizeof *s);
  qsort(s, (size_t)n, sizeof *s, by_value);
  const double m = n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
  free(s);
  return m;
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
  const char *b = uj_gets(c, "backend", "?");
  if (!strcmp(b, "seq")) /* one thread, blocks in order: whatever strategy the config names is not used */
    snprintf(buf, len, "seq/%s/%s", uj_gets(c, "layout", "?"), uj_gets(c, "reorder", "?"));
  else
    snprintf(buf, len, "%s/%s/%s/%s", b, uj_gets(c, "strategy", "?"), uj_gets(c, "layout", "?"),
             uj_gets(c, "reorder", "?"));
  const double bs = uj_getn(c, "block_size_axis", 0), np = uj_getn(c, "ranks", 1);
  if (bs > 0) {
    size_t n = strlen(buf);
    snprintf(buf + n, len - n, "/b%.0f", bs);
  }
  if (np > 1) { /* runs that differ only in their ranks */
    size_t n = strlen(buf);
    snprintf(buf + n, len - n, "/np%.0f", np);
  }
}

int umrun_output_is_input(const char *out, const char *const *ins, int n) {
  struct stat so, si;
  if (!out || !*out || stat(out, &so) != 0 || !S_ISREG(so.st_mode)) return -1;
  for (int i = 0; i < n; i++)
    if (ins[i] && stat(ins[i], &si) == 0 && si.st_dev == so.st_dev && si.st_ino == so.st_ino) return i;
  return -1;
}

void umrun_outputs_own_stdout(const char **paths[], int n, char *buf, size_t len) {
  int named = 0;
  for (int i = 0; i < n; i++) named |= *paths[i] && um_safe_fd_path(*paths[i]) == 1;
  /* rank 0 only: under mpirun the other ranks' stdout is /dev/null, and stays so (they write no outputs) */
  if (!named || um_mpi_rank() > 0 || fcntl(1, F_GETFL) < 0) return; /* a closed stdout: the path check says so */
  fflush(stdout);
  const int keep = fcntl(1, F_DUPFD_CLOEXEC, 3);
  if (keep < 0) return;
  if (dup2(2, 1) < 0) {
    close(keep);
    return;
  }
  snprintf(buf, len, "/dev/fd/%d", keep);
  for (int i = 0; i < n; i++)
    if (*paths[i] && um_safe_fd_path(*paths[i]) == 1) *paths[i] = buf;
}

void umrun_results_format_why(const char *tool, const char *path, const uj *v, const char *what_else, char *buf,
                              size_t len) {
  const char *format = uj_gets(v, "format", "");
  if (!strncmp(format, "um-suite-results-", 17))
    snprintf(buf, len, "%s: '%s' is a results file of umrun --suite in format \"%s\", written by another version "
                       "of um; this umrun reads \"%s\": use the umrun of the version that wrote it (its \"um\" "
                       "object names the version and commit), or run the suite again with this one",
             tool, path, format, UMRUN_RESULTS_FORMAT);
  else
    snprintf(buf, len, "%s: '%s' is not a results file of umrun --suite (no \"format\": \"%s\")%s", tool, path,
             UMRUN_RESULTS_FORMAT, what_else);
}
