// The BN training tiling (lib/solvers/bn_tiling.cpp) without a GPU: which layouts the forward
// training kernel walks as plane groups (kernels/common/plane_groups.h), that their partials
// cover whole images, and where its threads hold their share of x from the reduce to the
// normalise (held_units), and where it exchanges partial moments in one launch (exchange); the
// kernels themselves run in tests/gpu/test_fused_bn_*.cpp.
#include <doctest/doctest.h>

#include "solvers/bn_tiling.h"
#include "test_solver_plans.h"

#include <algorithm>

using namespace hipfuse;
using namespace hipfuse::test;

namespace {

Target h200() {
  Target t;
  t.arch = "sm_90";
  t.multiprocessors = 132;
  return t;
}

BnTiling spatial_tiling(DataType type, std::vector<std::int64_t> lengths, Lay lay = Lay::nchw,
                        BnKernel kernel = BnKernel::forward_training,
                        BnPersistence persistence = BnPersistence::heuristic) {
  return choose_bn_tiling(packed(type, std::move(lengths), lay), BatchNormMode::spatial, h200(), kernel, persistence);
}

// Forward training without persistent blocks (the development variable's "0").
BnTiling without_persistence(DataType type, std::vector<std::int64_t> lengths) {
  return spatial_tiling(type, std::move(lengths), Lay::nchw, BnKernel::forward_training, BnPersistence::never);
}

// Partials of whole images that cover the rows exactly once.
void check_whole_images(const BnTiling& t, std::int64_t images, std::int64_t plane) {
  CHECK(t.rows == images * plane);
  CHECK(t.rows_per_partial % plane == 0);
  CHECK(static_cast<std::int64_t>(t.partials) * t.rows_per_partial >= t.rows);
  CHECK(static_cast<std::int64_t>(t.partials - 1) * t.rows_per_partial < t.rows);
}

}  // namespace

TEST_CASE("BN tiling: planes that 16-byte vectors do not tile walk as plane groups") {
  SUBCASE("fp32 2048x7x7: groups of 4 channels, one partial (512 blocks on a 528-block wave)") {
    const BnTiling t = spatial_tiling(DataType::float32, {64, 2048, 7, 7});
    CHECK(t.plane_groups);
    CHECK(t.tile_columns == 4);
    CHECK(t.threads() == 256);
    CHECK(t.partials == 1);
    CHECK(t.rows_per_partial == 64 * 49);
  }
  SUBCASE("fp32 64x7x7: few channels, several partials of whole images") {
    const BnTiling t = spatial_tiling(DataType::float32, {64, 64, 7, 7});
    CHECK(t.plane_groups);
    CHECK(t.partials > 1);
    check_whole_images(t, 64, 49);
  }
  SUBCASE("fp16 and bf16 14x14 (196 is not a multiple of 8): groups of 8") {
    for (DataType type : {DataType::half, DataType::bfloat16}) {
      const BnTiling t = spatial_tiling(type, {64, 1024, 14, 14});
      CHECK(t.plane_groups);
      CHECK(t.tile_columns == 8);
      check_whole_images(t, 64, 196);
    }
  }
}

TEST_CASE("BN tiling: forward training holds x where a thread's share of one partial fits") {
  // 2048x7x7: 5 images a pass of 256 threads (245 active), 64 images in 13 vectors a thread.
  // 1024x14x14: 64 x 196 rows a channel, 3136 vectors over 256 threads, 13 a thread. 6 in
  // registers, 7 in 28 KB of shared memory.
  for (const BnTiling& t :
       {spatial_tiling(DataType::float32, {64, 2048, 7, 7}), spatial_tiling(DataType::float32, {64, 1024, 14, 14})}) {
    CHECK(t.partials == 1);
    CHECK(t.threads() == 256);
    CHECK(t.held_units == 13);
    CHECK(t.held_in_registers == 6);
    CHECK(t.shared_bytes() == 7 * 256 * 16);
  }
  // A few images: everything in registers, no shared memory.
  const BnTiling few = spatial_tiling(DataType::float32, {8, 2048, 7, 7});
  CHECK(few.held_units == 2);
  CHECK(few.held_in_registers == 2);
  CHECK(few.shared_bytes() == 0);
  // Several partials of plane groups (fp16 7x7: groups of 8 channels; few channels), the
  // backward, channels-last and per-activation BN: no (longer planes: the exchange, below).
  for (const BnTiling& t :
       {spatial_tiling(DataType::half, {64, 2048, 7, 7}), spatial_tiling(DataType::float32, {64, 64, 7, 7}),
        spatial_tiling(DataType::float32, {64, 2048, 7, 7}, Lay::nchw, BnKernel::backward),
        spatial_tiling(DataType::float32, {64, 2048, 7, 7}, Lay::nhwc),
        choose_bn_tiling(packed(DataType::float32, {64, 2048, 7, 7}, Lay::nchw), BatchNormMode::per_activation,
                         h200(), BnKernel::forward_training)}) {
    CHECK(t.held_units == 0);
    CHECK(t.shared_bytes() == 0);
  }
}

