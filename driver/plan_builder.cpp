#include "plan_builder.h"

#include <climits>
#include <type_traits>

#include <fmt/format.h>

#include <hipfuse/hipfuse.h>

#include "spec.h"

namespace hipfuse::driver {

ApiError::ApiError(miopenStatus_t s, std::string call_, std::string message_)
    : std::runtime_error(fmt::format("{}: {}{}{}", call_, miopenGetErrorString(s), message_.empty() ? "" : ": ",
                                     message_)),
      status(s),
      call(std::move(call_)),
      message(std::move(message_)) {}

void api_check(miopenStatus_t s, const char* call) {
  if (s != miopenStatusSuccess) throw ApiError(s, call, hipfuseGetLastErrorMessage());
}

bool is_unsupported(miopenStatus_t s) { return s == miopenStatusUnsupportedOp || s == miopenStatusNotImplemented; }

namespace {

miopenDataType_t api_type(ref::DType t) {
  switch (t) {
    case ref::DType::f32: return miopenFloat;
    case ref::DType::f16: return miopenHalf;
    case ref::DType::bf16: return miopenBFloat16;
  }
  throw std::invalid_argument("unknown dtype");
}

int to_int(int64_t v, const std::string& what) {
  if (v < 1 || v > INT_MAX)
    throw std::invalid_argument(fmt::format("{} = {} does not fit the API's int descriptor fields", what, v));
  return static_cast<int>(v);
}

std::string_view op_name(const OpSpec& op) { return op_kind_name(op); }

}  // namespace

TensorDescriptor::TensorDescriptor(const TensorInfo& info) {
  std::vector<int> dims, strides;
  for (std::size_t d = 0; d < info.lengths.size(); ++d) {
    dims.push_back(to_int(info.lengths[d], info.name + " length"));
    strides.push_back(to_int(info.strides[d], info.name + " stride"));
  }
  to_int(info.storage_elements(), info.name + " element count");
  api_check(miopenCreateTensorDescriptor(&desc_), "miopenCreateTensorDescriptor");
  const miopenStatus_t s = miopenSetTensorDescriptor(desc_, api_type(info.dtype), static_cast<int>(dims.size()),
                                                     dims.data(), strides.data());
  if (s != miopenStatusSuccess) {
    const std::string message = hipfuseGetLastErrorMessage();
    (void)miopenDestroyTensorDescriptor(desc_);
    desc_ = nullptr;
    throw ApiError(s, "miopenSetTensorDescriptor(" + info.name + ")", message);
  }
}

TensorDescriptor::~TensorDescriptor() {
  if (desc_) (void)miopenDestroyTensorDescriptor(desc_);
}

TensorInfo data_tensor_info(const Case& c, const Problem& p, std::size_t index) {
  TensorInfo t;
  t.name = index == 0 ? "input" : fmt::format("op{}.out", index - 1);
  t.role = Role::input;
  t.lengths = p.shapes.at(index);
  t.dtype = to_ref(c.dtype);
  t.layout = to_ref(c.layout);
  t.strides = ref::packed_strides(t.lengths, t.layout);
  return t;
}

namespace {

// Owned convolution descriptor for a ConvSpec.
class ConvDescriptor {
 public:
  explicit ConvDescriptor(const ConvSpec& s) {
    api_check(miopenCreateConvolutionDescriptor(&desc_), "miopenCreateConvolutionDescriptor");
    std::vector<int> pad(s.pad), stride(s.stride), dilation(s.dilation);
    const miopenStatus_t st = miopenInitConvolutionNdDescriptor(desc_, static_cast<int>(pad.size()), pad.data(),
                                                                 stride.data(), dilation.data(), miopenConvolution);
    if (st != miopenStatusSuccess) fail(st, "miopenInitConvolutionNdDescriptor");
    if (s.groups != 1) {
      const miopenStatus_t g = miopenSetConvolutionGroupCount(desc_, s.groups);
      if (g != miopenStatusSuccess) fail(g, "miopenSetConvolutionGroupCount");
    }
  }
  ~ConvDescriptor() {
    if (desc_) (void)miopenDestroyConvolutionDescriptor(desc_);
  }
  ConvDescriptor(const ConvDescriptor&) = delete;
  ConvDescriptor& operator=(const ConvDescriptor&) = delete;
  miopenConvolutionDescriptor_t get() const { return desc_; }

