// The SIAC math core (apps/siac/siac_kernels.h, siac_setup.h): the modal basis,
// the triangle rules, the filter kernel's moments, continuity, support and
// polynomial reproduction, exact clipping, and siac_contrib's exactness on
// polynomial fields.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

extern "C" {
#include "siac_kernels.h"
#include "siac_setup.h"
}

// On the host UM_CONST is `extern`: the constants live here, filled from siac_consts_fill.
UM_CONST_DEFINE(int, siac_k);
UM_CONST_DEFINE(int, siac_nb);
UM_CONST_DEFINE(int, siac_nq);
UM_CONST_DEFINE(int, siac_ns);
UM_CONST_DEFINE(double, siac_h);
UM_CONST_DEFINE(double, siac_kpoly[10 * 4]);
UM_CONST_DEFINE(double, siac_qr[16]);
UM_CONST_DEFINE(double, siac_qs[16]);
UM_CONST_DEFINE(double, siac_qw[16]);
UM_CONST_DEFINE(double, siac_sr[25]);
UM_CONST_DEFINE(double, siac_ss[25]);
UM_CONST_DEFINE(double, siac_sw[25]);

namespace {

void set_consts(int k, double h) {
  siac_consts c;
  ASSERT_EQ(siac_consts_fill(k, h, &c), 0) << c.error;
  siac_k = c.k;
  siac_nb = c.nb;
  siac_nq = c.nq;
  siac_ns = c.ns;
  siac_h = c.h;
  std::memcpy(siac_kpoly, c.kpoly, sizeof c.kpoly);
  std::memcpy(siac_qr, c.qr, sizeof c.qr);
  std::memcpy(siac_qs, c.qs, sizeof c.qs);
  std::memcpy(siac_qw, c.qw, sizeof c.qw);
  std::memcpy(siac_sr, c.sr, sizeof c.sr);
  std::memcpy(siac_ss, c.ss, sizeof c.ss);
  std::memcpy(siac_sw, c.sw, sizeof c.sw);
}

double factorial(int n) { return n <= 1 ? 1.0 : n * factorial(n - 1); }

// int_ref r^a s^b = a! b! / (a+b+2)!
double exact_monomial(int a, int b) { return factorial(a) * factorial(b) / factorial(a + b + 2); }

// signed area, relative to the first vertex (no cancellation of large products)
double shoelace(const double *p, int n) {
  double a = 0.0;
  for (int i = 1; i + 1 < n; i++)
    a += (p[2 * i] - p[0]) * (p[2 * i + 3] - p[1]) - (p[2 * i + 2] - p[0]) * (p[2 * i + 1] - p[1]);
  return 0.5 * a;
}

// int K(t) g(t) dt over the kernel's support, piece by piece with a 10-point
// Gauss rule (exact for polynomials g of degree <= 19 - k)
template <class G>
double kernel_integral(int k, G g) {
  double x[12], w[12];
  siac_gauss_legendre(10, x, w);
  const double t0 = -0.5 * (3 * k + 1);
  double sum = 0.0;
  for (int m = 0; m <= 3 * k; m++)
    for (int q = 0; q < 10; q++) {
      const double s = 0.5 * (x[q] + 1.0);
      sum += 0.5 * w[q] * siac_kernel_piece(m, s) * g(t0 + m + s);
    }
  return sum;
}

// A polynomial field of total degree <= k with fixed random coefficients.
struct Poly {
  int k;
  double c[4][4];
  double operator()(double x, double y) const {
    double v = 0.0;
    for (int a = 0; a <= k; a++)
      for (int b = 0; a + b <= k; b++) v += c[a][b] * std::pow(x, a) * std::pow(y, b);
    return v;
  }
};

double poly_f(double x, double y, void *user) { return (*static_cast<const Poly *>(user))(x, y); }

// A triangulation of [x0, x0 + n h]^2 (each square cut into two counter-clockwise
// triangles); interior vertices moved by up to `jitter` h so that the mesh is unstructured.
std::vector<double> patch_mesh(double x0, int n, double h, double jitter, std::mt19937 &rng) {
  std::uniform_real_distribution<double> u(-jitter * h, jitter * h);
  std::vector<double> vx((n + 1) * (n + 1)), vy((n + 1) * (n + 1));
  for (int j = 0; j <= n; j++)
    for (int i = 0; i <= n; i++) {
      const bool inner = i > 0 && j > 0 && i < n && j < n;
      vx[j * (n + 1) + i] = x0 + i * h + (inner ? u(rng) : 0.0);
      vy[j * (n + 1) + i] = x0 + j * h + (inner ? u(rng) : 0.0);
    }
  std::vector<double> xy;
  auto push = [&](int a, int b, int c) {
    for (int v : {a, b, c}) {
      xy.push_back(vx[v]);
      xy.push_back(vy[v]);
    }
  };
  for (int j = 0; j < n; j++)
    for (int i = 0; i < n; i++) {
      const int v00 = j * (n + 1) + i, v10 = v00 + 1, v01 = v00 + n + 1, v11 = v01 + 1;
      push(v00, v10, v11);
      push(v00, v11, v01);
    }
  return xy;
}

// The filtered value at (px, py): the sum of every triangle's contribution.
double filter_at(const std::vector<double> &xy, const std::vector<double> &coef, double px, double py,
                 double *ntests = nullptr, double *nsub = nullptr) {
  double nt = 0.0, ns = 0.0, v = 0.0;
  const int ncells = (int)xy.size() / 6;
  for (int c = 0; c < ncells; c++) v += siac_contrib(&xy[6 * c], &coef[(size_t)siac_nb * c], px, py, &nt, &ns);
  if (ntests) *ntests = nt;
  if (nsub) *nsub = ns;
  return v;
}

}  // namespace

