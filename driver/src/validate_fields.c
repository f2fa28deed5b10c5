/* um: validation of field files (text, value by value, with tolerances): um_field_compare_files
 * and um_validate_fields, with their part of the validation report. */
#include "validate_internal.h"

#include <unistd.h>

/* ---- fields: text files compared value by value ----------------------------------- */

/* Next line of f into *buf (getline: any length); 1 = a line, 0 = end, -1 = read error. */
static int next_line(FILE *f, char **buf, size_t *cap) {
  errno = 0;
  ssize_t n = getline(buf, cap, f);
  if (n >= 0) return 1;
  return ferror(f) ? -1 : 0;
}

static int count_tokens(const char *s) {
  int n = 0;
  for (;;) {
    while (*s && isspace((unsigned char)*s)) s++;
    if (!*s) return n;
    n++;
    while (*s && !isspace((unsigned char)*s)) s++;
  }
}

/* The next token at *s, NUL-terminated in place; *s moves past it. */
static char *next_token(char **s) {
  char *p = *s;
  while (*p && isspace((unsigned char)*p)) p++;
  char *t = p;
  while (*p && !isspace((unsigned char)*p)) p++;
  if (*p) *p++ = '\0';
  *s = p;
  return t;
}

/* The whole token is a number (strtod). */
static int parse_number(const char *t, double *v) {
  char *end;
  *v = strtod(t, &end);
  return end != t && *end == '\0';
}

/* Text that strtod reads as NaN or infinity ("nan", "-inf", "Infinity", ...). */
static int nonfinite_text(const char *t) {
  const char *p = t + (*t == '+' || *t == '-');
  double v;
  return (*p == 'n' || *p == 'N' || *p == 'i' || *p == 'I') && parse_number(t, &v) && !isfinite(v);
}

/* a ranks before b in the worst list: failing first, then larger rel_err. */
static int worse(const um_field_entry *a, const um_field_entry *b) {
  if (a->pass != b->pass) return !a->pass;
  return a->rel_err > b->rel_err;
}

static void keep_worst(um_field_result *res, int k, const um_field_entry *e) {
  if (k <= 0 || (e->pass && !(e->rel_err > 0))) return;
  int pos = res->nworst;
  while (pos > 0 && worse(e, &res->worst[pos - 1])) pos--;
  if (pos >= k) return;
  int last = res->nworst < k ? res->nworst : k - 1;
  memmove(&res->worst[pos + 1], &res->worst[pos], (size_t)(last - pos) * sizeof *e);
  res->worst[pos] = *e;
  if (res->nworst < k) res->nworst++;
}

static void compare_pair(um_field_result *res, int k, long line, int column, const char *g,
                         const char *r) {
  um_field_entry e;
  e.line = line;
  e.column = column;
  e.ref = e.got = NAN;
  e.rel_err = 0;
  e.pass = 1;
  res->ncompared++;
  if (!strcmp(g, r) && !nonfinite_text(g)) return; /* identical text */
  int gn = parse_number(g, &e.got), rn = parse_number(r, &e.ref);
  if (!gn) e.got = NAN;
  if (!rn) e.ref = NAN;
  if (!gn || !rn || !isfinite(e.got) || !isfinite(e.ref)) {
    e.rel_err = INFINITY;
    e.pass = 0;
  } else {
    double m = fmax(fabs(e.got), fabs(e.ref));
    if (m > res->floor) {
      e.rel_err = fabs(e.got - e.ref) / m;
      e.pass = e.rel_err <= res->rel_tol;
    }
  }
  if (!(e.rel_err <= res->max_rel_err)) res->max_rel_err = e.rel_err;
  if (!e.pass) res->nfailing++;
  if (!e.pass || e.rel_err > 0) {
    snprintf(e.ref_text, sizeof e.ref_text, "%s", r);
    snprintf(e.got_text, sizeof e.got_text, "%s", g);
    keep_worst(res, k, &e);
  }
}

