/* A run of clgauge: the device selected, the jobs validated and run into one report, the
 * progress lines, the table, the results files and the exit status. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "front.h"
#include "clgauge/backend.h"
#include "clgauge/clock.h"
#include "clgauge/files.h"
#include "clgauge/probe_io.h"
#include "clgauge/program.h"

typedef struct session {
  cg_device_list list;
  const cg_device_info *device; /* NULL when no OpenCL device exists */
  cg_report report;
  const common_opts *o;
} session;

/* Enumerate and select the device. An explicit selector that matches nothing is an error; with
 * no selector and no device at all, the OpenCL records are marked skipped. A CLGAUGE_DEVICE that
 * matches nothing is only a warning when no selected backend needs a device: the environment
 * may be set for other runs. */
static int open_session(session *s, const common_opts *o, bool needs_device, int argc,
                        char **argv) {
  cg_error err = {0};
  memset(s, 0, sizeof *s);
  s->o = o;
  cg_report_init(&s->report, argc, argv);
  /* before the drivers are loaded */
  driver_caches_fallback();
  if (o->cold_compile) cg_driver_caches_disable();
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
  if (s->device)
    printf("device %d (%d:%d): %s, %s, driver %s, %s\n", s->device->index,
           s->device->platform_index, s->device->device_index, s->device->name,
           s->device->platform, s->device->driver_version, s->device->version);
  else
    printf("device: none (no OpenCL device found)\n");
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

/* A crossover names a record's backend, variant and mode in fields as long as the record's. */
_Static_assert(sizeof ((cg_crossover *)0)->backend >= sizeof ((cg_record *)0)->backend &&
                   sizeof ((cg_crossover *)0)->variant >= sizeof ((cg_record *)0)->variant &&
                   sizeof ((cg_crossover *)0)->mode >= sizeof ((cg_record *)0)->mode,
               "cg_crossover holds a record's names");

static void print_crossovers(const cg_report *report, const cg_workload *w) {
  /* at most one per record */
  cg_crossover *x = malloc((size_t)(report->count > 0 ? report->count : 1) * sizeof *x);
  const int n = x ? cg_crossovers(report, w->name, x, report->count) : 0;
  if (n == 0) {
    free(x);
    return;
  }
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
  free(x);
}

/* Validate every job first (nothing runs on bad input), then run them all into one report. */
/* Every name that a record of the jobs can carry fits the record's fields (a descriptor or a
 * backend with a longer one is refused here, naming the limit, rather than cut short). */
static int check_names(const cg_job *jobs, int njobs) {
  cg_error err = {0};
  for (int j = 0; j < njobs; ++j) {
    const cg_workload *w = jobs[j].workload;
    const char *label = w->sweep ? w->sweep->label : NULL;
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
 * be), then measured (--probe, the suite's default) for the device and the host where the
 * file had none of them. */
static int take_probes(session *s, const cg_job *jobs, int njobs, const common_opts *o) {
  cg_error err = {0};
  if (o->probe_file && cg_probes_read(o->probe_file, &s->report, &err) != CG_OK) {
    cli_error("--probe-file %s", err.msg);
    return EXIT_USAGE;
  }
  if (!o->probe || o->no_probe) return 0;
  const bool device = s->device && jobs_need_device(jobs, njobs, o);
  return gather_probes(&s->report, device ? s->device : NULL, jobs_need_host(jobs, njobs, o),
                       o->probe_quick, o->quiet);
}

int run_jobs(const cg_job *jobs, int njobs, common_opts *o, int argc, char **argv) {
  session s;
  const int cache_status = binary_cache_resolve(o);
  int status = open_session(&s, o, jobs_need_device(jobs, njobs, o), argc, argv);
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
      if (cg_engine_run(&jobs[j], &sel, s.device, &s.report, on_progress, &s, &err) != CG_OK) {
        cli_error("%s", err.msg);
        status = EXIT_FAILURE;
      }
      coldstart_child_job_done(&s.report, first);
      guard_job_done(&s.report); /* the record watchdog rests between jobs */
    }
    if (status == 0) {
      cg_report_assess(&s.report);
      status = finish_session(&s, o);
      if (njobs > 1 && jobs[0].group[0]) print_crossovers(&s.report, jobs[0].workload);
    }
    guard_end();
  }
  close_session(&s);
  free(scope);
  return status;
}
