/* The engine: runs one job (a workload with its parameter values) on every selected backend and
 * variant, one record each, phase by phase: plan the records, validate, create the inputs, open
 * the device (init), prepare (compile), upload, run 0, the steady runs, download, verify. A
 * failure in one record marks it `error` or `unsupported` and the others still run. */
#ifndef CLGAUGE_ENGINE_H
#define CLGAUGE_ENGINE_H

#include <stdbool.h>
#include <stdint.h>

#include "clgauge/backend.h"
#include "clgauge/device.h"
#include "clgauge/error.h"
#include "clgauge/params.h"
#include "clgauge/report.h"
#include "clgauge/workload.h"

/* A workload and its parameter values. */
typedef struct cg_job {
  const cg_workload *workload;
  cg_params params;
  bool modes[CG_MAX_MODES]; /* which of the workload's modes to run */
  char group[32];           /* a sweep point's label ("hidden 64"), else empty */
  double sweep_value;       /* the sweep point's size, else NAN */
  const cg_sweep_desc *sweep; /* the sweep of a sweep point, else NULL */
  double budget_s; /* time budget of each record's steady runs, in seconds: once they have
                      taken longer, the remaining runs are skipped (run 0, the untimed warm-ups
                      and two steady runs always run); 0 (cg_job_init's): none */
} cg_job;

/* The workload at its defaults. */
void cg_job_init(cg_job *job, const cg_workload *workload);
/* Apply a preset by name; CG_BAD_INPUT lists the presets otherwise. */
cg_rc cg_job_preset(cg_job *job, const char *name, cg_error *err);
/* Select modes from a mode option's value: one mode's name, or "all". */
cg_rc cg_job_select_modes(cg_job *job, const char *text, cg_error *err);
/* The job at one size of one of its workload's sweeps: the sweep's parameters set to size, its
 * defaults applied where not given, and the group label set. */
cg_rc cg_job_sweep_point(const cg_job *base, const cg_sweep_desc *sweep, int size, cg_job *out,
                         cg_error *err);

/* What every job of a run shares: the selection and where programs come from. */
typedef struct cg_selection {
  const char *const *backends; /* NULL-terminated names; NULL selects every backend */
  const char *const *variants; /* likewise */
  uint64_t seed;
  const char *kernel_dir;      /* NULL: the embedded kernels */
  const char *binary_cache;    /* NULL: none */
  const cg_kernel_overrides *overrides; /* may be NULL */
  const char *const *scope;    /* the workloads of the whole run (NULL-terminated), over which
                                  --backend and --variant names are checked (a suite accepts a
                                  variant that any workload has); NULL: the job's own */
  const struct cg_tuning *tuning; /* settings from a tuning file (tuning.h), applied to the
                                     records they match as origin "tuned"; NULL: none */
} cg_selection;

/* Check the job's values, the selection, and the sizes against the device (NULL when there is
 * none). CG_BAD_INPUT names the offending value. Nothing is allocated. */
cg_rc cg_engine_validate(const cg_job *job, const cg_selection *sel, const cg_device_info *device,
                         cg_error *err);

/* Called before each record starts (rec->nruns == 0) and after each of its timed runs: index of
 * the record in this job, the job's record count, and the record so far. */
typedef void (*cg_progress_fn)(void *ctx, int index, int total, const cg_record *rec);

/* Run the job, adding its records to the report. The return value is CG_OK unless the job could
 * not start at all (out of host memory). */
cg_rc cg_engine_run(const cg_job *job, const cg_selection *sel, const cg_device_info *device,
                    cg_report *report, cg_progress_fn progress, void *progress_ctx,
                    cg_error *err);

/* A device that a run targets: a listed device, or (info NULL) a platform that lists no device
 * (platform names it) or no OpenCL device at all (platform NULL); the device backends' records
 * of a target without info are skipped, saying why. */
typedef struct cg_target {
  const cg_device_info *info;
  const char *platform;
} cg_target;

/* Run the job on several devices: the host backends (the reference among them) once, then the
 * device backends on each target in turn, every record verified against the one reference. */
cg_rc cg_engine_run_targets(const cg_job *job, const cg_selection *sel, const cg_target *targets,
                            int ntargets, cg_report *report, cg_progress_fn progress,
                            void *progress_ctx, cg_error *err);

/* The crossovers (report.h) of the records of one workload's sweep, one per device
 * backend/variant/mode and device; fills at most max, returns the count. */
int cg_crossovers(const cg_report *report, const char *workload, cg_crossover *out, int max);

#endif
