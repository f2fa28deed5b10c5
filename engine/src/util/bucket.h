/* Stable counting sorts of indices by an integer key over the host's threads (the apps' mesh set-up: faces by
 * their lower node, edges by their nodes). um_bucket_sort buckets the indices 0..n-1 by key[i] (0 <= key[i] <
 * nkeys): off[k] to off[k + 1] (off: nkeys + 1 entries) are bucket k's positions in idx (n entries), each bucket in
 * the order of (sub[i], sub2[i], i) (sub, sub2: optional further keys, NULL for none; none: increasing index, the
 * serial counting sort's). The counts and the positions are taken with atomics, then each bucket is sorted on its
 * own (insertion for the few entries a mesh node has, a merge sort for a large fan): the arrays are the same bits
 * for any thread count -- those of any sort of the indices by (key, sub, sub2, index). Header only: a file that
 * includes it and compiles with OpenMP gets the threads, one without sorts serially. */
#ifndef UM_UTIL_BUCKET_H
#define UM_UTIL_BUCKET_H

#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

/* Whether index a orders before index b: by sub[a] (NULL: no key), then sub2[a], then the index. */
static inline int um__bucket_before(int a, int b, const int *sub, const int *sub2) {
  if (sub && sub[a] != sub[b]) return sub[a] < sub[b];
  if (sub2 && sub2[a] != sub2[b]) return sub2[a] < sub2[b];
  return a < b;
}

/* x[0..n) in that order: insertion for a few entries, else a merge sort through tmp (n entries). */
static inline void um__bucket_sort_run(int *x, int n, int *tmp, const int *sub, const int *sub2) {
  if (n <= 32) {
    for (int i = 1; i < n; i++) {
      const int v = x[i];
      int j = i;
      for (; j > 0 && um__bucket_before(v, x[j - 1], sub, sub2); j--) x[j] = x[j - 1];
      x[j] = v;
    }
    return;
  }
  const int h = n / 2;
  um__bucket_sort_run(x, h, tmp, sub, sub2);
  um__bucket_sort_run(x + h, n - h, tmp, sub, sub2);
  int i = 0, j = h, k = 0;
  while (i < h && j < n) tmp[k++] = um__bucket_before(x[j], x[i], sub, sub2) ? x[j++] : x[i++];
  while (i < h) tmp[k++] = x[i++];
  while (j < n) tmp[k++] = x[j++];
  memcpy(x, tmp, sizeof *x * (size_t)n);
}

/* a[k] += a[k - 1] for k in 1..n-1 (an inclusive prefix sum in place) over nthreads threads: each thread's block
 * summed, the blocks' totals added up in order, each block then carried -- integer sums, the same for any count. */
static inline void um_prefix_sum(int *a, int n, int nthreads) {
  enum { MAXT = 256 };
  int part[MAXT + 1] = {0};
  if (nthreads > MAXT) nthreads = MAXT;
  if ((long long)n < 65536LL * nthreads) nthreads = 1;
#pragma omp parallel num_threads(nthreads)
  {
    int t = 0, nt = 1;
#ifdef _OPENMP
    t = omp_get_thread_num(), nt = omp_get_num_threads();
#endif
    const int lo = (int)((long long)n * t / nt), hi = (int)((long long)n * (t + 1) / nt);
    for (int k = lo + 1; k < hi; k++) a[k] += a[k - 1];
    part[t + 1] = hi > lo ? a[hi - 1] : 0;
#pragma omp barrier
#pragma omp single
    for (int s = 1; s <= nt; s++) part[s] += part[s - 1];
    for (int k = lo; k < hi && t > 0; k++) a[k] += part[t];
  }
}

/* The sort above; 0, or -1 when out of memory or n > INT_MAX. */
static inline int um_bucket_sort(const int *key, const int *sub, const int *sub2, size_t n, int nkeys, int nthreads,
                                 int *off, int *idx) {
  if (n > (size_t)INT_MAX || nkeys < 0) return -1;
  if (nthreads < 1) nthreads = 1;
  int *pos = malloc(sizeof *pos * ((size_t)nkeys + 1)), big = 0;
  if (!pos) return -1;
  const int nn = (int)n;
  if (nthreads == 1) { /* one thread: no atomics (a third of the time), the fill in index order */
    memset(off, 0, sizeof *off * ((size_t)nkeys + 1));
    for (int i = 0; i < nn; i++) off[key[i] + 1]++;
    for (int k = 0; k < nkeys; k++) off[k + 1] += off[k];
    memcpy(pos, off, sizeof *pos * (size_t)nkeys);
    for (int i = 0; i < nn; i++) idx[pos[key[i]]++] = i;
    if (!sub && !sub2) {
      free(pos);
      return 0;
    }
  } else {
#pragma omp parallel num_threads(nthreads)
    {
#pragma omp for schedule(static)
      for (int k = 0; k <= nkeys; k++) off[k] = 0;
#pragma omp for schedule(static)
      for (int i = 0; i < nn; i++) {
#pragma omp atomic update
        off[key[i] + 1]++;
      }
    }
    um_prefix_sum(off, nkeys + 1, nthreads);
    memcpy(pos, off, sizeof *pos * (size_t)nkeys);
#pragma omp parallel for schedule(static) num_threads(nthreads)
    for (int i = 0; i < nn; i++) {
      int p;
#pragma omp atomic capture
      p = pos[key[i]]++;
      idx[p] = i;
    }
  }
#pragma omp parallel for schedule(static) num_threads(nthreads) reduction(max : big)
  for (int k = 0; k < nkeys; k++)
    if (off[k + 1] - off[k] > big) big = off[k + 1] - off[k];
  free(pos);
  int *tmp = big > 32 ? malloc(sizeof *tmp * (size_t)nn) : NULL;
  if (big > 32 && !tmp) return -1;
#pragma omp parallel for schedule(dynamic, 4096) num_threads(nthreads)
  for (int k = 0; k < nkeys; k++) um__bucket_sort_run(idx + off[k], off[k + 1] - off[k], tmp ? tmp + off[k] : NULL, sub, sub2);
  free(tmp);
  return 0;
}

#endif
