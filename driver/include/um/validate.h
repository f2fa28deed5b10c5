/* um: validation of run results against reference files.
 *
 * A reference lives in validation/<app>/<case>.ref.yaml:
 *
 *   app: airfoil
 *   case: 720k
 *   provenance: {code: OP2-Common airfoil_seq, commit: 1a2b3c, command: ./airfoil_seq,
 *                date: 2024-05-01, notes: ...}       # free-form scalars; code and command required
 *   metrics:
 *     - {name: rms_1000, value: 1.060114637578e-04, rel_tol: 1.0e-7}
 *     - {name: ncell,    value: 720000,             abs_tol: 0}
 *
 * Top-level keys: app, case, provenance, metrics (and an optional free-text
 * description); a metric has name, value and at least one of rel_tol /
 * abs_tol (>= 0). Unknown keys are errors, so a misspelt tolerance cannot go
 * unnoticed. A metric passes if |got - ref| <= abs_tol OR
 * |got - ref| <= rel_tol * |ref| (only the tolerances given count); a NaN or
 * infinite result never passes.
 */
#ifndef UM_VALIDATE_H
#define UM_VALIDATE_H

#include <stddef.h>
#include <stdio.h>

#include "um/um.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  char *name;
  double value;
  double rel_tol; /* valid if has_rel_tol */
  double abs_tol; /* valid if has_abs_tol */
  int has_rel_tol;
  int has_abs_tol;
  int line; /* line in the reference file */
} um_ref_metric;

typedef struct {
  char *key; /* "code", "commit", "command", "date", "notes", ... (file order) */
  char *value;
} um_ref_entry;

/* A loaded reference; read-only to callers. */
typedef struct um_ref {
  char *path;
  char *app;
  char *case_name;
  char *description; /* NULL if not given */
  int nprovenance;
  um_ref_entry *provenance;
  int nmetrics;
  um_ref_metric *metrics;
} um_ref;

/* Load and check a reference file. Errors (UM_ERR_IO for a missing file,
 * UM_ERR_CONFIG otherwise) name the file, and for a bad metric its index,
 * name and field: "v.ref.yaml: metrics[1] (ncell): missing 'value'; ...".
 * *ref is NULL on failure. */
int um_ref_load(const char *path, um_ref **ref, char *err, size_t errlen);
/* Same from a string (origin_name stands for the path in messages). */
int um_ref_load_string(const char *yaml, const char *origin_name, um_ref **ref, char *err,
                       size_t errlen);
void um_ref_free(um_ref *ref);

/* A provenance value ("code", "command", ...), NULL if not given. */
const char *um_ref_provenance(const um_ref *ref, const char *key);

/* Result of one metric, JSON-friendly: plain numbers and flags.
 * rel_err = |got - ref| / |ref|; if ref == 0 it is 0 when got == 0 and
 * INFINITY otherwise (write non-finite numbers as JSON null). For a metric
 * the run did not produce, got/abs_err/rel_err are NAN and produced == 0. */
typedef struct {
  char *name;
  double ref;
  double got;
  double abs_err;
  double rel_err;
  double rel_tol, abs_tol; /* valid if has_* */
  int has_rel_tol, has_abs_tol;
  int produced; /* the run reported this metric */
  int pass;
} um_metric_result;

typedef struct {
  int pass;     /* 1: every reference metric passed */
  int nmetrics; /* metrics in the reference */
  int npass;
  int nfail;                 /* failures, missing ones included */
  int nmissing;              /* in the reference but not produced by the run */
  int nextra;                /* produced by the run but not in the reference (not a failure) */
  um_metric_result *metrics; /* nmetrics entries, in reference order */
  char message[512];         /* one-line summary, or the error when um_validate fails */
} um_validation_result;

/* Compare the run's metrics (names[i], values[i]) with the reference and, if
 * report is not NULL, print a table (metric, reference, got, rel err,
 * tolerance, PASS/FAIL) with the provenance. Fills *res (free it with
 * um_validation_result_free; safe on a zeroed or failed result).
 * Returns UM_SUCCESS if every metric passed, UM_ERR_VALIDATION if any failed
 * or is missing, UM_ERR_CONFIG if the reference is for another app than `app`,
 * UM_ERR_ARG for bad arguments (NULL pointers, a name given twice); the
 * reason is in res->message. */
int um_validate(const um_ref *ref, const char *app, int nmetrics, const char *const *names,
                const double *values, FILE *report, um_validation_result *res);
void um_validation_result_free(um_validation_result *res);

/* Write the result as one JSON object (app, case, reference path, provenance,
 * pass, counts, metrics[]); non-finite numbers are written as null. */
int um_validation_write_json(const um_ref *ref, const um_validation_result *res, FILE *f);

#ifdef __cplusplus
}
#endif
#endif
