# Runs one command-line test of clgauge and checks its exit status and output together.
#   cmake -DEXPECT_EXIT=2 [-DSTDOUT_REGEX=re] [-DSTDERR_REGEX=re] [-DSTDERR_LINES=n]
#         [-DEXPECT_FILE=path [-DFILE_REGEX=re]] [-DREQUIRES_DEVICE=TRUE]
#         -P cli_expect.cmake -- <program> <arguments>...
# EXPECT_FILE is removed before the run and must exist afterwards. With REQUIRES_DEVICE the test
# prints CLGAUGE_TEST_SKIPPED (ctest's SKIP_REGULAR_EXPRESSION) when `<program> list` finds no
# device.

include(${CMAKE_CURRENT_LIST_DIR}/script_args.cmake)
clgauge_script_args(command)
if(NOT command)
  message(FATAL_ERROR "cli_expect.cmake: no command after --")
endif()
if(NOT DEFINED EXPECT_EXIT OR EXPECT_EXIT STREQUAL "")
  message(FATAL_ERROR "cli_expect.cmake: EXPECT_EXIT is required")
endif()
list(GET command 0 program)

if(REQUIRES_DEVICE)
  clgauge_skip_without_device(${program})
endif()

if(EXPECT_FILE)
  file(REMOVE "${EXPECT_FILE}")
endif()

execute_process(COMMAND ${command} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)

set(problems "")
if(NOT rc MATCHES "^-?[0-9]+$")
  string(APPEND problems "  the command did not exit normally: ${rc}\n")
elseif(NOT rc EQUAL EXPECT_EXIT)
  string(APPEND problems "  exit status ${rc}, expected ${EXPECT_EXIT}\n")
endif()
if(NOT STDOUT_REGEX STREQUAL "" AND NOT out MATCHES "${STDOUT_REGEX}")
  string(APPEND problems "  stdout does not match: ${STDOUT_REGEX}\n")
endif()
if(NOT STDERR_REGEX STREQUAL "" AND NOT err MATCHES "${STDERR_REGEX}")
  string(APPEND problems "  stderr does not match: ${STDERR_REGEX}\n")
endif()
if(NOT STDERR_LINES STREQUAL "")
  string(REGEX MATCHALL "\n" newlines "${err}")
  list(LENGTH newlines nlines)
  if(NOT err MATCHES "\n$")
    math(EXPR nlines "${nlines} + 1")
  endif()
  if(err STREQUAL "")
    set(nlines 0)
  endif()
  if(NOT nlines EQUAL STDERR_LINES)
    string(APPEND problems "  stderr has ${nlines} lines, expected ${STDERR_LINES}\n")
  endif()
endif()
if(EXPECT_FILE)
  if(NOT EXISTS "${EXPECT_FILE}")
    string(APPEND problems "  ${EXPECT_FILE} was not written\n")
  elseif(NOT FILE_REGEX STREQUAL "")
    file(READ "${EXPECT_FILE}" content)
    if(NOT content MATCHES "${FILE_REGEX}")
      string(APPEND problems "  ${EXPECT_FILE} does not match: ${FILE_REGEX}\n")
    endif()
  endif()
endif()

string(REPLACE ";" " " shown "${command}")
if(problems)
  message(FATAL_ERROR "${shown}\n${problems}--- stdout\n${out}--- stderr\n${err}---")
endif()
message("ok: ${shown} (exit ${rc})\n--- stderr\n${err}---")
