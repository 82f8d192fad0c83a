# CTest entries that run the built fusiondriver (included from driver/CMakeLists.txt). None needs
# a GPU; the one that runs a spec passes on a GPU machine too (it then really runs it).
#   driver.version                    --version exits 0 and names hipfuse's version
#   driver.run_without_gpu            run specs/ci/fusions.toml: without a GPU, exit 3 and the one
#                                     line "fusiondriver: no GPU device found (...)"
#   driver.spec_error.<fixture>.<cmd> each broken spec of tests/data/specs: exit 2 and one line
#                                     "fusiondriver: FILE:LINE: KEY: message", for run and list
#   driver.list.*                     list and list --format commands work without a GPU
#   driver.compile_arch.<spec>        compile --arch sm_90 of every spec under specs/ (label
#                                     "compile"; the kernel cache lives in the build tree)
#   driver.support*                   the support matrix: applicability checks only, so it
#                                     must finish in seconds; an unknown --arch is a usage error
#   docs.support_matrix               README.md's support matrix equals `support --format
#                                     markdown` (scripts/update-support-matrix.sh regenerates it)
#   kernels.no_stack_frames           the kernels of specs/perf and of every activation mode
#                                     (specs/ci/activations.toml) keep no stack frame (labels
#                                     "compile" and "scripts": tests/scripts/check_stack_frames.py)
#   scripts.*                         the Python scripts' own tests (run_parallel, ab_compare)
if(NOT HIPFUSE_BUILD_TESTS)
  return()
endif()
enable_testing()

set(_expect ${CMAKE_CURRENT_SOURCE_DIR}/expect.cmake)
set(_driver $<TARGET_FILE:fusiondriver>)
set(_kernel_cache ${PROJECT_BINARY_DIR}/kernel-cache)

