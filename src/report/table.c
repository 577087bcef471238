/* Results for people: an aligned table per workload and device, the notes, the loss curves, and
 * a line per device record on where the time went. */
#include "clgauge/linear.h"
#include "clgauge/report.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

enum { COLS = 15, CELL = 40 };

static void cell_ms(char *buf, double ms) {
  if (!isfinite(ms))
    snprintf(buf, CELL, "-");
  else if (ms >= 100)
    snprintf(buf, CELL, "%.0f", ms);
  else if (ms >= 1)
    snprintf(buf, CELL, "%.2f", ms);
  else
    snprintf(buf, CELL, "%.4f", ms);
}

static void print_row(FILE *out, char cells[][CELL], const int *width) {
  for (int c = 0; c < COLS; ++c) {
    /* names left-aligned, figures right-aligned */
    if (c < 3)
      fprintf(out, "%s%-*s", c ? "  " : "", width[c], cells[c]);
    else
      fprintf(out, "  %*s", width[c], cells[c]);
  }
  fputc('\n', out);
}

static void record_cells(const cg_record *r, char cells[][CELL]) {
  snprintf(cells[0], CELL, "%s", r->backend);
  snprintf(cells[1], CELL, "%s%s%s", r->variant, r->mode[0] ? "/" : "", r->mode);
  /* an implausible record keeps its status and figures, marked (the notes say why) */
  snprintf(cells[2], CELL, "%s%s", cg_status_name(r->status), r->implausible[0] ? "*" : "");
  cell_ms(cells[3], r->init_ms);
  cell_ms(cells[4], r->compile_ms);
  if (strcmp(r->compile_kind, "lazy") == 0) snprintf(cells[4], CELL, "in first");
  cell_ms(cells[5], r->upload_ms);
  cell_ms(cells[6], r->first.complete_ms);
  int it = r->iters_per_run;
  double med = cg_per_iter(r->steady_complete.median, it);
  if (isfinite(med))
    snprintf(cells[7], CELL, "%.4g ±%.2g", med, cg_per_iter(r->steady_complete.stddev, it));
  else
    snprintf(cells[7], CELL, "-");
  double g = cg_gflops(r->flops_per_iter * it, r->steady_complete.median);
  if (isfinite(g))
    snprintf(cells[8], CELL, "%.1f", g);
  else
    snprintf(cells[8], CELL, "-");
  const double gb = cg_gflops(r->bytes_per_iter * it, r->steady_complete.median);
  if (isfinite(gb))
    snprintf(cells[9], CELL, "%.1f", gb);
  else
    snprintf(cells[9], CELL, "-");
  cell_ms(cells[10], cg_per_iter(r->steady_device.median, it));
  if (r->status == CG_STATUS_OK && r->device_time_why[0]) snprintf(cells[10], CELL, "n/a");
  cell_ms(cells[11], cg_per_iter(r->steady_enqueue.median, it));
  cell_ms(cells[12], r->download_ms);
  if (isfinite(r->verify_error))
    snprintf(cells[13], CELL, "%.1e", r->verify_error);
  else
    snprintf(cells[13], CELL, "-");
  if (isfinite(r->bound.of_bound))
    snprintf(cells[14], CELL, "%.3gx", r->bound.of_bound);
  else
    snprintf(cells[14], CELL, "-");
}

static const cg_record *reference_for(const cg_report *report, const cg_record *r) {
  for (int i = 0; i < report->count; ++i) {
    const cg_record *c = &report->records[i];
    if (c->reference && c->status == CG_STATUS_OK && strcmp(c->workload, r->workload) == 0 &&
        strcmp(c->group, r->group) == 0)
      return c;
  }
  return NULL;
}

/* "backend/variant", with "/transfer" where the record has one, and "@N" (the device's index
 * in `clgauge list`) where the report holds records of several devices. */
static bool multi_device; /* of the report being printed */

static const char *record_name(const cg_record *r, char *buf, size_t size) {
  snprintf(buf, size, "%s/%s%s%s", r->backend, r->variant, r->mode[0] ? "/" : "", r->mode);
  if (multi_device && r->device_index >= 0)
    snprintf(buf + strlen(buf), size - strlen(buf), "@%d", r->device_index);
  else if (multi_device && !r->host_backend && r->platform[0])
    snprintf(buf + strlen(buf), size - strlen(buf), "@%s", r->platform);
  return buf;
}

