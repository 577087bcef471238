# What the `cmake -P` test scripts share: the arguments after "--" and the skip without a device.
#   include(script_args.cmake); clgauge_script_args(var); clgauge_skip_without_device(program)

# The script's arguments after the first "--", as a list in var.
macro(clgauge_script_args var)
  set(${var} "")
  set(_seen_separator FALSE)
  math(EXPR _last "${CMAKE_ARGC} - 1")
  foreach(_i RANGE 0 ${_last})
    if(_seen_separator)
      list(APPEND ${var} "${CMAKE_ARGV${_i}}")
    elseif(CMAKE_ARGV${_i} STREQUAL "--")
      set(_seen_separator TRUE)
    endif()
  endforeach()
endmacro()

# Ends the script as skipped (ctest's SKIP_REGULAR_EXPRESSION) when `program list` finds no
# device.
macro(clgauge_skip_without_device program)
  execute_process(COMMAND ${program} list OUTPUT_VARIABLE _listing RESULT_VARIABLE _rc)
  if(NOT _rc EQUAL 0 OR _listing MATCHES "No OpenCL platform with a device")
    message("CLGAUGE_TEST_SKIPPED: no OpenCL device")
    return()
  endif()
endmacro()
