/* um: validation of run results against a reference (read by validate_ref.c): the metrics
 * with their tolerances, the report and the JSON of the result. Field files are compared
 * by validate_fields.c. */
#include "validate_internal.h"

/* ---- validation ------------------------------------------------------------------ */
void um_validation_result_free(um_validation_result *res) {
  if (!res) return;
  if (res->metrics)
    for (int i = 0; i < res->nmetrics; i++) free(res->metrics[i].name);
  free(res->metrics);
  res->metrics = NULL;
  res->nmetrics = 0;
  free_fields(res);
}

static void tol_text(char *buf, size_t len, const um_metric_result *m) {
  if (m->has_rel_tol && m->has_abs_tol)
    snprintf(buf, len, "rel %.3g or abs %.3g", m->rel_tol, m->abs_tol);
  else if (m->has_rel_tol)
    snprintf(buf, len, "rel %.3g", m->rel_tol);
  else
    snprintf(buf, len, "abs %.3g", m->abs_tol);
}

/* The table of um_validate: the reference's provenance, each metric against its reference and tolerance,
 * the metrics not in the reference, the verdict (after the fields when the reference has any). */
static void print_report(FILE *report, const um_ref *ref, int nmetrics, const char *const *names,
                         const um_validation_result *res) {
  int w = 6;
  for (int i = 0; i < res->nmetrics; i++) {
    int l = (int)strlen(res->metrics[i].name);
    if (l > w) w = l;
  }
  fprintf(report, "validation: app %s, case %s, reference %s\n", ref->app, ref->case_name,
          ref->path);
  for (int i = 0; i < ref->nprovenance; i++) {
    fprintf(report, "  %-9s ", ref->provenance[i].key);
    print_oneline(report, ref->provenance[i].value);
    fputc('\n', report);
  }
  if (res->nmetrics)
    fprintf(report, "  %-*s  %22s  %22s  %9s  %-22s  %s\n", w, "metric", "reference", "got",
            "rel err", "tolerance", "result");
  for (int i = 0; i < res->nmetrics; i++) {
    const um_metric_result *m = &res->metrics[i];
    char tol[64], got[32], rel[16];
    tol_text(tol, sizeof tol, m);
    if (m->produced) {
      snprintf(got, sizeof got, "%.13g", m->got);
      snprintf(rel, sizeof rel, "%.2e", m->rel_err);
    } else {
      snprintf(got, sizeof got, "-");
      snprintf(rel, sizeof rel, "-");
    }
    fprintf(report, "  %-*s  %22.13g  %22s  %9s  %-22s  %s\n", w, m->name, m->ref, got, rel, tol,
            m->pass       ? "PASS"
            : m->produced ? "FAIL"
                          : "FAIL (not produced by the run)");
  }
  if (res->nextra) {
    fprintf(report, "  note: metrics not in the reference (not checked):");
    for (int j = 0; j < nmetrics; j++) {
      int found = 0;
      for (int i = 0; i < ref->nmetrics && !found; i++)
        found = !strcmp(names[j], ref->metrics[i].name);
      if (!found) fprintf(report, " %s", names[j]);
    }
    fputc('\n', report);
  }
  if (ref->nfields == 0)
    fprintf(report, "  %s\n", res->message);
  else if (res->nmetrics) /* the verdict comes after the fields (um_validate_fields) */
    fprintf(report, "  %d of %d metrics within tolerance\n", res->npass, res->nmetrics);
}

