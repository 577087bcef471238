/* Result records (one per workload, backend and variant on a device) with every phase, and their
 * outputs: an aligned table and summary for people, versioned JSON and CSV for programs. */
#ifndef CLGAUGE_REPORT_H
#define CLGAUGE_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "clgauge/bound.h"
#include "clgauge/clock.h"
#include "clgauge/device.h"
#include "clgauge/error.h"
#include "clgauge/kernel_config.h"
#include "clgauge/params.h"
#include "clgauge/stats.h"

/* 2: phases.compile.driver_cache, compile kind "cache", and per-batch device times in the runs of
 * linear records (batch_upload_device_ms, batch_compute_device_ms).
 * 3: each record's "kernel" (build options, and each kernel parameter with its value and origin:
 * default, fallback, override, tuned), "reference" (the record is the reference the others are
 * verified against) and "group" (a sweep point's label, or null); phases.compile.warning: what
 * went wrong in the compile phase without failing the record (a program binary that the binary
 * cache could not store), a string, or null when nothing did (added within version 3: readers
 * of version 3 that do not know it lose nothing).
 * 4: status "interrupted" (the run was stopped while the record ran: a signal, or
 * --record-timeout), written by a run stopped that way; the command line kept whole, bytes
 * that are not UTF-8 as \xHH.
 * 5: several devices in one run: the top-level "devices" (every device the run targeted, in
 * order: "index" and "id" as `clgauge list` prints them, name, vendor, platform and its version,
 * driver, OpenCL and OpenCL C versions, type, and "listed": false for a platform that lists no
 * device, whose records are skipped), each record's device.index and device.id (null for the
 * host and for no device); each record's "budget" (the --budget-s that applied, null for none,
 * "runs_asked" and whether the record was "cut"); the top-level "crossovers" of a sweep (null
 * outside one).
 * Optional within version 5 (readers that do not know them lose nothing; files without them
 * are read alike, and version 4 files written with them are read too): the top-level "probes" (the ceilings measured by clgauge probe, each with
 * its device, "ceilings" and "figures"); each record's "bound" (null when no probe of its
 * device was there, else the index of its "probe", "fp32_share", "bandwidth_share", the
 * bound's terms "compute_ms_per_iter", "memory_ms_per_iter", "launch_ms_per_iter",
 * "bound_ms_per_iter", "of_bound", "launches_per_iter", "launches_at_least",
 * "memory_in_cache", and the verdicts "steady" and "run0"); each record's "implausible"
 * (null, or the reasons its figures cannot be right); and phases.launches.at_least (where
 * per_iter is null: the fewest launches an iteration makes, a library call counting one). */
#define CG_REPORT_SCHEMA "clgauge.results/5"

typedef enum cg_status {
  CG_STATUS_OK,
  CG_STATUS_UNSUPPORTED,
  CG_STATUS_SKIPPED,
  CG_STATUS_ERROR,
  CG_STATUS_INTERRUPTED /* the run stopped while the record ran (a signal, --record-timeout) */
} cg_status;
const char *cg_status_name(cg_status status);

typedef struct cg_param {
  const char *name; /* static string */
  double value;
} cg_param;

/* One timed run: `iters_per_run` iterations (products, training steps) enqueued back to back. */
typedef struct cg_run_sample {
  double enqueue_ms;  /* until the enqueue calls returned: what an unsynchronised timer sees */
  double complete_ms; /* until clFinish returned: the real cost */
  double device_ms;   /* from profiling events; NAN when unavailable */
  int iters;          /* iterations in this run */
  double batch_upload_ms;  /* device time of the uploads per batch (linear); NAN otherwise */
  double batch_compute_ms; /* device time of the kernels per batch (linear); NAN otherwise */
  double batch_gather_ms;  /* host time gathering a batch's rows (linear pageable and pinned);
                              NAN otherwise */
} cg_run_sample;

/* A record keeps its workload's parameters and the seed. */
enum { CG_MAX_RECORD_PARAMS = CG_MAX_PARAMS + 1 };

