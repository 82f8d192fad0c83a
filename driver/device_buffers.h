#pragma once
// Device buffers with guard regions and poisoning.
//
// Each allocation is [front guard | data | back guard]: the guards hold a known byte pattern
// that no kernel has reason to write, and are checked after the runs, so writes before or past
// the tensor are caught. Outputs are "poisoned" (a signalling-NaN pattern per element, see
// ref::poison_bits) before each verified run, so elements the kernel never writes are counted.
// The host-side helpers are separate functions, unit-tested without a GPU.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <hipfuse/reference/dtype.h>

namespace hipfuse::driver {

// Bytes of guard before and after each buffer; a multiple of 256 keeps the data as aligned
// as hipMalloc's own pointers.
inline constexpr std::size_t kGuardBytes = 4096;

// The guard pattern byte at offset i of a guard region: position-dependent, so a shifted or
// partial write cannot restore it, and never 0x00 / 0xFF (zero fills and all-ones masks).
std::uint8_t guard_byte(std::size_t i);
void fill_guard(std::uint8_t* region, std::size_t bytes);

struct GuardReport {
  std::size_t corrupted = 0;   // bytes that differ from the pattern
  std::size_t first = 0;       // offset of the first one (valid when corrupted > 0)
  std::size_t last = 0;        // offset of the last one
  bool ok() const { return corrupted == 0; }
};
GuardReport check_guard(const std::uint8_t* region, std::size_t bytes);

// Whole host buffer [front guard | bytes | back guard] of a given data size: the image a
// DeviceBuffer uploads. `data` is copied in the middle (may be null: left as poison for dtype).
std::vector<std::uint8_t> guarded_image(std::size_t data_bytes, const void* data, ref::DType dtype);
// Poison pattern for `elements` elements of `dtype`.
std::vector<std::uint8_t> poison_image(ref::DType dtype, std::size_t elements);

// How many buffer sets to rotate across timed runs so that each run finds its data out of L2:
// enough sets that the data of the other sets exceeds 3x the L2 size (at most 64), 1 when one
// set is already that large. `requested` > 0 is taken as is.
int buffer_sets_for(std::size_t working_set_bytes, std::size_t l2_bytes, int requested);

// A device allocation with guards. Movable, not copyable; frees on destruction.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  // Allocates data_bytes plus guards, writes the guards and poisons the data.
  DeviceBuffer(std::size_t data_bytes, ref::DType dtype, std::string name);
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer&& other) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  void* data() const { return base_ ? static_cast<std::uint8_t*>(base_) + kGuardBytes : nullptr; }
  std::size_t bytes() const { return bytes_; }
  const std::string& name() const { return name_; }

  // Writes are complete on the device when they return (the device is synchronised); reads
  // must follow a synchronisation of the stream the kernels ran on.
  void upload(const void* host, std::size_t bytes);
  void download(void* host, std::size_t bytes) const;
  void copy_from(const DeviceBuffer& other);             // device to device, same size
  void poison();                                         // signalling NaN in every element
  // Both guards: "" when intact, else a description ("3 bytes after op2.saved_mean overwritten").
  std::string check_guards() const;

 private:
  static void settle();  // waits for every copy to land (see device_buffers.cpp)
  void* base_ = nullptr;
  std::size_t bytes_ = 0;
  ref::DType dtype_ = ref::DType::f32;
  std::string name_;
};

}  // namespace hipfuse::driver
