/* A run of clgauge: the device selected, the jobs validated and run into one report, the
 * progress lines, the table, the results files and the exit status. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "front.h"
#include "clgauge/backend.h"
#include "clgauge/clock.h"
#include "clgauge/early.h"
#include "clgauge/files.h"
#include "clgauge/probe_io.h"
#include "clgauge/program.h"

typedef struct session {
  cg_device_list list;
  /* the devices the run targets, in order: one without info when no OpenCL device exists, and
   * under --device all one per platform that lists no device */
  cg_target *targets;
  int ntargets;
  cg_report report;
  const common_opts *o;
} session;

/* The targets of the selector: the devices at indices, then (for "all") the platforms that list
 * no device, or a target without a device when there is none at all. */
static int set_targets(session *s, const int *indices, int count, bool all) {
  const int n = count + (all ? s->list.nempty : 0);
  s->targets = calloc((size_t)(n > 0 ? n : 1), sizeof *s->targets);
  if (!s->targets) {
    cli_error("out of memory");
    return EXIT_FAILURE;
  }
  for (int i = 0; i < count; ++i)
    s->targets[s->ntargets++] = (cg_target){&s->list.items[indices[i]], NULL};
  for (int i = 0; all && i < s->list.nempty; ++i)
    s->targets[s->ntargets++] = (cg_target){NULL, s->list.empty_platforms[i]};
  if (s->ntargets == 0) s->targets[s->ntargets++] = (cg_target){NULL, NULL};
  for (int i = 0; i < s->ntargets; ++i) {
    const cg_target *t = &s->targets[i];
    if (!(t->info ? cg_report_add_device(&s->report, t->info)
                  : !t->platform || cg_report_add_empty_platform(&s->report, t->platform))) {
      cli_error("out of memory");
      return EXIT_FAILURE;
    }
  }
  return 0;
}

/* The selector of the run's devices: --device, else CLGAUGE_DEVICE, else NULL (the default). */
static const char *device_selector(const common_opts *o) {
  return o->device ? o->device : getenv("CLGAUGE_DEVICE");
}

/* Start discovery, and the opening of the device the run will use, on a thread of their own
 * (early.h), once the environment the drivers read is set: the context is made while the
 * inputs and the reference are. */
static void start_devices(const common_opts *o, bool needs_device) {
  driver_caches_fallback();
  if (o->cold_compile) cg_driver_caches_disable();
  cg_early_start(device_selector(o), needs_device);
}

/* Enumerate and select the devices. An explicit selector that matches nothing (or a list item
 * that does) is an error; with no selector and no device at all, the OpenCL records are marked
 * skipped, and so are they under "all" with no device. A CLGAUGE_DEVICE that matches nothing is
 * only a warning when no selected backend needs a device: the environment may be set for other
 * runs. */
static int open_session(session *s, const common_opts *o, bool needs_device, int argc,
                        char **argv) {
  cg_error err = {0};
  memset(s, 0, sizeof *s);
  s->o = o;
  cg_report_init(&s->report, argc, argv);
  const char *sel = device_selector(o);
  const bool from_env = !o->device;
  if (cg_early_list(&s->list, &s->report.discovery_overlap_ms, &err) != CG_OK) {
    cli_error("%s", err.msg);
    return EXIT_FAILURE;
  }
  s->report.discovery_ms = s->list.query_ms;
  const char *source = from_env ? "CLGAUGE_DEVICE" : "--device";
  const bool all = sel && strcasecmp(sel, "all") == 0;
  const bool many = cg_device_selector_is_list(sel);
  int index = -1, count = 0;
  int *indices = calloc((size_t)(s->list.count > 0 ? s->list.count : 1), sizeof *indices);
  if (!indices) {
    cli_error("out of memory");
    return EXIT_FAILURE;
  }
  char why[sizeof err.msg + 64] = "";
  if (sel && *sel && s->list.count == 0 && !all)
    snprintf(why, sizeof why, "%s '%s': no OpenCL device found (%d platforms)", source, sel,
             s->list.platforms);
  else if (many && s->list.count > 0 &&
           cg_device_select_many(&s->list, sel, indices, &count, &err) != CG_OK)
    snprintf(why, sizeof why, "%s '%s': %s", source, sel, err.msg);
  else if (!many && sel && *sel && cg_device_select(&s->list, sel, &index, &err) != CG_OK)
    snprintf(why, sizeof why, "%s%s", from_env ? "CLGAUGE_DEVICE: " : "", err.msg);
  int status = 0;
  if (why[0]) {
    if (!from_env || needs_device) {
      cli_error("%s", why);
      status = EXIT_USAGE;
    } else {
      cli_error("%s; ignored, since no selected backend needs a device", why);
      sel = NULL;
    }
  }
  if (status == 0 && s->list.count == 0) {
    if (!o->quiet && needs_device)
      fprintf(stderr, "clgauge: no OpenCL device found; OpenCL backends are skipped\n");
    status = set_targets(s, indices, 0, all && sel);
  } else if (status == 0 && sel && *sel && many) {
    status = set_targets(s, indices, count, all);
  } else if (status == 0) {
    if (!(sel && *sel)) cg_device_select(&s->list, NULL, &index, &err);
    status = set_targets(s, &index, 1, false);
  }
  free(indices);
  return status;
}

