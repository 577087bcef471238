/* clgauge probe: the device's own ceilings (and the host's, the cpu backend's), printed and
 * written as a results file whose "probes" the workload commands read back (--probe-file);
 * and the probes a workload run takes first (--probe, the suite's default). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "front.h"
#include "clgauge/bound.h"
#include "clgauge/probe.h"
#include "clgauge/probe_io.h"

static const char probe_help[] =
    "usage: clgauge probe [options]\n\n"
    "The ceilings of the device, measured on it, each as the median, min and max of the timed\n"
    "runs after a warm-up: FP32 arithmetic (independent multiply-add chains in float, float2 ...\n"
    "float16; the best is the ceiling), device memory bandwidth (read, write, copy at the same\n"
    "widths, over buffers of random data above the last-level cache the device reports),\n"
    "host-device transfers from 4 KiB to 256 MiB (write and read from pageable memory, from\n"
    "pinned memory (CL_MEM_ALLOC_HOST_PTR, mapped), and a map for writing with its unmap; the\n"
    "sizes grow while each kind stays within its time budget and the largest allocation), the\n"
    "launch cost of an empty kernel (enqueue only, launch with clFinish, back to back: the last\n"
    "is the launch ceiling), the build of a tiny kernel (cold: a source no cache has seen; again:\n"
    "the driver's cache where it keeps one), and context creation. Then the host's, which the\n"
    "cpu backend is held against: OpenBLAS's best square SGEMM rate, and memory read, memcpy and\n"
    "OpenBLAS's saxpy. The workload commands take the results with --probe-file FILE.\n\n"
    "  --device SEL       the device, as the workload commands take it, or 'all' for every one\n"
    "  --quick            3 runs, 8 MiB buffers (which a large cache may hold), transfers up to\n"
    "                     1 MiB: seconds on a CPU driver, for tests (the JSON says quick)\n"
    "  --runs N           N timed runs of each figure after its warm-up, 1 to 16 (default 5,\n"
    "                     3 with --quick): fewer for a slow or simulated device\n"
    "  --no-host          leave out the host's ceilings\n"
    "  --json FILE        write the probes as a results file (schema " CG_REPORT_SCHEMA ", no\n"
    "                     records, its \"probes\")\n"
    "  --csv FILE         write every figure as one CSV line\n"
    "  --quiet            no progress lines on stderr\n"
    "  --help             this text\n\n"
    "Exit status: 0 when every probe ran; 2 for bad usage; 3 when a device's probe failed (the\n"
    "others are still printed and written); 1 otherwise (a file that cannot be written).\n";

int gather_probes(cg_report *report, const cg_device_info *device, bool host,
                  const cg_probe_options *po, bool quiet) {
  cg_probe *p = malloc(sizeof *p);
  int status = 0;
  if (!p) {
    cli_error("out of memory");
    return EXIT_FAILURE;
  }
  bool have_device = false, have_host = false;
  for (int i = 0; i < report->nprobes; ++i) {
    const cg_probe *q = &report->probes[i];
    have_host |= q->host;
    have_device |= device && !q->host &&
                   cg_probe_matches(q, device->name, device->platform, device->driver_version);
  }
  cg_error err = {0};
  if (device && !have_device) {
    if (!quiet) fprintf(stderr, "probe of %s (%s)\n", device->name, device->platform);
    if (cg_probe_device(device, po, p, &err) != CG_OK) {
      cli_error("probe of %s: %s", device->name, err.msg);
      status = EXIT_RECORD_ERROR;
    } else if (cg_report_add_probe(report, p) < 0) {
      cli_error("out of memory");
      status = EXIT_FAILURE;
    }
  }
  if (host && !have_host && status != EXIT_FAILURE) {
    if (!quiet) fprintf(stderr, "probe of the host CPU\n");
    if (cg_probe_host(po, p, &err) != CG_OK) {
      cli_error("probe of the host: %s", err.msg);
      status = EXIT_RECORD_ERROR;
    } else if (cg_report_add_probe(report, p) < 0) {
      cli_error("out of memory");
      status = EXIT_FAILURE;
    }
  }
  free(p);
  return status;
}

int cmd_probe(int argc, char **argv) {
  cli_set_command("clgauge probe");
  const char *selector = NULL, *json = NULL, *csv = NULL;
  bool quick = false, host = true, quiet = false;
  int runs = 0; /* 0: the default of quick or not */
  for (int i = 1; i < argc; ++i) {
    const char *v = NULL;
    bool bad = false;
    if (cli_option(argc, argv, &i, "--runs", &v, &bad)) {
      if (bad || !cli_int("--runs", v, 1, CG_PROBE_MAX_RUNS, &runs)) return EXIT_USAGE;
    } else if (cli_option(argc, argv, &i, "--device", &v, &bad)) {
      if (bad) return EXIT_USAGE;
      if (!*v) {
        cli_error("--device '': an empty selector (an index, a type, a name part, or all)");
        return EXIT_USAGE;
      }
      selector = v;
    } else if (cli_option(argc, argv, &i, "--json", &v, &bad)) {
      if (bad) return EXIT_USAGE;
      json = v;
    } else if (cli_option(argc, argv, &i, "--csv", &v, &bad)) {
      if (bad) return EXIT_USAGE;
      csv = v;
    } else if (cli_flag(argv[i], "--quick")) {
      quick = true;
    } else if (cli_flag(argv[i], "--no-host")) {
      host = false;
    } else if (cli_flag(argv[i], "--quiet")) {
      quiet = true;
    } else if (cli_flag(argv[i], "--help")) {
      fputs(probe_help, stdout);
      return 0;
    } else {
      cli_error("unknown option '%s' (see 'clgauge probe --help')", argv[i]);
      return EXIT_USAGE;
    }
  }
  cg_error err = {0};
  const char *paths[] = {json, csv}, *opts[] = {"--json", "--csv"};
  for (int k = 0; k < 2; ++k)
    if (paths[k] && cg_report_check_path(paths[k], &err) != CG_OK) {
      cli_error("%s %s", opts[k], err.msg);
      return EXIT_USAGE;
    }
  if (json && csv && strcmp(json, csv) == 0) {
    cli_error("--json '%s' and --csv '%s' are the same file: one would overwrite the other", json,
              csv);
    return EXIT_USAGE;
  }
  driver_caches_fallback();
  if (!selector) selector = getenv("CLGAUGE_DEVICE");
  cg_device_list list;
  if (cg_device_list_query(&list, &err) != CG_OK) {
    cli_error("%s", err.msg);
    return EXIT_FAILURE;
  }
  const bool all = selector && strcmp(selector, "all") == 0;
  int index = -1, status = 0;
  if (selector && *selector && !all) {
    if (list.count == 0)
      snprintf(err.msg, sizeof err.msg, "--device '%s': no OpenCL device found (%d platforms)",
               selector, list.platforms);
    if (list.count == 0 || cg_device_select(&list, selector, &index, &err) != CG_OK) {
      cli_error("%s", err.msg);
      cg_device_list_free(&list);
      return EXIT_USAGE;
    }
  } else if (list.count > 0 && !all) {
    cg_device_select(&list, NULL, &index, &err);
  }
  if (list.count == 0 && !quiet)
    fprintf(stderr, "clgauge: no OpenCL device found; only the host is probed\n");
  cg_probe_options po;
  cg_probe_options_default(&po, quick);
  if (runs) po.runs = runs;
  cg_report report;
  cg_report_init(&report, argc, argv);
  for (int d = 0; d < list.count; ++d) {
    if (!all && d != index) continue;
    const int s = gather_probes(&report, &list.items[d], false, &po, quiet);
    if (s > status) status = s;
  }
  if (host && status != EXIT_FAILURE) {
    const int s = gather_probes(&report, NULL, true, &po, quiet);
    if (s > status) status = s;
  }
  if (json && report.nprobes > 0 && cg_report_write_json(&report, json, &err) != CG_OK) {
    cli_error("--json %s", err.msg);
    status = EXIT_FAILURE;
  }
  if (csv && report.nprobes > 0 && cg_probe_write_csv(&report, csv, &err) != CG_OK) {
    cli_error("--csv %s", err.msg);
    status = EXIT_FAILURE;
  }
  for (int i = 0; i < report.nprobes; ++i) cg_probe_print(&report.probes[i], stdout);
  if (report.nprobes == 0 && status == 0) {
    cli_error("nothing was probed: no OpenCL device, and --no-host");
    status = EXIT_NOTHING_RAN;
  }
  cg_report_free(&report);
  cg_device_list_free(&list);
  return status;
}
