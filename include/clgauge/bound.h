/* Every record against its device's measured ceilings (clgauge/probe.h): its share of the FP32
 * peak and of the bandwidth, the roofline bound (the least time an iteration's FLOPs, bytes
 * and launches could take there), a verdict in words on what limits it, and the guard that
 * flags implausible figures. Pure functions of a record and a probe: no OpenCL. */
#ifndef CLGAUGE_BOUND_H
#define CLGAUGE_BOUND_H

#include <stdbool.h>
#include <stddef.h>

#include "clgauge/probe.h"

typedef struct cg_record cg_record;
typedef struct cg_report cg_report;

/* A rate more than this share above its ceiling is implausible, and so are steady runs whose
 * slowest is more than CG_SPREAD_LIMIT times the fastest. */
#define CG_CEILING_MARGIN 0.05
#define CG_SPREAD_LIMIT 3.0
/* The timer resolution assumed where no probe gives the device's. */
#define CG_DEFAULT_TIMER_NS 1000.0

typedef struct cg_bound {
  int probe;              /* index in the report's probes; -1: not assessed (no probe) */
  double peak_share;      /* steady GFLOP/s over the FP32 ceiling; NAN where no FLOPs */
  double bandwidth_share; /* steady GB/s over the bandwidth ceiling; NAN where no bytes */
  double compute_ms;      /* per iteration: FLOPs over the FP32 ceiling */
  double memory_ms;       /* bytes over the bandwidth (which cached bytes can beat) */
  double launch_ms;       /* launches times the back-to-back launch cost; 0 on the host */
  double bound_ms;        /* the largest of the three */
  double of_bound;        /* the steady time per iteration over bound_ms */
  int launches;           /* per iteration, as counted; -1: unknown */
  bool launches_at_least; /* counted as library calls, each launching at least one kernel */
  bool memory_in_cache;   /* an iteration's bytes fit in the last-level cache the probe saw */
  char steady[384];       /* what limits the steady state, in words, with its figures */
  char first[256];        /* what run 0 went on; empty for host records */
} cg_bound;

/* The bound of a record against a probe of its device (out->probe is left to the caller). */
void cg_bound_assess(const cg_record *rec, const cg_probe *probe, cg_bound *out);
/* A bound that was not assessed: every figure NAN, no verdict. */
void cg_bound_clear(cg_bound *b);
/* Why a record's figures cannot be right, reasons joined by "; ", into why (empty when they
 * can). probe may be NULL: the checks against ceilings are then left out. */
void cg_implausible_check(const cg_record *rec, const cg_probe *probe, char *why, size_t size);

/* Add a copy of a probe to the report; its index, or -1 when out of memory. */
int cg_report_add_probe(cg_report *report, const cg_probe *probe);
/* The index of the report's probe of the record's device (the host probe for host backends),
 * or -1. */
int cg_report_probe_for(const cg_report *report, const cg_record *rec);
/* Assess every record: its bound against its device's probe where the report has one, and the
 * implausibility guard. */
void cg_report_assess(cg_report *report);

#endif