static void close_session(session *s) {
  cg_early_end();
  free(s->targets);
  cg_report_free(&s->report);
  cg_device_list_free(&s->list);
}

/* The directory entry a results file is written to: its links followed, the directory as a
 * file (device and inode) and the name in it. A file is replaced by a rename of that entry, so
 * two paths write the same file exactly when their entries are the same. */
typedef struct results_entry {
  dev_t dev;
  ino_t ino;
  char name[4096];
} results_entry;

static bool results_entry_of(const char *path, results_entry *e) {
  char target[4096], dir[4096];
  cg_error err = {0};
  if (cg_file_target(path, target, sizeof target, &err) != CG_OK) return false;
  const char *slash = strrchr(target, '/');
  snprintf(e->name, sizeof e->name, "%s", slash ? slash + 1 : target);
  if (!slash)
    snprintf(dir, sizeof dir, ".");
  else
    snprintf(dir, sizeof dir, "%.*s", slash == target ? 1 : (int)(slash - target), target);
  struct stat st;
  if (stat(dir, &st) != 0) return false;
  e->dev = st.st_dev;
  e->ino = st.st_ino;
  return true;
}

static bool same_results_file(const char *a, const char *b) {
  results_entry x, y;
  return strcmp(a, b) == 0 || (results_entry_of(a, &x) && results_entry_of(b, &y) &&
                               x.dev == y.dev && x.ino == y.ino && strcmp(x.name, y.name) == 0);
}

/* --kernel-dir: an existing, readable directory with the kernel source of every workload of
 * the jobs that has one embedded (cl/<workload>.cl), so that a wrong directory stops the run
 * before it starts instead of failing each OpenCL record. */
static int check_kernel_dir(const char *dir, const cg_job *jobs, int njobs) {
  struct stat st;
  if (stat(dir, &st) != 0) {
    cli_error("--kernel-dir '%s': %s", dir, strerror(errno));
    return EXIT_USAGE;
  }
  if (!S_ISDIR(st.st_mode)) {
    cli_error("--kernel-dir '%s' is not a directory", dir);
    return EXIT_USAGE;
  }
  if (access(dir, R_OK | X_OK) != 0) {
    cli_error("--kernel-dir '%s': cannot read the directory: %s", dir, strerror(errno));
    return EXIT_USAGE;
  }
  for (int j = 0; j < njobs; ++j) {
    char name[64], path[4200];
    snprintf(name, sizeof name, "%s.cl", jobs[j].workload->name);
    if (!cg_embedded_kernel_find(name)) continue;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) || access(path, R_OK) != 0) {
      cli_error("--kernel-dir '%s': no readable %s there (the kernels of %s)", dir, name,
                jobs[j].workload->name);
      return EXIT_USAGE;
    }
  }
  return 0;
}

static int check_outputs(const common_opts *o, const cg_job *jobs, int njobs) {
  cg_error err = {0};
  const char *paths[] = {o->json, o->csv};
  const char *opts[] = {"--json", "--csv"};
  for (int i = 0; i < 2; ++i)
    if (paths[i] && cg_report_check_path(paths[i], &err) != CG_OK) {
      cli_error("%s %s", opts[i], err.msg);
      return EXIT_USAGE;
    }
  if (o->json && o->csv && same_results_file(o->json, o->csv)) {
    cli_error("--json '%s' and --csv '%s' are the same file: one would overwrite the other",
              o->json, o->csv);
    return EXIT_USAGE;
  }
  if (o->kernel_dir) {
    const int status = check_kernel_dir(o->kernel_dir, jobs, njobs);
    if (status) return status;
  }
  if (o->binary_cache && cg_dir_ensure(o->binary_cache, &err) != CG_OK) {
    cli_error("--binary-cache %s", err.msg);
    return EXIT_USAGE;
  }
  return 0;
}

/* When a record starts, the results files are brought up to date (guard.c) and a line says
 * which record it is; then a line every few seconds while its runs go on. */