TEST(SiacMath, ConstsFillChecks) {
  siac_consts c;
  EXPECT_EQ(siac_consts_fill(0, 0.1, &c), 1);
  EXPECT_NE(std::strstr(c.error, "k = 0"), nullptr) << c.error;
  EXPECT_EQ(siac_consts_fill(4, 0.1, &c), 1);
  EXPECT_EQ(siac_consts_fill(2, 0.0, &c), 1);
  EXPECT_NE(std::strstr(c.error, "h ="), nullptr) << c.error;
  EXPECT_EQ(siac_consts_fill(2, NAN, &c), 1);
  const int ns[4] = {0, 4, 16, 25};
  for (int k = 1; k <= 3; k++) {
    ASSERT_EQ(siac_consts_fill(k, 0.05, &c), 0) << c.error;
    EXPECT_EQ(c.nb, (k + 1) * (k + 2) / 2);
    EXPECT_EQ(c.nq, (k + 1) * (k + 1));
    EXPECT_EQ(c.ns, ns[k]);
    EXPECT_STREQ(c.error, "");
  }
}

TEST(SiacMath, GaussLegendreAndJacobiExact) {
  for (int n = 1; n <= SIAC_GAUSS_NMAX; n++) {
    double x[SIAC_GAUSS_NMAX], w[SIAC_GAUSS_NMAX];
    ASSERT_EQ(siac_gauss_legendre(n, x, w), 0);
    for (int m = 0; m <= 2 * n; m++) {
      double v = 0.0;
      for (int i = 0; i < n; i++) v += w[i] * std::pow(x[i], m);
      const double exact = (m % 2) ? 0.0 : 2.0 / (m + 1);
      if (m < 2 * n)
        EXPECT_NEAR(v, exact, 1e-14) << "Gauss-Legendre n=" << n << " x^" << m;
      else
        EXPECT_GT(std::fabs(v - exact), 1e-10) << "Gauss-Legendre n=" << n << " exact beyond 2n-1";
    }
    // weight (1-x): int (1-x) x^m = 2/(m+1) [m even] - 2/(m+2) [m odd]
    ASSERT_EQ(siac_gauss_jacobi(n, 1.0, 0.0, x, w), 0);
    for (int m = 0; m < 2 * n; m++) {
      double v = 0.0;
      for (int i = 0; i < n; i++) v += w[i] * std::pow(x[i], m);
      const double exact = ((m % 2) ? 0.0 : 2.0 / (m + 1)) - ((m % 2) ? 2.0 / (m + 2) : 0.0);
      EXPECT_NEAR(v, exact, 1e-14) << "Gauss-Jacobi(1,0) n=" << n << " x^" << m;
    }
    for (int i = 1; i < n; i++) EXPECT_LT(x[i - 1], x[i]);
  }
  double x[1], w[1];
  EXPECT_EQ(siac_gauss_legendre(0, x, w), 1);
  EXPECT_EQ(siac_gauss_legendre(SIAC_GAUSS_NMAX + 1, x, w), 1);
}

