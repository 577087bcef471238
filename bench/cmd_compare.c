/* clgauge compare: results files side by side (or the devices of one file), each figure with its
 * ratio to a baseline, and a threshold that turns a slower steady time into exit status 1. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "front.h"
#include "clgauge/compare.h"
#include "clgauge/results.h"

static void compare_help(void) {
  printf(
      "usage: clgauge compare FILE [FILE...] [options]\n\n"
      "Puts results files (--json of any clgauge command, schema clgauge.results/%d or /%d, or\n"
      "the files of bench/pytorch_seeds.py) side by side. Records are matched by workload,\n"
      "backend, variant, transfer mode, parameters and device; every phase of each is shown\n"
      "with the baseline's figure, each other file's, and its ratio to the baseline (above 1:\n"
      "slower). Records found in some files only are listed and marked. With one FILE, the\n"
      "devices it holds are put side by side instead.\n\n"
      "  --baseline N       the file (with one FILE: the device) the others are measured\n"
      "                     against, numbered from 1 in the order given (default 1)\n"
      "  --threshold PCT    exit 1 and list the records whose steady time per iteration is more\n"
      "                     than PCT percent worse than the baseline's, or that are no longer ok\n"
      "  --format FORMAT    table (aligned, the default), md (Markdown, for an issue), csv\n"
      "  --phase LIST       phases to show: init, compile, upload, first, steady, device,\n"
      "                     enqueue, download (default: every phase some record measured);\n"
      "                     steady, device and enqueue are ms per iteration, the others ms\n\n"
      "Files larger than %zu MiB, nested deeper than %d levels, with more than %d records, or of\n"
      "another schema are refused with a message naming the file.\n\n"
      "Exit status: 0 when compared (and, with --threshold, no record got worse by more); 1 when\n"
      "a record got worse by more than the threshold; 2 for bad usage or a file that cannot be\n"
      "read as results.\n",
      CG_RESULTS_SCHEMA_MIN, CG_RESULTS_SCHEMA_MAX, CG_RESULTS_MAX_BYTES >> 20,
      CG_RESULTS_MAX_DEPTH, CG_RESULTS_MAX_RECORDS);
}

static bool parse_format(const char *text, cg_compare_format *out) {
  const struct {
    const char *name;
    cg_compare_format format;
  } all[] = {{"table", CG_COMPARE_TABLE}, {"md", CG_COMPARE_MD}, {"csv", CG_COMPARE_CSV}};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i)
    if (strcmp(text, all[i].name) == 0) {
      *out = all[i].format;
      return true;
    }
  cli_error("--format '%s': unknown format (table, md, csv)", text);
  return false;
}

static bool parse_phases(const char *text, unsigned *mask) {
  char **list = NULL;
  if (!cli_list("--phase", text, &list)) return false;
  bool ok = true;
  for (int i = 0; list[i] && ok; ++i) {
    int p = cg_phase_find(list[i]);
    if (p < 0) {
      cli_error("--phase '%s': unknown phase (init, compile, upload, first, steady, device, "
                "enqueue, download)",
                list[i]);
      ok = false;
    } else {
      *mask |= 1u << p;
    }
  }
  cli_list_free(list);
  return ok;
}

int cmd_compare(int argc, char **argv) {
  cli_set_command("clgauge compare");
  const char *paths[CG_COMPARE_MAX_COLUMNS];
  int npaths = 0, baseline = 1;
  double threshold = NAN;
  cg_compare_format format = CG_COMPARE_TABLE;
  unsigned phases = 0;
  const cli_int_opt ints[] = {{"--baseline", &baseline, 1, CG_COMPARE_MAX_COLUMNS}};
  for (int i = 1; i < argc; ++i) {
    const char *v = NULL;
    bool bad = false;
    if (cli_flag(argv[i], "--help") || cli_flag(argv[i], "-h")) {
      compare_help();
      return 0;
    }
    int matched = cli_int_options(argc, argv, &i, ints, 1);
    if (matched < 0) return EXIT_USAGE;
    if (matched) continue;
    if (cli_option(argc, argv, &i, "--threshold", &v, &bad)) {
      if (bad || !cli_double("--threshold", v, 0, 1e9, &threshold)) return EXIT_USAGE;
    } else if (cli_option(argc, argv, &i, "--format", &v, &bad)) {
      if (bad || !parse_format(v, &format)) return EXIT_USAGE;
    } else if (cli_option(argc, argv, &i, "--phase", &v, &bad)) {
      if (bad || !parse_phases(v, &phases)) return EXIT_USAGE;
    } else if (argv[i][0] == '-' && argv[i][1]) {
      cli_error("unknown option '%s' (see 'clgauge compare --help')", argv[i]);
      return EXIT_USAGE;
    } else if (npaths == CG_COMPARE_MAX_COLUMNS) {
      cli_error("'%s': more than %d files", argv[i], CG_COMPARE_MAX_COLUMNS);
      return EXIT_USAGE;
    } else {
      paths[npaths++] = argv[i];
    }
  }
  if (npaths == 0) {
    cli_error("no results file given (see 'clgauge compare --help')");
    return EXIT_USAGE;
  }
  if (npaths > 1 && baseline > npaths) {
    cli_error("--baseline %d: out of range (1..%d, the files given)", baseline, npaths);
    return EXIT_USAGE;
  }

  int status = EXIT_USAGE;
  cg_results files[CG_COMPARE_MAX_COLUMNS];
  memset(files, 0, sizeof files);
  cg_comparison cmp = {0};
  cg_error err = {0};
  for (int f = 0; f < npaths; ++f) {
    if (cg_results_read(paths[f], &files[f], &err) != CG_OK) {
      cli_error("%s", err.msg);
      goto done;
    }
  }
  if (npaths == 1) {
    /* The devices are known once the file is read: check the baseline against them. */
    if (cg_compare_devices(&files[0], paths[0], 0, threshold, &cmp, &err) != CG_OK) {
      cli_error("'%s': %s", paths[0], err.msg);
      goto done;
    }
    int ndevices = cmp.ncolumns;
    if (baseline > ndevices) {
      cli_error("--baseline %d: out of range (1..%d, the devices of '%s')", baseline, ndevices,
                paths[0]);
      goto done;
    }
    cg_comparison_free(&cmp);
    if (cg_compare_devices(&files[0], paths[0], baseline - 1, threshold, &cmp, &err) != CG_OK) {
      cli_error("'%s': %s", paths[0], err.msg);
      goto done;
    }
  } else if (cg_compare_files(files, paths, npaths, baseline - 1, threshold, &cmp, &err) !=
             CG_OK) {
    cli_error("%s", err.msg);
    goto done;
  }
  cg_compare_print(&cmp, format, phases, stdout);
  status = cmp.regressions > 0 ? 1 : 0;
done:
  cg_comparison_free(&cmp);
  for (int f = 0; f < npaths; ++f) cg_results_free(&files[f]);
  return status;
}
