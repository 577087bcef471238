/* clgauge list: every OpenCL platform and device, with the index --device takes. */
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "front.h"
#include "clgauge/device.h"

static void print_size(FILE *out, uint64_t bytes) {
  const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = (double)bytes;
  int u = 0;
  while (v >= 1024 && u < 4) v /= 1024, ++u;
  fprintf(out, "%.4g %s", v, units[u]);
}

/* ---- clgauge list ---- */

int cmd_list(int argc, char **argv) {
  cli_set_command("clgauge list");
  for (int i = 1; i < argc; ++i) {
    if (cli_flag(argv[i], "--help")) {
      printf("usage: clgauge list\n\nEvery OpenCL platform and device, with the index that "
             "--device takes.\n");
      return 0;
    }
    cli_error("unknown argument '%s' (see 'clgauge list --help')", argv[i]);
    return EXIT_USAGE;
  }
  cg_device_list list;
  cg_error err = {0};
  driver_caches_fallback();
  if (cg_device_list_query(&list, &err) != CG_OK) {
    cli_error("%s", err.msg);
    return EXIT_FAILURE;
  }
  if (list.count == 0) {
    printf("No OpenCL platform with a device was found (%d platform%s).\n"
           "Install a driver: a GPU vendor's OpenCL driver, or PoCL for the CPU "
           "(apt-get install pocl-opencl-icd).\n",
           list.platforms, list.platforms == 1 ? "" : "s");
    cg_device_list_free(&list);
    return 0;
  }
  int selected = -1;
  cg_device_select(&list, NULL, &selected, &err);
  for (int i = 0; i < list.count; ++i) {
    const cg_device_info *d = &list.items[i];
    printf("%s%d  (%d:%d)  %s  %s%s\n", i ? "\n" : "", d->index, d->platform_index,
           d->device_index, cg_device_type_name(d->type), d->name,
           i == selected ? "  [default]" : "");
    printf("    platform        %s (%s)\n", d->platform, d->platform_version);
    printf("    vendor          %s\n", d->vendor);
    printf("    driver          %s\n", d->driver_version);
    printf("    OpenCL          %s; %s\n", d->version, d->c_version);
    printf("    compute units   %u at %u MHz\n", d->compute_units, d->clock_mhz);
    printf("    global memory   ");
    print_size(stdout, d->global_mem);
    printf(", max allocation ");
    print_size(stdout, d->max_alloc);
    printf("\n    local memory    ");
    print_size(stdout, d->local_mem);
    printf(", max work-group %zu, profiling %s\n", d->max_work_group,
           d->profiling ? "yes" : "no");
  }
  cg_device_list_free(&list);
  return 0;
}