/* Times are NAN where a phase does not apply or was not reached. */
typedef struct cg_record {
  char workload[16], backend[16], variant[24];
  char mode[16];     /* the workload's mode (linear: how batches reach the device); empty
                        otherwise; "transfer" in the JSON */
  bool host_backend; /* runs on the host CPU without OpenCL */
  bool reference;    /* its backend is the reference that the others are verified against */
  char group[32];    /* a sweep point's label ("hidden 64"); empty outside a sweep */
  double sweep_value; /* the sweep point's size; NAN outside a sweep */
  char device[256], vendor[128], platform[128], driver[128], cl_version[128];
  const char *device_type;
  int device_index;   /* as `clgauge list` prints it; -1 for the host and for no device */
  int device_platform, device_number; /* the device's platform:device; -1 likewise */
  cg_param params[CG_MAX_RECORD_PARAMS];
  int nparams;
  cg_status status;
  char reason[1024];

  double flops_per_iter; /* floating-point operations of one iteration */
  double bytes_per_iter; /* minimum bytes one iteration must read and write */
  int iters_per_run;
  int launches_per_iter; /* kernel enqueues per iteration; -1 when not applicable or unknown */
  int launches_at_least; /* where launches_per_iter is -1: the fewest there are (library calls,
                            each launching at least one kernel); -1 when unknown too */

  double init_ms;          /* context and queue creation */
  double init_overlap_ms;  /* the part of init_ms that ran beside the process's other work (a
                              device opened ahead on a thread of its own), not after it; 0 when
                              none did */
  double compile_ms;       /* program build */
  char compile_kind[16];   /* "source", "cache" (our binary cache), "library" (a library's
                              kernels built by a call before the timed runs), "lazy" (inside the
                              first run), "none" */
  char driver_cache[16];   /* the driver's own kernel cache: "on", "off", "unknown"; empty when
                              nothing was compiled on a device */
  char compile_warning[1024]; /* what went wrong in the compile phase without failing the record
                                 (a binary the binary cache could not store); empty when nothing */
  cg_kernel_config kernel; /* the kernel parameters that ran, with their origins */
  double upload_ms;
  cg_run_sample first;     /* run 0, lazy work included */
  cg_run_sample *runs;     /* every timed run, run 0 first */
  int nruns;
  int planned_runs;        /* timed runs the record will have when complete */
  double budget_s;         /* the steady runs' time budget that applied; 0: none */
  bool budget_cut;         /* the budget stopped the steady runs before planned_runs */
  cg_stats steady_complete, steady_enqueue, steady_device; /* over the runs after warm-up */
  char device_time_why[96]; /* why device time is unavailable; empty when it is available */
  double download_ms;
  double reference_ms;      /* the host reference computed for this record (the first OpenCL
                               record of a job without the cpu backend before it); NAN when
                               none was (`clgauge coldstart` counts it) */
  double verify_ms;         /* comparing the outputs with the reference */
  uint64_t verified_ns;     /* the monotonic clock (cg_now_ns) when verification ended, before
                               the record's device is released; 0 when not reached */
  double verify_error;      /* ||out - ref|| / ||ref||; the largest of the parts below if any */
  double verify_tolerance;
  double verify_loss_error;   /* largest relative error of a printed loss (training workloads) */
  double verify_weights_error; /* largest relative error of a final weight matrix */
  double *losses;           /* loss at iterations 0, loss_every, 2*loss_every, ... */
  int nlosses, loss_every;
  const char *loss_unit;    /* what loss_every counts: "iteration" or "epoch" */
  double batch_upload_ms;   /* median over steady runs of the device upload time per batch */
  double batch_compute_ms;  /* likewise, kernels */
  double upload_hidden;     /* share of the upload time hidden behind compute (0..1) */
  double batch_gather_ms;   /* median over steady runs of the host's gather time per batch */
  cg_kernel_time split[CG_MAX_SPLIT]; /* one iteration's launches, mean over sampled runs */
  int nsplit;
  double host_cpu_ms;       /* process CPU time during the steady runs */
  double host_wall_ms;      /* wall time of the steady runs */
  cg_bound bound;           /* against the device's measured ceilings (cg_report_assess) */
  char implausible[512];    /* why its figures cannot be right; empty when they can */
} cg_record;

