/* clgauge: the command-line front end. Its commands, options and --help come from the workload
 * descriptors; it selects the device, runs the jobs through the engine, prints the report and
 * writes results files. The only place that prints for people or exits. */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "front.h"
#include "clgauge/workload.h"

static void main_help(void) {
  printf("usage: clgauge COMMAND [options]\n\n"
         "Why is my GPU slower than my CPU, and when is it not? clgauge runs small workloads on\n"
         "an OpenCL device (hand-written kernels and CLBlast) next to an OpenBLAS CPU reference,\n"
         "and splits every run into phases: context, compile, upload, first run, steady runs,\n"
         "download, verification.\n\n"
         "commands:\n"
         "  %-9s every OpenCL platform and device, with the indexes --device takes\n", "list");
  for (const cg_workload *const *w = cg_workload_all(); *w; ++w)
    printf("  %-9s %s\n", (*w)->name, (*w)->summary);
  printf("  %-9s results files (or the devices of one) side by side, with ratios\n", "compare");
  printf("  %-9s the binary cache of built programs: list or clear its entries\n", "cache");
  printf("  %-9s process start to the first verified result, per cache state\n", "coldstart");
  printf("  %-9s the device's own ceilings (and the host's): FP32, bandwidth, transfers, launches\n",
         "probe");
  printf("  %-9s search the hand-written kernels' parameters for this device\n", "tune");
  printf("  %-9s the default suite: every workload with its defaults\n\n"
         "'clgauge COMMAND --help' describes each. --version prints the version.\n",
         "suite");
}

static int dispatch(int argc, char **argv) {
  if (argc < 2) {
    main_help();
    return EXIT_USAGE;
  }
  const char *cmd = argv[1];
  if (cli_flag(cmd, "--help") || cli_flag(cmd, "-h") || cli_flag(cmd, "help")) {
    main_help();
    return 0;
  }
  if (cli_flag(cmd, "--version")) {
    printf("clgauge %s\n", CLGAUGE_VERSION);
    return 0;
  }
  if (strcmp(cmd, "list") == 0) return cmd_list(argc - 1, argv + 1);
  if (strcmp(cmd, "suite") == 0) return cmd_suite(argc - 1, argv + 1);
  if (strcmp(cmd, "compare") == 0) return cmd_compare(argc - 1, argv + 1);
  if (strcmp(cmd, "cache") == 0) return cmd_cache(argc - 1, argv + 1);
  if (strcmp(cmd, "coldstart") == 0) return cmd_coldstart(argc - 1, argv + 1);
  if (strcmp(cmd, "probe") == 0) return cmd_probe(argc - 1, argv + 1);
  if (strcmp(cmd, "tune") == 0) return cmd_tune(argc - 1, argv + 1);
  const cg_workload *w = cg_workload_find(cmd);
  if (w) return cmd_workload(w, argc - 1, argv + 1);
  size_t size = sizeof "list";
  for (const cg_workload *const *k = cg_workload_all(); *k; ++k) size += strlen((*k)->name) + 2;
  char *names = malloc(size);
  if (names) {
    snprintf(names, size, "list");
    for (const cg_workload *const *k = cg_workload_all(); *k; ++k)
      snprintf(names + strlen(names), size - strlen(names), ", %s", (*k)->name);
  }
  cli_error("unknown command '%s' (commands: %s, suite, compare, cache, coldstart, probe, "
            "tune; see 'clgauge --help')",
            cmd,
            names ? names : "list");
  free(names);
  return EXIT_USAGE;
}

/* Output that did not reach stdout (a full disk, a closed pipe) is an error of its own: exit
 * status 1 unless the run already failed otherwise. */
static int check_stdout(int status) {
  errno = 0;
  const bool flushed = fflush(stdout) == 0;
  if (flushed && !ferror(stdout)) return status;
  cli_error("cannot write to standard output: %s", errno ? strerror(errno) : "write error");
  return status ? status : EXIT_FAILURE;
}

int main(int argc, char **argv) {
  coldstart_child_begin(); /* first: its clock reading is the child's start */
  /* A closed pipe shows as EPIPE on a write, checked at the end, instead of killing the process
   * before it has written its results files. */
  signal(SIGPIPE, SIG_IGN);
  return check_stdout(dispatch(argc, argv));
}
