/* Command-line parsing helpers of the clgauge front end: options with values, strict numbers,
 * comma-separated lists. Each error names the option and the value and returns false. */
#ifndef CLGAUGE_CLI_H
#define CLGAUGE_CLI_H

#include <stdbool.h>
#include <stdint.h>

/* Where parse errors go: "clgauge <command>: <message>". */
void cli_set_command(const char *command);
const char *cli_command(void);
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Whether argv[*i] is option `name`, as "--name value" or "--name=value". On a match *value is
 * set and *i advanced past the value; a missing value is reported and sets *bad. */
bool cli_option(int argc, char **argv, int *i, const char *name, const char **value, bool *bad);
bool cli_flag(const char *arg, const char *name);

/* A table of whole-number options: on a match of argv[*i], parse into *target within
 * [min, max]. Returns 1 when matched and parsed, 0 when argv[*i] is none of them, -1 when bad. */
typedef struct cli_int_opt {
  const char *name;
  int *target;
  long long min, max;
} cli_int_opt;
int cli_int_options(int argc, char **argv, int *i, const cli_int_opt *opts, int n);

bool cli_int(const char *option, const char *text, long long min, long long max, int *out);
bool cli_u64(const char *option, const char *text, uint64_t *out);
bool cli_double(const char *option, const char *text, double min, double max, double *out);

/* Split "a,b,c" into a NULL-terminated array of names, as many as there are (malloc'd; free
 * with cli_list_free). Empty items are an error. */
bool cli_list(const char *option, const char *text, char ***out);
void cli_list_free(char **list);

#endif