int um_validate(const um_ref *ref, const char *app, int nmetrics, const char *const *names,
                const double *values, FILE *report, um_validation_result *res) {
  if (!res) return UM_ERR_ARG;
  memset(res, 0, sizeof *res);
  if (!ref || nmetrics < 0 || (nmetrics > 0 && (!names || !values)))
    return um_format_error(res->message, sizeof res->message, UM_ERR_ARG,
                 "um_validate: NULL reference or metric arrays");
  if (app && strcmp(app, ref->app))
    return um_format_error(res->message, sizeof res->message, UM_ERR_CONFIG,
                 "reference %s is for app '%s', but this run is app '%s'; use a reference from "
                 "validation/%s/",
                 ref->path, ref->app, app, app);
  for (int i = 0; i < nmetrics; i++) {
    if (!names[i])
      return um_format_error(res->message, sizeof res->message, UM_ERR_ARG,
                   "um_validate: metric name %d is NULL", i);
    for (int j = 0; j < i; j++)
      if (!strcmp(names[i], names[j]))
        return um_format_error(res->message, sizeof res->message, UM_ERR_ARG,
                     "um_validate: the run reports metric '%s' twice; give each metric once",
                     names[i]);
  }
  res->metrics =
      (um_metric_result *)calloc((size_t)(ref->nmetrics ? ref->nmetrics : 1), sizeof *res->metrics);
  if (!res->metrics)
    return um_format_error(res->message, sizeof res->message, UM_ERR_ALLOC, "um_validate: out of memory");
  res->nmetrics = ref->nmetrics;
  for (int i = 0; i < ref->nmetrics; i++) {
    const um_ref_metric *rm = &ref->metrics[i];
    um_metric_result *m = &res->metrics[i];
    if (!(m->name = dupstr(rm->name))) {
      um_validation_result_free(res);
      return um_format_error(res->message, sizeof res->message, UM_ERR_ALLOC, "um_validate: out of memory");
    }
    m->ref = rm->value;
    m->rel_tol = rm->rel_tol;
    m->abs_tol = rm->abs_tol;
    m->has_rel_tol = rm->has_rel_tol;
    m->has_abs_tol = rm->has_abs_tol;
    m->got = m->abs_err = m->rel_err = NAN;
    for (int j = 0; j < nmetrics; j++)
      if (!strcmp(names[j], rm->name)) {
        m->produced = 1;
        m->got = values[j];
      }
    if (m->produced) {
      double d = fabs(m->got - m->ref);
      m->abs_err = d;
      m->rel_err = m->ref != 0.0 ? d / fabs(m->ref) : (d == 0.0 ? 0.0 : (double)INFINITY);
      m->pass =
          (m->has_abs_tol && d <= m->abs_tol) || (m->has_rel_tol && d <= m->rel_tol * fabs(m->ref));
    } else {
      res->nmissing++;
    }
    if (m->pass)
      res->npass++;
    else
      res->nfail++;
  }
  for (int j = 0; j < nmetrics; j++) {
    int found = 0;
    for (int i = 0; i < ref->nmetrics && !found; i++)
      found = !strcmp(names[j], ref->metrics[i].name);
    if (!found) res->nextra++;
  }
  res->pass = res->nfail == 0;
  if (res->pass)
    snprintf(res->message, sizeof res->message,
             "validation PASSED: %d of %d metrics within tolerance of %s", res->npass,
             res->nmetrics, ref->path);
  else
    snprintf(res->message, sizeof res->message,
             "validation FAILED: %d of %d metrics failed (%d not produced by the run) against %s",
             res->nfail, res->nmetrics, res->nmissing, ref->path);

  if (report) print_report(report, ref, nmetrics, names, res);
  return res->pass ? UM_SUCCESS : UM_ERR_VALIDATION;
}

/* ---- JSON ----------------------------------------------------------------------- */
static void json_str(FILE *f, const char *s) {
  fputc('"', f);
  for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
    if (*p == '"' || *p == '\\')
      fprintf(f, "\\%c", *p);
    else if (*p == '\n')
      fputs("\\n", f);
    else if (*p == '\t')
      fputs("\\t", f);
    else if (*p < 0x20)
      fprintf(f, "\\u%04x", *p);
    else
      fputc(*p, f);
  }
  fputc('"', f);
}

static void json_num(FILE *f, double v) {
  if (isfinite(v))
    fprintf(f, "%.17g", v);
  else
    fputs("null", f);
}