TEST(SiacMath, TriangleRuleExactToDegree2nMinus1) {
  for (int n = 1; n <= 8; n++) {
    double r[64], s[64], w[64];
    ASSERT_EQ(siac_tri_rule(n, r, s, w), 0);
    double wsum = 0.0;
    for (int q = 0; q < n * n; q++) {
      wsum += w[q];
      EXPECT_GT(w[q], 0.0);
      EXPECT_TRUE(r[q] > 0.0 && s[q] > 0.0 && r[q] + s[q] < 1.0);
    }
    EXPECT_NEAR(wsum, 0.5, 1e-15);
    double worst_2n = 0.0;
    for (int d = 0; d <= 2 * n; d++)
      for (int a = 0; a <= d; a++) {
        const int b = d - a;
        double v = 0.0;
        for (int q = 0; q < n * n; q++) v += w[q] * std::pow(r[q], a) * std::pow(s[q], b);
        const double rel = std::fabs(v - exact_monomial(a, b)) / exact_monomial(a, b);
        if (d < 2 * n)
          EXPECT_LT(rel, 1e-12) << "n=" << n << " r^" << a << " s^" << b;
        else
          worst_2n = std::max(worst_2n, rel);
      }
    EXPECT_GT(worst_2n, 1e-8) << "n=" << n << ": the rule should not be exact for degree 2n";
  }
}

TEST(SiacMath, BasisOrthonormal) {
  double r[144], s[144], w[144];
  ASSERT_EQ(siac_tri_rule(10, r, s, w), 0);  // degree 19 >= 2k
  for (int k = 1; k <= 3; k++) {
    set_consts(k, 0.1);
    const int nb = siac_nb;
    std::vector<double> G(nb * nb, 0.0);
    for (int q = 0; q < 100; q++) {
      double phi[10], phih[10];
      siac_basis(r[q], s[q], phi);
      siac_basis_host(k, r[q], s[q], phih);
      for (int i = 0; i < nb; i++) {
        EXPECT_EQ(phi[i], phih[i]);
        for (int j = 0; j < nb; j++) G[i * nb + j] += w[q] * phi[i] * phi[j];
      }
    }
    double worst = 0.0;
    for (int i = 0; i < nb; i++)
      for (int j = 0; j < nb; j++) worst = std::max(worst, std::fabs(G[i * nb + j] - (i == j ? 1.0 : 0.0)));
    EXPECT_LT(worst, 1e-13) << "k=" << k;
    // the basis spans all polynomials of degree <= k: the Gram matrix is the identity, and
    // the vertex s = 1 (where the collapsed coordinate a is singular) gives finite values
    double phi[10];
    siac_basis(0.0, 1.0, phi);
    for (int i = 0; i < nb; i++) EXPECT_TRUE(std::isfinite(phi[i]));
  }
}

// the hot loop's form of u_T (siac_u_prepare / siac_u_value) against the basis
TEST(SiacMath, FastSolutionFormMatchesBasis) {
  std::mt19937 rng(21);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for (int k = 1; k <= 3; k++) {
    set_consts(k, 0.1);
    for (int trial = 0; trial < 20; trial++) {
      double c[10], G[16];
      for (int i = 0; i < siac_nb; i++) c[i] = 2 * u(rng) - 1;
      siac_u_prepare(c, G);
      for (int q = 0; q < 20; q++) {
        double r = u(rng), s = u(rng);
        if (q == 0) r = 0.0, s = 1.0;  // the collapsed vertex
        const double ref = siac_eval_ref(c, r, s);
        EXPECT_NEAR(siac_u_value(G, r, s), ref, 1e-13 * (1.0 + std::fabs(ref))) << "k=" << k;
      }
    }
  }
}

TEST(SiacMath, KernelCoefficientsK1) {
  // the classical first-order SIAC kernel: -1/12, 7/6, -1/12 times hat functions
  double c[3];
  ASSERT_EQ(siac_kernel_coeffs(1, c), 0);
  EXPECT_NEAR(c[0], -1.0 / 12, 1e-15);
  EXPECT_NEAR(c[1], 7.0 / 6, 1e-15);
  EXPECT_NEAR(c[2], -1.0 / 12, 1e-15);
  // k = 2 (quadratic B-splines): 37/1920, -97/480, 437/320, -97/480, 37/1920
  double c2[5];
  ASSERT_EQ(siac_kernel_coeffs(2, c2), 0);
  const double want[5] = {37.0 / 1920, -97.0 / 480, 437.0 / 320, -97.0 / 480, 37.0 / 1920};
  for (int i = 0; i < 5; i++) EXPECT_NEAR(c2[i], want[i], 1e-14) << i;
  EXPECT_EQ(siac_kernel_coeffs(4, c), 1);
}