TEST_CASE("BN tiling: forward training exchanges partials where a column does not fit one held partial") {
  // Vector-walked planes of x larger than the L2 (60 MiB unless the device says): partials small
  // enough to hold (4 vectors a thread in registers, 10 in 40 KB of shared memory: 14 x 4 x 256
  // fp32 rows), one launch.
  const auto check_exchange = [](const BnTiling& t, std::int64_t lanes) {
    CHECK(t.exchange);
    CHECK(t.partials > 1);
    CHECK(t.partials <= 132);  // a column's partials fit on the device together
    CHECK(t.launches() == 1);
    CHECK_FALSE(t.apply_merges);
    CHECK_FALSE(t.early_start);
    CHECK(t.rows_per_partial % 8 == 0);
    CHECK(static_cast<std::int64_t>(t.partials) * t.rows_per_partial >= t.rows);
    CHECK(static_cast<std::int64_t>(t.partials - 1) * t.rows_per_partial < t.rows);
    CHECK(static_cast<std::int64_t>(t.held_units) * lanes * t.tile_rows >= t.rows_per_partial);
    CHECK(t.held_in_registers == std::min(t.held_units, static_cast<int>(16 / lanes)));
    CHECK(t.shared_bytes() <= 40 * 1024);
    CHECK(t.counter_bytes() == static_cast<std::size_t>(t.columns + 2) * sizeof(unsigned));
  };
  const BnTiling c256 = spatial_tiling(DataType::float32, {64, 256, 56, 56});
  check_exchange(c256, 4);
  CHECK(c256.partials == 14);
  CHECK(c256.rows_per_partial == 14 * 4 * 256);
  CHECK(c256.held_units == 14);
  CHECK(c256.held_in_registers == 4);
  CHECK(c256.shared_bytes() == 10 * 256 * 16);
  // 49 vectors a thread in one partial; persistent blocks where the heuristic decides (below).
  const BnTiling c512 = without_persistence(DataType::float32, {64, 512, 28, 28});
  check_exchange(c512, 4);
  CHECK(c512.partials == 4);
  CHECK(c512.held_units == 13);
  check_exchange(spatial_tiling(DataType::half, {64, 256, 56, 56}), 8);
  check_exchange(spatial_tiling(DataType::bfloat16, {64, 64, 112, 112}), 8);
  const BnTiling c64 = spatial_tiling(DataType::float32, {64, 64, 112, 112});
  check_exchange(c64, 4);
  CHECK(c64.partials == 56);
  // The L2's size from the device where known: a 40 MB L2 takes the fp16 512x28x28 (51 MB).
  Target l2_40 = h200();
  l2_40.l2_bytes = 40u << 20;
  check_exchange(choose_bn_tiling(packed(DataType::half, {64, 512, 28, 28}, Lay::nchw), BatchNormMode::spatial, l2_40,
                                  BnKernel::forward_training, BnPersistence::never),
                 8);
  // Not: x within the L2 (fp16 512x28x28: 51 MB; few channels), one held partial fits (14x14),
  // plane groups (7x7), the backward, channels-last, per-activation, more partials than
  // multiprocessors (a long column, or a small device).
  Target small = h200();
  small.multiprocessors = 8;
  for (const BnTiling& t :
       {without_persistence(DataType::half, {64, 512, 28, 28}), spatial_tiling(DataType::float32, {64, 3, 40, 40}),
        spatial_tiling(DataType::float32, {64, 1024, 14, 14}), spatial_tiling(DataType::float32, {64, 2048, 7, 7}),
        spatial_tiling(DataType::float32, {64, 256, 56, 56}, Lay::nchw, BnKernel::backward),
        spatial_tiling(DataType::float32, {64, 256, 56, 56}, Lay::nhwc),
        choose_bn_tiling(packed(DataType::float32, {64, 256, 56, 56}, Lay::nchw), BatchNormMode::per_activation,
                         h200(), BnKernel::forward_training),
        spatial_tiling(DataType::float32, {512, 8, 64, 64}),
        choose_bn_tiling(packed(DataType::float32, {64, 256, 56, 56}, Lay::nchw), BatchNormMode::spatial, small,
                         BnKernel::forward_training)}) {
    CHECK_FALSE(t.exchange);
    CHECK(t.counter_bytes() == 0);
  }
}