/* Where the compile time came from, as far as the run can tell. */
static const char *compile_origin(const cg_record *r) {
  if (strcmp(r->compile_kind, "cache") == 0) return "binaries from the cache";
  if (strcmp(r->compile_kind, "library") == 0)
    return "the library's programs, built by a call of one element before the timed runs";
  if (strcmp(r->driver_cache, "on") == 0) return "from source; the driver's cache may have served it";
  if (strcmp(r->driver_cache, "off") == 0) return "from source, cold";
  return "from source";
}

static void print_summary(const cg_report *report, const cg_record *r, FILE *out) {
  char name[96];
  double cold = r->init_ms + (isfinite(r->compile_ms) ? r->compile_ms : 0) + r->upload_ms +
                r->first.complete_ms;
  double steady = cg_per_iter(r->steady_complete.median, r->iters_per_run);
  fprintf(out, "  %s: run 0 took %.1f ms, of which context %.1f ms",
          record_name(r, name, sizeof name), cold, r->init_ms);
  /* a device opened ahead on a thread: that part of its time ran beside the host's work */
  if (r->init_overlap_ms >= 0.05)
    fprintf(out, " (%.1f ms of it on a thread, beside the host's own work)",
            r->init_overlap_ms);
  fputs(", ", out);
  if (isfinite(r->compile_ms))
    fprintf(out, "compile %.1f ms (%s), upload %.1f ms, first run %.1f ms", r->compile_ms,
            compile_origin(r), r->upload_ms, r->first.complete_ms);
  else
    fprintf(out, "upload %.1f ms, first run %.1f ms (library compile inside)", r->upload_ms,
            r->first.complete_ms);
  /* No steady runs (--runs 1, one epoch, --print-every >= --iters): say so rather than print
   * the NAN of an empty median, and compare nothing with it. */
  if (isfinite(steady))
    fprintf(out, "; steady %.3g ms per iteration", steady);
  else if (r->nruns <= 1)
    fputs("; no steady runs (run 0 was the only run)", out);
  else
    fputs("; no steady runs (after run 0 only a shorter last run)", out);
  if (r->budget_cut)
    fprintf(out, "; %d of %d runs (--budget-s %g)", r->nruns, r->planned_runs, r->budget_s);
  const cg_record *ref = reference_for(report, r);
  const double ref_steady =
      ref ? cg_per_iter(ref->steady_complete.median, ref->iters_per_run) : NAN;
  if (isfinite(ref_steady) && isfinite(steady)) {
    double ratio = ref_steady / steady;
    if (ratio >= 1)
      fprintf(out, ", %.2fx faster than %s (%.3g ms)", ratio, ref->backend, ref_steady);
    else
      fprintf(out, ", %.2fx slower than %s (%.3g ms)", 1 / ratio, ref->backend, ref_steady);
  }
  if (ref && !isfinite(ref_steady) && isfinite(steady))
    fprintf(out, " (%s had no steady runs to compare with)", ref->backend);
  if (isfinite(ref_steady) && isfinite(cold))
    fprintf(out, "; run 0 costs as much as %.0f %s iterations", cold / ref_steady, ref->backend);
  double enq = cg_per_iter(r->steady_enqueue.median, r->iters_per_run);
  if (isfinite(enq) && enq < 0.5 * steady)
    fprintf(out, "; an unsynchronised timer would have seen %.3g ms", enq);
  if (isfinite(r->batch_upload_ms))
    fprintf(out, "; per batch on the device: upload %.3g ms, compute %.3g ms, %.0f%% of the upload "
                 "hidden behind compute",
            r->batch_upload_ms, r->batch_compute_ms, 100 * r->upload_hidden);
  if (isfinite(r->batch_gather_ms))
    fprintf(out, "; per batch on the host: gathering its rows %.3g ms", r->batch_gather_ms);
  /* pinned gathers a group on host threads while the device computes the one before: a gather
   * longer than the compute leaves the device waiting on the host */
  if (cg_transfer_from_name(r->mode) == CG_TRANSFER_PINNED && isfinite(r->batch_gather_ms) &&
      isfinite(r->batch_compute_ms) && r->batch_gather_ms > r->batch_compute_ms)
    fputs(", longer than the compute: the device waits for the host's gather (the kernel "
          "parameter THREADS sets its threads)",
          out);
  fputs("\n", out);
  if (r->implausible[0]) fprintf(out, "    implausible: %s\n", r->implausible);
  if (r->kernel.nparams > 0) {
    fputs("    kernel parameters:", out);
    for (int i = 0; i < r->kernel.nparams; ++i) {
      const cg_kernel_param *k = &r->kernel.params[i];
      fprintf(out, "%s %s=%d", i ? "," : "", k->name, k->value);
      if (k->origin != CG_ORIGIN_DEFAULT) fprintf(out, " (%s)", cg_origin_name(k->origin));
    }
    fputs("\n", out);
  }
  if (r->kernel.path[0]) fprintf(out, "    path: %s\n", r->kernel.path);
  if (r->nsplit > 0) {
    double sum = 0;
    for (int i = 0; i < r->nsplit; ++i) sum += r->split[i].ms;
    fprintf(out, "    one iteration on the device, %.3g ms in %d commands (%.3g ms of wall time):",
            sum, r->nsplit, steady);
    for (int i = 0; i < r->nsplit; ++i)
      fprintf(out, "%s %s %.3g", i ? ";" : "", r->split[i].name, r->split[i].ms);
    fputs("\n", out);
  }
}

