/* umrun's multi-run tools: --suite (a validation suite over backends x
 * strategies x layouts x reorderings), --compare (two suite results files),
 * --report (an HTML + markdown page of the apps side by side) and --validate
 * (a finished run's JSON against a reference). Each takes
 * the command line after its flag and returns umrun's exit status. */
#ifndef UMRUN_TOOLS_H
#define UMRUN_TOOLS_H
#include <stdio.h>

#include "json.h"
#include "um/config.h"
#include "um/validate.h"
#include "um/app.h"

int umrun_suite_main(const um_runner *r, const char *argv0, int argc, char **argv); /* r: the apps cases name */
int umrun_compare_main(int argc, char **argv);
int umrun_report_main(const um_runner *r, int argc, char **argv); /* r: the apps' report notes */
int umrun_validate_main(int argc, char **argv);

void umrun_suite_usage(FILE *f);
void umrun_compare_usage(FILE *f);
void umrun_report_usage(FILE *f);
void umrun_validate_usage(FILE *f);

/* ---- shared by the three (tools.c) ---- */
/* A metric's allowed difference from ref: the larger of abs_tol and
 * rel_tol * |ref| (either may be absent: NaN or null). <= 0: none given. */
double umrun_metric_allowance(const uj *metric);
/* Load a validation reference: a relative path is tried as given, then in the
 * data folder (umrun_data_dir), so configs' validation/<app>/... paths work
 * from any folder. Returns um_ref_load's status (defined in revalidate.c). */
int umrun_ref_load(const char *given, um_ref **ref, char *err, size_t errlen);
/* The folder of um's data (validation/, configs/): the environment variable
 * UM_DATA_DIR, else <the program's folder>/../share/um when it exists (an
 * installed umrun: PREFIX/share/um; in the build tree build/share/um links the
 * source tree's folders); "" when neither. No path of the build is compiled in. */
const char *umrun_data_dir(char *dir, size_t len); /* into dir (len bytes); "" when none */
/* A relative input path not found from the current folder but present in the data folder (a checkout's
 * configs/x.yaml typed from another folder): appends to err (a message of len bytes) where it is. */
void umrun_data_dir_hint(const char *given, char *err, size_t len);
/* Why the JSON v read from path is not a results file this umrun reads, into buf (len bytes), for `tool`'s
 * message (umrun --compare, --report): another format version of umrun --suite's results (another umrun
 * wrote it: use that one) or no results file at all (what_else: what else the tool takes, or ""). */
void umrun_results_format_why(const char *tool, const char *path, const uj *v, const char *what_else, char *buf,
                              size_t len);
/* How this umrun was built: version, commit, build type, compiler, OpenMP, CUDA, HDF5 (a JSON object). */
void umrun_write_build_json(FILE *f);
/* Write s escaped for XML / HTML text and attributes. */
void umrun_xml_escape(FILE *f, const char *s);
/* Write s for a markdown table cell or line: <, > and & as entities (markdown
 * passes HTML through), | and newlines replaced, the "(" of "](" escaped, so
 * no string from a config, deck or results file becomes an element or a link. */
void umrun_md_escape(FILE *f, const char *s);
/* The same into buf (n bytes, truncated, always terminated); returns buf. */
const char *umrun_md_str(char *buf, size_t n, const char *s);
/* Write s as an HTML id / URL fragment: [A-Za-z0-9-] as they are, every other
 * byte as _xx (hex), so it never leaves its attribute and ids stay distinct. */
void umrun_html_id(FILE *f, const char *s);
/* The median of v[0..n) (v unchanged; 0 when n is 0). */
double umrun_median(const double *v, int n);
/* The useful GB/s of a loop entry of a run's JSON (bytes_per_call * calls / seconds). */
double umrun_loop_gbs(const uj *loop);
/* The settings that define the problem (mesh.*, params.*, run.iterations) that
 * the command line or UM_OPTIONS changed from the config file `base` (NULL: none
 * known), as "key = value (from --set; the config has v), ..." in buf; returns
 * how many. 0 when validation.reference itself came from the command line (the
 * reference was chosen for the changed run). Reads the values (marks them read). */
int umrun_changed_settings(um_config *cfg, um_config *base, char *buf, size_t len);
/* The same for a finished run checked against the reference file ref, from its JSON's "options" (their values
 * and origins), against the config file the JSON names. Only when that config is at hand with the bytes the run
 * read and names ref itself; else 0: for a file without "options", a config naming no reference or another one
 * (the changes are not from the config of ref), and a config not at hand (moved, edited since, a relative path
 * from another folder), whose changes ("key = value (from --set)", none: "") then go to unknown (ulen bytes). */
int umrun_changed_settings_json(const uj *run, const char *ref, char *unknown, size_t ulen, char *buf, size_t len);
/* The verdict on a failed validation of a run whose settings differ from its config's (changed: as
 * umrun_changed_settings writes them): NOT COMPARABLE, what differs, how much failed, and advice (one line). */
void umrun_print_not_comparable(FILE *out, const char *reference, const char *changed, const um_validation_result *val,
                                const char *advice);
/* A loop entry's parent: the loop whose split generated it ("res_calc" for
 * "res_calc:contrib"; its time is inside the parent's), NULL for the app's own
 * loops (and in files older than automatic loop splitting). */
const char *umrun_loop_parent(const uj *loop);
/* The loop entries of a run's "loops" in table order, into idx (and depth: 0 an
 * app's loop, 1 one generated by splitting the entry above): each loop of the
 * app followed by its generated loops; a generated loop whose parent is absent
 * comes last with depth 0. idx and depth hold uj_len(loops) entries; returns
 * how many were written (uj_len(loops)). */
int umrun_loop_order(const uj *loops, int *idx, int *depth);
/* Outputs (--json, --csv, --md) that name this process's stdout (/dev/stdout, /dev/fd/1, /proc/self/fd/1)
 * get stdout to themselves, so that `umrun ... --json /dev/stdout > run.json` (or | jq) gives the output
 * alone: the original stdout is kept as descriptor N, each such *paths[i] becomes "/dev/fd/N" (in buf, which
 * must outlive them; the output is written in place there), and stdout becomes a copy of stderr, where
 * everything the program prints then goes. Nothing changes when no path names stdout, or on MPI ranks > 0. */
void umrun_outputs_own_stdout(const char **paths[], int n, char *buf, size_t len);
/* An output path that names one of the inputs (the same file, by device and inode): the input's index, else -1.
 * Outputs are replaced whole, so writing one over an input loses it. */
int umrun_output_is_input(const char *out, const char *const *ins, int n);
/* --repeat (a suite's or a single run's): the samples' loops folded into run (a run's JSON): per loop
 * seconds the median, seconds_min, seconds_max, samples, the rates from the median; the run's
 * total_seconds the median, total_seconds_min/max, repeat. samples[0..n) are the runs' JSON (run among them). */
void umrun_merge_samples(uj *run, uj *const *samples, int n);
/* "backend/strategy/layout/reorder" of a suite case entry */
void umrun_variant_label(const uj *c, char *buf, size_t len);
#endif
