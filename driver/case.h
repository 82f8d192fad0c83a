#pragma once
// The driver's model of one test case: a fusion plan (input tensor + ops in plan order) plus
// how to fill, time and verify it. Plain data with no TOML and no GPU in it: the spec loader
// (spec.h) produces cases, everything else in the driver consumes them.

#include <array>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace hipfuse::driver {

enum class DType { f32, f16, bf16 };
enum class Layout { nchw, nhwc };  // channels first / last; with a 5-D input: NCDHW / NDHWC

// Spelling in specs. DType/Layout names are indexed by the enum, mode names by the MIOpen value
// (miopenBatchNormMode_t, miopenActivationMode_t).
inline constexpr std::array<std::string_view, 3> kDTypeNames{"fp32", "fp16", "bf16"};
inline constexpr std::array<std::string_view, 2> kLayoutNames{"nchw", "nhwc"};
inline constexpr std::array<std::string_view, 2> kBnModeNames{"per_activation", "spatial"};
inline constexpr std::array<std::string_view, 10> kActivationModeNames{
    "passthru", "logistic", "tanh", "relu", "softrelu", "abs", "power", "clippedrelu", "leakyrelu", "elu"};
inline constexpr std::array<std::string_view, 8> kOpKindNames{
    "conv",           "bias",        "residual_add", "bn_inference", "bn_forward_training",
    "bn_backward",    "activation",  "activation_backward"};

inline constexpr int kBnPerActivation = 0;
inline constexpr int kBnSpatial = 1;

// Vectors hold one value per spatial dim, in (D,) H, W order.
struct ConvSpec {
  int k = 0;
  std::vector<int> filter, stride, pad, dilation;
  int groups = 1;
};
struct BiasSpec {};                                     // per-channel bias, 1xCx1x1
struct ResidualAddSpec { double alpha = 1.0; };         // hipfuse extension: y += alpha * z, z shaped like y
struct BnInferenceSpec { int mode = kBnSpatial; double epsilon = 1e-5; };
struct BnForwardTrainingSpec {
  int mode = kBnSpatial;
  double epsilon = 1e-5;
  double exp_avg_factor = 0.1;  // weight of the new batch statistic in the running average
  bool running_stats = true;    // update running mean/variance
};
struct BnBackwardSpec { int mode = kBnSpatial; };
struct ActivationSpec {
  int mode = 3;  // relu
  double alpha = 1, beta = 0, gamma = 1;
  bool backward = false;  // true: the "activation_backward" op of a BN backward plan
};
using OpSpec = std::variant<ConvSpec, BiasSpec, ResidualAddSpec, BnInferenceSpec, BnForwardTrainingSpec,
                            BnBackwardSpec, ActivationSpec>;

// "uniform": [min, max); "integer": whole numbers in [min, max]; "normal": mean, stddev.
// Each distribution reads only its own parameters; the others keep their values.
struct InitSpec {
  std::string distribution = "uniform";
  double min = -1, max = 1;
  double mean = 0, stddev = 1;
  uint64_t seed = 1;
};
struct TimingSpec { int warmup = 5; int iters = 50; };
struct VerifySpec {
  std::string mode = "cpu";  // "cpu" (full reference) | "sample" (reference at `samples` points) | "off"
  int64_t samples = 100000;
  std::optional<double> tolerance;  // unset: the driver's per-dtype default
};

struct Case {
  std::string name;  // unique within a load: spec name [/ case name] [/ key=value per swept key]
  std::string file;  // provenance: where the case came from
  int line = 0;
  std::vector<int64_t> input;  // logical N, C, [D,] H, W whatever the layout
  DType dtype = DType::f32;
  Layout layout = Layout::nchw;
  std::vector<OpSpec> ops;  // plan order
  InitSpec init;
  TimingSpec timing;
  VerifySpec verify;
  std::vector<std::pair<std::string, std::string>> swept;  // provenance: the swept key=value pairs
};

// A spec that cannot become cases. what() is "FILE:LINE: KEY: message"; LINE and KEY are left out
// when unknown. `key` is the dotted key as written in the file ("op.1.k", "case.2.dtype").
struct SpecError : std::runtime_error {
  SpecError(std::string file, int line, std::string key, std::string message);
  std::string file;
  int line;
  std::string key;
  std::string message;
};

// Equality of what defines a case; provenance (file, line, swept) is not compared.
bool operator==(const ConvSpec&, const ConvSpec&);
bool operator==(const BiasSpec&, const BiasSpec&);
bool operator==(const ResidualAddSpec&, const ResidualAddSpec&);
bool operator==(const BnInferenceSpec&, const BnInferenceSpec&);
bool operator==(const BnForwardTrainingSpec&, const BnForwardTrainingSpec&);
bool operator==(const BnBackwardSpec&, const BnBackwardSpec&);
bool operator==(const ActivationSpec&, const ActivationSpec&);
bool operator==(const InitSpec&, const InitSpec&);
bool operator==(const TimingSpec&, const TimingSpec&);
bool operator==(const VerifySpec&, const VerifySpec&);
bool operator==(const Case&, const Case&);

std::string_view op_kind_name(const OpSpec&);  // one of kOpKindNames

// Shape arithmetic, shared by validation and the driver.
int64_t spatial_dims(const Case&);  // 2 for NCHW input, 3 for NCDHW
// Conv output length along one spatial dim (MIOpen default padding mode); may be < 1 for bad geometry.
int64_t conv_output_size(int64_t in, int filter, int stride, int pad, int dilation);
std::vector<int64_t> output_shape(const std::vector<int64_t>& in, const OpSpec&);  // only conv changes it
// An op's parameter tensor, shaped from the tensor `in` reaching it: conv weights K x C/groups x
// filter; bias 1xCx1x1; BN scale/bias/mean/variance 1xCx1x1 (spatial) or 1xCx[D]xHxW (per
// activation), always in logical order; residual_add's z = `in`; activations: none (empty).
std::vector<int64_t> parameter_shape(const std::vector<int64_t>& in, const OpSpec&);
std::vector<std::vector<int64_t>> tensor_shapes(const Case&);  // [0] input, [i + 1] after ops[i]

}  // namespace hipfuse::driver