static void on_progress(void *ctx, int index, int total, const cg_record *rec) {
  static uint64_t started, last;
  const session *s = ctx;
  const common_opts *o = s->o;
  if (rec->nruns == 0) {
    /* the host's timed runs start with the device's opening finished, not beside it */
    if (rec->host_backend) cg_early_wait();
    guard_record_started(&s->report); /* before the line: see guard.c */
    coldstart_child_record_start();
  }
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
  for (int i = 0; i < s->ntargets; ++i) {
    const cg_device_info *d = s->targets[i].info;
    if (d)
      printf("device %d (%d:%d): %s, %s, driver %s, %s\n", d->index, d->platform_index,
             d->device_index, d->name, d->platform, d->driver_version, d->version);
    else if (s->targets[i].platform)
      printf("platform %s: lists no device (its records are skipped)\n", s->targets[i].platform);
    else
      printf("device: none (no OpenCL device found)\n");
  }
}

/* Write the files, print, and choose the exit status. The files first: a reader that stops
 * early (a pager quit, `| head`) must not cost a finished benchmark its results. */
static int finish_session(session *s, const common_opts *o) {
  int status = guard_write_results(&s->report, o);
  cg_report_print_table(&s->report, stdout);
  for (int i = 0; i < s->report.count && status == 0; ++i)
    if (s->report.records[i].status == CG_STATUS_ERROR) status = EXIT_RECORD_ERROR;
  /* Nothing that was asked for ran (only OpenCL backends and no usable device, say): a status
   * of its own, so that a script does not take an empty run for a good one. */
  bool ran = false;
  const char *why = "";
  for (int i = 0; i < s->report.count; ++i) {
    const cg_record *r = &s->report.records[i];
    ran |= r->status == CG_STATUS_OK || r->status == CG_STATUS_ERROR;
    if (!why[0]) why = r->reason;
  }
  if (status == 0 && !ran) {
    cli_error("nothing that was asked for ran: every record was skipped or unsupported%s%s%s",
              why[0] ? " (" : "", why, why[0] ? ")" : "");
    status = EXIT_NOTHING_RAN;
  }
  return status;
}

/* A sweep's crossovers into the report, for the table and the JSON. */
static int keep_crossovers(cg_report *report, const cg_job *job) {
  /* at most one per record */
  cg_crossover *x = malloc((size_t)(report->count > 0 ? report->count : 1) * sizeof *x);
  const int n = x ? cg_crossovers(report, job->workload->name, x, report->count) : 0;
  const bool ok = x && cg_report_set_crossovers(report, job->sweep->option, x, n);
  free(x);
  if (!ok) cli_error("out of memory");
  return ok ? 0 : EXIT_FAILURE;
}

/* Validate every job first (nothing runs on bad input), then run them all into one report. */
/* Every name that a record of the jobs can carry fits the record's fields (a descriptor or a
 * backend with a longer one is refused here, naming the limit, rather than cut short). */
static int check_names(const cg_job *jobs, int njobs) {
  cg_error err = {0};
  for (int j = 0; j < njobs; ++j) {
    const cg_workload *w = jobs[j].workload;
    const char *label = jobs[j].sweep ? jobs[j].sweep->label : NULL;
    for (const cg_impl *const *i = cg_impl_all(); *i; ++i) {
      if (strcmp((*i)->workload, w->name) != 0) continue;
      for (int v = 0; (*i)->variants[v]; ++v) {
        cg_rc rc = cg_record_check_names(w->name, (*i)->backend->name, (*i)->variants[v],
                                         w->modes ? w->modes->host_mode : NULL, label, &err);
        for (int m = 0; rc == CG_OK && w->modes && w->modes->names[m]; ++m)
          rc = cg_record_check_names(w->name, (*i)->backend->name, (*i)->variants[v],
                                     w->modes->names[m], label, &err);
        if (rc != CG_OK) {
          cli_error("%s", err.msg);
          return EXIT_FAILURE;
        }
      }
    }
  }
  return 0;
}

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

/* Whether a selected backend that runs on the host runs one of the jobs' workloads. */
static bool jobs_need_host(const cg_job *jobs, int njobs, const common_opts *o) {
  for (const cg_impl *const *i = cg_impl_all(); *i; ++i) {
    if ((*i)->backend->needs_device ||
        !cg_backend_selected((const char *const *)o->backends, (*i)->backend))
      continue;
    for (int j = 0; j < njobs; ++j)
      if (strcmp((*i)->workload, jobs[j].workload->name) == 0) return true;
  }
  return false;
}