TEST_CASE("BN tiling: forward training walks whole columns in persistent blocks where only 1024 threads hold one") {
  // One block of 1024 threads a multiprocessor, grid = the multiprocessors, each holding a whole
  // column: fp32 28x28 planes of 64 images, 12544 vectors a column, 13 a thread (6 in registers,
  // 7 in 112 KB of shared memory); fp16, 6272 vectors, 7 a thread (3 and 4).
  const auto check_persistent = [](const BnTiling& t, int units, int in_registers, std::int64_t lanes) {
    CHECK(t.persistent());
    CHECK(t.persistent_blocks == 132);
    CHECK(t.grid().x == 132);
    CHECK(t.grid().y == 1);
    CHECK(t.threads() == 1024);
    CHECK(t.tile_columns == 1);
    CHECK(t.partials == 1);
    CHECK(t.rows_per_partial == t.rows);
    CHECK(t.launches() == 1);
    CHECK_FALSE(t.exchange);
    CHECK_FALSE(t.early_start);
    CHECK(t.scratch_bytes(3) == 0);
    CHECK(t.counter_bytes() == 0);
    CHECK(t.held_units == units);
    CHECK(t.held_in_registers == in_registers);
    CHECK(t.shared_bytes() == static_cast<unsigned>((units - in_registers) * 1024 * 16));
    // The units cover the column's rows, none wholly past them.
    CHECK(static_cast<std::int64_t>(units) * lanes * 1024 >= t.rows);
    CHECK(static_cast<std::int64_t>(units - 1) * lanes * 1024 < t.rows);
  };
  check_persistent(spatial_tiling(DataType::float32, {64, 512, 28, 28}), 13, 6, 4);
  check_persistent(spatial_tiling(DataType::half, {64, 512, 28, 28}), 7, 3, 8);
  check_persistent(spatial_tiling(DataType::bfloat16, {64, 512, 28, 28}), 7, 3, 8);
  // Fewer columns than tiles of the grid: one block a column.
  const BnTiling forced = spatial_tiling(DataType::float32, {64, 100, 28, 28}, Lay::nchw, BnKernel::forward_training,
                                         BnPersistence::wherever_fits);
  CHECK(forced.persistent());
  CHECK(forced.persistent_blocks == 100);
  // Forced where the held walk of 256 threads fits: 3136 vectors a column, 4 a thread, all in registers.
  const BnTiling forced_14 = spatial_tiling(DataType::float32, {64, 1024, 14, 14}, Lay::nchw,
                                            BnKernel::forward_training, BnPersistence::wherever_fits);
  CHECK(forced_14.persistent());
  CHECK(forced_14.held_units == 4);
  CHECK(forced_14.held_in_registers == 4);
  CHECK(forced_14.shared_bytes() == 0);
  // Not: the held walk of 256 threads fits (14x14), plane groups (7x7), a column too long for a
  // block (fp32 56x56: 49 vectors a thread), fewer than two columns a multiprocessor, a device
  // whose blocks may have less shared memory, the backward, channels-last, per-activation, or
  // the development variable's "0".
  Target small_shared = h200();
  small_shared.device = 0;
  small_shared.shared_per_block = 128 * 1024;
  for (const BnTiling& t :
       {spatial_tiling(DataType::float32, {64, 1024, 14, 14}), spatial_tiling(DataType::float32, {64, 2048, 7, 7}),
        spatial_tiling(DataType::float32, {64, 256, 56, 56}), spatial_tiling(DataType::float32, {64, 200, 28, 28}),
        choose_bn_tiling(packed(DataType::float32, {64, 512, 28, 28}, Lay::nchw), BatchNormMode::spatial, small_shared,
                         BnKernel::forward_training),
        spatial_tiling(DataType::float32, {64, 512, 28, 28}, Lay::nchw, BnKernel::backward),
        spatial_tiling(DataType::float32, {64, 512, 28, 28}, Lay::nhwc),
        choose_bn_tiling(packed(DataType::float32, {64, 512, 28, 28}, Lay::nchw), BatchNormMode::per_activation,
                         h200(), BnKernel::forward_training),
        without_persistence(DataType::float32, {64, 512, 28, 28})}) {
    CHECK_FALSE(t.persistent());
    CHECK(t.persistent_blocks == 0);
  }
  // The fp16 column fits the smaller device (4 units, 64 KB).
  CHECK(choose_bn_tiling(packed(DataType::half, {64, 512, 28, 28}, Lay::nchw), BatchNormMode::spatial, small_shared,
                         BnKernel::forward_training)
            .persistent());
}

