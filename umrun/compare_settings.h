/* umrun --compare's rules for like with like (compare_settings.c): which settings of two runs differ
 * (from each run's "options": every option in effect with its source), which of them the user allows
 * (--allow key,...), whether a side ran on a loaded machine, and single runs' JSON read as a results file
 * of one run. Internal to umrun/. */
#ifndef UMRUN_COMPARE_SETTINGS_H
#define UMRUN_COMPARE_SETTINGS_H
#include "json.h"

/* One setting that differs between run A and run B. */
typedef struct {
  char key[200];
  char a[300], b[300];   /* the values ("(not set)" when a side does not record the key) */
  char sa[40], sb[40];   /* their sources: default, config, UM_OPTIONS, --set, suite, --sweep */
  int allowed;           /* named by --allow */
} cmp_setting;

/* --allow: keys ("params.forces") or prefixes ("params.*") */
typedef struct {
  char **keys;
  int n;
} cmp_allow;

/* --allow's list (comma separated, added to a): 0, or -1 out of memory. */
int cmp_allow_add(cmp_allow *a, const char *list);
void cmp_allow_free(cmp_allow *a);

/* The defining settings of runs a and b (their JSON) that differ, up to cap into out; returns how many
 * differ (more than cap: counted, not written). *recorded: 0 when either run's JSON has no "options"
 * (a file older than the provenance: nothing can be said). Settings that do not define a run (output.*,
 * run.cache, run.unknown_keys, mpi.deadline_s) are left out. */
int cmp_settings_differ(const uj *a, const uj *b, const cmp_allow *allow, cmp_setting *out, int cap, int *recorded);

/* 1 when the run ran on a loaded machine: its entry's (a suite case's) or its own JSON's load.busy. */
int cmp_loaded(const uj *case_entry);

/* A file for --compare: a results file of umrun --suite as it is; a single run's --json (umrun CONFIG --json)
 * as a results file of that one run (id: its app), so two single runs compare as two suites do.
 * *single: 1 for a single run. 0, or -1 with the message in err. */
int cmp_load_file(const char *path, uj **out, int *single, char *err, size_t len);
#endif
