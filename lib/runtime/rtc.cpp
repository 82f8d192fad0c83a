#include "runtime/rtc.h"

#include "common/error.h"
#include "runtime/platform.h"

#include <hip/hiprtc.h>

#include <memory>

namespace hipfuse::rt {
namespace {

struct ProgramDeleter {
  void operator()(hiprtcProgram* program) const {
    hiprtcDestroyProgram(program);
    delete program;
  }
};

}  // namespace

std::string join_options(const std::vector<std::string>& options) {
  std::string out;
  for (const auto& option : options) out += (out.empty() ? "" : " ") + option;
  return out;
}

std::string rtc_compiler_version() {
  int major = 0, minor = 0;
  hiprtcVersion(&major, &minor);
  return std::string(platform_name()) + " hipRTC " + std::to_string(major) + "." + std::to_string(minor);
}

std::vector<char> rtc_compile(const SourceFile& source, const std::vector<const SourceFile*>& headers,
                              const std::vector<std::string>& options) {
  std::vector<const char*> header_texts, header_names;
  for (const SourceFile* header : headers) {
    header_texts.push_back(header->text.c_str());
    header_names.push_back(header->path.c_str());
  }
  std::unique_ptr<hiprtcProgram, ProgramDeleter> program(new hiprtcProgram{});
  hiprtcResult rc = hiprtcCreateProgram(program.get(), source.text.c_str(), source.path.c_str(),
                                        static_cast<int>(headers.size()), header_texts.data(),
                                        header_names.data());
  if (rc != HIPRTC_SUCCESS) {
    fail(Status::internal_error, "hipRTC could not create a program for " + source.path + ": " +
                                     hiprtcGetErrorString(rc));
  }
  std::vector<const char*> option_ptrs;
  for (const auto& option : options) option_ptrs.push_back(option.c_str());
  rc = hiprtcCompileProgram(*program, static_cast<int>(option_ptrs.size()), option_ptrs.data());

  std::size_t log_size = 0;
  std::string log;
  if (hiprtcGetProgramLogSize(*program, &log_size) == HIPRTC_SUCCESS && log_size > 1) {
    log.resize(log_size);
    hiprtcGetProgramLog(*program, log.data());
    log.resize(log_size - 1);
  }
  if (rc != HIPRTC_SUCCESS) {
    fail(Status::internal_error, "hipRTC failed to compile " + source.path + " (" + hiprtcGetErrorString(rc) +
                                     ")\noptions: " + join_options(options) + "\n" + log);
  }
  return rtc_program_code(*program);
}

}  // namespace hipfuse::rt
