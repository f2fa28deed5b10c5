/* SIAC host-side setup: the filter kernel's coefficients and polynomial pieces,
 * Gauss quadrature rules, the values of every UM_CONST of siac_kernels.h, and
 * the L2 projection of a function onto the dG space. Plain C11. */
#ifndef SIAC_SETUP_H
#define SIAC_SETUP_H

/** Largest supported dG degree (the constant arrays are sized for it). */
#define SIAC_KMAX 3
/** Largest number of Gauss points per direction siac_gauss_* accept. */
#define SIAC_GAUSS_NMAX 12

/** The values of the UM_CONST constants of siac_kernels.h, in one place, so
 * the app publishes them with um_decl_const from one struct. */
typedef struct siac_consts {
  int k;  /**< dG degree, 1..3 */
  int nb; /**< (k+1)(k+2)/2 basis functions */
  int nq; /**< evaluation points, (k+1)^2 */
  int ns; /**< sub-triangle rule points, ceil((3k+1)/2)^2 */
  double h;                       /**< kernel scaling */
  double kpoly[10 * 4];           /**< kernel pieces (siac_kernel_pieces layout) */
  double qr[16], qs[16], qw[16];  /**< evaluation rule */
  double sr[25], ss[25], sw[25];  /**< sub-triangle rule */
  char error[160];                /**< why siac_consts_fill failed ("" on success) */
} siac_consts;

/** The 2k+1 coefficients c[g+k], g = -k..k, of K(t) = sum_g c_g psi^{(k+1)}(t-g)
 * from the moment conditions int K t^m = delta_{m0}, m = 0..2k.
 * @return 0, or 1 (UM_ERR_ARG) if k is outside 1..SIAC_KMAX */
int siac_kernel_coeffs(int k, double *c);

/** Fills poly[m*4 + p], m = 0..3k, p = 0..k: K's pieces as monomials in
 * s = t - (-(3k+1)/2 + m) (entries p > k are set to 0).
 * @return 0, or 1 (UM_ERR_ARG) if k is outside 1..SIAC_KMAX */
int siac_kernel_pieces(int k, double *poly);

/** n-point Gauss-Legendre rule on [-1,1] (weight 1), n = 1..SIAC_GAUSS_NMAX,
 * nodes ascending. @return 0, or 1 if n is out of range */
int siac_gauss_legendre(int n, double *x, double *w);

/** n-point Gauss-Jacobi rule on [-1,1] for the weight (1-x)^alpha (1+x)^beta,
 * n = 1..SIAC_GAUSS_NMAX, alpha, beta > -1; nodes ascending.
 * @return 0, or 1 if n or the exponents are out of range */
int siac_gauss_jacobi(int n, double alpha, double beta, double *x, double *w);

/** The collapsed (Stroud conical) rule on the reference triangle
 * {(0,0),(1,0),(0,1)}: n^2 points, exact for total degree 2n-1, weights sum
 * to 1/2. @return 0, or 1 if n is out of range */
int siac_tri_rule(int n, double *r, double *s, double *w);

/** Fills every constant for degree k and kernel scaling h.
 * @return 0, or 1 (UM_ERR_ARG) with out->error saying why (k outside 1..3, h not positive) */
int siac_consts_fill(int k, double h, siac_consts *out);

/** The orthonormal Dubiner basis of degree k at (r,s) on the reference
 * triangle (host twin of siac_basis, for setup code that runs before the
 * constants are published), phi[0 .. (k+1)(k+2)/2). */
void siac_basis_host(int k, double r, double s, double *phi);

/** L2 projection of f onto the degree-k dG space: per cell (vertices
 * cellxy[6c .. 6c+6), counter-clockwise), coef[nb c + i] =
 * int_ref f(F_T(r,s)) phi_i(r,s) dr ds (the physical mass matrix is |J| I),
 * with a rule of degree 2k + 9. Cells are projected on the OpenMP threads:
 * f is called from several at once (it must not write shared state).
 * @return 0, or 1 if k is outside 1..3 */
int siac_project(int ncells, const double *cellxy, int k, double (*f)(double, double, void *), void *user,
                 double *coef);

/** The test function sin(2 pi x) sin(2 pi y) (user unused). */
double siac_test_f(double x, double y, void *user);

#endif
