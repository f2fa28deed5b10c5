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

int umrun_suite_main(const char *argv0, int argc, char **argv);
int umrun_compare_main(int argc, char **argv);
int umrun_report_main(int argc, char **argv);
int umrun_validate_main(int argc, char **argv);

void umrun_suite_usage(FILE *f);
void umrun_compare_usage(FILE *f);
void umrun_report_usage(FILE *f);
void umrun_validate_usage(FILE *f);

/* ---- shared by the three (tools_common in suite.c) ---- */
/* A metric's allowed difference from ref: the larger of abs_tol and
 * rel_tol * |ref| (either may be absent: NaN or null). <= 0: none given. */
double umrun_metric_allowance(const uj *metric);
/* Load a validation reference: a relative path is tried as given, then from
 * the source tree (UM_SOURCE_DIR), so configs' validation/<app>/... paths work
 * from any folder. Returns um_ref_load's status (defined in revalidate.c). */
int umrun_ref_load(const char *given, um_ref **ref, char *err, size_t errlen);
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
/* The useful GB/s of a loop entry of a run's JSON (bytes_per_call * calls / seconds). */
double umrun_loop_gbs(const uj *loop);
/* The settings that define the problem (mesh.*, params.*, run.iterations) that
 * the command line or UM_OPTIONS changed from the config file `base` (NULL: none
 * known), as "key = value (from --set; the config has v), ..." in buf; returns
 * how many. 0 when validation.reference itself came from the command line (the
 * reference was chosen for the changed run). Reads the values (marks them read). */
int umrun_changed_settings(um_config *cfg, um_config *base, char *buf, size_t len);
/* "backend/strategy/layout/reorder" of a suite case entry */
void umrun_variant_label(const uj *c, char *buf, size_t len);
#endif
