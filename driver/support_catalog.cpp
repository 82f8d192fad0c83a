#include "support_catalog.h"

namespace hipfuse::driver {

namespace {

// A convolution with `k` output channels and the same filter, stride, padding and dilation
// along each of its `dims` spatial dimensions.
ConvSpec conv(int k = 64, int filter = 3, int stride = 1, int pad = 1, int dilation = 1, int groups = 1,
              int dims = 2) {
  ConvSpec c;
  const auto n = static_cast<std::size_t>(dims);
  c.k = k;
  c.filter.assign(n, filter);
  c.stride.assign(n, stride);
  c.pad.assign(n, pad);
  c.dilation.assign(n, dilation);
  c.groups = groups;
  return c;
}

ConvSpec pointwise_conv(int k, int stride = 1) { return conv(k, 1, stride, 0); }

ActivationSpec act(int mode = 3, bool backward = false) {
  // Parameters valid for every mode (CLIPPEDRELU's ceiling, POWER's shift and exponent, ...);
  // support does not depend on them.
  ActivationSpec a;
  a.mode = mode;
  a.alpha = 0.5;
  a.beta = 1.5;
  a.gamma = 2.0;
  a.backward = backward;
  return a;
}
ActivationSpec relu() { return act(); }

BnInferenceSpec bn(int mode = kBnSpatial) { return BnInferenceSpec{mode, 1e-5}; }

}  // namespace

const std::vector<int64_t>& support_input() {
  static const std::vector<int64_t> input{1, 64, 56, 56};
  return input;
}

std::string support_defaults() {
  return "input 1x64x56x56 (N, C, H, W), convolutions 3x3 with 64 output channels, stride 1 and padding 1, "
         "spatial batch norm and ReLU unless the row says otherwise";
}

std::vector<SupportPlan> family_plans() {
  const std::vector<int64_t>& x = support_input();
  const std::vector<int64_t> x3d{1, 32, 8, 28, 28};
  const std::vector<int64_t> image{1, 3, 224, 224};
  return {
      // MIOpen's fusion tables (MIOpenDriver's fusion modes).
      {"CBNA", "conv + bias + BN inference + ReLU", x, {conv(), BiasSpec{}, bn(), relu()}},
      {"CBA", "conv + bias + ReLU", x, {conv(), BiasSpec{}, relu()}},
      {"CA", "conv 1x1 + ReLU", x, {pointwise_conv(256), relu()}},
      {"CB", "conv 1x1 + bias", x, {pointwise_conv(256), BiasSpec{}}},
      {"C", "conv, stride 2", x, {conv(64, 3, 2, 1)}},
      {"CN", "conv + BN inference", x, {conv(), bn()}},
      {"CNA", "conv + BN inference + ReLU", x, {conv(), bn(), relu()}},
      {"NA inference", "BN inference + ReLU", x, {bn(), relu()}},
      {"NA inference", "BN inference (per-activation) + ReLU", x, {bn(kBnPerActivation), relu()}},
      {"NA forward training", "BN forward training + ReLU", x, {BnForwardTrainingSpec{}, relu()}},
      {"NA backward training", "BN backward + ReLU backward", x, {BnBackwardSpec{}, act(3, true)}},
      // hipfuse's further families.
      {"pre-activation", "BN inference + ReLU + conv + bias (prologue)", x, {bn(), relu(), conv(), BiasSpec{}}},
      {"residual add", "conv + residual add + bias + ReLU", x, {conv(), ResidualAddSpec{}, BiasSpec{}, relu()}},
      {"residual add", "conv 1x1 + BN inference + residual add + ReLU", x,
       {pointwise_conv(64), bn(), ResidualAddSpec{}, relu()}},
      {"pointwise chain", "bias + BN inference + ReLU + residual add + ELU", x,
       {BiasSpec{}, bn(), relu(), ResidualAddSpec{}, act(9)}},
      {"pointwise chain", "residual add + ReLU", x, {ResidualAddSpec{}, relu()}},
      {"BN training chain", "BN forward training + residual add + ReLU", x,
       {BnForwardTrainingSpec{}, ResidualAddSpec{}, relu()}},
      // Convolution geometries.
      {"stem", "conv 7x7 stride 2 pad 3, 3 input channels + BN inference + ReLU", image,
       {conv(64, 7, 2, 3), bn(), relu()}},
      {"projection", "conv 1x1 stride 2 to 128 channels + BN inference", x, {pointwise_conv(128, 2), bn()}},
      {"dilated", "conv 3x3 dilation 2 pad 2 + bias + ReLU", x, {conv(64, 3, 1, 2, 2), BiasSpec{}, relu()}},
      {"grouped", "conv 3x3, 4 groups + bias + ReLU", x, {conv(64, 3, 1, 1, 1, 4), BiasSpec{}, relu()}},
      {"depthwise", "conv 3x3, 64 groups + bias + ReLU", x, {conv(64, 3, 1, 1, 1, 64), BiasSpec{}, relu()}},
      {"3-D", "conv 3x3x3 on 1x32x8x28x28 (NCDHW / NDHWC) + bias + ReLU", x3d,
       {conv(32, 3, 1, 1, 1, 1, 3), BiasSpec{}, relu()}},
  };
}

std::vector<SupportPlan> unsupported_plans() {
  const std::vector<int64_t>& x = support_input();
  std::vector<OpSpec> long_chain{conv()};
  for (int i = 0; i < 9; ++i) long_chain.push_back(BiasSpec{});
  return {
      {"two convolutions", "conv + ReLU + conv", x, {conv(), relu(), conv()}},
      {"training BN after a convolution", "conv + BN forward training + ReLU", x,
       {conv(), BnForwardTrainingSpec{}, relu()}},
      {"convolution after training BN", "BN forward training + ReLU + conv", x,
       {BnForwardTrainingSpec{}, relu(), conv()}},
      {"BN backward with more ops", "BN backward + ReLU backward + bias", x,
       {BnBackwardSpec{}, act(3, true), BiasSpec{}}},
      {"activation backward alone", "ReLU backward", x, {act(3, true)}},
      {"chain too long", "conv + 9 biases", x, long_chain},
  };
}

std::vector<ActivationFamily> activation_families() {
  return {
      {"conv + bias + activation", [](int m) { return std::vector<OpSpec>{conv(), BiasSpec{}, act(m)}; }},
      {"BN inference + activation", [](int m) { return std::vector<OpSpec>{bn(), act(m)}; }},
      {"BN forward training + activation", [](int m) { return std::vector<OpSpec>{BnForwardTrainingSpec{}, act(m)}; }},
      {"BN backward + activation backward",
       [](int m) { return std::vector<OpSpec>{BnBackwardSpec{}, act(m, true)}; }},
  };
}

}  // namespace hipfuse::driver
