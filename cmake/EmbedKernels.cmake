# Embeds the kernel sources (kernels/**/*.hip and their headers) into the library.
#
# Used two ways: included from CMake to declare the generation step, and run as a script
# (cmake -P) at build time to write the .cpp. The generated file defines a table of
# {relative path, text} that lib/runtime/kernel_sources.cpp serves to hipRTC.

if(CMAKE_SCRIPT_MODE_FILE)
  # Script mode: KERNEL_DIR, OUTPUT and FILES (|-separated relative paths) are given.
  string(REPLACE "|" ";" FILES "${FILES}")
  set(_body "// Generated from ${KERNEL_DIR} by cmake/EmbedKernels.cmake: do not edit.\n")
  string(APPEND _body "#include \"runtime/kernel_sources.h\"\n\nnamespace hipfuse::rt {\n\n")
  string(APPEND _body "const EmbeddedFile kEmbeddedKernelFiles[] = {\n")
  set(_delim "hipfuse_embed")
  foreach(_rel IN LISTS FILES)
    file(READ ${KERNEL_DIR}/${_rel} _text)
    string(FIND "${_text}" ")${_delim}\"" _clash)
    if(NOT _clash EQUAL -1)
      message(FATAL_ERROR "${_rel} contains the embedding delimiter )${_delim}\"")
    endif()
    string(APPEND _body "    {\"${_rel}\", R\"${_delim}(${_text})${_delim}\"},\n")
  endforeach()
  string(APPEND _body "};\n\nconst std::size_t kEmbeddedKernelFileCount =\n")
  string(APPEND _body "    sizeof(kEmbeddedKernelFiles) / sizeof(kEmbeddedKernelFiles[0]);\n\n}  // namespace hipfuse::rt\n")
  file(WRITE ${OUTPUT}.tmp "${_body}")
  file(COPY_FILE ${OUTPUT}.tmp ${OUTPUT} ONLY_IF_DIFFERENT)
  file(REMOVE ${OUTPUT}.tmp)
  return()
endif()

# hipfuse_embed_kernels(<out-var> <kernel-dir>): declares the generation step and returns
# the generated source in <out-var>. CONFIGURE_DEPENDS re-globs when files are added.
function(hipfuse_embed_kernels out_var kernel_dir)
  file(GLOB_RECURSE _abs CONFIGURE_DEPENDS ${kernel_dir}/*.hip ${kernel_dir}/*.h)
  list(SORT _abs)
  set(_rel "")
  foreach(_f IN LISTS _abs)
    file(RELATIVE_PATH _r ${kernel_dir} ${_f})
    list(APPEND _rel ${_r})
  endforeach()
  set(_out ${CMAKE_CURRENT_BINARY_DIR}/embedded_kernels.cpp)
  string(REPLACE ";" "|" _rel_joined "${_rel}")
  add_custom_command(OUTPUT ${_out}
    COMMAND ${CMAKE_COMMAND} -DKERNEL_DIR=${kernel_dir} -DOUTPUT=${_out} "-DFILES=${_rel_joined}"
            -P ${CMAKE_CURRENT_FUNCTION_LIST_FILE}
    DEPENDS ${_abs} ${CMAKE_CURRENT_FUNCTION_LIST_FILE}
    COMMENT "Embedding ${kernel_dir} kernel sources"
    VERBATIM)
  set(${out_var} ${_out} PARENT_SCOPE)
endfunction()
