/* The backend interface. A backend (cpu, clblast, cl) is a way of running workloads: it owns its
 * device and its timers, and hands the engine milliseconds, never OpenCL objects. Its
 * implementation of one workload is a cg_impl, a struct of function pointers in the style of
 * ggml's backend vtable; the engine runs every workload through the same cg_impl calls, and loops
 * over cg_impl_all() without naming a backend. */
#ifndef CLGAUGE_BACKEND_H
#define CLGAUGE_BACKEND_H

#include <stdbool.h>

#include "clgauge/clock.h"
#include "clgauge/device.h"
#include "clgauge/error.h"
#include "clgauge/kernel_config.h"

typedef struct cg_backend {
  const char *name;
  const char *summary;
  bool is_reference; /* its results are the reference that the others are verified against */
  bool needs_device; /* runs on the selected OpenCL device; its records are skipped without one */
  /* Open the device for one record: the init phase. *device is what the backend's
   * implementations get in cg_backend_env; *no_device_time says why runs will have no device
   * time (NULL when they will). NULL for backends that need no device. */
  cg_rc (*open)(const cg_device_info *info, void **device, const char **no_device_time,
                cg_error *err);
  void (*close)(void *device);
  /* The part of the init phase that ran before open was called, on another thread beside the
   * process's other work (a device opened ahead, early.h): the record's init time is open's
   * wall time plus this, and this is its overlapped share. NULL: none. */
  double (*open_overlap_ms)(const void *device);
  /* Whether the driver keeps a disk cache of compiled kernels of its own for this device ("on",
   * "off", "unknown"), which can serve a build "from source"; NULL for backends that build
   * nothing on a device. */
  const char *(*driver_cache)(const cg_device_info *info);
} cg_backend;

/* ---- an implementation of a workload ---- */

/* What every implementation gets besides the workload's problem. */
typedef struct cg_backend_env {
  void *device;             /* what the backend's open gave (the OpenCL backends: a cg_device) */
  const char *kernel_dir;   /* read cl/<name> from here; NULL: the embedded copies */
  const char *binary_cache; /* keep built programs here; NULL: none */
  const cg_kernel_overrides *overrides; /* may be NULL */
  char *warning;            /* where the implementation leaves what went wrong without failing
                               it (a program binary not stored in the binary cache), for the
                               record: one line, appended to; NULL: nowhere */
  size_t warning_size;
} cg_backend_env;

/* What prepare tells the engine. */
typedef struct cg_prepared {
  double compile_ms;        /* NAN when nothing was compiled up front */
  const char *compile_kind; /* "source": built from source now (the driver's own cache may have
                               served it); "cache": every program from the binary cache; "library":
                               a library's kernels built by a call of its own before the timed
                               runs; "lazy":
                               the library compiles inside its first call, so the time lands in
                               the first run; "none": nothing to compile */
  cg_kernel_config config;  /* the kernel parameters that run; empty for libraries and the host */
} cg_prepared;

/* How the runs of a record are used. */
typedef enum cg_run_kind {
  CG_RUN_FIRST,   /* run 0: lazy work included */
  CG_RUN_STEADY,  /* counted in the steady statistics */
  CG_RUN_UNTIMED, /* a warm-up: not listed */
  CG_RUN_LISTED   /* listed but left out of the statistics (a shorter last run) */
} cg_run_kind;

/* One run: `iters` iterations enqueued back to back. */
typedef struct cg_run {
  int index;       /* 0, 1, ... over every run of the record, warm-ups included */
  int iters;
  cg_run_kind kind;
  const void *arg; /* the workload's own per-run input (linear: the epoch's order), or NULL */
} cg_run;

/* What a finished run tells the engine. Every time is NAN where it does not apply. */
typedef struct cg_run_result {
  double device_ms;         /* the run's device time, from the backend's timers */
  const char *device_why;   /* why device_ms is NAN: a static string; NULL when it is not */
  double loss;              /* the loss read back after the run (training workloads) */
  int launches;             /* kernel enqueues per iteration; -1 where unknown (a library) */
  int launches_at_least;    /* where launches is -1: the fewest there are, counting each
                               library call as one launch (it launches at least one kernel);
                               -1 when unknown too */
  double batch_upload_ms;   /* device time of the uploads per iteration (batched workloads) */
  double batch_compute_ms;  /* device time of the kernels per iteration (batched workloads) */
  double hidden_share;      /* share of the upload time during which a kernel ran (0..1) */
  double batch_gather_ms;   /* host wall time per iteration gathering a batch's rows into an
                               upload buffer (batched workloads that gather on the host) */
  cg_kernel_time split[CG_MAX_SPLIT]; /* one sampled iteration's commands, in launch order */
  int nsplit;               /* 0 when none were sampled or the driver gives no stamps */
  const char *path;         /* when the execution path changed during the run (a persistent
                               launch redone with launches): what runs now and why, for the
                               record's kernel path; NULL otherwise. Owned by the instance. */
} cg_run_result;

enum { CG_MAX_TUNE_AXES = 20, CG_MAX_TUNE_VALUES = 8 };

