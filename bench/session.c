/* A run of clgauge: the device selected, the jobs validated and run into one report, the
 * progress lines, the table, the results files and the exit status. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "front.h"
#include "clgauge/backend.h"
#include "clgauge/clock.h"
#include "clgauge/files.h"
#include "clgauge/program.h"

typedef struct session {
  cg_device_list list;
  const cg_device_info *device; /* NULL when no OpenCL device exists */
  cg_report report;
} session;

/* Enumerate and select the device. An explicit selector that matches nothing is an error; with
 * no selector and no device at all, the OpenCL records are marked skipped. A CLGAUGE_DEVICE that
 * matches nothing is only a warning when no selected backend needs a device: the environment
 * may be set for other runs. */
static int open_session(session *s, const common_opts *o, bool needs_device, int argc,
                        char **argv) {
  cg_error err = {0};
  memset(s, 0, sizeof *s);
  cg_report_init(&s->report, argc, argv);
  if (o->cold_compile) cg_driver_caches_disable(); /* before the drivers are loaded */
  if (cg_device_list_query(&s->list, &err) != CG_OK) {
    cli_error("%s", err.msg);
    return EXIT_FAILURE;
  }
  s->report.discovery_ms = s->list.query_ms;
  const char *sel = o->device;
  const bool from_env = !sel;
  if (from_env) sel = getenv("CLGAUGE_DEVICE");
  const char *source = from_env ? "CLGAUGE_DEVICE" : "--device";
  int index = -1;
  char why[sizeof err.msg + 64] = "";
  if (sel && *sel && s->list.count == 0)
    snprintf(why, sizeof why, "%s '%s': no OpenCL device found (%d platforms)", source, sel,
             s->list.platforms);
  else if (sel && *sel && cg_device_select(&s->list, sel, &index, &err) != CG_OK)
    snprintf(why, sizeof why, "%s%s", from_env ? "CLGAUGE_DEVICE: " : "", err.msg);
  if (why[0]) {
    if (!from_env || needs_device) {
      cli_error("%s", why);
      return EXIT_USAGE;
    }
    cli_error("%s; ignored, since no selected backend needs a device", why);
    sel = NULL;
  }
  if (s->list.count == 0) {
    if (!o->quiet && needs_device)
      fprintf(stderr, "clgauge: no OpenCL device found; OpenCL backends are skipped\n");
    return 0;
  }
  if (!(sel && *sel)) cg_device_select(&s->list, NULL, &index, &err);
  s->device = &s->list.items[index];
  return 0;
}

static void close_session(session *s) {
  cg_report_free(&s->report);
  cg_device_list_free(&s->list);
}

static int check_outputs(const common_opts *o) {
  cg_error err = {0};
  const char *paths[] = {o->json, o->csv};
  const char *opts[] = {"--json", "--csv"};
  for (int i = 0; i < 2; ++i)
    if (paths[i] && cg_report_check_path(paths[i], &err) != CG_OK) {
      cli_error("%s %s", opts[i], err.msg);
      return EXIT_USAGE;
    }
  if (o->binary_cache && cg_dir_ensure(o->binary_cache, &err) != CG_OK) {
    cli_error("--binary-cache %s", err.msg);
    return EXIT_USAGE;
  }
  return 0;
}

/* A line when a record starts, then one every few seconds while its runs go on. */
static void print_progress(void *ctx, int index, int total, const cg_record *rec) {
  static uint64_t started, last;
  const common_opts *o = ctx;
  if (o->quiet) return;
  uint64_t now = cg_now_ns();
  if (rec->nruns == 0) {
    started = last = now;
    fprintf(stderr, "[%d/%d] %s %s/%s%s%s on %s\n", index + 1, total, rec->workload, rec->backend,
            rec->variant, rec->mode[0] ? "/" : "", rec->mode,
            rec->device[0] ? rec->device : "no device");
  } else if (now - last > 5000000000u && rec->nruns < rec->planned_runs) {
    last = now;
    fprintf(stderr, "      run %d of %d done, %.0f s\n", rec->nruns, rec->planned_runs,
            (double)(now - started) / 1e9);
  }
}

static void print_header(const session *s) {
  if (s->device)
    printf("device %d (%d:%d): %s, %s, driver %s, %s\n", s->device->index,
           s->device->platform_index, s->device->device_index, s->device->name,
           s->device->platform, s->device->driver_version, s->device->version);
  else
    printf("device: none (no OpenCL device found)\n");
}

