/* The saxpy workload: y = a*x + y over n floats, in place, `loops` updates per run: memory-bound,
 * the reference case for bandwidth. What its implementations receive: */
#ifndef CLGAUGE_SAXPY_H
#define CLGAUGE_SAXPY_H

/* The descriptor (workload.h); this header declares only what implementations receive. */
struct cg_workload;

/* n is an int because that is what cblas_saxpy takes. */
enum { CG_SAXPY_MAX_N = 2147483647 };

/* The problem: y = a*x + y over n floats. Each run enqueues run->iters updates of the same y, so
 * y after the runs holds every update of every run since the upload. */
typedef struct cg_saxpy_problem {
  int n;
  float a;
} cg_saxpy_problem;

/* The inputs to upload (valid until release): x, and the starting y that upload copies (it is
 * never written), and where download writes the updated y. */
typedef struct cg_saxpy_inputs {
  const float *x, *y;
} cg_saxpy_inputs;
typedef struct cg_saxpy_outputs {
  float *y;
} cg_saxpy_outputs;

extern const struct cg_workload cg_workload_saxpy;

#endif
