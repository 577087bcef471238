/* Results as CSV: one line per record. */
#include "clgauge/report.h"
#include "report/write.h"

#include <math.h>
#include <stdio.h>

/* The parameters as one quoted field, "name=value;...", however many (names hold no quotes). */
static void csv_params(FILE *out, const cg_record *r) {
  fputs(",\"", out);
  for (int p = 0; p < r->nparams; ++p)
    fprintf(out, "%s%s=%.17g", p ? ";" : "", r->params[p].name, r->params[p].value);
  fputc('"', out);
}

static void put_csv(const cg_report *report, FILE *out, void *ctx) {
  fputs("workload,backend,variant,status,reason,device,driver_version,params,iters_per_run,"
        "init_ms,compile_ms,compile_kind,driver_cache,upload_ms,first_enqueue_ms,first_complete_ms,"
        "first_device_ms,steady_median_ms,steady_min_ms,steady_max_ms,steady_stddev_ms,"
        "steady_enqueue_median_ms,steady_device_median_ms,gflops,download_ms,rel_error,"
        "host_cpu_ms,host_wall_ms,launches_per_iter,fp32_share,bandwidth_share,bound_ms_per_iter,"
        "of_bound,bound,implausible\n",
        out);
  for (int i = 0; i < report->count; ++i) {
    const cg_record *r = &report->records[i];
    cg_csv_str(out, r->workload, true);
    cg_csv_str(out, r->backend, false);
    cg_csv_str(out, r->variant, false);
    cg_csv_str(out, cg_status_name(r->status), false);
    cg_csv_str(out, r->reason, false);
    cg_csv_str(out, r->device, false);
    cg_csv_str(out, r->driver, false);
    csv_params(out, r);
    fprintf(out, ",%d", r->iters_per_run);
    cg_csv_num(out, r->init_ms, 6);
    cg_csv_num(out, r->compile_ms, 6);
    cg_csv_str(out, r->compile_kind, false);
    cg_csv_str(out, r->driver_cache, false);
    double nums[] = {r->upload_ms,
                     r->first.enqueue_ms,
                     r->first.complete_ms,
                     r->first.device_ms,
                     r->steady_complete.median,
                     r->steady_complete.min,
                     r->steady_complete.max,
                     r->steady_complete.stddev,
                     r->steady_enqueue.median,
                     r->steady_device.median,
                     cg_gflops(r->flops_per_iter * r->iters_per_run, r->steady_complete.median),
                     r->download_ms,
                     r->verify_error,
                     r->host_cpu_ms,
                     r->host_wall_ms};
    for (size_t n = 0; n < sizeof nums / sizeof nums[0]; ++n) cg_csv_num(out, nums[n], 6);
    if (r->launches_per_iter >= 0)
      fprintf(out, ",%d", r->launches_per_iter);
    else
      fputc(',', out);
    /* against the probe of its device, where one ran (cg_bound: NAN and "" where not) */
    cg_csv_num(out, r->bound.peak_share, 6);
    cg_csv_num(out, r->bound.bandwidth_share, 6);
    cg_csv_num(out, r->bound.bound_ms, 6);
    cg_csv_num(out, r->bound.of_bound, 6);
    cg_csv_str(out, r->bound.steady, false);
    cg_csv_str(out, r->implausible, false);
    fputc('\n', out);
  }
}

cg_rc cg_report_write_csv(const cg_report *report, const char *path, cg_error *err) {
  return cg_report_write_whole(report, path, put_csv, NULL, err);
}

