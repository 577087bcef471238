/* Private to the clgauge front end: the options every command shares, the session that runs jobs
 * into one report, and the commands. */
#ifndef CLGAUGE_FRONT_H
#define CLGAUGE_FRONT_H

#include <stdbool.h>
#include <stdint.h>

#include "clgauge/device.h"
#include "clgauge/engine.h"
#include "clgauge/kernel_config.h"
#include "clgauge/report.h"

enum { EXIT_USAGE = 2, EXIT_RECORD_ERROR = 3 };

/* Options every workload command takes. */
typedef struct common_opts {
  const char *device;
  const char *kernel_dir;
  const char *binary_cache;
  bool cold_compile;
  const char *json;
  const char *csv;
  char **backends;
  char **variants;
  uint64_t seed;
  bool quiet;
  cg_kernel_overrides overrides;
} common_opts;

extern const char common_help[];
extern const char exit_help[];

/* 1: argv[*i] was a common option (consumed), 0: it was not, -1: bad (reported). */
int parse_common(int argc, char **argv, int *i, common_opts *o);
void free_common(common_opts *o);
/* CLGAUGE_MLP_FUSED read as --kernel-param; EXIT_USAGE when malformed. */
int legacy_overrides(common_opts *o);
/* Every --kernel-param must name a parameter that a selected kernel of the jobs takes. */
int check_overrides(const common_opts *o, const cg_job *jobs, int njobs);

/* Validate every job, then run them all into one report: print it, write the files, and return
 * the exit status. */
int run_jobs(const cg_job *jobs, int njobs, common_opts *o, int argc, char **argv);

int cmd_list(int argc, char **argv);
int cmd_workload(const cg_workload *w, int argc, char **argv);
int cmd_suite(int argc, char **argv);
int cmd_compare(int argc, char **argv);

#endif
