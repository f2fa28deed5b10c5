/* Switching HDF5's automatic error-stack printing off for the length of a call
 * and restoring the caller's handler afterwards (the engine reports HDF5 errors
 * through its own messages). Internal to the engine's HDF5 users. */
#ifndef UM_H5QUIET_H
#define UM_H5QUIET_H
#include <hdf5.h>

typedef struct {
  H5E_auto2_t func;
  void *data;
} h5_quiet;

static inline void quiet_on(h5_quiet *q) {
  q->func = NULL;
  q->data = NULL;
  H5Eget_auto2(H5E_DEFAULT, &q->func, &q->data);
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
}

static inline void quiet_off(const h5_quiet *q) { H5Eset_auto2(H5E_DEFAULT, q->func, q->data); }
#endif
