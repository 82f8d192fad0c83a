// The fused kernel families in the order they are tried; the first that applies is used.
// The more specialised (faster) family goes before the general one it overlaps: the
// implicit-GEMM convolution before the direct one, which takes every convolution the
// implicit GEMM declines (3-D, odd geometry, ...). The BN and pointwise families take
// disjoint plans.
#include "solvers/bn_backward_solver.h"
#include "solvers/bn_training_solver.h"
#include "solvers/conv_direct_solver.h"
#include "solvers/conv_implicit_gemm.h"
#include "solvers/pointwise_solver.h"
#include "solvers/solver.h"

namespace hipfuse {

const std::vector<const Solver*>& solver_registry() {
  static const BnTrainingSolver bn_training;
  static const BnBackwardSolver bn_backward;
  static const PointwiseSolver pointwise;
  static const ConvImplicitGemmSolver conv_implicit_gemm;
  static const ConvDirectSolver conv_direct;
  static const std::vector<const Solver*> solvers = {&bn_training, &bn_backward, &pointwise, &conv_implicit_gemm,
                                                     &conv_direct};
  return solvers;
}

}  // namespace hipfuse
