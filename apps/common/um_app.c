#include <stdarg.h>
#include <string.h>
#include <time.h>
#include "um_app.h"

int um_app_metric(um_app_run *run, const char *name, double value) {
  for (int i = 0; i < run->nmetrics; i++)
    if (strcmp(run->metric_names[i], name) == 0) {
      run->metric_values[i] = value;
      return UM_SUCCESS;
    }
  if (run->nmetrics >= UM_APP_MAX_METRICS || strlen(name) >= sizeof run->metric_names[0])
    return um_app_fail(run, UM_ERR_ARG, "metric '%s': too many metrics or name too long", name);
  snprintf(run->metric_names[run->nmetrics], sizeof run->metric_names[0], "%s", name);
  run->metric_values[run->nmetrics++] = value;
  return UM_SUCCESS;
}

void um_app_progress(um_app_run *run, const char *what, long i, long n) {
  if (!run->progress || n <= 0) return;
  double now = um_app_time();
  if (i < n && now - run->last_progress < 0.1) return; /* at most 10 redraws a second */
  run->last_progress = now;
  int width = 30, done = (int)((double)width * (double)i / (double)n);
  fprintf(stderr, "\r%s [", what);
  for (int k = 0; k < width; k++) fputc(k < done ? '#' : '.', stderr);
  double elapsed = now - run->t_start;
  fprintf(stderr, "] %ld/%ld  %.0f s", i, n, elapsed);
  if (i > 0 && i < n) fprintf(stderr, ", about %.0f s to go", elapsed * (double)(n - i) / (double)i);
  fputs("\033[K", stderr);
  if (i >= n) fputs("\r\033[K", stderr);
  fflush(stderr);
}

int um_app_fail(um_app_run *run, int code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(run->err, sizeof run->err, fmt, ap);
  va_end(ap);
  return code;
}

void um_app_progress_clear(um_app_run *run) {
  if (!run->progress) return;
  fputs("\r\033[K", stderr);
  fflush(stderr);
}

double um_app_time(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