/* A device a run targeted: listed by its platform, or a platform that lists no device. */
typedef struct cg_report_device {
  bool listed;
  int index, platform_index, device_index; /* -1 for a platform that lists no device */
  char name[256], vendor[128], platform[128], platform_version[128], driver[128];
  char cl_version[128], c_version[128];
  const char *type;
} cg_report_device;

/* Crossover of one device backend/variant/mode against the reference backend along a sweep: the
 * smallest swept size from which it is faster at every larger size, counting the steady time
 * per iteration alone, and counting everything (init, compile, upload and every run). 0: never. */
typedef struct cg_crossover {
  char backend[16], variant[24], mode[16];
  char device[256];
  int device_index;
  double loop_size, total_size;
} cg_crossover;

typedef struct cg_report {
  cg_record *records; /* free with cg_report_free: it owns each record's runs and losses */
  int count, cap;
  cg_report_device *devices; /* the devices the run targeted (malloc'd) */
  int ndevices;
  cg_crossover *crossovers;  /* a sweep's, set by cg_report_set_crossovers (malloc'd) */
  int ncrossovers;
  char sweep_option[32];     /* the sweep's option ("sweep-n"); empty outside a sweep */
  char *command;       /* the command line, whole, bytes that are not UTF-8 as \xHH (malloc'd;
                          NULL when out of memory) */
  double discovery_ms; /* platform and device enumeration of this process */
  double discovery_overlap_ms; /* the part of it that ran beside the front end's own work (on
                                  a thread from the start); 0 when none did */
  cg_probe *probes;    /* ceilings measured in this run or read from a file (malloc'd) */
  int nprobes;
} cg_report;

void cg_report_init(cg_report *report, int argc, char **argv);
/* A new record with every time set to NAN, or NULL when out of memory. */
cg_record *cg_report_add(cg_report *report);
void cg_report_free(cg_report *report);
/* The run's devices, in order: a listed device, or a platform that lists none. False when out
 * of memory. */
bool cg_report_add_device(cg_report *report, const cg_device_info *info);
bool cg_report_add_empty_platform(cg_report *report, const char *platform);
/* Keep a sweep's crossovers (copied) for the table and the JSON. False when out of memory. */
bool cg_report_set_crossovers(cg_report *report, const char *sweep_option, const cg_crossover *x,
                              int n);
/* Whether the records ran on more than one OpenCL device (the table then names the device of
 * each record). */
bool cg_report_multi_device(const cg_report *report);

/* Whether names fit a record's fields: the workload's, the backend's, the variant's, and where
 * given (else NULL) the mode's and a sweep's label (a record's group is "<label> <size>").
 * CG_ERROR naming the field and its limit otherwise. */
cg_rc cg_record_check_names(const char *workload, const char *backend, const char *variant,
                            const char *mode, const char *sweep_label, cg_error *err);
void cg_record_set_device(cg_record *rec, const cg_device_info *info);
void cg_record_add_param(cg_record *rec, const char *name, double value);
double cg_record_param(const cg_record *rec, const char *name); /* NAN when absent */
/* Set status and reason (printf-style); reason may be NULL. */
void cg_record_set_status(cg_record *rec, cg_status status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* A time per iteration (NAN for no iterations), and a rate in G per second (FLOPs or bytes over
 * milliseconds; NAN for no time). */
double cg_per_iter(double ms, int iters);
double cg_gflops(double amount, double ms);

/* The whole report as JSON text (malloc'd), or NULL when out of memory. */
char *cg_report_json(const cg_report *report);
/* Check, before a run starts, that a results file can be written at path. */
cg_rc cg_report_check_path(const char *path, cg_error *err);
/* Write JSON or CSV whole or not at all: to a temporary file beside path, then renamed. */
cg_rc cg_report_write_json(const cg_report *report, const char *path, cg_error *err);
cg_rc cg_report_write_csv(const cg_report *report, const char *path, cg_error *err);

/* For people: an aligned table of the records, then one summary line per OpenCL record. */
void cg_report_print_table(const cg_report *report, FILE *out);

#endif