/* What clgauge tune searches for one variant: kernel parameters (names the implementation takes
 * as --kernel-param) and their candidate values. A candidate that does not fit a device is
 * refused by the implementation and skipped by the search. */
typedef struct cg_tune_axis {
  const char *name;
  int count;
  int values[CG_MAX_TUNE_VALUES];
} cg_tune_axis;
typedef struct cg_tune_space {
  const char *variant; /* NULL ends a list */
  const char *mode;    /* the workload's mode the parameters act in; NULL: the job's modes */
  int naxes;
  cg_tune_axis axes[CG_MAX_TUNE_AXES];
} cg_tune_space;

typedef struct cg_impl {
  const char *workload;   /* the workload's name */
  const cg_backend *backend;
  const char *const *variants; /* NULL-terminated; at least one */
  const char *const *modes;    /* the workload's modes it runs (NULL-terminated), NULL: all */
  const char *const *kernel_params; /* the names --kernel-param may set (NULL-terminated), or
                                       NULL for none */
  const cg_tune_space *tune_spaces; /* per variant, ended by a NULL variant; NULL: none */
  /* Of the tuned parameters, those whose best value follows the tuned shape rather than its size
   * class (the parts of a matmul's last wave, whose blocks the class's shapes leave in any
   * number), NULL-terminated, or NULL: a tuning entry keeps such a value only where it differs
   * from what the implementation chooses by itself with the rest of the best setting, so that
   * the class's other shapes keep that choice. */
  const char *const *shape_bound;
  /* The parameters it would choose by itself for the device and problem (before the device's
   * limits and any override), where that choice follows the shape within a size class (out:
   * origins DEFAULT; left empty for a variant whose choice does not); NULL: none does. A size
   * class then holds shapes of other choices, and a setting that beat one need not beat
   * another: the engine applies a tuning entry only where these agree with what it replaced
   * (cg_tuning_entry.replaces). */
  void (*own_choice)(const cg_device_info *info, const char *variant, const void *problem,
                     cg_kernel_overrides *out);
  /* Why a variant cannot run in one of the modes (NULL when it can); a NULL function: every
   * variant runs every mode the implementation runs. Such a pair is left out of a run unless
   * the variant was named with --variant, and then its record is `unsupported` with the reason. */
  const char *(*mode_unsupported)(const char *variant, const char *mode);
  /* Create an instance on env's device: compile, allocate, poison the outputs. `problem` is the
   * workload's description of the sizes (see the workload's header), `mode` one of its modes
   * or NULL. */
  cg_rc (*prepare)(const cg_backend_env *env, const char *variant, const char *mode,
                   const void *problem, void **state, cg_prepared *out, cg_error *err);
  /* Copy the inputs to where the runs read them; returns when complete. */
  cg_rc (*upload)(void *state, const void *inputs, cg_error *err);
  /* Start a run and return without waiting where the backend is asynchronous. */
  cg_rc (*enqueue)(void *state, const cg_run *run, cg_error *err);
  /* Wait until the run is complete, then fill `out` (read back what the run leaves for the
   * host, such as the loss: this counts in the run's time). */
  cg_rc (*finish)(void *state, cg_run_result *out, cg_error *err);
  /* Copy the outputs back to the host; returns when complete. */
  cg_rc (*download)(void *state, void *outputs, cg_error *err);
  void (*release)(void *state);
} cg_impl;

/* A run result with every time NAN and nothing sampled. */
void cg_run_result_init(cg_run_result *r);

/* Every backend, NULL-terminated, in report order. */
const cg_backend *const *cg_backend_all(void);
/* The backend of that name, or NULL. */
const cg_backend *cg_backend_find(const char *name);
/* Every implementation, NULL-terminated: per workload, in backend order. */
const cg_impl *const *cg_impl_all(void);
/* Why the variant cannot run in the mode (mode_unsupported), or NULL when it can. */
const char *cg_impl_mode_unsupported(const cg_impl *impl, const char *variant, const char *mode);
/* The tune space of the implementation's variant, or NULL. */
const cg_tune_space *cg_impl_tune_space(const cg_impl *impl, const char *variant);
/* The backend's implementation of the workload, or NULL. */
const cg_impl *cg_impl_find(const cg_backend *backend, const char *workload);
/* Index of variant in a NULL-terminated list, or -1. */
int cg_variant_index(const char *const *variants, const char *variant);
/* Whether the implementation runs the mode (NULL mode: always). */
bool cg_impl_has_mode(const cg_impl *impl, const char *mode);

/* Selection of backends and variants from the command line, the same for every workload.
 * `requested` lists are NULL-terminated, and a NULL list selects everything. A backend runs the
 * requested variants it has, or all of its variants when it has none of them (so that
 * `--variant tiled` narrows the cl backend and leaves the single-variant backends alone). */
bool cg_backend_selected(const char *const *requested, const cg_backend *backend);
bool cg_variant_selected(const char *const *requested, const char *const *available,
                         const char *variant);
/* CG_BAD_INPUT for an unknown backend, a backend that implements none of the workloads, or a
 * variant that no selected backend has for any of them. `workloads` is NULL-terminated. */
cg_rc cg_selection_check(const char *const *backends, const char *const *variants,
                         const char *const *workloads, cg_error *err);

#endif
