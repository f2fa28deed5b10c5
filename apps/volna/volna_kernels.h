/* Volna's kernels (reguly/volna 9bab009, the kernel headers of sp/), single precision as upstream:
 * first-order finite volumes with hydrostatic reconstruction, an HLL-type
 * flux, reflective walls, two-stage Runge-Kutta. Valid C and CUDA.
 *
 * A cell's values: H (depth), U, V (velocities), Zb (bathymetry, up is +). */
#include "um/kernel.h"

UM_CONST float vl_g;   /* PhysicalParams g */
UM_CONST float vl_eps; /* upstream's EPS, 1e-6: the depth of a dry cell */

/* Over edges: the reconstructed states of both sides, the flux through the
 * edge (times its length), the bathymetry source terms of both sides and the
 * edge's largest wave speed. A boundary edge is a wall: the right state is the
 * left one mirrored. (upstream: computeFluxes) */
UM_KERNEL void vl_compute_fluxes(const float *cl, const float *cr, const float *len, const float *n,
                                 const int *boundary, float *bsrc, float *out, float *max_eig) {
  float L[4], R[4];
  L[0] = cl[0], L[1] = cl[1], L[2] = cl[2], L[3] = cl[3];
  if (!*boundary) {
    R[0] = cr[0], R[1] = cr[1], R[2] = cr[2], R[3] = cr[3];
  } else {
    const float nx = n[0], ny = n[1];
    const float un = cl[1] * nx + cl[2] * ny, ut = -1.0f * cl[1] * ny + cl[2] * nx;
    const float un_out = -1.0f * un, ut_out = ut;
    R[3] = cl[3];
    R[0] = cl[0];
    R[1] = un_out * nx - ut_out * ny;
    R[2] = un_out * ny + ut_out * nx;
  }
  const float zi = L[3] > R[3] ? L[3] : R[3]; /* interface bathymetry */
  bsrc[0] = .5f * vl_g * (L[0] * L[0]);
  bsrc[1] = .5f * vl_g * (R[0] * R[0]);
  L[0] = L[0] + L[3] - zi;
  L[0] = L[0] > 0.0f ? L[0] : 0.0f;
  R[0] = R[0] + R[3] - zi;
  R[0] = R[0] > 0.0f ? R[0] : 0.0f;
  bsrc[0] -= .5f * vl_g * (L[0] * L[0]);
  bsrc[1] -= .5f * vl_g * (R[0] * R[0]);
  bsrc[0] *= *len;
  bsrc[1] *= *len;
  float cL = sqrtf(vl_g * L[0]);
  cL = cL > 0.0f ? cL : 0.0f;
  float cR = sqrtf(vl_g * R[0]);
  cR = cR > 0.0f ? cR : 0.0f;
  const float uLn = L[1] * n[0] + L[2] * n[1];
  const float uRn = R[1] * n[0] + R[2] * n[1];
  const float unStar = 0.5f * (uLn + uRn) + (cL - cR);
  const float cStar = 0.5f * (cL + cR) - 0.25f * (uRn - uLn);
  float sL = (uLn - cL) < (unStar - cStar) ? (uLn - cL) : (unStar - cStar);
  const float sLMinus = sL < 0.0f ? sL : 0.0f;
  float sR = (uRn + cR) > (unStar + cStar) ? (uRn + cR) : (unStar + cStar);
  const float sRPlus = sR > 0.0f ? sR : 0.0f;
  /* upstream assigns these dry-state speeds and then uses only sLMinus / sRPlus */
  sL = L[0] < vl_eps ? uRn - 2.0f * cR : sL;
  sR = L[0] < vl_eps ? uRn + cR : sR;
  sR = R[0] < vl_eps ? uLn + 2.0f * cL : sR;
  sL = R[0] < vl_eps ? uLn - cL : sL;
  (void)sL, (void)sR;
  float den = sRPlus - sLMinus;
  den = den < vl_eps ? vl_eps : den;
  const float t1 = sRPlus / den;
  const float t2 = (-1.0f * sLMinus) / den;
  const float t3 = (sRPlus * sLMinus) / den;
  float hun = (L[0] * L[1]) * n[0] + (L[0] * L[2]) * n[1];
  const float lH = hun, lU = hun * L[1] + (.5f * vl_g * n[0]) * (L[0] * L[0]),
              lV = hun * L[2] + (.5f * vl_g * n[1]) * (L[0] * L[0]);
  hun = (R[0] * R[1] * n[0]) + (R[0] * R[2] * n[1]);
  const float rH = hun, rU = hun * R[1] + (.5f * vl_g * n[0]) * (R[0] * R[0]),
              rV = hun * R[2] + (.5f * vl_g * n[1]) * (R[0] * R[0]);
  out[0] = (t1 * lH) + (t2 * rH) + (t3 * (R[0] - L[0]));
  out[1] = (t1 * lU) + (t2 * rU) + (t3 * ((R[0] * R[1]) - (L[0] * L[1])));
  out[2] = (t1 * lV) + (t2 * rV) + (t3 * ((R[0] * R[2]) - (L[0] * L[2])));
  out[0] *= *len;
  out[1] *= *len;
  out[2] *= *len;
  float m = fabsf(uLn + cL);
  m = m > fabsf(uLn - cL) ? m : fabsf(uLn - cL);
  m = m > fabsf(uRn + cR) ? m : fabsf(uRn + cR);
  m = m > fabsf(uRn - cR) ? m : fabsf(uRn - cR);
  *max_eig = m;
}

