/* suite_internal.h: what the --suite sources share (suite.c: the command; suite_file.c: the suite
 * file; suite_run.c: the machine, one run, the outputs): the case, file and run records and the
 * functions each defines for the others. Private to umrun. */
#ifndef UMRUN_SUITE_INTERNAL_H
#define UMRUN_SUITE_INTERNAL_H

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
  char *draw; /* draw: plan[=LOOP] | partition[=SET]: each run writes that picture beside its JSON (NULL: none) */
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


typedef struct {
  const suite_case *c;
  const char *val[AXES]; /* this combination (NULL: the config's own) */
  char id[512], file_id[512];
  char json_path[4096], log_path[4096], draw_path[4096]; /* draw_path: the case's picture ("" none) */
  umrun_child_result res;
  int started;
  char status[16]; /* pass, fail, error, timeout */
  char message[2048];
  char *json_text; /* the child's --json, whole */
  uj *json;
  double worst_margin; /* largest |got-ref| / allowance over the metrics, -1 none */
  char worst_metric[128];
  int samples;                 /* times it ran (--repeat N: N, unless a sample failed) */
  double load_start, load_end; /* the machine's 1-minute load average before and after (-1: unknown) */
  int threads;                 /* OpenMP threads of the run (its JSON's, else the suite's) */
} suite_run;

/* The machine's state around a run: its 1-minute load average (/proc/loadavg; -1 if unreadable), and
 * whether it was busy (a load above the cores: the runs shared the CPU with other work). */
double suite_loadavg(void);
int suite_busy(double load, long cores);

/* suite_file.c */
void suite_free_strs(char **v, int n);
void suite_free(suite_file *s);
/* allow_compiler: --allow-compiler was given (set: entries may name hostc.cc / hostc.cflags). */
int suite_load(const um_runner *r, const char *path, const char *app_override, int allow_compiler, suite_file *S, char *err, size_t len);
int suite_has_tag(const suite_case *c, char **want, int nwant);
/* suite_run.c */
void suite_judge(suite_run *r);
void suite_same_bits(suite_run *runs, int nruns);
#define SUITE_COPIES 5    /* copies per measurement of the copy bandwidth */
#define SUITE_COPY_MAX 20 /* samples kept */
typedef struct {
  int repeat;                  /* --repeat N */
  double load_start, load_end; /* the suite's */
  int busy_runs;               /* runs during which the machine was busy */
  double copy[SUITE_COPY_MAX]; /* the host copy bandwidth's samples (GB/s), before and after the runs */
  int ncopy;
  double peak_gflops; /* the host's measured FP64 rate, all threads */
} suite_info;
/* suite_machine.c */
void suite_sample_copy(suite_info *info);
double suite_host_peak_gflops(void);
void suite_write_results(FILE *f, const char *suite_path, char **tags, int ntags, const char *only, suite_run *runs,
                         int nruns, double host_gbs, const char *started, double seconds, const suite_info *info);
/* --repeat: the samples' loops folded into r's run JSON (seconds the median, seconds_min, seconds_max,
 * samples; the rates from the median), r->json_text rewritten; samples[0..n) are r's runs */
void suite_merge_samples(suite_run *r, uj *const *samples, int n);
void suite_write_junit(FILE *f, suite_run *runs, int nruns, double seconds);
const char *suite_status_word(const char *s);
void suite_variant_of(const suite_run *r, char *buf, size_t len);
void suite_write_markdown(FILE *f, const char *suite_path, suite_run *runs, int nruns, const char *started,
                          double seconds, double host_gbs);
void suite_expand(suite_run *r, const suite_case *c, long k, int n);

#endif
