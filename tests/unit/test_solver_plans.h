// Plan builders shared by the solver unit tests and the fused GPU tests: the MIOpen table
// rows and the shapes around them, in any data type and layout.
#pragma once

#include "plan/fusion_plan.h"

#include <memory>
#include <string>
#include <vector>

namespace hipfuse::test {

enum class Lay { nchw, nhwc };

inline const char* name_of(Lay l) { return l == Lay::nchw ? "nchw" : "nhwc"; }

inline TensorDesc packed(DataType type, std::vector<std::int64_t> lengths, Lay lay) {
  const bool five = lengths.size() == 5;
  const Layout layout = lay == Lay::nchw ? (five ? Layout::ncdhw : Layout::nchw) : (five ? Layout::ndhwc : Layout::nhwc);
  return TensorDesc::packed(type, std::move(lengths), layout);
}

// {1, C, 1, 1(, 1)}: a per-channel vector for a tensor of `dims` dimensions.
inline std::vector<std::int64_t> per_channel(std::int64_t c, int dims) {
  std::vector<std::int64_t> l(static_cast<std::size_t>(dims), 1);
  l[1] = c;
  return l;
}

struct ConvGeometry {
  std::int64_t k = 8;
  std::vector<std::int64_t> filter{3, 3};
  std::vector<int> pads{1, 1}, strides{1, 1}, dilations{1, 1};
  int groups = 1;
};

// Appends ops to a plan, deriving every descriptor from the current output.
class PlanBuilder {
 public:
  PlanBuilder(DataType type, std::vector<std::int64_t> lengths, Lay lay)
      : PlanBuilder(packed(type, std::move(lengths), lay), lay) {}
  PlanBuilder(TensorDesc input, Lay lay)
      : plan_(std::make_unique<FusionPlan>(FusionDirection::vertical, std::move(input))), lay_(lay) {}

  PlanBuilder& conv(const ConvGeometry& g) {
    ConvForwardOp op;
    op.conv.pads = g.pads;
    op.conv.strides = g.strides;
    op.conv.dilations = g.dilations;
    op.conv.groups = g.groups;
    std::vector<std::int64_t> w{g.k, channels() / g.groups};
    w.insert(w.end(), g.filter.begin(), g.filter.end());
    op.weights = packed(type(), w, lay_);
    plan_->add(op);
    return *this;
  }
  PlanBuilder& bias() {
    plan_->add(BiasForwardOp{packed(type(), per_channel(channels(), dims()), Lay::nchw)});
    return *this;
  }
  PlanBuilder& bn_infer(BatchNormMode mode) {
    std::vector<std::int64_t> l = plan_->output().lengths;
    l[0] = 1;
    if (mode == BatchNormMode::spatial) l = per_channel(channels(), dims());
    plan_->add(BatchNormInferenceOp{mode, packed(DataType::float32, l, Lay::nchw)});
    return *this;
  }
  PlanBuilder& act(ActivationMode mode) {
    plan_->add(ActivationForwardOp{mode});
    return *this;
  }
  PlanBuilder& residual() {
    plan_->add(ResidualAddOp{plan_->output()});
    return *this;
  }
  PlanBuilder& bn_train(BatchNormMode mode, bool running) {
    plan_->add(BatchNormForwardTrainingOp{mode, running});
    return *this;
  }
  PlanBuilder& bn_backward(BatchNormMode mode) {
    plan_->add(BatchNormBackwardOp{mode});
    return *this;
  }
  PlanBuilder& act_backward(ActivationMode mode) {
    plan_->add(ActivationBackwardOp{mode});
    return *this;
  }
  PlanBuilder& transpose_conv(std::int64_t k) {
    ConvForwardOp op;
    op.conv.mode = ConvMode::transpose;
    op.weights = packed(type(), {channels(), k, 3, 3}, lay_);
    op.conv.pads = {1, 1};
    plan_->add(op);
    return *this;
  }

  std::unique_ptr<FusionPlan> take() { return std::move(plan_); }
  const FusionPlan& plan() const { return *plan_; }

 private:
  DataType type() const { return plan_->output().type; }
  std::int64_t channels() const { return plan_->output().lengths[1]; }
  int dims() const { return plan_->output().dims(); }

  std::unique_ptr<FusionPlan> plan_;
  Lay lay_;
};

// The MIOpen support-table rows (fusion-api.md 4.2/4.4) as op sequences on one input.
enum class Row { cbna, cba, ca, cb, c, cn, cna, na_infer, na_train, na_backward };

inline const char* name_of(Row r) {
  static const char* const names[] = {"CBNA", "CBA", "CA", "CB", "C", "CN", "CNA", "NA-inference",
                                      "NA-forward-training", "NA-backward-training"};
  return names[static_cast<int>(r)];
}

constexpr Row kAllRows[] = {Row::cbna, Row::cba, Row::ca,       Row::cb,       Row::c,
                            Row::cn,   Row::cna, Row::na_infer, Row::na_train, Row::na_backward};

inline std::unique_ptr<FusionPlan> row_plan(Row row, DataType type, Lay lay, std::vector<std::int64_t> input,
                                            const ConvGeometry& g, BatchNormMode bn, ActivationMode act) {
  PlanBuilder b(type, std::move(input), lay);
  switch (row) {
    case Row::cbna: b.conv(g).bias().bn_infer(bn).act(act); break;
    case Row::cba: b.conv(g).bias().act(act); break;
    case Row::ca: b.conv(g).act(act); break;
    case Row::cb: b.conv(g).bias(); break;
    case Row::c: b.conv(g); break;
    case Row::cn: b.conv(g).bn_infer(bn); break;
    case Row::cna: b.conv(g).bn_infer(bn).act(act); break;
    case Row::na_infer: b.bn_infer(bn).act(act); break;
    case Row::na_train: b.bn_train(bn, true).act(act); break;
    case Row::na_backward: b.bn_backward(bn).act_backward(act); break;
  }
  return b.take();
}

constexpr DataType kAllTypes[] = {DataType::float32, DataType::half, DataType::bfloat16};
constexpr Lay kAllLayouts[] = {Lay::nchw, Lay::nhwc};

}  // namespace hipfuse::test
