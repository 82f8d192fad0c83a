# Runs fusiondriver once and checks its exit status and output (used by driver/tests.cmake as
# `cmake -P`). Variables:
#   DRIVER     the fusiondriver binary
#   ARGS       its arguments, separated by |
#   RC         the expected exit status: a number, or "nonzero"
#   REGEX      a regular expression the output (stdout + stderr) must match
#   MAX_LINES  the output has at most this many lines
#   LINE_FROM  a spec fixture whose comment names the broken line ("line N"): the message must
#              then name FILE:N
#   NO_GPU_OR_PASS  when set: where the output says "no GPU device found", expect exit 3 and
#              exactly that one line; elsewhere (a GPU machine) expect exit 0 and REGEX.
cmake_minimum_required(VERSION 3.22)

string(REPLACE "|" ";" _args "${ARGS}")
execute_process(COMMAND ${DRIVER} ${_args} RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _err)
set(_all "${_out}${_err}")
string(REGEX MATCHALL "\n" _newlines "${_all}")
list(LENGTH _newlines _lines)

function(fail why)
  string(REPLACE "|" " " _cmd "${ARGS}")
  message(FATAL_ERROR "${why}\ncommand: ${DRIVER} ${_cmd}\nexit status: ${_rc}\noutput (${_lines} lines):\n${_all}")
endfunction()

if(NO_GPU_OR_PASS AND _all MATCHES "no GPU device found")
  if(NOT _rc EQUAL 3)
    fail("without a GPU the exit status must be 3")
  endif()
  if(NOT _lines EQUAL 1 OR NOT _all MATCHES "^fusiondriver: no GPU device found \\(.+\\)\n$")
    fail("without a GPU the output must be the one line 'fusiondriver: no GPU device found (...)'")
  endif()
  message(STATUS "no GPU: ${_all}")
  return()
endif()

if(RC STREQUAL "nonzero")
  if(_rc EQUAL 0)
    fail("expected a non-zero exit status")
  endif()
elseif(NOT "${_rc}" STREQUAL "${RC}")
  fail("expected exit status ${RC}")
endif()
if(DEFINED REGEX AND NOT _all MATCHES "${REGEX}")
  fail("the output does not match: ${REGEX}")
endif()
if(DEFINED MAX_LINES AND _lines GREATER MAX_LINES)
  fail("expected at most ${MAX_LINES} line(s)")
endif()
if(DEFINED LINE_FROM)
  file(READ "${LINE_FROM}" _spec)
  if(_spec MATCHES "line ([0-9]+)")
    set(_line ${CMAKE_MATCH_1})
    get_filename_component(_name "${LINE_FROM}" NAME)
    if(NOT _all MATCHES "${_name}:${_line}: ")
      fail("the message must name ${_name}:${_line}")
    endif()
  endif()
endif()
