/* A probe's figures and the ceilings taken from them: pure bookkeeping, no OpenCL. */
#include "clgauge/probe.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void cg_probe_options_default(cg_probe_options *o, bool quick) {
  o->quick = quick;
  o->runs = quick ? 3 : 5;
  o->transfer_budget_ms = quick ? 100 : 1000;
}

cg_rc cg_probe_options_check(const cg_probe_options *o, cg_error *err) {
  cg_rc rc = CG_OK;
  CG_CHECK(o->runs >= 1 && o->runs <= CG_PROBE_MAX_RUNS, CG_BAD_INPUT,
           "%d runs per figure: the probe takes 1 to %d", o->runs, CG_PROBE_MAX_RUNS);
cleanup:
  return rc;
}

void cg_probe_init(cg_probe *p) {
  memset(p, 0, sizeof *p);
  p->fp32_gflops = p->bandwidth_gbs = p->launch_us = NAN;
  p->timer_ns = p->cache_bytes = p->memory_bytes = p->wall_ms = NAN;
  p->platform_index = p->device_index = -1;
}

cg_probe_figure *cg_probe_add(cg_probe *p, const char *group, const char *name, const char *unit,
                              int width, double bytes, const double *samples, int n) {
  if (p->nfigures == CG_PROBE_MAX_FIGURES) return NULL;
  cg_probe_figure *f = &p->figures[p->nfigures++];
  memset(f, 0, sizeof *f);
  snprintf(f->group, sizeof f->group, "%s", group);
  snprintf(f->name, sizeof f->name, "%s", name);
  snprintf(f->unit, sizeof f->unit, "%s", unit);
  f->width = width;
  f->bytes = bytes;
  cg_stats_compute(samples, n, &f->stats);
  return f;
}

const cg_probe_figure *cg_probe_find(const cg_probe *p, const char *group, const char *name,
                                     double bytes) {
  for (int i = 0; i < p->nfigures; ++i) {
    const cg_probe_figure *f = &p->figures[i];
    if (strcmp(f->group, group) == 0 && strcmp(f->name, name) == 0 &&
        (isnan(bytes) || f->bytes == bytes))
      return f;
  }
  return NULL;
}

/* The best median of a group's figures in that unit, and its name. */
static double best_of(const cg_probe *p, const char *group, const char *unit, char *from,
                      size_t size) {
  double best = NAN;
  for (int i = 0; i < p->nfigures; ++i) {
    const cg_probe_figure *f = &p->figures[i];
    if (strcmp(f->group, group) != 0 || strcmp(f->unit, unit) != 0) continue;
    if (isfinite(f->stats.median) && !(f->stats.median <= best)) {
      best = f->stats.median;
      snprintf(from, size, "%s", f->name);
    }
  }
  return best;
}

void cg_probe_set_ceilings(cg_probe *p) {
  p->fp32_gflops = best_of(p, "compute", "GFLOP/s", p->fp32_from, sizeof p->fp32_from);
  p->bandwidth_gbs = best_of(p, "memory", "GB/s", p->bandwidth_from, sizeof p->bandwidth_from);
  const cg_probe_figure *b2b = cg_probe_find(p, "launch", "back-to-back", NAN);
  p->launch_us = b2b ? b2b->stats.median : NAN;
}

bool cg_probe_matches(const cg_probe *p, const char *device, const char *platform,
                      const char *driver) {
  return strcmp(p->device, device) == 0 && strcmp(p->platform, platform) == 0 &&
         strcmp(p->driver, driver) == 0;
}