TEST(SiacMath, KernelMoments) {
  for (int k = 1; k <= 3; k++) {
    set_consts(k, 1.0);
    for (int m = 0; m <= 2 * k + 2; m++) {
      const double v = kernel_integral(k, [m](double t) { return std::pow(t, m); });
      if (m <= 2 * k + 1)  // 2k+1: zero because K is even
        EXPECT_NEAR(v, m == 0 ? 1.0 : 0.0, 1e-12) << "k=" << k << " moment " << m;
      else
        EXPECT_GT(std::fabs(v), 1e-6) << "k=" << k << ": moment " << m << " should not vanish";
    }
  }
}

TEST(SiacMath, KernelContinuityAndSupport) {
  for (int k = 1; k <= 3; k++) {
    set_consts(k, 1.0);
    const int np = 3 * k + 1;
    // derivative j of piece m at s: sum_p p!/(p-j)! a_p s^{p-j}
    auto deriv = [&](int m, int j, double s) {
      if (m < 0 || m >= np) return 0.0;  // K == 0 outside its support
      double v = 0.0;
      for (int p = j; p <= k; p++) v += factorial(p) / factorial(p - j) * siac_kpoly[4 * m + p] * std::pow(s, p - j);
      return v;
    };
    // C^{k-1}: values and derivatives up to k-1 agree at every break, the support's ends included
    for (int m = -1; m < np; m++)
      for (int j = 0; j < k; j++)
        EXPECT_NEAR(deriv(m, j, 1.0), deriv(m + 1, j, 0.0), 1e-12) << "k=" << k << " break " << m + 1 << " d^" << j;
    // the k-th derivative jumps somewhere (K is not C^k)
    double jump = 0.0;
    for (int m = 0; m + 1 < np; m++) jump = std::max(jump, std::fabs(deriv(m, k, 1.0) - deriv(m + 1, k, 0.0)));
    EXPECT_GT(jump, 1e-3) << "k=" << k;
    // support: exactly (3k+1) wide
    const double half = 0.5 * np;
    EXPECT_EQ(siac_kernel_eval(half), 0.0);
    EXPECT_EQ(siac_kernel_eval(-half - 1e-9), 0.0);
    EXPECT_EQ(siac_kernel_eval(half + 3.0), 0.0);
    EXPECT_NE(siac_kernel_eval(-half + 0.01), 0.0);
    EXPECT_NE(siac_kernel_eval(half - 0.01), 0.0);
    // even, and siac_kernel_eval agrees with the pieces
    for (double t = -half; t < half; t += 0.037) EXPECT_NEAR(siac_kernel_eval(t), siac_kernel_eval(-t), 1e-13);
    EXPECT_NEAR(siac_kernel_eval(-half + 2.25), siac_kernel_piece(2, 0.25), 1e-15);
  }
}

TEST(SiacMath, KernelReproducesPolynomials1D) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (int k = 1; k <= 3; k++) {
    set_consts(k, 1.0);
    for (int trial = 0; trial < 5; trial++) {
      const double x = u(rng), h = 0.05 + 0.2 * std::fabs(u(rng));
      double c[7];
      for (int d = 0; d <= 2 * k; d++) c[d] = u(rng);
      auto p = [&](double xi) {
        double v = 0.0;
        for (int d = 2 * k; d >= 0; d--) v = v * xi + c[d];
        return v;
      };
      // (1/h) int K((x-xi)/h) p(xi) dxi = int K(t) p(x - h t) dt
      const double v = kernel_integral(k, [&](double t) { return p(x - h * t); });
      EXPECT_NEAR(v, p(x), 1e-12 * (1.0 + std::fabs(p(x)))) << "k=" << k;
    }
  }
}

