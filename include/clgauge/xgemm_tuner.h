/* CLBlast's own tuner of its GEMM kernel (clblast_tuner_xgemm, Debian package clblast-utils): run
 * it for one device within a time budget, and read the JSON it writes. clgauge tune keeps its best
 * setting in the tuning file under the names below; the clblast backend applies a setting with
 * CLBlastOverrideParameters. */
#ifndef CLGAUGE_XGEMM_TUNER_H
#define CLGAUGE_XGEMM_TUNER_H

#include "clgauge/error.h"

/* The 16 parameters of CLBlast 1.5's Xgemm kernel, every one of which CLBlastOverrideParameters
 * needs, in CLBlast's spelling (GEMMK, KREG, KWG, ...), and clgauge's names of them (the same with
 * XGEMM_ in front, so that --kernel-param and the tuning file never confuse them with the
 * hand-written kernels' MWG, NWG and KWG). Both NULL-terminated, in the same order. */
enum { CG_XGEMM_NPARAMS = 16 };
extern const char *const cg_xgemm_clblast_names[];
extern const char *const cg_xgemm_params[];

typedef struct cg_xgemm_best {
  int values[CG_XGEMM_NPARAMS]; /* in the order of cg_xgemm_params */
  double ms;                    /* the tuner's time of one product at its m, n, k */
  long m, n, k;                 /* the shape it tuned */
  int results;                  /* configurations it reports having run */
} cg_xgemm_best;

/* The fastest Xgemm configuration of one JSON file of the tuner (clblast_xgemm_<stage>_32.json).
 * CG_BAD_INPUT names the file and what is wrong: not JSON, another precision or kernel, no
 * result, a result without one of the 16 parameters. */
cg_rc cg_xgemm_tuner_read(const char *path, cg_xgemm_best *out, cg_error *err);

typedef struct cg_xgemm_tuner_job {
  const char *program;   /* the tuner: a path, or a name looked up in PATH */
  int platform, device;  /* OpenCL indexes, as clGetPlatformIDs and clGetDeviceIDs list them */
  long m, n, k;          /* rounded up to multiples of 128 here: the tuner's kernels need it */
  double fraction;       /* the tuner's -fraction: its first stage runs 1/fraction of its fixed
                            set of configurations (578 in CLBlast 1.5), in random order */
  double budget_s;       /* wall-clock seconds before the tuner is stopped */
  const char *workdir;   /* where it writes its JSON files and its log (tuner.log) */
} cg_xgemm_tuner_job;

/* Run the tuner's first stage (GEMMK=0: the kernel CLBlast runs by default) and stop it once that
 * stage's JSON file is written, or when the budget is spent; *out gets the stage's best. The later
 * stages search a random sample of a space a hundred times larger and would outlast any budget of
 * minutes. CG_UNSUPPORTED when the program cannot be started; CG_ERROR, naming the budget and the
 * log, when it wrote no result in time or failed. */
cg_rc cg_xgemm_tuner_run(const cg_xgemm_tuner_job *job, cg_xgemm_best *out, cg_error *err);

#endif
