/** @file um/validate.h
 * Validation of run results against reference files.
 *
 * A reference lives in `validation/<app>/<case>.ref.yaml`:
 *
 * @verbatim
 *   app: airfoil
 *   case: 720k
 *   provenance: {code: OP2-Common airfoil_seq, commit: 1a2b3c, command: ./airfoil_seq,
 *                date: 2024-05-01, notes: ...}       # free-form scalars; code and command required
 *   metrics:
 *     - {name: rms_1000, value: 1.060114637578e-04, rel_tol: 1.0e-7}
 *     - {name: ncell,    value: 720000,             abs_tol: 0}
 *   fields:
 *     - {name: q, file: 720k.q.txt, rel_tol: 1.0e-3, floor: 1.0e-6}
 * @endverbatim
 *
 * Top-level keys: app, case, provenance, metrics, fields (and an optional
 * free-text description); at least one of metrics / fields must be given, and
 * a list that is given must not be empty. A metric has name, value and at
 * least one of rel_tol / abs_tol (>= 0). Unknown keys are errors, so a
 * misspelt tolerance cannot go unnoticed. A metric passes if
 * |got - ref| <= abs_tol OR |got - ref| <= rel_tol * |ref| (only the
 * tolerances given count); a NaN or infinite result never passes.
 *
 * A field is a text file the run writes (the app registers it under `name`)
 * compared value by value with the reference file `file` (relative to the
 * folder of the .ref.yaml, or absolute; checked to be readable when the
 * reference is loaded). rel_tol (>= 0) is required, floor (>= 0) defaults
 * to 0. The comparison is that of miniAero's numeric_text_diff:
 * @verbatim
 *   - both files are read line by line (streamed: any size, any line length);
 *     they must have the same number of lines, and each line the same number
 *     of whitespace-separated tokens;
 *   - a token identical as text to the reference token passes, except a
 *     non-finite number (nan, inf): a NaN or infinite value in the run's file
 *     never passes, even when the reference holds the same text (a reference
 *     with a NaN is a broken reference);
 *   - otherwise both tokens must be numbers (strtod over the whole token); a
 *     token that is not a number and differs fails;
 *   - with m = max(|got|, |ref|): if m <= floor the pair passes (both are
 *     noise); else rel = |got - ref| / m must be <= rel_tol.
 * @endverbatim
 */
#ifndef UM_VALIDATE_H
#define UM_VALIDATE_H

#include <stddef.h>
#include <stdio.h>

#include "um/um.h"

