/* The CPU reference that every backend is verified against: OpenBLAS, and the error measure. */
#ifndef CLGAUGE_REFERENCE_H
#define CLGAUGE_REFERENCE_H

#include <stddef.h>

/* C (m x n) = A (m x k) * B (k x n), row-major fp32, through OpenBLAS cblas_sgemm. */
void cg_ref_sgemm(int m, int n, int k, const float *A, const float *B, float *C);

/* ||out - ref|| / ||ref|| (Frobenius, accumulated in double). NaN anywhere in out gives NaN, so a
 * poisoned element that was never written cannot pass. A zero reference gives ||out||. */
double cg_rel_error(const float *out, const float *ref, size_t n);

/* Tolerance for the relative error of an fp32 dot-product-based result over k terms. */
double cg_matmul_tolerance(int k);

#endif