/* Over cells: the local time step from the wave speeds of the three edges
 * (MIN reduction), and the residual zeroed for the increments. (NumericalFluxes) */
UM_KERNEL void vl_numerical_fluxes(const float *e0, const float *e1, const float *e2, const float *l0,
                                   const float *l1, const float *l2, const float *area, float *res, float *dt_min) {
  float local = 0.0f;
  local += *e0 * *l0;
  local += *e1 * *l1;
  local += *e2 * *l2;
  res[0] = 0.0f, res[1] = 0.0f, res[2] = 0.0f, res[3] = 0.0f;
  const float dt = 2.0f * *area / local;
  *dt_min = dt < *dt_min ? dt : *dt_min;
}

/* Over edges: the flux and the source terms into both cells (INC); a wall
 * edge only into its cell. (SpaceDiscretization) */
UM_KERNEL void vl_space_discretization(float *left, float *right, const float *flux, const float *bsrc,
                                       const float *n, const int *boundary, const float *area0,
                                       const float *area1) {
  left[0] -= (flux[0]) / area0[0];
  left[1] -= (flux[1] + bsrc[0] * n[0]) / area0[0];
  left[2] -= (flux[2] + bsrc[0] * n[1]) / area0[0];
  if (!*boundary) {
    right[0] += flux[0] / area1[0];
    right[1] += (flux[1] + bsrc[1] * n[0]) / area1[0];
    right[2] += (flux[2] + bsrc[1] * n[1]) / area1[0];
  }
}

/* The conservative variables of a cell's values (upstream stores them as in_c in the first stage). */
UM_KERNEL void vl_conservative(const float *in, float *c) {
  c[0] = in[0];
  c[1] = in[0] * (in[1]);
  c[2] = in[0] * (in[2]);
  c[3] = in[3];
}

/* The first Runge-Kutta stage. (EvolveValuesRK2_1) */
UM_KERNEL void vl_rk2_1(const float *dt, float *mid_c, const float *in, float *mid) {
  float in_c[4];
  vl_conservative(in, in_c);
  mid_c[0] *= *dt;
  mid_c[1] *= *dt;
  mid_c[2] *= *dt;
  mid_c[0] += in_c[0];
  mid_c[1] += in_c[1];
  mid_c[2] += in_c[2];
  mid_c[3] += in_c[3];
  const float h = mid_c[0] < vl_eps ? vl_eps : mid_c[0];
  mid[0] = mid_c[0];
  mid[1] = mid_c[1] / h;
  mid[2] = mid_c[2] / h;
  mid[3] = mid_c[3];
}

/* The second stage: the average of the two, written straight to the values (upstream keeps the first stage's
 * conservative values in_c, writes values_new and copies it back in simulation_1; here in_c is recomputed from
 * the values, which only this pass overwrites). (EvolveValuesRK2_2) */
UM_KERNEL void vl_rk2_2(const float *dt, const float *out_c, const float *mid_c, float *v) {
  float in_c[4];
  vl_conservative(v, in_c);
  float o0 = 0.5f * (out_c[0] * *dt + mid_c[0] + in_c[0]);
  const float o1 = 0.5f * (out_c[1] * *dt + mid_c[1] + in_c[1]);
  const float o2 = 0.5f * (out_c[2] * *dt + mid_c[2] + in_c[2]);
  o0 = o0 <= vl_eps ? vl_eps : o0;
  const float h = o0 < vl_eps ? vl_eps : o0;
  v[0] = o0;
  v[1] = o1 / h;
  v[2] = o2 / h;
  v[3] = in_c[3];
}