#ifdef __cplusplus
extern "C" {
#endif

/** One metric of a reference: its value and tolerances. */
typedef struct {
  char *name;     /**< the metric's name, as the app reports it */
  double value;   /**< the reference value                      */
  double rel_tol; /**< valid if has_rel_tol */
  double abs_tol; /**< valid if has_abs_tol */
  int has_rel_tol; /**< 1 if rel_tol was given */
  int has_abs_tol; /**< 1 if abs_tol was given */
  int line; /**< line in the reference file */
} um_ref_metric;

/** One provenance entry of a reference (key: value). */
typedef struct {
  char *key; /**< "code", "commit", "command", "date", "notes", ... (file order) */
  char *value; /**< its text */
} um_ref_entry;

/** One field of a reference: a text file compared value by value. */
typedef struct {
  char *name; /**< the field's name, as the app registers it */
  char *file; /**< as written in the reference */
  char *path; /**< resolved: the reference's folder + file, or file if absolute */
  double rel_tol; /**< largest relative difference allowed */
  double floor; /**< 0 if not given */
  int line;     /**< line in the reference file */
} um_ref_field;

/** A loaded reference; read-only to callers. */
typedef struct um_ref {
  char *path;      /**< the reference file                          */
  char *app;       /**< the app it holds numbers of                 */
  char *case_name; /**< its case (the key `case`)                   */
  char *description; /**< NULL if not given */
  int nprovenance;          /**< entries of provenance                  */
  um_ref_entry *provenance; /**< where the numbers come from, in file order */
  int nmetrics;             /**< entries of metrics                     */
  um_ref_metric *metrics;   /**< the metrics, in file order             */
  int nfields;              /**< entries of fields                      */
  um_ref_field *fields;     /**< the fields, in file order              */
} um_ref;

/** Load and check a reference file. Errors (UM_ERR_IO for a missing file, the
 * reference's or a field's, UM_ERR_CONFIG otherwise) name the file, and for a
 * bad metric or field its index, name and key:
 * "v.ref.yaml:6: metrics[1] (ncell): missing 'value'; ...",
 * "v.ref.yaml:9: fields[0] (q): cannot read 'validation/x/q.txt': ...".
 * *ref is NULL on failure. */
int um_ref_load(const char *path, um_ref **ref, char *err, size_t errlen);
/** Same from a string (origin_name stands for the path in messages, and its
 * folder is the one relative field files are found in). */
int um_ref_load_string(const char *yaml, const char *origin_name, um_ref **ref, char *err,
                       size_t errlen);
/** Free a reference (NULL: nothing to do). */
void um_ref_free(um_ref *ref);

/** A provenance value ("code", "command", ...), NULL if not given. */
const char *um_ref_provenance(const um_ref *ref, const char *key);

/** Result of one metric, JSON-friendly: plain numbers and flags.
 * rel_err = |got - ref| / |ref|; if ref == 0 it is 0 when got == 0 and
 * INFINITY otherwise (write non-finite numbers as JSON null). For a metric
 * the run did not produce, got/abs_err/rel_err are NAN and produced == 0. */
typedef struct {
  char *name;     /**< the metric's name                          */
  double ref;     /**< the reference value                        */
  double got;     /**< the run's value (NAN if not produced)      */
  double abs_err; /**< |got - ref|                                */
  double rel_err; /**< |got - ref| / |ref| (see above)            */
  /** @{ the tolerances: valid if has_* */
  double rel_tol, abs_tol;
  /** @} */
  /** @{ 1 if the reference gave that tolerance */
  int has_rel_tol, has_abs_tol;
  /** @} */
  int produced; /**< the run reported this metric */
  int pass;     /**< 1 if the metric passed       */
} um_metric_result;

/* ---- fields ---- */
#define UM_FIELD_WORST_MAX 16 /**< most entries a um_field_result keeps */
/** A field file (the run's or the reference's) is a regular file (checked when
 * the reference is loaded, before the run) of at most UM_FIELD_MAX_BYTES,
 * streamed line by line: what is read, and the longest line held in memory,
 * are bounded by the file's size, which fstat gives before reading. */
#define UM_FIELD_MAX_BYTES (64ULL << 30)
#define UM_FIELD_WORST_DEFAULT 5 /**< worst entries kept when the caller asks for < 0 */

/** One compared value. Non-numeric tokens have NAN in ref / got, their text in
 * ref_text / got_text (cut to 31 characters), and rel_err INFINITY. */
typedef struct {
  long line;  /**< 1-based */
  int column; /**< 1-based token index on the line */
  /** @{ the reference's and the run's value (NAN if not a number) */
  double ref, got;
  /** @} */
  double rel_err; /**< |got - ref| / max(|got|, |ref|); 0 under the floor; INFINITY if not comparable */
  int pass;   /**< 1 if the pair passed */
  /** @{ the reference's and the run's token as text (cut to 31 characters) */
  char ref_text[32], got_text[32];
  /** @} */
} um_field_entry;

/** Result of one field file. */
typedef struct {
  char *name;     /**< um_validate_fields: the reference's name (NULL from um_field_compare_files) */
  char *ref_path; /**< um_validate_fields: the reference file */
  char *got_path; /**< um_validate_fields: the run's file, NULL if not produced */
  /** @{ the field's tolerance and floor */
  double rel_tol, floor;
  /** @} */
  int produced;     /**< the run registered this field (always 1 from um_field_compare_files) */
  long nlines_ref;  /**< lines in the reference file */
  long nlines_got;  /**< lines in the run's file */
  long ncompared;   /**< token pairs compared (on lines present in both with equal token counts) */
  long nfailing;    /**< pairs that failed */
  long nbad_lines;  /**< lines whose token counts differ (not compared) */
  double max_rel_err; /**< over the pairs compared; INFINITY if one was not comparable */
  int nworst;       /**< entries in worst[] */
  um_field_entry worst[UM_FIELD_WORST_MAX]; /**< failing first, then by rel_err, largest first */
  int pass;         /**< 1 if every value passed */
  char message[512]; /**< one line: why it failed (first structural problem or the worst value), or a summary */
} um_field_result;

/** The result of validating a run: every metric (um_validate) and field (um_validate_fields). */
typedef struct {
  int pass;     /**< 1: every reference metric and field passed */
  int nmetrics; /**< metrics in the reference */
  int npass;    /**< metrics that passed */
  int nfail;                 /**< failures, missing ones included */
  int nmissing;              /**< in the reference but not produced by the run */
  int nextra;                /**< produced by the run but not in the reference (not a failure) */
  um_metric_result *metrics; /**< nmetrics entries, in reference order */
  /** filled by um_validate_fields (zero after um_validate) */
  int nfields;               /**< fields in the reference */
  int nfields_pass;          /**< fields that passed */
  int nfields_fail;          /**< failures, missing ones included */
  int nfields_missing;       /**< in the reference but not produced by the run */
  int nfields_extra;         /**< produced by the run but not in the reference (not a failure) */
  um_field_result *fields;   /**< nfields entries, in reference order */
  char message[512];         /**< one-line summary, or the error when um_validate fails */
} um_validation_result;

/** Compare the run's metrics (names[i], values[i]) with the reference and, if
 * report is not NULL, print a table (metric, reference, got, rel err,
 * tolerance, PASS/FAIL) with the provenance. Fills *res (free it with
 * um_validation_result_free; safe on a zeroed or failed result).
 * Returns UM_SUCCESS if every metric passed, UM_ERR_VALIDATION if any failed
 * or is missing, UM_ERR_CONFIG if the reference is for another app than `app`,
 * UM_ERR_ARG for bad arguments (NULL pointers, a name given twice); the
 * reason is in res->message. Metrics only: when the reference lists fields,
 * call um_validate_fields next, which completes res (pass, message) and
 * prints the verdict (um_validate then prints only the metric count). */
int um_validate(const um_ref *ref, const char *app, int nmetrics, const char *const *names,
                const double *values, FILE *report, um_validation_result *res);
/** Free what um_validate and um_validate_fields allocated in *res (safe on a zeroed or failed result). */
void um_validation_result_free(um_validation_result *res);

/** Compare the text file `got` with the reference file `ref` value by value
 * (rules at the top of this file), streaming both. Fills *res (no memory to
 * free; name / paths stay NULL) keeping the worst `worst_k` entries
 * (0..UM_FIELD_WORST_MAX; < 0 means UM_FIELD_WORST_DEFAULT).
 * Returns UM_SUCCESS if every value passed, UM_ERR_VALIDATION if not (why in
 * res->message), UM_ERR_IO if a file cannot be opened or read and UM_ERR_ARG
 * for bad arguments (the reason in err, and in res->message). */
int um_field_compare_files(const char *got, const char *ref, double rel_tol, double floor_value,
                           int worst_k, um_field_result *res, char *err, size_t errlen);

/** Compare the field files the run produced (names[i] written to paths[i])
 * with the reference's fields, and append the results to *res, which must
 * come from um_validate on the same reference (or be zeroed). A reference
 * field the run did not produce fails as missing; a field the run produced
 * that the reference does not list is noted, not checked. A file that cannot
 * be read fails its field. Updates res->pass (metrics AND fields) and
 * res->message, and prints a table (field, values, failing, max rel err,
 * tolerance, PASS/FAIL, then the worst entries of each field that is not
 * identical) to `report` if not NULL.
 * Returns UM_SUCCESS if everything (metrics included) passed,
 * UM_ERR_VALIDATION if anything failed, UM_ERR_ARG for bad arguments (NULL
 * pointers, a name given twice; the reason in res->message). */
int um_validate_fields(const um_ref *ref, int nfields, const char *const *names,
                       const char *const *paths, FILE *report, um_validation_result *res);

/** Write the result as one JSON object (app, case, reference path, provenance,
 * pass, counts, metrics[], fields[] with their worst entries); non-finite
 * numbers are written as null. */
int um_validation_write_json(const um_ref *ref, const um_validation_result *res, FILE *f);

#ifdef __cplusplus
}
#endif
#endif
