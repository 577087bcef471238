/* The workload commands (clgauge matmul, mlp, ...) and the suite: options, --help and jobs, all
 * from the workload descriptors. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "front.h"
#include "clgauge/backend.h"
#include "clgauge/params.h"
#include "clgauge/workload.h"

/* ---- the workload commands, from the descriptors ---- */

/* "  --name ARG" then the help, its continuation lines indented under it. */
static void print_option(const char *name, const char *help, const char *suffix) {
  if ((int)strlen(name) > 18)
    printf("  %s\n%21s", name, "");
  else
    printf("  %-18s ", name);
  for (const char *p = help; *p; ++p) {
    putchar(*p);
    if (*p == '\n' && p[1]) printf("%21s", "");
  }
  printf("%s\n", suffix);
}

static void workload_help(const cg_workload *w) {
  printf("usage: clgauge %s [options]\n\n%s\n", w->name, w->help);
  if (w->presets) {
    size_t size = 1;
    for (int i = 0; w->presets[i].name; ++i)
      size += strlen(w->presets[i].name) + strlen(w->presets[i].summary) + 8;
    char *help = calloc(size, 1);
    for (int i = 0; help && w->presets[i].name; ++i)
      snprintf(help + strlen(help), size - strlen(help), "%s%s: %s",
               i ? (w->presets[i + 1].name ? "; " : "; or ") : "", w->presets[i].name,
               w->presets[i].summary);
    print_option("--preset NAME", help ? help : "", "");
    free(help);
  }
  for (int i = 0; i < w->nparams; ++i) {
    const cg_param_desc *d = &w->params[i];
    char opt[64], name[96], dflt[64] = "";
    cg_param_option(d, opt, sizeof opt);
    if (d->kind == CG_PARAM_FLAG) {
      snprintf(name, sizeof name, "%s", opt);
    } else {
      snprintf(name, sizeof name, "%s %s", opt, d->metavar);
      snprintf(dflt, sizeof dflt, d->kind == CG_PARAM_INT ? " (default %.0f)" : " (default %g)",
               d->dflt);
    }
    print_option(name, d->help, dflt);
  }
  if (w->modes) {
    char name[64];
    snprintf(name, sizeof name, "--%s %s", w->modes->option, w->modes->metavar);
    print_option(name, w->modes->help, "");
  }
  for (const cg_sweep_desc *sw = w->sweeps; sw && sw->option; ++sw) {
    char name[64];
    snprintf(name, sizeof name, "--%s LIST", sw->option);
    print_option(name, sw->help, "");
  }
  printf("%s", common_help);
  bool any = false;
  for (const cg_impl *const *i = cg_impl_all(); *i; ++i) {
    if (strcmp((*i)->workload, w->name) != 0 || !(*i)->kernel_params) continue;
    printf("%s %s:", any ? ";" : "\nkernel parameters (--kernel-param):", (*i)->backend->name);
    for (int k = 0; (*i)->kernel_params[k]; ++k)
      printf("%s %s", k ? "," : "", (*i)->kernel_params[k]);
    any = true;
  }
  printf("%s\n%s", any ? "\n" : "", exit_help);
}

/* A workload command's options: the base job and the sweep sizes, if any (malloc'd, as many as
 * the list has). */
typedef struct workload_opts {
  cg_job job;
  const cg_sweep_desc *sweep_desc; /* the sweep asked for, if any: one per run */
  int *sweep;
  int nsweep;
} workload_opts;

/* 1: argv[*i] was one of the workload's own options, 0: it was not, -1: bad. */
static int parse_workload_option(int argc, char **argv, int *i, workload_opts *wo) {
  const cg_workload *w = wo->job.workload;
  const char *v = NULL;
  bool bad = false;
  cg_error err = {0};
  for (int k = 0; k < w->nparams; ++k) {
    const cg_param_desc *d = &w->params[k];
    char opt[64];
    cg_param_option(d, opt, sizeof opt);
    double value = 1;
    if (d->kind == CG_PARAM_FLAG) {
      if (!cli_flag(argv[*i], opt)) continue;
    } else {
      if (!cli_option(argc, argv, i, opt, &v, &bad)) continue;
      if (bad) return -1;
      int whole = 0;
      if (d->kind == CG_PARAM_INT) {
        if (!cli_int(opt, v, (long long)d->min, (long long)d->max, &whole)) return -1;
        value = whole;
      } else if (!cli_double(opt, v, d->min, d->max, &value)) {
        return -1;
      }
    }
    if (cg_params_set(&wo->job.params, d->name, value, &err) != CG_OK) {
      cli_error("%s", err.msg);
      return -1;
    }
    return 1;
  }
  char opt[64];
  if (w->modes) {
    snprintf(opt, sizeof opt, "--%s", w->modes->option);
    if (cli_option(argc, argv, i, opt, &v, &bad)) {
      if (bad) return -1;
      if (cg_job_select_modes(&wo->job, v, &err) != CG_OK) {
        cli_error("%s", err.msg);
        return -1;
      }
      return 1;
    }
  }
  if (w->presets && cli_option(argc, argv, i, "--preset", &v, &bad))
    return bad ? -1 : 1; /* applied before the other options */
  for (const cg_sweep_desc *sw = w->sweeps; sw && sw->option; ++sw) {
    snprintf(opt, sizeof opt, "--%s", sw->option);
    if (cli_option(argc, argv, i, opt, &v, &bad)) {
      char **list = NULL;
      const cg_param_desc *d = &w->params[cg_params_index(&wo->job.params, sw->params[0])];
      if (bad) return -1;
      if (wo->sweep_desc && wo->sweep_desc != sw) {
        cli_error("%s: one sweep per run, and --%s is given too", opt, wo->sweep_desc->option);
        return -1;
      }
      wo->sweep_desc = sw;
      if (!cli_list(opt, v, &list)) return -1;
      int n = 0;
      while (list[n]) ++n;
      free(wo->sweep);
      wo->sweep = malloc((size_t)n * sizeof *wo->sweep);
      wo->nsweep = 0;
      bool ok = wo->sweep != NULL;
      if (!ok) cli_error("%s: out of memory", opt);
      for (int k = 0; list[k] && ok; ++k)
        ok = cli_int(opt, list[k], (long long)d->min, (long long)d->max, &wo->sweep[wo->nsweep++]);
      cli_list_free(list);
      return ok ? 1 : -1;
    }
  }
  return 0;
}