/* Print, write the files, and choose the exit status. */
static int finish_session(session *s, const common_opts *o) {
  int status = 0;
  cg_report_print_table(&s->report, stdout);
  cg_error err = {0};
  if (o->json) {
    if (cg_report_write_json(&s->report, o->json, &err) != CG_OK) {
      cli_error("--json: %s", err.msg);
      status = EXIT_FAILURE;
    } else if (!o->quiet) {
      fprintf(stderr, "wrote %s\n", o->json);
    }
  }
  if (o->csv) {
    if (cg_report_write_csv(&s->report, o->csv, &err) != CG_OK) {
      cli_error("--csv: %s", err.msg);
      status = EXIT_FAILURE;
    } else if (!o->quiet) {
      fprintf(stderr, "wrote %s\n", o->csv);
    }
  }
  for (int i = 0; i < s->report.count && status == 0; ++i)
    if (s->report.records[i].status == CG_STATUS_ERROR) status = EXIT_RECORD_ERROR;
  return status;
}

static void print_crossovers(const cg_report *report, const cg_workload *w) {
  cg_crossover x[16];
  const int n = cg_crossovers(report, w->name, x, 16);
  if (n == 0) return;
  printf("\ncrossover (%s): the size from which each OpenCL backend beats cpu\n",
         w->sweep->option);
  for (int i = 0; i < n; ++i) {
    char loop[32] = "never", total[32] = "never";
    if (x[i].loop_size) snprintf(loop, sizeof loop, "%g", x[i].loop_size);
    if (x[i].total_size) snprintf(total, sizeof total, "%g", x[i].total_size);
    printf("  %s/%s%s%s: counting the loop alone from %s; counting init, compile and upload too "
           "from %s\n",
           x[i].backend, x[i].variant, x[i].mode[0] ? "/" : "", x[i].mode, loop, total);
  }
}

/* Validate every job first (nothing runs on bad input), then run them all into one report. */
/* Whether a selected backend that needs an OpenCL device runs one of the jobs' workloads. */
static bool jobs_need_device(const cg_job *jobs, int njobs, const common_opts *o) {
  for (const cg_impl *const *i = cg_impl_all(); *i; ++i) {
    if (!(*i)->backend->needs_device ||
        !cg_backend_selected((const char *const *)o->backends, (*i)->backend))
      continue;
    for (int j = 0; j < njobs; ++j)
      if (strcmp((*i)->workload, jobs[j].workload->name) == 0) return true;
  }
  return false;
}

int run_jobs(const cg_job *jobs, int njobs, common_opts *o, int argc, char **argv) {
  session s;
  int status = open_session(&s, o, jobs_need_device(jobs, njobs, o), argc, argv);
  const char *scope[16];
  int nscope = 0;
  for (int j = 0; j < njobs && nscope < 15; ++j) {
    bool seen = false;
    for (int k = 0; k < nscope; ++k) seen |= strcmp(scope[k], jobs[j].workload->name) == 0;
    if (!seen) scope[nscope++] = jobs[j].workload->name;
  }
  scope[nscope] = NULL;
  const cg_selection sel = {(const char *const *)o->backends, (const char *const *)o->variants,
                            o->seed, o->kernel_dir, o->binary_cache, &o->overrides, scope};
  cg_error err = {0};
  if (status == 0) status = legacy_overrides(o);
  if (status == 0) status = check_overrides(o, jobs, njobs);
  for (int j = 0; j < njobs && status == 0; ++j)
    if (cg_engine_validate(&jobs[j], &sel, s.device, &err) != CG_OK) {
      cli_error("%s", err.msg);
      status = EXIT_USAGE;
    }
  if (status == 0) status = check_outputs(o);
  if (status == 0) {
    print_header(&s);
    fflush(stdout);
    for (int j = 0; j < njobs && status == 0; ++j)
      if (cg_engine_run(&jobs[j], &sel, s.device, &s.report, print_progress, o, &err) != CG_OK) {
        cli_error("%s", err.msg);
        status = EXIT_FAILURE;
      }
    if (status == 0) {
      status = finish_session(&s, o);
      if (njobs > 1 && jobs[0].group[0]) print_crossovers(&s.report, jobs[0].workload);
    }
  }
  close_session(&s);
  return status;
}
