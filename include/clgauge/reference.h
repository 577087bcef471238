/* The CPU reference that every backend is verified against: OpenBLAS, and the error measure. */
#ifndef CLGAUGE_REFERENCE_H
#define CLGAUGE_REFERENCE_H

#include <stdbool.h>
#include <stddef.h>

#include "clgauge/linear.h"
#include "clgauge/mlp.h"

/* C (m x n) = A (m x k) * B (k x n), row-major fp32, through OpenBLAS cblas_sgemm. */
void cg_ref_sgemm(int m, int n, int k, const float *A, const float *B, float *C);

/* ||out - ref|| / ||ref|| (Frobenius, accumulated in double). NaN anywhere in out gives NaN, so a
 * poisoned element that was never written cannot pass. A zero reference gives ||out||. */
double cg_rel_error(const float *out, const float *ref, size_t n);

/* Tolerance for the relative error of an fp32 dot-product-based result over k terms. */
double cg_matmul_tolerance(int k);

/* y = a*x + y over n floats, through OpenBLAS cblas_saxpy. */
void cg_ref_saxpy(int n, float a, const float *x, float *y);
/* Tolerance for ||out - ref|| / ||ref|| where out and ref are both y0 after `updates` in-place
 * fp32 updates y = a*x + y: a bound on their rounding from the data's norms (see reference.c). */
double cg_saxpy_tolerance(size_t n, float a, const float *x, const float *y0, const float *ref,
                          double updates);

/* The mlp training step of mlp.h on the host: OpenBLAS for the products, loops for the rest.
 * The cpu backend runs it, and it is the reference of the OpenCL backends. */
typedef struct cg_ref_mlp {
  cg_mlp_setup setup;
  float *x, *t, *w1, *w2, *w3, *g3;     /* state */
  float *h1, *h2, *y, *dz2, *dz1, *g1, *g2; /* scratch */
} cg_ref_mlp;

/* Allocate and copy x, t, w1, w2, w3 from `in`; g3 starts at zero. False when out of memory. */
bool cg_ref_mlp_init(cg_ref_mlp *mlp, const cg_mlp_setup *setup, const cg_mlp_tensors *in);
/* One training iteration; returns its loss (computed before the update). */
double cg_ref_mlp_step(cg_ref_mlp *mlp);
/* Copy w1, w2, w3, g3 into `out`. */
void cg_ref_mlp_read(const cg_ref_mlp *mlp, cg_mlp_tensors *out);
void cg_ref_mlp_free(cg_ref_mlp *mlp);

/* Softmax cross-entropy of n rows of C logits, computed stably (log-sum-exp with the row's
 * maximum subtracted). Writes g = (softmax - onehot(label)) / n and returns the mean loss. */
double cg_ref_softmax_xent(const float *logits, int n, int classes, const int *labels, float *g);

/* One SGD step of the linear classifier of linear.h on the rows idx[0..n) of x: gathers them
 * into xb (n x F scratch) and their labels into batch_labels (n), uses logits (n x C scratch),
 * updates w and b; returns the mean loss. */
double cg_ref_linear_step(const cg_linear_setup *setup, const float *x, const int *labels,
                          const int *idx, int n, float *w, float *b, float *xb, float *logits,
                          int *batch_labels);

#endif