 private:
  [[noreturn]] void fail(miopenStatus_t s, const char* call) {
    const std::string message = hipfuseGetLastErrorMessage();
    (void)miopenDestroyConvolutionDescriptor(desc_);
    desc_ = nullptr;
    throw ApiError(s, call, message);
  }
  miopenConvolutionDescriptor_t desc_ = nullptr;
};

const TensorInfo& tensor(const Problem& p, Role role, int op) {
  const int i = p.find(role, op);
  if (i < 0) throw std::logic_error(fmt::format("no {} tensor for op {}", role_name(role), op));
  return p.tensors[static_cast<std::size_t>(i)];
}

void* pointer(const Problem& p, const DevicePointers& d, Role role, int op) {
  const int i = p.find(role, op);
  if (i < 0) return nullptr;
  return d.at(static_cast<std::size_t>(i));
}

}  // namespace

FusionPlan::FusionPlan(const Case& c, const Problem& p, std::size_t first, std::size_t last)
    : case_(c), problem_(p), first_(first), last_(last) {
  if (first >= last || last > c.ops.size()) throw std::logic_error("FusionPlan: empty op range");
  input_ = std::make_unique<TensorDescriptor>(data_tensor_info(c, p, first));
  output_ = std::make_unique<TensorDescriptor>(data_tensor_info(c, p, last));
  api_check(miopenCreateFusionPlan(&plan_, miopenVerticalFusion, input_->get()), "miopenCreateFusionPlan");
  try {
    for (std::size_t i = first; i < last; ++i) {
      const int op = static_cast<int>(i);
      miopenFusionOpDescriptor_t handle = nullptr;
      std::visit(
          [&](const auto& s) {
            using T = std::decay_t<decltype(s)>;
            if constexpr (std::is_same_v<T, ConvSpec>) {
              ConvDescriptor conv(s);
              TensorDescriptor w(tensor(p, Role::weights, op));
              api_check(miopenCreateOpConvForward(plan_, &handle, conv.get(), w.get()), "miopenCreateOpConvForward");
            } else if constexpr (std::is_same_v<T, BiasSpec>) {
              TensorDescriptor b(tensor(p, Role::bias, op));
              api_check(miopenCreateOpBiasForward(plan_, &handle, b.get()), "miopenCreateOpBiasForward");
            } else if constexpr (std::is_same_v<T, ResidualAddSpec>) {
              TensorDescriptor z(tensor(p, Role::residual, op));
              api_check(hipfuseCreateOpResidualAdd(plan_, &handle, z.get()), "hipfuseCreateOpResidualAdd");
            } else if constexpr (std::is_same_v<T, BnInferenceSpec>) {
              TensorDescriptor params(tensor(p, Role::bn_scale, op));
              api_check(miopenCreateOpBatchNormInference(plan_, &handle, static_cast<miopenBatchNormMode_t>(s.mode),
                                                         params.get()),
                        "miopenCreateOpBatchNormInference");
            } else if constexpr (std::is_same_v<T, BnForwardTrainingSpec>) {
              api_check(miopenCreateOpBatchNormForward(plan_, &handle, static_cast<miopenBatchNormMode_t>(s.mode),
                                                       s.running_stats),
                        "miopenCreateOpBatchNormForward");
            } else if constexpr (std::is_same_v<T, BnBackwardSpec>) {
              api_check(
                  miopenCreateOpBatchNormBackward(plan_, &handle, static_cast<miopenBatchNormMode_t>(s.mode)),
                  "miopenCreateOpBatchNormBackward");
            } else if constexpr (std::is_same_v<T, ActivationSpec>) {
              const auto mode = static_cast<miopenActivationMode_t>(s.mode);
              if (s.backward)
                api_check(miopenCreateOpActivationBackward(plan_, &handle, mode), "miopenCreateOpActivationBackward");
              else
                api_check(miopenCreateOpActivationForward(plan_, &handle, mode), "miopenCreateOpActivationForward");
            }
          },
          c.ops[i]);
      ops_.push_back(handle);
    }
  } catch (...) {
    (void)miopenDestroyFusionPlan(plan_);
    plan_ = nullptr;
    throw;
  }
}

FusionPlan::~FusionPlan() {
  if (plan_) (void)miopenDestroyFusionPlan(plan_);
}

void FusionPlan::compile(miopenHandle_t handle) { api_check(miopenCompileFusionPlan(handle, plan_), "miopenCompileFusionPlan"); }

void FusionPlan::compile_for_arch(const std::string& arch) {
  api_check(hipfuseCompileFusionPlanForArch(plan_, arch.c_str()), "hipfuseCompileFusionPlanForArch");
}

std::string FusionPlan::check_for_arch(const std::string& arch) const {
  const char* solver = nullptr;
  api_check(hipfuseCheckFusionPlanForArch(plan_, arch.c_str(), &solver), "hipfuseCheckFusionPlanForArch");
  return solver;
}

PlanInfo FusionPlan::info() const {
  hipfuseFusionPlanInfo raw{};
  api_check(hipfuseGetFusionPlanInfo(plan_, &raw), "hipfuseGetFusionPlanInfo");
  PlanInfo i;
  i.solver = raw.solver ? raw.solver : "";
  i.key = raw.key ? raw.key : "";
  i.kernels = raw.kernelLaunches;
  i.compile_ms = raw.compileMs;
  i.cache_hit = raw.cacheHit != 0;
  return i;
}

void FusionPlan::bind(miopenOperatorArgs_t args, const DevicePointers& d) const {
  const Problem& p = problem_;
  for (std::size_t i = first_; i < last_; ++i) {
    const int op = static_cast<int>(i);
    const miopenFusionOpDescriptor_t h = ops_[i - first_];
    std::visit(
        [&](const auto& s) {
          using T = std::decay_t<decltype(s)>;
          auto ptr = [&](Role r) { return pointer(p, d, r, op); };
          if constexpr (std::is_same_v<T, ConvSpec>) {
            api_check(miopenSetOpArgsConvForward(args, h, nullptr, nullptr, ptr(Role::weights)),
                      "miopenSetOpArgsConvForward");
          } else if constexpr (std::is_same_v<T, BiasSpec>) {
            api_check(miopenSetOpArgsBiasForward(args, h, nullptr, nullptr, ptr(Role::bias)),
                      "miopenSetOpArgsBiasForward");
          } else if constexpr (std::is_same_v<T, ResidualAddSpec>) {
            api_check(hipfuseSetOpArgsResidualAdd(args, h, s.alpha, ptr(Role::residual)), "hipfuseSetOpArgsResidualAdd");
          } else if constexpr (std::is_same_v<T, BnInferenceSpec>) {
            api_check(miopenSetOpArgsBatchNormInference(args, h, nullptr, nullptr, ptr(Role::bn_scale),
                                                        ptr(Role::bn_bias), ptr(Role::bn_mean),
                                                        ptr(Role::bn_variance), s.epsilon),
                      "miopenSetOpArgsBatchNormInference");
          } else if constexpr (std::is_same_v<T, BnForwardTrainingSpec>) {
            api_check(miopenSetOpArgsBatchNormForward(args, h, nullptr, nullptr, ptr(Role::bn_scale),
                                                      ptr(Role::bn_bias), ptr(Role::saved_mean),
                                                      ptr(Role::saved_inv_variance), ptr(Role::running_mean),
                                                      ptr(Role::running_variance), s.exp_avg_factor, s.epsilon),
                      "miopenSetOpArgsBatchNormForward");
          } else if constexpr (std::is_same_v<T, BnBackwardSpec>) {
            api_check(miopenSetOpArgsBatchNormBackward(args, h, nullptr, nullptr, ptr(Role::bn_x), ptr(Role::bn_scale),
                                                       ptr(Role::bn_bias), ptr(Role::scale_diff),
                                                       ptr(Role::bias_diff), ptr(Role::saved_mean),
                                                       ptr(Role::saved_inv_variance)),
                      "miopenSetOpArgsBatchNormBackward");
          } else if constexpr (std::is_same_v<T, ActivationSpec>) {
            if (s.backward)
              api_check(miopenSetOpArgsActivBackward(args, h, nullptr, nullptr, ptr(Role::activation_y), nullptr,
                                                     s.alpha, s.beta, s.gamma),
                        "miopenSetOpArgsActivBackward");
            else
              api_check(miopenSetOpArgsActivForward(args, h, nullptr, nullptr, s.alpha, s.beta, s.gamma),
                        "miopenSetOpArgsActivForward");
          }
        },
        case_.ops[i]);
  }
}

void FusionPlan::execute(miopenHandle_t handle, const void* input, void* output, miopenOperatorArgs_t args) const {
  api_check(miopenExecuteFusionPlan(handle, plan_, input_->get(), input, output_->get(), output, args),
            "miopenExecuteFusionPlan");
}

std::string FusionPlan::description() const { return stage_description(case_, first_, last_); }

std::string stage_description(const Case& c, std::size_t first, std::size_t last) {
  std::string names;
  for (std::size_t i = first; i < last; ++i) names += fmt::format("{}{}", i > first ? "+" : "", op_name(c.ops[i]));
  return last - first == 1 ? fmt::format("op {} ({})", first, names)
                           : fmt::format("ops {}..{} ({})", first, last - 1, names);
}

OperatorArgs::OperatorArgs() { api_check(miopenCreateOperatorArgs(&args_), "miopenCreateOperatorArgs"); }
OperatorArgs::~OperatorArgs() {
  if (args_) (void)miopenDestroyOperatorArgs(args_);
}

Handle::Handle(hipStream_t stream) { api_check(miopenCreateWithStream(&handle_, stream), "miopenCreateWithStream"); }
Handle::~Handle() {
  if (handle_) (void)miopenDestroy(handle_);
}

std::vector<std::pair<std::size_t, std::size_t>> unfused_stages(const Case& c) {
  std::vector<std::pair<std::size_t, std::size_t>> stages;
  for (std::size_t i = 0; i < c.ops.size(); ++i) {
    const bool pair = std::holds_alternative<BnBackwardSpec>(c.ops[i]) && i + 1 < c.ops.size() &&
                      std::holds_alternative<ActivationSpec>(c.ops[i + 1]) &&
                      std::get<ActivationSpec>(c.ops[i + 1]).backward;
    stages.emplace_back(i, pair ? i + 2 : i + 1);
    if (pair) ++i;
  }
  return stages;
}

}  // namespace hipfuse::driver
