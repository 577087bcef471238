/* Private to the clgauge front end: the options every command shares, the session that runs jobs
 * into one report, and the commands. */
#ifndef CLGAUGE_FRONT_H
#define CLGAUGE_FRONT_H

#include <stdbool.h>
#include <stdint.h>

#include "clgauge/device.h"
#include "clgauge/engine.h"
#include "clgauge/kernel_config.h"
#include "clgauge/probe.h"
#include "clgauge/report.h"
#include "clgauge/tuning.h"

/* 1 (EXIT_FAILURE): anything else, such as a results file or stdout that cannot be written. */
enum { EXIT_USAGE = 2, EXIT_RECORD_ERROR = 3, EXIT_NOTHING_RAN = 4, EXIT_RECORD_TIMEOUT = 5 };

/* Options every workload command takes. */
typedef struct common_opts {
  const char *device;
  const char *kernel_dir;
  const char *binary_cache; /* --binary-cache DIR, or the default place once resolved */
  bool no_binary_cache;
  bool cold_compile;
  const char *json;
  const char *csv;
  char **backends;
  char **variants;
  uint64_t seed;
  bool quiet;
  double record_timeout; /* seconds; 0: no watchdog deadline */
  double budget_s;       /* time budget of each record's steady runs, seconds; 0: none */
  bool probe;            /* --probe or --probe-quick: probe the device and the host first */
  bool probe_quick;
  bool no_probe;         /* --no-probe: the suite's default probe left out */
  const char *probe_file; /* --probe-file: the ceilings from a results file's probes */
  cg_kernel_overrides overrides;
  const char *tuning_file; /* NULL: the default place (tuning_default_path) */
  bool no_tuned;           /* run the defaults, never a tuning file's settings */
} common_opts;

/* The default --budget-s: long enough that no record of the default suite on a fast GPU and its
 * host is cut (the longest there, mlp on the host CPU, has ~6 s of steady runs), short enough
 * that the suite on a CPU driver ends in minutes rather than the reports' full counts. */
#define DEFAULT_BUDGET_S 7
#define COMMON_OPTS_INIT {.seed = 42, .budget_s = DEFAULT_BUDGET_S}

extern const char common_help[];
extern const char exit_help[];

/* 1: argv[*i] was a common option (consumed), 0: it was not, -1: bad (reported). */
int parse_common(int argc, char **argv, int *i, common_opts *o);
void free_common(common_opts *o);
/* CLGAUGE_MLP_FUSED read as --kernel-param; EXIT_USAGE when malformed. */
int legacy_overrides(common_opts *o);
/* Before the first OpenCL call: when the drivers' default cache directory (under
 * $XDG_CACHE_HOME, else $HOME) cannot be made or written, point them at a directory of this
 * user's under $TMPDIR and say so on stderr (PoCL lists no device without its cache). */
void driver_caches_fallback(void);
/* Where the run keeps its programs: --binary-cache DIR as given, none with --no-binary-cache
 * or --cold-compile, else the default place when it can be written there (otherwise one
 * warning on stderr, and none). Before driver_caches_fallback, which may move XDG_CACHE_HOME.
 * EXIT_USAGE for contradicting options. (cmd_cache.c) */
int binary_cache_resolve(common_opts *o);
/* Every --kernel-param must name a parameter that a selected kernel of the jobs takes. */
int check_overrides(const common_opts *o, const cg_job *jobs, int njobs);

/* Validate every job (each given the --budget-s), then run them all into one report: print it,
 * write the files, and return the exit status. */
int run_jobs(cg_job *jobs, int njobs, common_opts *o, int argc, char **argv);

/* The results files kept current during a run, and the run stopped cleanly by SIGINT, SIGTERM,
 * SIGHUP or --record-timeout (guard.c, which says how). Between guard_start and guard_end: at
 * each record's start (the record just added to the report) guard_record_started, after each
 * job guard_job_done, and the final files through guard_write_results (0 or EXIT_FAILURE). */
void guard_start(const common_opts *o, const char *command_name);
void guard_record_started(const cg_report *report);
void guard_job_done(const cg_report *report);
int guard_write_results(const cg_report *report, const common_opts *o);
void guard_end(void);

/* The tuning file of a run: --tuning-file, else $XDG_CACHE_HOME/clgauge/tuning.json, else
 * ~/.cache/clgauge/tuning.json; false when there is none (no usable HOME). */
bool tuning_path(const common_opts *o, char *path, size_t size);
/* The settings a run applies (empty with --no-tuned or no file). An explicit --tuning-file that
 * cannot be read is a usage error (EXIT_USAGE, reported); a default file that cannot is a
 * warning, and the run goes on without it. */
int tuning_for_run(const common_opts *o, cg_tuning *t);

int cmd_list(int argc, char **argv);
int cmd_workload(const cg_workload *w, int argc, char **argv);
int cmd_suite(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_cache(int argc, char **argv);
int cmd_coldstart(int argc, char **argv);

/* The child side of `clgauge coldstart` (cmd_coldstart.c): inactive unless the parent set
 * CLGAUGE_COLDSTART_FD. At the start of main; before and after each job's run (the job's
 * records from index `first`); when a record starts. */
void coldstart_child_begin(void);
void coldstart_child_job_start(void);
void coldstart_child_job_done(const cg_report *report, int first);
void coldstart_child_record_start(void);
int cmd_tune(int argc, char **argv);
int cmd_probe(int argc, char **argv);

/* Probe the device (when given) and the host (when asked) into the report, each unless the
 * report already holds a probe of it; progress on stderr unless quiet. 0, EXIT_RECORD_ERROR
 * when a probe failed (reported), or EXIT_FAILURE. */
int gather_probes(cg_report *report, const cg_device_info *device, bool host,
                  const cg_probe_options *po, bool quiet);

#endif