static void field_summary(um_field_result *res, const char *first_bad_line) {
  const size_t n = sizeof res->message;
  if (res->nlines_got != res->nlines_ref)
    snprintf(res->message, n,
             "the run's file has %ld lines, the reference has %ld (%ld values compared on the "
             "common lines, %ld failing)",
             res->nlines_got, res->nlines_ref, res->ncompared, res->nfailing);
  else if (res->nbad_lines)
    snprintf(res->message, n, "%s (%ld lines with a different number of values; %ld of %ld values compared failing)",
             first_bad_line, res->nbad_lines, res->nfailing, res->ncompared);
  else if (res->nfailing) {
    const um_field_entry *w = &res->worst[0];
    if (res->nworst > 0)
      snprintf(res->message, n,
               "%ld of %ld values out of tolerance (rel_tol %g, floor %g); worst at line %ld, "
               "column %d: reference %s, got %s, rel err %.3e",
               res->nfailing, res->ncompared, res->rel_tol, res->floor, w->line, w->column,
               w->ref_text, w->got_text, w->rel_err);
    else
      snprintf(res->message, n, "%ld of %ld values out of tolerance (rel_tol %g, floor %g)",
               res->nfailing, res->ncompared, res->rel_tol, res->floor);
  } else
    snprintf(res->message, n, "%ld values within rel_tol %g (floor %g), max rel err %.3e",
             res->ncompared, res->rel_tol, res->floor, res->max_rel_err);
}

int um_field_compare_files(const char *got, const char *ref, double rel_tol, double floor_value,
                           int worst_k, um_field_result *res, char *err, size_t errlen) {
  if (!res)
    return um_format_error(err, errlen, UM_ERR_ARG, "um_field_compare_files: res is NULL");
  memset(res, 0, sizeof *res);
  res->produced = 1;
  res->rel_tol = rel_tol;
  res->floor = floor_value;
  int rc = UM_SUCCESS;
  if (!got || !ref)
    rc = um_format_error(err, errlen, UM_ERR_ARG, "um_field_compare_files: %s path is NULL",
                         got ? "the reference" : "the run's");
  else if (!(rel_tol >= 0) || !(floor_value >= 0) || !isfinite(rel_tol) || !isfinite(floor_value))
    rc = um_format_error(err, errlen, UM_ERR_ARG,
                         "um_field_compare_files: rel_tol %g and floor %g must be finite and >= 0",
                         rel_tol, floor_value);
  if (rc) {
    snprintf(res->message, sizeof res->message, "%s", err ? err : "bad arguments");
    return rc;
  }
  const int k = worst_k < 0 ? UM_FIELD_WORST_DEFAULT
                            : worst_k > UM_FIELD_WORST_MAX ? UM_FIELD_WORST_MAX : worst_k;
  char why[512] = "";
  FILE *fg = um_read_open(got, UM_FIELD_MAX_BYTES, NULL, why, sizeof why);
  FILE *fr = fg ? um_read_open(ref, UM_FIELD_MAX_BYTES, NULL, why, sizeof why) : NULL;
  if (!fg || !fr) {
    const int gbad = !fg;
    rc = um_format_error(res->message, sizeof res->message, UM_ERR_IO,
                         "cannot open %s '%s': %s", gbad ? "the run's field file" : "the reference field file",
                         gbad ? got : ref, why);
    if (err && errlen) snprintf(err, errlen, "%s", res->message);
    if (fg) fclose(fg);
    if (fr) fclose(fr);
    return rc;
  }
  char *lg = NULL, *lr = NULL, bad[256] = "";
  size_t cg = 0, cr = 0;
  for (;;) {
    int hg = next_line(fg, &lg, &cg), hr = next_line(fr, &lr, &cr);
    if (hg < 0 || hr < 0) {
      rc = um_format_error(res->message, sizeof res->message, UM_ERR_IO,
                           "reading %s '%s' after line %ld: %s",
                           hg < 0 ? "the run's field file" : "the reference field file",
                           hg < 0 ? got : ref, hg < 0 ? res->nlines_got : res->nlines_ref,
                           strerror(errno ? errno : EIO));
      if (err && errlen) snprintf(err, errlen, "%s", res->message);
      break;
    }
    if (!hg && !hr) break;
    res->nlines_got += hg;
    res->nlines_ref += hr;
    if (!hg || !hr) continue; /* one file is longer: count its lines */
    const long line = res->nlines_ref;
    int ng = count_tokens(lg), nr = count_tokens(lr);
    if (ng != nr) {
      if (!res->nbad_lines++)
        snprintf(bad, sizeof bad, "line %ld: the run's file has %d values, the reference has %d",
                 line, ng, nr);
      continue;
    }
    char *pg = lg, *pr = lr;
    for (int c = 1; c <= ng; c++) {
      char *tg = next_token(&pg), *tr = next_token(&pr);
      compare_pair(res, k, line, c, tg, tr);
    }
  }
  free(lg);
  free(lr);
  fclose(fg);
  fclose(fr);
  if (rc) return rc;
  res->pass = res->nlines_got == res->nlines_ref && !res->nbad_lines && !res->nfailing;
  field_summary(res, bad);
  return res->pass ? UM_SUCCESS : UM_ERR_VALIDATION;
}