TEST_CASE("BN tiling: the other layouts keep their walks") {
  // Planes vectors tile: 16-byte vectors along the plane, a column a block.
  const BnTiling fp32_14 = spatial_tiling(DataType::float32, {64, 1024, 14, 14});
  CHECK_FALSE(fp32_14.plane_groups);
  CHECK(fp32_14.tile_columns == 1);
  // Channels that do not fill a group, planes longer than a block's threads, planes smaller
  // than a vector, channels-last data, per-activation BN.
  CHECK_FALSE(spatial_tiling(DataType::float32, {64, 3, 7, 7}).plane_groups);
  CHECK_FALSE(spatial_tiling(DataType::float32, {8, 64, 17, 17}).plane_groups);
  CHECK_FALSE(spatial_tiling(DataType::half, {8, 64, 2, 3}).plane_groups);
  CHECK_FALSE(spatial_tiling(DataType::float32, {64, 2048, 7, 7}, Lay::nhwc).plane_groups);
  CHECK_FALSE(choose_bn_tiling(packed(DataType::float32, {64, 2048, 7, 7}, Lay::nchw), BatchNormMode::per_activation,
                               h200(), BnKernel::forward_training)
                  .plane_groups);
  // The backward keeps its scalar walk (measured faster there), a channel a block.
  const BnTiling backward = spatial_tiling(DataType::float32, {64, 2048, 7, 7}, Lay::nchw, BnKernel::backward);
  CHECK_FALSE(backward.plane_groups);
  CHECK(backward.tile_columns == 1);
  // A batch stride that would put groups off 16-byte boundaries.
  TensorDesc padded = packed(DataType::float32, {8, 64, 7, 7}, Lay::nchw);
  padded.strides[0] = 64 * 49 + 2;
  CHECK_FALSE(choose_bn_tiling(padded, BatchNormMode::spatial, h200(), BnKernel::forward_training).plane_groups);
  padded.strides[0] = 64 * 49 + 4;
  CHECK(choose_bn_tiling(padded, BatchNormMode::spatial, h200(), BnKernel::forward_training).plane_groups);
}

TEST_CASE("BN tiling: phases after the first start early on sm_90, not before it") {
  const BnTiling several = spatial_tiling(DataType::float32, {64, 64, 7, 7});
  REQUIRE(several.partials > 1);
  CHECK(several.early_start);
  const BnTiling one = spatial_tiling(DataType::float32, {64, 2048, 7, 7});
  REQUIRE(one.partials == 1);
  CHECK_FALSE(one.early_start);  // a single launch: nothing to overlap
  Target ampere = h200();
  ampere.arch = "sm_80";
  CHECK_FALSE(choose_bn_tiling(packed(DataType::float32, {64, 64, 7, 7}, Lay::nchw), BatchNormMode::spatial, ampere,
                               BnKernel::forward_training)
                  .early_start);
}
