/* CPU reference results through OpenBLAS, and the normalized error used for verification. */
#include "clgauge/reference.h"

#include <cblas.h>
#include <float.h>
#include <math.h>

void cg_ref_sgemm(int m, int n, int k, const float *A, const float *B, float *C) {
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f, A, k, B, n, 0.0f, C, n);
}

double cg_rel_error(const float *out, const float *ref, size_t n) {
  double diff = 0, norm = 0;
  for (size_t i = 0; i < n; ++i) {
    double d = (double)out[i] - (double)ref[i];
    diff += d * d;
    norm += (double)ref[i] * (double)ref[i];
  }
  return norm > 0 ? sqrt(diff) / sqrt(norm) : sqrt(diff);
}

double cg_matmul_tolerance(int k) {
  /* Rounding error of a k-term fp32 sum is bounded by about k*eps relative to sum |a||b|; random
   * normal inputs stay far below it, so 2*k*eps flags real bugs without flagging reassociation. */
  double tol = 2.0 * (double)k * FLT_EPSILON;
  return tol < 1e-6 ? 1e-6 : tol;
}