/* the first copy of a running maximum (simulation_1) */
UM_KERNEL void vl_copy4(float *out, const float *in) {
  out[0] = in[0], out[1] = in[1], out[2] = in[2], out[3] = in[3];
}

/* The first bathymetry: H becomes the surface elevation before the new Zb is set. */
UM_KERNEL void vl_depth_to_eta(float *v) { v[0] = v[0] + v[3]; }
/* The first landslide: H = eta - Zb. */
UM_KERNEL void vl_eta_to_depth(float *v) { v[0] = v[0] - v[3]; }

/* After a bathymetry event: the first time H = eta - Zb; always H >= EPS (initBathymetry_update). Run inside the
 * bathymetry formula's own pass: its host version calls this, its generated kernel has the same two lines. */
UM_KERNEL void vl_bathymetry_update(float *v, const int *first) {
  if (*first) v[0] -= v[3];
  v[0] = v[0] < vl_eps ? vl_eps : v[0];
}

/* The Gaussian landslide's sea floor at time t (initGaussianLandslide; double arithmetic as upstream's literals) */
UM_KERNEL void vl_gaussian_landslide(const float *c, float *v, const float *xmin, const float *A, const double *t,
                                     const float *lx, const float *ly, const float *vel) {
  const float x = c[0], y = c[1];
  v[3] = (float)((*xmin - x) * (double)(x < 0.0) - 5.0 * (double)(x >= 0.0) +
                 *A * (double)(*t < 1.0 / (*vel)) *
                     um_exp(-1.0 * *lx * *lx * (x + 3.0 - *vel * *t) * (x + 3.0 - *vel * *t) - *ly * *ly * y * y) +
                 *A * (double)(*t >= 1.0 / (*vel)) * um_exp(-*lx * (x + 3.0 - 1.0) * *lx * (x + 3.0 - 1.0) - *ly * *ly * y * y));
}

/* Diagnostics in double: sums (volume, x and y momentum, kinetic, potential
 * energy) over the cells' areas, min/max of depth and surface, max speed. */
UM_KERNEL void vl_diagnostics(const float *v, const float *area, double *sum, double *mn, double *mx) {
  const double h = v[0], u = v[1], w = v[2], zb = v[3], a = *area, eta = h + zb;
  sum[0] += a * h;
  sum[1] += a * h * u;
  sum[2] += a * h * w;
  sum[3] += a * 0.5 * h * (u * u + w * w);
  sum[4] += a * 0.5 * (double)vl_g * (eta * eta - zb * zb); /* g * integral of z from Zb to eta */
  mn[0] = h < mn[0] ? h : mn[0];
  mn[1] = eta < mn[1] ? eta : mn[1];
  mx[0] = h > mx[0] ? h : mx[0];
  mx[1] = eta > mx[1] ? eta : mx[1];
  const double s = sqrt(u * u + w * w);
  mx[2] = s > mx[2] ? s : mx[2];
}

/* The volume as upstream prints it (getTotalVol: a float sum). */
UM_KERNEL void vl_total_volume(const float *area, const float *v, float *vol) { *vol += *area * v[0]; }

/* Running maxima of depth and speed, keeping the whole state of the cell at
 * that moment (getMaxElevation, getMaxSpeed: upstream compares H, not H + Zb). */
UM_KERNEL void vl_max_elevation(const float *v, float *m) {
  if (v[0] > m[0]) m[0] = v[0], m[1] = v[1], m[2] = v[2], m[3] = v[3];
}
UM_KERNEL void vl_max_speed(const float *v, float *m) {
  if (sqrtf(v[1] * v[1] + v[2] * v[2]) > sqrtf(m[1] * m[1] + m[2] * m[2]))
    m[0] = v[0], m[1] = v[1], m[2] = v[2], m[3] = v[3];
}

/* A gauge reads its cell: eta, H, U, V, Zb. (gatherLocations) */
UM_KERNEL void vl_gather(const float *v, float *d) {
  d[0] = v[0] + v[3], d[1] = v[0], d[2] = v[1], d[3] = v[2], d[4] = v[3];
}