/* The ceilings the records are held against: read from --probe-file (bad input when it cannot
 * be), then measured (--probe, the suite's default) for each device of the run and the host
 * where the file had none of them. */
static int take_probes(session *s, const cg_job *jobs, int njobs, const common_opts *o) {
  cg_error err = {0};
  if (o->probe_file && cg_probes_read(o->probe_file, &s->report, &err) != CG_OK) {
    cli_error("--probe-file %s", err.msg);
    return EXIT_USAGE;
  }
  if (!o->probe || o->no_probe) return 0;
  int status = 0;
  cg_probe_options po;
  cg_probe_options_default(&po, o->probe_quick);
  if (jobs_need_device(jobs, njobs, o))
    for (int t = 0; t < s->ntargets; ++t)
      if (s->targets[t].info) {
        const int st = gather_probes(&s->report, s->targets[t].info, false, &po, o->quiet);
        if (st && !status) status = st;
      }
  if (jobs_need_host(jobs, njobs, o)) {
    const int st = gather_probes(&s->report, NULL, true, &po, o->quiet);
    if (st && !status) status = st;
  }
  return status;
}

int run_jobs(cg_job *jobs, int njobs, common_opts *o, int argc, char **argv) {
  session s;
  /* the binary cache's default place from the environment as given, before the fallback of
   * the drivers' caches may change XDG_CACHE_HOME */
  const int cache_status = binary_cache_resolve(o);
  const bool needs_device = jobs_need_device(jobs, njobs, o);
  start_devices(o, needs_device);
  int status = open_session(&s, o, needs_device, argc, argv);
  if (status == 0) status = cache_status;
  const char **scope = calloc((size_t)njobs + 1, sizeof *scope);
  int nscope = 0;
  for (int j = 0; j < njobs && scope; ++j) {
    bool seen = false;
    for (int k = 0; k < nscope; ++k) seen |= strcmp(scope[k], jobs[j].workload->name) == 0;
    if (!seen) scope[nscope++] = jobs[j].workload->name;
  }
  if (!scope && status == 0) {
    cli_error("out of memory");
    status = EXIT_FAILURE;
  }
  if (status == 0) status = check_names(jobs, njobs);
  for (int j = 0; j < njobs; ++j) jobs[j].budget_s = o->budget_s;
  cg_tuning tuning = {0};
  if (status == 0) status = tuning_for_run(o, &tuning);
  const cg_selection sel = {.backends = (const char *const *)o->backends,
                            .variants = (const char *const *)o->variants,
                            .seed = o->seed,
                            .kernel_dir = o->kernel_dir,
                            .binary_cache = o->binary_cache,
                            .overrides = &o->overrides,
                            .tuning = &tuning,
                            .scope = scope};
  cg_error err = {0};
  if (status == 0) status = legacy_overrides(o);
  if (status == 0) status = check_overrides(o, jobs, njobs);
  /* the sizes against every device the run targets */
  for (int j = 0; j < njobs && status == 0; ++j)
    for (int t = 0; t < s.ntargets && status == 0; ++t)
      if (cg_engine_validate(&jobs[j], &sel, s.targets[t].info, &err) != CG_OK) {
        cli_error("%s%s%s", err.msg, s.ntargets > 1 && s.targets[t].info ? " on device " : "",
                  s.ntargets > 1 && s.targets[t].info ? s.targets[t].info->name : "");
        status = EXIT_USAGE;
      }
  if (status == 0) status = check_outputs(o, jobs, njobs);
  /* a probe that failed leaves the records without a bound; the run goes on */
  if (status == 0 && take_probes(&s, jobs, njobs, o) == EXIT_USAGE) status = EXIT_USAGE;
  if (status == 0) {
    guard_start(o, cli_command());
    print_header(&s);
    fflush(stdout);
    for (int j = 0; j < njobs && status == 0; ++j) {
      const int first = s.report.count;
      coldstart_child_job_start();
      if (cg_engine_run_targets(&jobs[j], &sel, s.targets, s.ntargets, &s.report, on_progress, &s,
                                &err) != CG_OK) {
        cli_error("%s", err.msg);
        status = EXIT_FAILURE;
      }
      coldstart_child_job_done(&s.report, first);
      guard_job_done(&s.report); /* the record watchdog rests between jobs */
    }
    if (status == 0 && jobs[0].sweep) status = keep_crossovers(&s.report, &jobs[0]);
    if (status == 0) {
      cg_report_assess(&s.report);
      status = finish_session(&s, o);
    }
    guard_end();
  }
  close_session(&s);
  cg_tuning_free(&tuning);
  free(scope);
  return status;
}
