/* umrun --suite: what the machine gives, measured (issue 61): the host's copy bandwidth, measured before and
 * after the runs (every "% of copy" divides by it: one measurement on a busy machine swung 36 -> 16 -> 7.4
 * GB/s, so the suite keeps every sample and the report reads their median), and the host's arithmetic rate
 * (a multiply-add loop on every thread: the CPU roof of the report's roofline). */
#include "suite_internal.h"

/* the threads the runs will take: OMP_NUM_THREADS within um_threads_max() */
static int run_threads(void) {
#ifdef _OPENMP
  return omp_get_max_threads() < um_threads_max() ? omp_get_max_threads() : um_threads_max();
#else
  return 1;
#endif
}

/* Host memory copy bandwidth, all threads (bytes read + written per second, GB/s), 2 x 256 MiB: SUITE_COPIES
 * copies, each one sample appended to info->copy. Nothing appended when the memory cannot be had. */
void suite_sample_copy(suite_info *info) {
  const size_t n = (size_t)32 << 20; /* doubles: 256 MiB */
  double *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
  const long long N = (long long)n;
  const int nt = run_threads();
  (void)nt;
  if (a && b) {
#pragma omp parallel for schedule(static) num_threads(nt)
    for (long long i = 0; i < N; i++) a[i] = (double)i, b[i] = 0;
    for (int r = 0; r < SUITE_COPIES && info->ncopy < SUITE_COPY_MAX; r++) {
      const double t0 = um_wtime();
#pragma omp parallel for schedule(static) num_threads(nt)
      for (long long i = 0; i < N; i++) b[i] = a[i];
      const double t = um_wtime() - t0;
      if (t > 0) info->copy[info->ncopy++] = 2.0 * (double)(n * sizeof(double)) / t * 1e-9;
      double *x = a;
      a = b;
      b = x;
    }
  }
  free(a);
  free(b);
}

/* The host's FP64 rate (GFLOP/s) on every thread the runs take: 16 independent multiply-adds per step (2
 * operations each, as the compiler builds them: FMA instructions only where the build enables them), the
 * median of 5. What the CPU's arithmetic gives a kernel that does nothing else: the roofline's flat CPU roof. */
double suite_host_peak_gflops(void) {
  enum { W = 16, STEPS = 1 << 21, REPS = 5 };
  double t[REPS], sink = 0;
  const int nt = run_threads();
  (void)nt;
  for (int r = 0; r < REPS; r++) {
    double total = 0;
    const double t0 = um_wtime();
#pragma omp parallel num_threads(nt) reduction(+ : total)
    {
      double acc[W];
      for (int j = 0; j < W; j++) acc[j] = 1.0 + j * 1e-3;
      const double mul = 0.999999, add = 1e-7;
      for (long s = 0; s < STEPS; s++)
        for (int j = 0; j < W; j++) acc[j] = acc[j] * mul + add;
      for (int j = 0; j < W; j++) total += acc[j];
    }
    const double dt = um_wtime() - t0;
    sink += total;
    t[r] = dt > 0 ? 2.0 * W * (double)STEPS * nt / dt * 1e-9 : 0;
  }
  return isfinite(sink) ? umrun_median(t, REPS) : 0;
}
