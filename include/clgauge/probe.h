/* The ceilings of a device, measured on it (clgauge probe): FP32 arithmetic, memory bandwidth,
 * host-device transfers, the launch cost, program build and context creation; and the host's
 * (the cpu backend's) through OpenBLAS's SGEMM and memory copies. Every figure carries the
 * statistics of the runs after a warm-up. The records of a run are assessed against them
 * (clgauge/bound.h). */
#ifndef CLGAUGE_PROBE_H
#define CLGAUGE_PROBE_H

#include <stdbool.h>

#include "clgauge/device.h"
#include "clgauge/error.h"
#include "clgauge/stats.h"

enum { CG_PROBE_MAX_FIGURES = 96 };

/* One measured figure: its group ("compute", "memory", "transfer", "launch", "build",
 * "context"), its name within the group, the unit of its statistics ("GFLOP/s", "GB/s", "us",
 * "ms"), and for vector kernels the width, for transfers the size. */
typedef struct cg_probe_figure {
  char group[12];
  char name[40];
  char unit[12];
  int width;    /* vector width (1, 2, 4, 8, 16); 0 where it does not apply */
  double bytes; /* bytes per transfer; NAN where it does not apply */
  cg_stats stats;
} cg_probe_figure;

typedef struct cg_probe {
  bool host; /* the host CPU as the cpu backend uses it, not an OpenCL device */
  char device[256], vendor[128], platform[128], driver[128], cl_version[128], device_type[16];
  int platform_index, device_index; /* as 'clgauge list' gives them (clpeak's -p and -d);
                                       -1 for the host */
  bool quick; /* measured with --quick: fewer runs, smaller buffers and transfers */
  int runs;   /* timed runs of each figure, after one warm-up */
  /* The ceilings: the best median of their group, and which figure it is. */
  double fp32_gflops;
  char fp32_from[40];
  double bandwidth_gbs;
  char bandwidth_from[40];
  double launch_us;     /* back-to-back launches of an empty kernel, per launch; NAN: host */
  double timer_ns;      /* the profiling timer's resolution; NAN where unknown */
  double cache_bytes;   /* the last-level cache the device (or the host) reports; NAN: unknown */
  double memory_bytes;  /* the buffer size the bandwidth was measured with */
  double wall_ms;       /* how long the probe took */
  cg_probe_figure figures[CG_PROBE_MAX_FIGURES];
  int nfigures;
} cg_probe;

/* How long a probe may take: quick is for tests (a second or two on a CPU driver). */
enum { CG_PROBE_MAX_RUNS = 16 };
typedef struct cg_probe_options {
  bool quick;
  int runs;                  /* timed runs of each figure after its warm-up, 1..CG_PROBE_MAX_RUNS */
  double transfer_budget_ms; /* the transfers stop growing past this much time per kind */
} cg_probe_options;
void cg_probe_options_default(cg_probe_options *o, bool quick);
/* CG_BAD_INPUT, naming the count, when o->runs is outside 1..CG_PROBE_MAX_RUNS. */
cg_rc cg_probe_options_check(const cg_probe_options *o, cg_error *err);

/* An empty probe: every ceiling NAN, no figure. */
void cg_probe_init(cg_probe *p);
/* Add a figure from its samples (min, max and median over them); NULL when full. */
cg_probe_figure *cg_probe_add(cg_probe *p, const char *group, const char *name, const char *unit,
                              int width, double bytes, const double *samples, int n);
/* The figure of that group and name (and size, where bytes is not NAN), or NULL. */
const cg_probe_figure *cg_probe_find(const cg_probe *p, const char *group, const char *name,
                                     double bytes);
/* Set the ceilings from the figures: the best compute and memory medians, and the
 * back-to-back launch cost. */
void cg_probe_set_ceilings(cg_probe *p);
/* Whether the probe measured that device (name, platform and driver alike). */
bool cg_probe_matches(const cg_probe *p, const char *device, const char *platform,
                      const char *driver);

/* Measure the OpenCL device (it opens its own contexts). */
cg_rc cg_probe_device(const cg_device_info *info, const cg_probe_options *o, cg_probe *out,
                      cg_error *err);
/* Measure the host: SGEMM through OpenBLAS at square sizes (the best is the FP32 ceiling) and
 * memory read and copy over buffers far above the last-level cache. */
cg_rc cg_probe_host(const cg_probe_options *o, cg_probe *out, cg_error *err);

#endif
