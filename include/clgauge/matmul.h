/* The matmul workload: C = A*B in fp32, `loops` products per run, timed phase by phase on every
 * selected backend and verified against the CPU reference. Defaults reproduce the TensorFlow
 * eager report (n=1000, 10 products per run, 10 runs). */
#ifndef CLGAUGE_MATMUL_H
#define CLGAUGE_MATMUL_H

#include <stdint.h>

#include "clgauge/device.h"
#include "clgauge/error.h"
#include "clgauge/program.h"
#include "clgauge/report.h"

enum { CG_MATMUL_MAX_DIM = 1 << 20 };

typedef struct cg_matmul_config {
  int m, n, k;
  int loops;  /* products per run */
  int runs;   /* timed runs: run 0 is "first", the others "steady" */
  int warmup; /* untimed runs between run 0 and the steady runs */
  uint64_t seed;
  const char *const *backends; /* NULL-terminated names; NULL means every backend */
  const char *const *variants; /* NULL-terminated; NULL means every variant */
  cg_program_store programs;   /* kernel sources and binary cache; zero: embedded, none */
} cg_matmul_config;

/* The defaults of the report. */
void cg_matmul_defaults(cg_matmul_config *cfg);

/* Check sizes, counts, backend and variant names, and that every matrix fits the device's
 * maximum allocation (device may be NULL when only host backends run). CG_BAD_INPUT names the
 * offending value. Nothing is allocated. */
cg_rc cg_matmul_validate(const cg_matmul_config *cfg, const cg_device_info *device, cg_error *err);

/* Called before each record starts (rec->nruns == 0) and after each of its timed runs: index of
 * the record, total count, and the record so far. */
typedef void (*cg_progress_fn)(void *ctx, int index, int total, const cg_record *rec);

/* Run every selected backend and variant, adding one record each to the report. A failure in one
 * record marks it `error` or `unsupported` and the others still run; the return value is CG_OK
 * unless the workload could not start at all (out of host memory). */
cg_rc cg_matmul_run(const cg_matmul_config *cfg, const cg_device_info *device, cg_report *report,
                    cg_progress_fn progress, void *progress_ctx, cg_error *err);

#endif
