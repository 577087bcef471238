/* clgauge: the command-line front end. Its commands, options and --help come from the workload
 * descriptors; it selects the device, runs the jobs through the engine, prints the report and
 * writes results files. The only place that prints for people or exits. */
#include <stdio.h>
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
  printf("  %-9s the default suite: every workload with its defaults\n\n"
         "'clgauge COMMAND --help' describes each. --version prints the version.\n",
         "suite");
}

int main(int argc, char **argv) {
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
  const cg_workload *w = cg_workload_find(cmd);
  if (w) return cmd_workload(w, argc - 1, argv + 1);
  char names[256] = "list";
  for (const cg_workload *const *k = cg_workload_all(); *k; ++k)
    snprintf(names + strlen(names), sizeof names - strlen(names), ", %s", (*k)->name);
  cli_error("unknown command '%s' (commands: %s, suite; see 'clgauge --help')", cmd, names);
  return EXIT_USAGE;
}