TEST(SiacMath, ClipTilesPolygons) {
  // a unit square cut at x = 0.25: areas 0.25 and 0.75, shared vertices bit for bit
  const double sq[8] = {0, 0, 1, 0, 1, 1, 0, 1};
  double lo[16], hi[16];
  const int nlo = siac_clip(sq, 4, 0, 0.25, 1, lo), nhi = siac_clip(sq, 4, 0, 0.25, 0, hi);
  ASSERT_EQ(nlo, 4);
  ASSERT_EQ(nhi, 4);
  EXPECT_DOUBLE_EQ(shoelace(lo, nlo), 0.25);
  EXPECT_DOUBLE_EQ(shoelace(hi, nhi), 0.75);
  // a vertex on the line stays on both sides, without duplicates
  const double tri[6] = {0, 0, 1, 0, 0.5, 1};
  EXPECT_EQ(siac_clip(tri, 3, 1, 1.0, 1, lo), 3);
  EXPECT_EQ(siac_clip(tri, 3, 1, 1.0, 0, hi), 1);
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for (int trial = 0; trial < 1000; trial++) {
    double t[6];
    for (double &v : t) v = u(rng);
    if (shoelace(t, 3) < 0) std::swap(t[2], t[4]), std::swap(t[3], t[5]);
    const int axis = trial % 2;
    const double c = u(rng);
    const int a = siac_clip(t, 3, axis, c, 1, lo), b = siac_clip(t, 3, axis, c, 0, hi);
    const double area = (a >= 3 ? shoelace(lo, a) : 0.0) + (b >= 3 ? shoelace(hi, b) : 0.0);
    EXPECT_NEAR(area, shoelace(t, 3), 1e-15);
    for (int i = 0; i < a; i++) EXPECT_LE(lo[2 * i + axis], c);
    for (int i = 0; i < b; i++) EXPECT_GE(hi[2 * i + axis], c);
  }
}

TEST(SiacMath, ContribClippingConservesArea) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  const double zero[10] = {0};
  for (int k = 1; k <= 3; k++) {
    for (int trial = 0; trial < 500; trial++) {
      const double h = 0.02 + 0.2 * u(rng);
      set_consts(k, h);
      const double half = 0.5 * (3 * k + 1) * h;
      const double px = u(rng), py = u(rng);
      // a random triangle around (px, py), often crossing the stencil's edge
      double t[6];
      for (int v = 0; v < 3; v++) {
        t[2 * v] = px + 1.5 * half * (2 * u(rng) - 1);
        t[2 * v + 1] = py + 1.5 * half * (2 * u(rng) - 1);
      }
      if (shoelace(t, 3) < 0) std::swap(t[2], t[4]), std::swap(t[3], t[5]);
      // the area of T inside the stencil square, by four clips
      double a[16], b[16];
      int n = siac_clip(t, 3, 0, px - half, 0, a);
      n = siac_clip(a, n, 0, px + half, 1, b);
      n = siac_clip(b, n, 1, py - half, 0, a);
      n = siac_clip(a, n, 1, py + half, 1, b);
      const double inside = n >= 3 ? shoelace(b, n) : 0.0;
      double ntests = 0.0, nsub = 0.0;
      const double area = siac_contrib_mode(t, zero, px, py, 1, &ntests, &nsub);
      EXPECT_NEAR(area, inside, 1e-14 * half * half) << "k=" << k << " trial " << trial;
      EXPECT_EQ(ntests, 1.0);
      if (inside > 1e-3 * half * half) {
        EXPECT_GT(nsub, 0.0);
      }
    }
  }
}

TEST(SiacMath, ProjectionOfPolynomialIsExact) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (int k = 1; k <= 3; k++) {
    set_consts(k, 0.25);
    Poly p{k, {}};
    for (auto &row : p.c)
      for (double &v : row) v = u(rng);
    std::vector<double> xy = patch_mesh(-1.0, 6, 0.5, 0.3, rng);
    const int ncells = (int)xy.size() / 6;
    std::vector<double> coef((size_t)siac_nb * ncells);
    ASSERT_EQ(siac_project(ncells, xy.data(), k, poly_f, &p, coef.data()), 0);
    double worst = 0.0;
    for (int c = 0; c < ncells; c++) {
      const double *t = &xy[6 * c];
      for (int q = 0; q < siac_nq; q++) {  // at the evaluation points, mapped
        const double x = t[0] + siac_qr[q] * (t[2] - t[0]) + siac_qs[q] * (t[4] - t[0]);
        const double y = t[1] + siac_qr[q] * (t[3] - t[1]) + siac_qs[q] * (t[5] - t[1]);
        worst = std::max(worst, std::fabs(siac_eval(t, &coef[(size_t)siac_nb * c], x, y) - p(x, y)));
      }
    }
    EXPECT_LT(worst, 1e-12) << "k=" << k;
    // a degree k+1 field is not in the space: the projection is not exact
    Poly q{k + 1 > 3 ? 3 : k + 1, {}};
    q.c[k + 1 > 3 ? 0 : k + 1][0] = 1.0;
    if (k < 3) {
      ASSERT_EQ(siac_project(ncells, xy.data(), k, poly_f, &q, coef.data()), 0);
      EXPECT_GT(std::fabs(siac_eval(&xy[0], &coef[0], xy[0], xy[1]) - q(xy[0], xy[1])), 1e-6);
    }
  }
  EXPECT_EQ(siac_project(0, nullptr, 4, poly_f, nullptr, nullptr), 1);
}