# fusiondriver_test(NAME ARGS a b c [RC n|nonzero] [REGEX re] [MAX_LINES n] [LINE_FROM file]
#                   [NO_GPU_OR_PASS] [TIMEOUT s] [LABELS l...])
function(fusiondriver_test name)
  cmake_parse_arguments(T "NO_GPU_OR_PASS" "RC;REGEX;MAX_LINES;LINE_FROM;TIMEOUT" "ARGS;LABELS" ${ARGN})
  string(REPLACE ";" "|" _args "${T_ARGS}")
  set(_defs -DDRIVER=${_driver} "-DARGS=${_args}" -DRC=${T_RC})
  if(DEFINED T_REGEX)
    list(APPEND _defs "-DREGEX=${T_REGEX}")
  endif()
  if(DEFINED T_MAX_LINES)
    list(APPEND _defs -DMAX_LINES=${T_MAX_LINES})
  endif()
  if(DEFINED T_LINE_FROM)
    list(APPEND _defs -DLINE_FROM=${T_LINE_FROM})
  endif()
  if(T_NO_GPU_OR_PASS)
    list(APPEND _defs -DNO_GPU_OR_PASS=1)
  endif()
  add_test(NAME driver.${name} COMMAND ${CMAKE_COMMAND} ${_defs} -P ${_expect}
           WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  set_tests_properties(driver.${name} PROPERTIES ENVIRONMENT "MIOPEN_CUSTOM_CACHE_DIR=${_kernel_cache}"
                       LABELS "driver;${T_LABELS}")
  if(DEFINED T_TIMEOUT)
    set_tests_properties(driver.${name} PROPERTIES TIMEOUT ${T_TIMEOUT})
  endif()
endfunction()

fusiondriver_test(version ARGS --version RC 0 REGEX "^fusiondriver .*hipfuse [0-9]+\\.[0-9]+\\.[0-9]+" MAX_LINES 1)
fusiondriver_test(help ARGS --help RC 0 REGEX "run.*compile.*list.*support")
fusiondriver_test(usage_error ARGS run --bogus specs/ci/fusions.toml RC 2)
fusiondriver_test(missing_spec ARGS run no/such/spec.toml RC 2
                  REGEX "^fusiondriver: no/such/spec.toml: " MAX_LINES 1)
fusiondriver_test(run_without_gpu ARGS run specs/ci/fusions.toml RC 0 REGEX "\n[0-9]+ passed, 0 failed"
                  NO_GPU_OR_PASS TIMEOUT 1800)
fusiondriver_test(list ARGS list specs/ci/fusions.toml RC 0 REGEX "\n[0-9]+ cases\n$")
fusiondriver_test(list_jsonl ARGS list specs/examples/cba.toml --format jsonl RC 0 REGEX "^\\{\"name\":")
fusiondriver_test(list_commands ARGS list specs/examples/cba.toml --format commands --device 1 RC 0
                  REGEX "fusiondriver run --spec-text \"\\$\\(printf '[^\n]*'\\)\" --device 1\n")

fusiondriver_test(support ARGS support RC 0 REGEX "\nCBA +conv \\+ bias \\+ ReLU +Conv" TIMEOUT 20)
fusiondriver_test(support_markdown ARGS support --format markdown RC 0 REGEX "\n\\| CBA +\\| conv \\+ bias \\+ ReLU +\\| "
                  TIMEOUT 20)
fusiondriver_test(support_jsonl ARGS support --format jsonl RC 0 REGEX "^\\{\"table\":\"families\"" TIMEOUT 20)
fusiondriver_test(support_bad_arch ARGS support --arch sm_nonsense RC 2
                  REGEX "^fusiondriver: support: --arch sm_nonsense: unknown architecture" MAX_LINES 1)

add_test(NAME docs.support_matrix
         COMMAND bash ${PROJECT_SOURCE_DIR}/scripts/update-support-matrix.sh --check ${PROJECT_BINARY_DIR})
set_tests_properties(docs.support_matrix PROPERTIES LABELS "driver;docs" TIMEOUT 60)

file(GLOB _broken CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/tests/data/specs/*.toml)
foreach(_spec IN LISTS _broken)
  get_filename_component(_name ${_spec} NAME_WE)
  file(RELATIVE_PATH _rel ${PROJECT_SOURCE_DIR} ${_spec})
  string(REPLACE "." "\\." _rel_re "${_rel}")
  foreach(_cmd run list)
    fusiondriver_test(spec_error.${_name}.${_cmd} ARGS ${_cmd} ${_rel} RC 2 REGEX "^fusiondriver: ${_rel_re}(:[0-9]+)?: "
                      MAX_LINES 1 LINE_FROM ${_spec})
  endforeach()
endforeach()

file(GLOB_RECURSE _specs CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/specs/*.toml)
foreach(_spec IN LISTS _specs)
  file(RELATIVE_PATH _rel ${PROJECT_SOURCE_DIR}/specs ${_spec})
  string(REGEX REPLACE "\\.toml$" "" _id "${_rel}")
  string(REPLACE "/" "." _id "${_id}")
  fusiondriver_test(compile_arch.${_id} ARGS compile --arch sm_90 specs/${_rel} RC 0
                    REGEX "\n[1-9][0-9]* compiled, 0 failed" TIMEOUT 3600 LABELS compile)
endforeach()

# scripts/run_parallel.py: its per-spec summary table and a whole run over a stand-in driver (pure Python).
find_package(Python3 COMPONENTS Interpreter)
if(Python3_Interpreter_FOUND)
  add_test(NAME scripts.run_parallel_summary
           COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tests/scripts/test_run_parallel.py)
  set_tests_properties(scripts.run_parallel_summary PROPERTIES LABELS "scripts" TIMEOUT 30)
  # The benchmark specs' kernels and every activation mode's keep no stack frame (spills cost
  # the BN kernels 10% twice: docs/PERF_NOTES.md v24, v26); NVRTC for sm_90, no GPU.
  file(GLOB _perf_specs CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/specs/perf/*.toml)
  list(APPEND _perf_specs ${PROJECT_SOURCE_DIR}/specs/ci/activations.toml)
  add_test(NAME kernels.no_stack_frames
           COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tests/scripts/check_stack_frames.py --driver ${_driver}
                   --arch sm_90 ${_perf_specs}
           WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  set_tests_properties(kernels.no_stack_frames PROPERTIES LABELS "compile;scripts" TIMEOUT 3600)
  # The harness's floors and the driver's GB/s count the same bytes and FLOPs on every perf case.
  file(GLOB _perf_only_specs CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/specs/perf/*.toml)
  add_test(NAME scripts.bench_work_counts
           COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tests/scripts/test_work_counts.py --driver ${_driver}
                   ${_perf_only_specs}
           WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  set_tests_properties(scripts.bench_work_counts PROPERTIES LABELS "scripts" TIMEOUT 60)
  # scripts/ab_compare.py: run order, ratios, failures, over a stand-in driver.
  add_test(NAME scripts.ab_compare COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tests/scripts/test_ab_compare.py)
  set_tests_properties(scripts.ab_compare PROPERTIES LABELS "scripts" TIMEOUT 30)
  # scripts/gpu-check.sh's GPU test stage: totals over its processes and the failed cases' names,
  # over a stand-in test binary.
  add_test(NAME scripts.gpu_check_tests_stage
           COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tests/scripts/test_gpu_check.py)
  set_tests_properties(scripts.gpu_check_tests_stage PROPERTIES LABELS "scripts" TIMEOUT 60)
endif()