int um_validation_write_json(const um_ref *ref, const um_validation_result *res, FILE *f) {
  if (!ref || !res || !f) return UM_ERR_ARG;
  fputs("{\"app\": ", f);
  json_str(f, ref->app);
  fputs(", \"case\": ", f);
  json_str(f, ref->case_name);
  fputs(", \"reference\": ", f);
  json_str(f, ref->path);
  fputs(", \"provenance\": {", f);
  for (int i = 0; i < ref->nprovenance; i++) {
    if (i) fputs(", ", f);
    json_str(f, ref->provenance[i].key);
    fputs(": ", f);
    json_str(f, ref->provenance[i].value);
  }
  fprintf(f, "}, \"pass\": %s, \"npass\": %d, \"nfail\": %d, \"nmissing\": %d, \"nextra\": %d",
          res->pass ? "true" : "false", res->npass, res->nfail, res->nmissing, res->nextra);
  fprintf(f, ", \"nfields_pass\": %d, \"nfields_fail\": %d, \"nfields_missing\": %d, \"nfields_extra\": %d",
          res->nfields_pass, res->nfields_fail, res->nfields_missing, res->nfields_extra);
  fputs(", \"metrics\": [", f);
  for (int i = 0; i < res->nmetrics && res->metrics; i++) {
    const um_metric_result *m = &res->metrics[i];
    fputs(i ? ", {\"name\": " : "{\"name\": ", f);
    json_str(f, m->name);
    fputs(", \"ref\": ", f);
    json_num(f, m->ref);
    fputs(", \"got\": ", f);
    json_num(f, m->produced ? m->got : NAN);
    fputs(", \"abs_err\": ", f);
    json_num(f, m->abs_err);
    fputs(", \"rel_err\": ", f);
    json_num(f, m->rel_err);
    fputs(", \"rel_tol\": ", f);
    json_num(f, m->has_rel_tol ? m->rel_tol : NAN);
    fputs(", \"abs_tol\": ", f);
    json_num(f, m->has_abs_tol ? m->abs_tol : NAN);
    fprintf(f, ", \"produced\": %s, \"pass\": %s}", m->produced ? "true" : "false",
            m->pass ? "true" : "false");
  }
  fputs("], \"fields\": [", f);
  for (int i = 0; i < res->nfields && res->fields; i++) {
    const um_field_result *fr = &res->fields[i];
    fputs(i ? ", {\"name\": " : "{\"name\": ", f);
    json_str(f, fr->name);
    fputs(", \"reference\": ", f);
    json_str(f, fr->ref_path);
    fputs(", \"file\": ", f);
    if (fr->got_path)
      json_str(f, fr->got_path);
    else
      fputs("null", f);
    fputs(", \"rel_tol\": ", f);
    json_num(f, fr->rel_tol);
    fputs(", \"floor\": ", f);
    json_num(f, fr->floor);
    fprintf(f, ", \"produced\": %s, \"lines\": %ld, \"lines_ref\": %ld, \"compared\": %ld, "
               "\"failing\": %ld, \"bad_lines\": %ld, \"max_rel_err\": ",
            fr->produced ? "true" : "false", fr->nlines_got, fr->nlines_ref, fr->ncompared,
            fr->nfailing, fr->nbad_lines);
    json_num(f, fr->produced ? fr->max_rel_err : NAN);
    fprintf(f, ", \"pass\": %s, \"message\": ", fr->pass ? "true" : "false");
    json_str(f, fr->message);
    fputs(", \"worst\": [", f);
    for (int j = 0; j < fr->nworst; j++) {
      const um_field_entry *e = &fr->worst[j];
      fprintf(f, "%s{\"line\": %ld, \"column\": %d, \"ref\": ", j ? ", " : "", e->line, e->column);
      json_num(f, e->ref);
      fputs(", \"got\": ", f);
      json_num(f, e->got);
      fputs(", \"rel_err\": ", f);
      json_num(f, e->rel_err);
      fputs(", \"ref_text\": ", f);
      json_str(f, e->ref_text);
      fputs(", \"got_text\": ", f);
      json_str(f, e->got_text);
      fprintf(f, ", \"pass\": %s}", e->pass ? "true" : "false");
    }
    fputs("]}", f);
  }
  fputs("]}\n", f);
  return ferror(f) ? UM_ERR_IO : UM_SUCCESS;
}