/* The ceilings of the run's probes, then every record held against its device's: the share of
 * the peak and the bandwidth, the bound, and the verdicts. */
static void print_bounds(const cg_report *report, FILE *out) {
  if (report->nprobes == 0) return;
  fputs("\nagainst the measured ceilings (clgauge probe):\n", out);
  for (int i = 0; i < report->nprobes; ++i) {
    const cg_probe *p = &report->probes[i];
    fprintf(out, "  ceilings of %s%s%s: FP32 %.4g GFLOP/s, bandwidth %.4g GB/s", p->device,
            p->host ? "" : ", driver ", p->host ? "" : p->driver, p->fp32_gflops,
            p->bandwidth_gbs);
    if (isfinite(p->launch_us)) fprintf(out, ", launch %.3g us", p->launch_us);
    fprintf(out, "%s\n", p->quick ? " (quick probe)" : "");
  }
  for (int i = 0; i < report->count; ++i) {
    const cg_record *r = &report->records[i];
    if (r->bound.probe < 0) continue;
    char name[80];
    fprintf(out, "  %s%s%s: %s", r->group[0] ? r->group : "", r->group[0] ? " " : "",
            record_name(r, name, sizeof name), r->bound.steady);
    if (isfinite(r->bound.peak_share) || isfinite(r->bound.bandwidth_share))
      fprintf(out, "; %.3g%% of the FP32 peak, %.3g%% of the bandwidth", 100 * r->bound.peak_share,
              100 * r->bound.bandwidth_share);
    if (r->bound.first[0]) fprintf(out, "; %s", r->bound.first);
    fputc('\n', out);
  }
}

/* Records whose loss curves share a block: the same workload and, in a sweep, the same size. */
static bool same_block(const cg_record *a, const cg_record *b) {
  return strcmp(a->workload, b->workload) == 0 && strcmp(a->group, b->group) == 0;
}