// Filtering a polynomial of degree <= k (held exactly by its L2 projection)
// reproduces it: K reproduces degree 2k in each direction, and the integrals are exact.
TEST(SiacMath, ContribReproducesPolynomialOnPatch) {
  std::mt19937 rng(9);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  const double h = 0.1;
  for (int k = 1; k <= 3; k++) {
    set_consts(k, h);
    Poly p{k, {}};
    for (auto &row : p.c)
      for (double &v : row) v = u(rng);
    for (double jitter : {0.0, 0.3}) {
      std::vector<double> xy = patch_mesh(-1.0, 30, h, jitter, rng);  // [-1,2]^2, spacing h
      const int ncells = (int)xy.size() / 6;
      std::vector<double> coef((size_t)siac_nb * ncells);
      ASSERT_EQ(siac_project(ncells, xy.data(), k, poly_f, &p, coef.data()), 0);
      double worst = 0.0;
      for (int trial = 0; trial < 8; trial++) {
        const double px = 0.5 + 0.5 * u(rng), py = 0.5 + 0.5 * u(rng);
        double ntests, nsub;
        const double v = filter_at(xy, coef, px, py, &ntests, &nsub);
        worst = std::max(worst, std::fabs(v - p(px, py)));
        EXPECT_EQ(ntests, ncells);
        EXPECT_GE(nsub, 2.0 * (3 * k + 1) * (3 * k + 1));  // at least every kernel cell, cut in two
      }
      std::printf("[ siac ] k=%d jitter=%.1f: polynomial reproduced to %.2e\n", k, jitter, worst);
      EXPECT_LT(worst, 1e-12) << "k=" << k << " jitter " << jitter;
    }
  }
}

// Mesh lines exactly on the kernel's breaks (binary fractions, no round-off):
// vertices on the clipping lines must not leave slivers or drop pieces. Every
// kernel cell then holds exactly two whole triangles.
TEST(SiacMath, ContribBreaksOnMeshLines) {
  std::mt19937 rng(19);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  const double h = 0.125;
  for (int k = 1; k <= 3; k++) {
    set_consts(k, h);
    Poly p{k, {}};
    for (auto &row : p.c)
      for (double &v : row) v = u(rng);
    std::vector<double> xy = patch_mesh(-1.0, 24, h, 0.0, rng);
    const int ncells = (int)xy.size() / 6;
    std::vector<double> coef((size_t)siac_nb * ncells);
    ASSERT_EQ(siac_project(ncells, xy.data(), k, poly_f, &p, coef.data()), 0);
    const double px = (k % 2) ? 0.5 : 0.5 + 0.5 * h, py = (k % 2) ? 0.375 : 0.375 + 0.5 * h;
    double ntests, nsub;
    const double v = filter_at(xy, coef, px, py, &ntests, &nsub);
    EXPECT_NEAR(v, p(px, py), 1e-12) << "k=" << k;
    EXPECT_EQ(nsub, 2.0 * (3 * k + 1) * (3 * k + 1)) << "k=" << k;
  }
}

