/* A workload is a descriptor: its parameters, presets, sweep and modes (from which the command
 * line, --help, validation and the results' params come), how its inputs are made, its host
 * reference, how a result is verified, its runs, and its FLOPs and bytes per iteration. The engine
 * (engine.h) runs any workload on any backend through these functions and the backends' cg_impl;
 * a workload names no backend. What its implementations receive (problem, inputs, outputs) is
 * declared in the workload's own header. */
#ifndef CLGAUGE_WORKLOAD_H
#define CLGAUGE_WORKLOAD_H

#include <stdbool.h>
#include <stdint.h>

#include "clgauge/backend.h"
#include "clgauge/device.h"
#include "clgauge/error.h"
#include "clgauge/params.h"
#include "clgauge/report.h"

/* A named set of parameter values (mlp's seed and big). */
typedef struct cg_preset {
  const char *name;
  const char *summary;
  const cg_param_value *values; /* ended by a NULL name */
} cg_preset;

/* A sweep: the workload run at each size of a list, every backend at each size. */
typedef struct cg_sweep_desc {
  const char *option;             /* the option is --option LIST */
  const char *label;              /* a point's name in the report: "<label> <size>" */
  const char *help;
  const char *const *params;      /* set to each size of the list (NULL-terminated) */
  const cg_param_value *defaults; /* other parameters' values in a sweep where not given */
} cg_sweep_desc;

enum { CG_MAX_MODES = 8 };

/* Modes: a dimension of the records beside backend and variant (linear's transfer modes). Each
 * selected mode is a record of its own on every device backend; host backends run one record in
 * `host_mode`. */
typedef struct cg_mode_desc {
  const char *option;        /* --option NAME|all */
  const char *metavar;
  const char *help;
  const char *const *names;  /* NULL-terminated, at most CG_MAX_MODES */
  int dflt;                  /* index of the mode selected by default */
  const char *host_mode;     /* the mode name of host backends' records */
} cg_mode_desc;

/* A workload's data for one job: inputs, reference, a backend's outputs (the workload's own). */
typedef struct cg_workload_data cg_workload_data;

typedef struct cg_workload {
  const char *name;    /* the command: clgauge <name> */
  const char *summary; /* one line, for clgauge --help */
  const char *help;    /* the paragraph of clgauge <name> --help */
  const cg_param_desc *params;
  int nparams;
  const cg_preset *presets;   /* ended by a NULL name; NULL for none */
  const cg_sweep_desc *sweeps; /* ended by a NULL option; NULL for none */
  const cg_mode_desc *modes;  /* NULL for none */
  const char *loss_unit;      /* "iteration" or "epoch" when the runs read back a loss, else NULL */

  /* Checks that need more than the ranges: sizes against the device's limits (device NULL when
   * no OpenCL backend runs) and the host's. CG_BAD_INPUT names the options and what was needed.
   * May be NULL. */
  cg_rc (*validate)(const cg_params *p, const bool *modes, const cg_device_info *device,
                    cg_error *err);
  /* Make the inputs from the seed and the buffers of the reference and of a backend's outputs. */
  cg_rc (*create)(const cg_params *p, uint64_t seed, cg_workload_data **data, cg_error *err);
  void (*destroy)(cg_workload_data *data);
  /* Work of one iteration, and the iterations of one full run, for the record. */
  double (*flops_per_iter)(const cg_params *p);
  double (*bytes_per_iter)(const cg_params *p);
  int (*iters_per_run)(const cg_params *p);
  /* The runs of a record: their count (warm-ups included), and run r. */
  int (*run_count)(const cg_params *p);
  void (*run_at)(const cg_workload_data *data, int r, cg_run *run);
  /* What the implementations receive: the problem (sizes and settings), the inputs to upload,
   * and where to download a backend's outputs (poisoned first, so that unwritten elements
   * show). */
  const void *(*problem)(const cg_workload_data *data);
  const void *(*inputs)(const cg_workload_data *data);
  void *(*outputs)(cg_workload_data *data);
  /* Compute the host reference of the record's first `runs` runs (run_count for a whole record;
   * fewer when a time budget cut a record's steady runs). */
  cg_rc (*reference)(cg_workload_data *data, int runs, cg_error *err);
  /* The reference backend's outputs (in outputs(), and the record's losses) become the
   * reference, of as many runs as the record ran (its timed runs, and every untimed one). */
  void (*adopt_reference)(cg_workload_data *data, const cg_record *rec);
  /* Verify the downloaded outputs (and the record's losses) against the reference: sets the
   * record's verify fields, and status `error` when out of tolerance. */
  void (*verify)(const cg_workload_data *data, cg_record *rec);
} cg_workload;

/* The function fields of a descriptor whose file names its functions after them, as every
 * descriptor of src/workloads does: `.params = params, ..., CG_WORKLOAD_FUNCTIONS`. */
#define CG_WORKLOAD_FUNCTIONS                                                                      \
  .validate = validate, .create = create, .destroy = destroy, .flops_per_iter = flops_per_iter,   \
  .bytes_per_iter = bytes_per_iter, .iters_per_run = iters_per_run, .run_count = run_count,       \
  .run_at = run_at, .problem = problem, .inputs = inputs, .outputs = outputs,                     \
  .reference = reference, .adopt_reference = adopt_reference, .verify = verify

/* Every workload, NULL-terminated, in the order of the suite and of clgauge --help. */
const cg_workload *const *cg_workload_all(void);
/* The workload of that name, or NULL. */
const cg_workload *cg_workload_find(const char *name);
/* The workload's sweep whose option is `option` (without the dashes), or NULL. */
const cg_sweep_desc *cg_workload_sweep(const cg_workload *w, const char *option);

/* Shared by the descriptors' verify functions: the largest relative error of the losses
 * (NaN sticks), and the verdict into the record. */
double cg_loss_error(const double *got, const double *want, int n);
void cg_verify_verdict(cg_record *rec, double tolerance);

#endif
