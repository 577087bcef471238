/* The backend interface: one implementation per way of running the workloads (cpu, clblast, cl),
 * a struct of function pointers per workload, in the style of ggml's backend vtable. Workloads,
 * benchmarks and tests loop over cg_backend_all() and never name a backend. */
#ifndef CLGAUGE_BACKEND_H
#define CLGAUGE_BACKEND_H

#include <stdbool.h>

#include "clgauge/device.h"
#include "clgauge/error.h"
#include "clgauge/timing.h"

/* What a backend instance runs on. */
typedef struct cg_backend_env {
  const cg_device *device; /* opened device; NULL for backends that do not use OpenCL */
  const char *kernel_dir;  /* read the .cl files of cl/ from here instead of the embedded copies; may be NULL */
} cg_backend_env;

/* How the program build of an instance went. */
typedef struct cg_compile_info {
  double ms;        /* NAN when nothing was compiled up front */
  const char *kind; /* "source": built from source now; "lazy": the library compiles inside its
                       first call, so the time lands in the first run; "none": nothing to compile */
} cg_compile_info;

typedef struct cg_matmul_shape {
  int m, n, k; /* C (m x n) = A (m x k) * B (k x n), row-major fp32 */
} cg_matmul_shape;

typedef struct cg_matmul_ops {
  const char *const *variants; /* NULL-terminated; at least one */
  /* Create an instance: compile, allocate device buffers, poison C. */
  cg_rc (*prepare)(const cg_backend_env *env, const char *variant, cg_matmul_shape shape,
                   void **state, cg_compile_info *compile, cg_error *err);
  /* Copy A and B to where the products read them; returns when the copies are complete. */
  cg_rc (*upload)(void *state, const float *A, const float *B, cg_error *err);
  /* Start `products` products C = A*B and return without waiting where the backend is
   * asynchronous. Fills the events that bound the work on the device (left empty when the
   * backend has none) and the kernel launches per product (-1 where a library decides). */
  cg_rc (*enqueue)(void *state, int products, cg_device_span *span, int *launches,
                   cg_error *err);
  /* Wait until everything enqueued is complete. */
  cg_rc (*finish)(void *state, cg_error *err);
  /* Copy C back to the host; returns when complete. */
  cg_rc (*download)(void *state, float *C, cg_error *err);
  void (*release)(void *state);
} cg_matmul_ops;

typedef struct cg_backend {
  const char *name;
  const char *summary;
  bool uses_opencl;
  const cg_matmul_ops *matmul; /* NULL when the backend lacks the workload */
} cg_backend;

/* Every backend, NULL-terminated, in report order. */
const cg_backend *const *cg_backend_all(void);
/* The backend of that name, or NULL. */
const cg_backend *cg_backend_find(const char *name);
/* Index of variant in a NULL-terminated list, or -1. */
int cg_variant_index(const char *const *variants, const char *variant);

/* Selection of backends and variants from the command line, the same for every workload.
 * `requested` lists are NULL-terminated, and a NULL list selects everything. A backend runs the
 * requested variants it has, or all of its variants when it has none of them (so that
 * `--variant tiled` narrows the cl backend and leaves the single-variant backends alone). */
typedef const char *const *(*cg_variants_of)(const cg_backend *backend); /* NULL: no workload */
bool cg_backend_selected(const char *const *requested, const cg_backend *backend);
bool cg_variant_selected(const char *const *requested, const char *const *available,
                         const char *variant);
/* CG_BAD_INPUT for an unknown backend, or a variant that no selected backend has. */
cg_rc cg_selection_check(const char *const *backends, const char *const *variants,
                         cg_variants_of variants_of, cg_error *err);

#endif