/* The loss curves of the training records side by side, one row per printed iteration. */
static void print_losses(const cg_report *report, FILE *out) {
  const cg_record *block = NULL;
  for (int i = 0; i < report->count; ++i) {
    const cg_record *r = &report->records[i];
    if (r->nlosses == 0 || (block && same_block(r, block))) continue;
    block = r; /* a new workload or sweep size starts a new block */
    if (r->group[0])
      fprintf(out, "\nloss of %s (%s)\n%10s", r->workload, r->group, r->loss_unit);
    else
      fprintf(out, "\nloss of %s\n%10s", r->workload, r->loss_unit);
    for (int j = i; j < report->count; ++j) {
      const cg_record *c = &report->records[j];
      char name[96];
      if (c->nlosses && same_block(c, r))
        fprintf(out, "  %18.18s", record_name(c, name, sizeof name));
    }
    fputc('\n', out);
    /* Every row any record of the block reached; a record whose runs a budget cut shows "-"
     * where its curve stops (a NaN there would read as a diverged loss). */
    int rows = 0;
    for (int j = i; j < report->count; ++j) {
      const cg_record *c = &report->records[j];
      if (c->nlosses > rows && same_block(c, r)) rows = c->nlosses;
    }
    for (int k = 0; k < rows; ++k) {
      fprintf(out, "%10d", k * r->loss_every);
      for (int j = i; j < report->count; ++j) {
        const cg_record *c = &report->records[j];
        if (!c->nlosses || !same_block(c, r)) continue;
        if (k < c->nlosses)
          fprintf(out, "  %18.9g", c->losses[k]);
        else
          fprintf(out, "  %18s", "-");
      }
      fputc('\n', out);
    }
  }
}

/* "8" for a swept size, "never" for 0. */
static const char *size_text(double size, char *buf, size_t n) {
  if (size > 0)
    snprintf(buf, n, "%g", size);
  else
    snprintf(buf, n, "never");
  return buf;
}

/* A sweep's crossovers: a table, one row per OpenCL backend on each device, and a sentence on
 * the earliest. */
static void print_crossovers(const cg_report *report, FILE *out) {
  if (!report->sweep_option[0]) return;
  const char *against = "the reference";
  for (int i = 0; i < report->count; ++i)
    if (report->records[i].reference) against = report->records[i].backend;
  fprintf(out, "\ncrossover (--%s): the size from which each OpenCL backend beats %s at every "
               "larger size\n",
          report->sweep_option, against);
  if (report->ncrossovers == 0) {
    fputs("  no OpenCL record of the sweep to compare\n", out);
    return;
  }
  int wname = (int)strlen("backend"), wdev = (int)strlen("device");
  char name[96], a[32], b[32];
  for (int i = 0; i < report->ncrossovers; ++i) {
    const cg_crossover *x = &report->crossovers[i];
    const int n = snprintf(name, sizeof name, "%s/%s%s%s", x->backend, x->variant,
                           x->mode[0] ? "/" : "", x->mode);
    if (n > wname) wname = n;
    if ((int)strlen(x->device) > wdev) wdev = (int)strlen(x->device);
  }
  fprintf(out, "  %-*s  %-*s  %12s  %24s\n", wname, "backend", wdev, "device", "steady alone",
          "with context, compile, IO");
  const cg_crossover *best = NULL;
  for (int i = 0; i < report->ncrossovers; ++i) {
    const cg_crossover *x = &report->crossovers[i];
    snprintf(name, sizeof name, "%s/%s%s%s", x->backend, x->variant, x->mode[0] ? "/" : "",
             x->mode);
    fprintf(out, "  %-*s  %-*s  %12s  %24s\n", wname, name, wdev, x->device,
            size_text(x->loop_size, a, sizeof a), size_text(x->total_size, b, sizeof b));
    if (x->total_size > 0 && (!best || !(best->total_size > 0) || x->total_size < best->total_size))
      best = x;
    else if (!(x->total_size > 0) && x->loop_size > 0 &&
             (!best || (!(best->total_size > 0) && x->loop_size < best->loop_size)))
      best = x;
  }
  if (!best) {
    fprintf(out, "No OpenCL backend beats %s at the largest sizes of this sweep.\n", against);
    return;
  }
  snprintf(name, sizeof name, "%s/%s%s%s", best->backend, best->variant, best->mode[0] ? "/" : "",
           best->mode);
  char loop[64], total[64];
  if (best->loop_size > 0)
    snprintf(loop, sizeof loop, "from %s on", size_text(best->loop_size, a, sizeof a));
  else
    snprintf(loop, sizeof loop, "at no swept size");
  if (best->total_size > 0)
    snprintf(total, sizeof total, "from %s on", size_text(best->total_size, b, sizeof b));
  else
    snprintf(total, sizeof total, "at no swept size");
  fprintf(out, "Earliest: %s on %s beats %s %s counting the steady runs alone, and %s counting "
               "context, compile and transfers too.\n",
          name, best->device, against, loop, total);
}

