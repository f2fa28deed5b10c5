/* Provenance: what a run's JSON records so that two runs can be told alike or unlike later, on
 * another machine (docs/schema/run.schema.json): every option in effect with its value and source,
 * every file the run read with its SHA-256, the machine (CPU, cores, memory, GPU or why none) and
 * the load around the run. Written by outputs.c (a run's --json); the suite reuses the machine's
 * parts. Internal to umrun/. */
#ifndef UMRUN_PROVENANCE_H
#define UMRUN_PROVENANCE_H
#include <stdio.h>

#include "um/app.h"
#include "um/config.h"
#include "um/validate.h"

/* The versions of the formats (docs/schema/): a run's JSON and a suite's results.json. */
#define UMRUN_RUN_FORMAT "um-run-2"
#define UMRUN_RESULTS_FORMAT "um-suite-results-1"

/* SHA-256 of a file's content as 64 hex digits into hex, its size into *bytes: 0, or -1 unreadable. */
int umrun_sha256_file(const char *path, char hex[65], double *bytes);

/* The 1-minute load average (/proc/loadavg, or the file UMRUN_LOADAVG names: the tests' busy machine);
 * -1 when unreadable. */
double umrun_loadavg(void);
/* 1 when the load is above the cores: the run shared the CPU with other work. */
int umrun_busy(double load, long cores);
/* The value after "key:" of the first line of a /proc file that starts with key ("" when none). */
void umrun_proc_field(const char *path, const char *key, char *out, size_t len);

/* Where a value came from, as a source word: "default", "config" (the config file, or the program's
 * embedded config), "UM_OPTIONS", "--set", "suite" (a suite case: its set:, defaults or matrix), "--sweep". */
const char *umrun_option_source(const char *origin);

/* "options": every option in effect, {key: {value, source, origin}}: the config's values (after
 * UM_OPTIONS and --set), the defaults the run read, and every declared option of the runner's table,
 * of the app (app, may be NULL) and of the backend in use (backend) not among them, with its declared
 * default. */
void umrun_write_options_json(FILE *f, const um_config *cfg, const um_app *app, const char *backend);
/* "inputs": the config file (config_path; NULL: the embedded config) and every option in effect that
 * names an existing file (mesh.file, a deck, validation.reference, run.reorder_file, ...), the
 * reference's field files (ref, may be NULL) and the files the app recorded (run's um_app_input; run may be
 * NULL): [{role, path, bytes, sha256}]. */
void umrun_write_inputs_json(FILE *f, const char *config_path, const um_config *cfg, const um_ref *ref,
                             const um_app_run *run);
/* "machine": host, os, CPU model, cores, memory; "gpu": gpu (the run's device, from the backend; NULL
 * when it has none) or null with "gpu_note" saying why. */
void umrun_write_machine_json(FILE *f, const char *gpu_json, const char *backend);
#endif