TEST(SiacMath, ContribInvariantUnderSplitting) {
  std::mt19937 rng(13);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for (int k = 1; k <= 3; k++) {
    const double h = 0.1;
    set_consts(k, h);
    for (int trial = 0; trial < 50; trial++) {
      double t[6];
      for (double &v : t) v = 0.6 * u(rng);
      if (shoelace(t, 3) < 0) std::swap(t[2], t[4]), std::swap(t[3], t[5]);
      if (shoelace(t, 3) < 1e-3) continue;
      double c[10];
      for (int i = 0; i < siac_nb; i++) c[i] = 2 * u(rng) - 1;
      // T split at a point of edge v0-v1: T1 = (v0, m, v2), T2 = (m, v1, v2), both counter-clockwise;
      // the same polynomial on each part, by projection (exact: it has degree k)
      const double a = 0.2 + 0.6 * u(rng);
      const double mx = t[0] + a * (t[2] - t[0]), my = t[1] + a * (t[3] - t[1]);
      double parts[12] = {t[0], t[1], mx, my, t[4], t[5], mx, my, t[2], t[3], t[4], t[5]};
      struct Ctx {
        const double *t, *c;
      } ctx{t, c};
      auto f = [](double x, double y, void *user) {
        const Ctx *cx = static_cast<const Ctx *>(user);
        return siac_eval(cx->t, cx->c, x, y);
      };
      double pc[20];
      ASSERT_EQ(siac_project(2, parts, k, f, &ctx, pc), 0);
      const double px = 0.3 + 0.2 * (u(rng) - 0.5), py = 0.3 + 0.2 * (u(rng) - 0.5);
      double nt = 0, ns = 0;
      const double whole = siac_contrib(t, c, px, py, &nt, &ns);
      const double split = siac_contrib(parts, pc, px, py, &nt, &ns) + siac_contrib(parts + 6, pc + siac_nb, px, py, &nt, &ns);
      EXPECT_NEAR(whole, split, 1e-12 * (1.0 + std::fabs(whole))) << "k=" << k << " trial " << trial;
      EXPECT_EQ(nt, 3.0);
    }
  }
}

// Measured accuracy (printed; the assertions are loose orders so a broken
// filter fails): the L2 projection of sin(2 pi x) sin(2 pi y) on meshes of
// spacing 1/N, filtered with h = 1/N at points of [0,1]^2, against the field;
// the unfiltered error converges as h^{k+1}, the filtered one much faster.
TEST(SiacMath, FilterImprovesAccuracy) {
  for (int k = 1; k <= 3; k++) {
    double err_u[2], err_f[2];
    const int Ns[2] = {8, 16};
    for (int l = 0; l < 2; l++) {
      const int N = Ns[l];
      const double h = 1.0 / N;
      set_consts(k, h);
      std::mt19937 mesh_rng(1);
      std::vector<double> xy = patch_mesh(-1.0, 3 * N, h, 0.0, mesh_rng);
      const int ncells = (int)xy.size() / 6;
      std::vector<double> coef((size_t)siac_nb * ncells);
      ASSERT_EQ(siac_project(ncells, xy.data(), k, siac_test_f, nullptr, coef.data()), 0);
      err_u[l] = err_f[l] = 0.0;
      // at the evaluation points of the cells of [0.25,0.75]^2
      for (int c = 0; c < ncells; c++) {
        const double *t = &xy[6 * c];
        const double cx = (t[0] + t[2] + t[4]) / 3, cy = (t[1] + t[3] + t[5]) / 3;
        if (cx < 0.25 || cx > 0.75 || cy < 0.25 || cy > 0.75 || (c % 3)) continue;
        for (int q = 0; q < siac_nq; q += 2) {
          const double x = t[0] + siac_qr[q] * (t[2] - t[0]) + siac_qs[q] * (t[4] - t[0]);
          const double y = t[1] + siac_qr[q] * (t[3] - t[1]) + siac_qs[q] * (t[5] - t[1]);
          const double f = siac_test_f(x, y, nullptr);
          err_u[l] = std::max(err_u[l], std::fabs(siac_eval(t, &coef[(size_t)siac_nb * c], x, y) - f));
          err_f[l] = std::max(err_f[l], std::fabs(filter_at(xy, coef, x, y) - f));
        }
      }
    }
    const double order_u = std::log2(err_u[0] / err_u[1]), order_f = std::log2(err_f[0] / err_f[1]);
    std::printf("[ siac ] k=%d max error N=8/16: dG %.3e / %.3e (order %.2f), filtered %.3e / %.3e (order %.2f)\n", k,
                err_u[0], err_u[1], order_u, err_f[0], err_f[1], order_f);
    EXPECT_LT(err_f[1], err_u[1]) << "k=" << k;
    EXPECT_GT(order_u, k + 0.5) << "k=" << k;
    EXPECT_GT(order_f, 2 * k + 0.5) << "k=" << k;
  }
}