/* Parse a workload command into wo and o; returns -1 on a bad option, 1 for --help, 0 otherwise.
 * --preset applies first wherever it stands, so that explicit sizes override it. */
static int parse_workload(int argc, char **argv, workload_opts *wo, common_opts *o) {
  const cg_workload *w = wo->job.workload;
  for (int i = 1; i < argc && w->presets; ++i) {
    const char *v = NULL;
    bool bad = false;
    if (cli_option(argc, argv, &i, "--preset", &v, &bad)) {
      cg_error err = {0};
      if (bad) return -1;
      if (cg_job_preset(&wo->job, v, &err) != CG_OK) {
        cli_error("%s", err.msg);
        return -1;
      }
    }
  }
  /* a preset sets sizes, but they are still the preset's, not given on the command line */
  memset(wo->job.params.given, 0, sizeof wo->job.params.given);
  memset(wo->job.params.own, 0, sizeof wo->job.params.own);
  for (int i = 1; i < argc; ++i) {
    int c = parse_common(argc, argv, &i, o);
    if (c == 0) c = parse_workload_option(argc, argv, &i, wo);
    if (c < 0) return -1;
    if (c > 0) continue;
    if (cli_flag(argv[i], "--help")) return 1;
    cli_error("unknown option '%s' (see 'clgauge %s --help')", argv[i], w->name);
    return -1;
  }
  return 0;
}

int cmd_workload(const cg_workload *w, int argc, char **argv) {
  char command[64];
  snprintf(command, sizeof command, "clgauge %s", w->name);
  cli_set_command(command);
  workload_opts wo = {0};
  cg_job_init(&wo.job, w);
  common_opts o = COMMON_OPTS_INIT;
  const int p = parse_workload(argc, argv, &wo, &o);
  int status = p < 0 ? EXIT_USAGE : 0;
  if (p > 0) workload_help(w);
  if (p == 0) {
    const int njobs = wo.nsweep > 0 ? wo.nsweep : 1;
    cg_job *jobs = malloc((size_t)njobs * sizeof *jobs);
    if (!jobs) {
      cli_error("out of memory");
      status = EXIT_FAILURE;
    } else if (wo.nsweep == 0) {
      jobs[0] = wo.job;
    }
    for (int j = 0; j < wo.nsweep && status == 0; ++j) {
      cg_error err = {0};
      if (cg_job_sweep_point(&wo.job, wo.sweep_desc, wo.sweep[j], &jobs[j], &err) != CG_OK) {
        cli_error("%s", err.msg);
        status = EXIT_USAGE;
      }
    }
    if (status == 0) status = run_jobs(jobs, njobs, &o, argc, argv);
    free(jobs);
  }
  free(wo.sweep);
  free_common(&o);
  return status;
}

/* ---- clgauge suite ---- */

int cmd_suite(int argc, char **argv) {
  cli_set_command("clgauge suite");
  common_opts o = COMMON_OPTS_INIT;
  int status = 0;
  for (int i = 1; i < argc && status == 0; ++i) {
    const int c = parse_common(argc, argv, &i, &o);
    if (c > 0) continue;
    if (c == 0 && cli_flag(argv[i], "--help")) {
      printf("usage: clgauge suite [options]\n\n"
             "The default suite: every workload with its defaults (");
      for (const cg_workload *const *w = cg_workload_all(); *w; ++w)
        printf("%s%s", w == cg_workload_all() ? "" : ", ", (*w)->name);
      printf(") on every\nbackend. A variant is accepted when any workload has it. The device and "
             "the host are probed\nfirst ('clgauge probe'; --no-probe leaves it out, "
             "--probe-quick shortens it).\n\n%s\n%s",
             common_help, exit_help);
      free_common(&o);
      return 0;
    }
    if (c == 0) cli_error("unknown option '%s' (see 'clgauge suite --help')", argv[i]);
    status = EXIT_USAGE;
  }
  if (status == 0) {
    int njobs = 0;
    while (cg_workload_all()[njobs]) ++njobs;
    cg_job *jobs = malloc((size_t)njobs * sizeof *jobs);
    if (!jobs) {
      cli_error("out of memory");
      status = EXIT_FAILURE;
    } else {
      for (int j = 0; j < njobs; ++j) cg_job_init(&jobs[j], cg_workload_all()[j]);
      o.probe |= !o.no_probe; /* the suite holds its records against the ceilings by default */
      status = run_jobs(jobs, njobs, &o, argc, argv);
    }
    free(jobs);
  }
  free_common(&o);
  return status;
}