static void field_tol_text(char *buf, size_t len, const um_field_result *f) {
  if (f->floor > 0)
    snprintf(buf, len, "rel %.3g, floor %.3g", f->rel_tol, f->floor);
  else
    snprintf(buf, len, "rel %.3g", f->rel_tol);
}

static void print_fields(FILE *report, const um_ref *ref, const um_validation_result *res,
                         int nnames, const char *const *names) {
  int w = 5;
  for (int i = 0; i < res->nfields; i++) {
    int l = (int)strlen(res->fields[i].name);
    if (l > w) w = l;
  }
  fprintf(report, "  %-*s  %12s  %9s  %11s  %-24s  %s\n", w, "field", "values", "failing",
          "max rel err", "tolerance", "result");
  for (int i = 0; i < res->nfields; i++) {
    const um_field_result *f = &res->fields[i];
    char tol[64], mx[16];
    field_tol_text(tol, sizeof tol, f);
    if (f->produced)
      snprintf(mx, sizeof mx, "%.2e", f->max_rel_err);
    else
      snprintf(mx, sizeof mx, "-");
    fprintf(report, "  %-*s  %12ld  %9ld  %11s  %-24s  %s\n", w, f->name, f->ncompared,
            f->nfailing, mx, tol,
            f->pass       ? "PASS"
            : f->produced ? "FAIL"
                          : "FAIL (not produced by the run)");
    if (!f->produced) continue;
    if (!f->pass && (!f->nfailing || f->nbad_lines || f->nlines_got != f->nlines_ref)) {
      /* what is not in the worst entries: structure, or a file that could not be read */
      fprintf(report, "    %s: ", f->name);
      print_oneline(report, f->message);
      fputc('\n', report);
    }
    for (int j = 0; j < f->nworst; j++) {
      const um_field_entry *e = &f->worst[j];
      fprintf(report, "    %s line %ld, column %d: reference %s, got %s, rel err %.3e%s\n",
              j ? "     " : "worst", e->line, e->column, e->ref_text, e->got_text, e->rel_err,
              e->pass ? "" : " FAIL");
    }
    fprintf(report, "    run's file %s, reference %s\n", f->got_path ? f->got_path : "-",
            f->ref_path ? f->ref_path : "-");
  }
  if (res->nfields_extra) {
    fprintf(report, "  note: fields not in the reference (not checked):");
    for (int j = 0; j < nnames; j++) {
      int found = 0;
      for (int i = 0; i < ref->nfields && !found; i++) found = !strcmp(names[j], ref->fields[i].name);
      if (!found) fprintf(report, " %s", names[j]);
    }
    fputc('\n', report);
  }
}