void cg_report_print_table(const cg_report *report, FILE *out) {
  multi_device = cg_report_multi_device(report);
  static const char *const head[COLS] = {
      "backend", "variant", "status", "init ms", "compile ms", "upload ms", "first ms",
      "steady ms/it", "GFLOP/s", "GB/s", "device ms/it", "enqueue ms/it", "download ms", "rel err",
      "of bound"};
  char(*cells)[COLS][CELL] = calloc((size_t)report->count + 1, sizeof *cells);
  if (!cells) return;
  int width[COLS];
  for (int c = 0; c < COLS; ++c) {
    snprintf(cells[0][c], CELL, "%s", head[c]);
    width[c] = (int)strlen(head[c]);
  }
  for (int i = 0; i < report->count; ++i) {
    record_cells(&report->records[i], cells[i + 1]);
    for (int c = 0; c < COLS; ++c) {
      int w = (int)strlen(cells[i + 1][c]);
      if (c == 7 && strstr(cells[i + 1][c], "±")) w -= 1; /* two bytes, one column */
      if (w > width[c]) width[c] = w;
    }
  }

  const cg_record *last_device = NULL;
  const char *last_workload = NULL;
  for (int i = 0; i < report->count; ++i) {
    const cg_record *r = &report->records[i];
    /* a table per workload and device: a new one where either changes */
    if (!last_workload || strcmp(last_workload, r->workload) != 0 ||
        (!r->host_backend &&
         (!last_device || strcmp(last_device->device, r->device) != 0 ||
          last_device->device_index != r->device_index ||
          strcmp(last_device->platform, r->platform) != 0))) {
      if (r->host_backend)
        fprintf(out, "\n%s on host (OpenBLAS)\n", r->workload);
      else if (r->device[0] && multi_device)
        fprintf(out, "\n%s on device %d, %s (%s, driver %s, %s)\n", r->workload, r->device_index,
                r->device, r->platform, r->driver, r->cl_version);
      else if (r->device[0])
        fprintf(out, "\n%s on %s (%s, driver %s)\n", r->workload, r->device, r->platform,
                r->driver);
      else if (r->platform[0])
        fprintf(out, "\n%s on platform %s: no device\n", r->workload, r->platform);
      else
        fprintf(out, "\n%s: no OpenCL device\n", r->workload);
      print_row(out, cells[0], width);
      last_workload = r->workload;
      if (!r->host_backend) last_device = r;
    }
    print_row(out, cells[i + 1], width);
  }

  bool any_note = false;
  for (int i = 0; i < report->count; ++i) {
    const cg_record *r = &report->records[i];
    const bool time_note = r->status == CG_STATUS_OK && r->device_time_why[0] && !r->host_backend;
    if (r->status == CG_STATUS_OK && !time_note && !r->compile_warning[0] && !r->budget_cut &&
        !r->implausible[0])
      continue;
    if (!any_note) fputs("\nnotes:\n", out);
    any_note = true;
    char name[96];
    record_name(r, name, sizeof name);
    if (r->status != CG_STATUS_OK)
      fprintf(out, "  %s: %s: %s\n", name, cg_status_name(r->status), r->reason);
    else if (time_note)
      fprintf(out, "  %s: device time n/a: %s\n", name, r->device_time_why);
    if (r->compile_warning[0]) fprintf(out, "  %s: warning: %s\n", name, r->compile_warning);
    if (r->budget_cut)
      fprintf(out, "  %s: %d of %d runs: the steady runs passed --budget-s %g\n", name, r->nruns,
              r->planned_runs, r->budget_s);
    if (r->implausible[0]) fprintf(out, "  %s: * implausible: %s\n", name, r->implausible);
  }

  print_losses(report, out);

  bool any_summary = false;
  for (int i = 0; i < report->count; ++i) {
    const cg_record *r = &report->records[i];
    if (r->status != CG_STATUS_OK || r->host_backend) continue;
    if (!any_summary) fputs("\nwhere the time goes:\n", out);
    any_summary = true;
    print_summary(report, r, out);
  }
  print_crossovers(report, out);
  print_bounds(report, out);
  free(cells);
}
