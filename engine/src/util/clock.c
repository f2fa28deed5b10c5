/* The monotonic clock every timer of the tree reads. */
#include <time.h>
#include "um/um.h"

double um_wtime(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