int um_validate_fields(const um_ref *ref, int nfields, const char *const *names,
                       const char *const *paths, FILE *report, um_validation_result *res) {
  if (!res) return UM_ERR_ARG;
  if (!ref || nfields < 0 || (nfields > 0 && (!names || !paths)))
    return um_format_error(res->message, sizeof res->message, UM_ERR_ARG,
                 "um_validate_fields: NULL reference or field arrays");
  for (int i = 0; i < nfields; i++) {
    if (!names[i] || !paths[i])
      return um_format_error(res->message, sizeof res->message, UM_ERR_ARG,
                   "um_validate_fields: field %d has a NULL %s", i, names[i] ? "path" : "name");
    for (int j = 0; j < i; j++)
      if (!strcmp(names[i], names[j]))
        return um_format_error(res->message, sizeof res->message, UM_ERR_ARG,
                     "um_validate_fields: the run registers field '%s' twice; give each field once",
                     names[i]);
  }
  free_fields(res);
  res->fields =
      (um_field_result *)calloc((size_t)(ref->nfields ? ref->nfields : 1), sizeof *res->fields);
  if (!res->fields)
    return um_format_error(res->message, sizeof res->message, UM_ERR_ALLOC,
                 "um_validate_fields: out of memory");
  res->nfields = ref->nfields;
  int io = 0; /* a field file that could not be read (the system's reason): nothing was compared, no verdict */
  char io_msg[sizeof res->message] = "";
  for (int i = 0; i < ref->nfields; i++) {
    const um_ref_field *rf = &ref->fields[i];
    um_field_result *f = &res->fields[i];
    int at = -1;
    for (int j = 0; j < nfields && at < 0; j++)
      if (!strcmp(names[j], rf->name)) at = j;
    if (at >= 0) {
      char e2[512];
      /* a run's file it did not write fails its field; one there that could not be read, or a reference that could
       * not (too few file descriptors, an I/O error), leaves the field uncompared */
      if (um_field_compare_files(paths[at], rf->path, rf->rel_tol, rf->floor, UM_FIELD_WORST_DEFAULT, f, e2,
                                 sizeof e2) == UM_ERR_IO &&
          access(paths[at], F_OK) == 0 && !io++)
        snprintf(io_msg, sizeof io_msg, "field '%.64s': %.400s", rf->name, f->message);
    } else {
      memset(f, 0, sizeof *f);
      f->rel_tol = rf->rel_tol;
      f->floor = rf->floor;
      f->max_rel_err = NAN;
      snprintf(f->message, sizeof f->message,
               "not produced by the run: the app registered no field '%s' (um_app_field)", rf->name);
      res->nfields_missing++;
    }
    f->name = dupstr(rf->name);
    f->ref_path = dupstr(rf->path);
    f->got_path = at >= 0 ? dupstr(paths[at]) : NULL;
    if (!f->name || !f->ref_path || (at >= 0 && !f->got_path)) {
      free_fields(res);
      return um_format_error(res->message, sizeof res->message, UM_ERR_ALLOC,
                   "um_validate_fields: out of memory");
    }
    if (f->pass)
      res->nfields_pass++;
    else
      res->nfields_fail++;
  }
  for (int j = 0; j < nfields; j++) {
    int found = 0;
    for (int i = 0; i < ref->nfields && !found; i++) found = !strcmp(names[j], ref->fields[i].name);
    if (!found) res->nfields_extra++;
  }
  if (io)
    return um_format_error(res->message, sizeof res->message, UM_ERR_IO,
                           "%s; the field was not compared, so the run is not judged", io_msg);
  res->pass = res->nfail == 0 && res->nfields_fail == 0;
  if (res->pass)
    snprintf(res->message, sizeof res->message,
             "validation PASSED: %d of %d metrics and %d of %d fields within tolerance of %s",
             res->npass, res->nmetrics, res->nfields_pass, res->nfields, ref->path);
  else
    snprintf(res->message, sizeof res->message,
             "validation FAILED: %d of %d metrics (%d not produced) and %d of %d fields (%d not "
             "produced) failed against %s",
             res->nfail, res->nmetrics, res->nmissing, res->nfields_fail, res->nfields,
             res->nfields_missing, ref->path);
  if (report) {
    if (res->nfields) print_fields(report, ref, res, nfields, names);
    fprintf(report, "  %s\n", res->message);
  }
  return res->pass ? UM_SUCCESS : UM_ERR_VALIDATION;
}
