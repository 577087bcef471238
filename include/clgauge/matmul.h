/* The matmul workload: C = A*B in fp32, `loops` products per run. Defaults reproduce the
 * TensorFlow eager report (n=1000, 10 products per run, 10 runs). What its implementations
 * receive: */
#ifndef CLGAUGE_MATMUL_H
#define CLGAUGE_MATMUL_H

/* The descriptor (workload.h); this header declares only what implementations receive. */
struct cg_workload;

enum { CG_MATMUL_MAX_DIM = 1 << 20 };

/* The problem: C (m x n) = A (m x k) * B (k x n), row-major fp32. Each run enqueues run->iters
 * products. */
typedef struct cg_matmul_shape {
  int m, n, k;
} cg_matmul_shape;

/* The inputs to upload (valid until release), and where download writes C. */
typedef struct cg_matmul_inputs {
  const float *a, *b;
} cg_matmul_inputs;
typedef struct cg_matmul_outputs {
  float *c;
} cg_matmul_outputs;

extern const struct cg_workload cg_workload_matmul;

#endif
