#include "device_buffers.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include <fmt/format.h>

#include "gpu.h"

namespace hipfuse::driver {

std::uint8_t guard_byte(std::size_t i) {
  // 0x5A..0xA5-ish values mixed with the position; the table range [0x11, 0xEE] avoids 0x00/0xFF.
  const auto mixed = static_cast<std::uint8_t>((i * 0x9Du) ^ (i >> 8) ^ 0xA5u);
  return static_cast<std::uint8_t>(0x11 + mixed % 0xDE);
}

void fill_guard(std::uint8_t* region, std::size_t bytes) {
  for (std::size_t i = 0; i < bytes; ++i) region[i] = guard_byte(i);
}

GuardReport check_guard(const std::uint8_t* region, std::size_t bytes) {
  GuardReport r;
  for (std::size_t i = 0; i < bytes; ++i) {
    if (region[i] != guard_byte(i)) {
      if (r.corrupted++ == 0) r.first = i;
      r.last = i;
    }
  }
  return r;
}

std::vector<std::uint8_t> poison_image(ref::DType dtype, std::size_t elements) {
  std::vector<std::uint8_t> v(elements * ref::size_of(dtype));
  ref::write_poison(dtype, v.data(), static_cast<std::int64_t>(elements));
  return v;
}

std::vector<std::uint8_t> guarded_image(std::size_t data_bytes, const void* data, ref::DType dtype) {
  std::vector<std::uint8_t> v(2 * kGuardBytes + data_bytes);
  fill_guard(v.data(), kGuardBytes);
  fill_guard(v.data() + kGuardBytes + data_bytes, kGuardBytes);
  if (data) {
    std::memcpy(v.data() + kGuardBytes, data, data_bytes);
  } else {
    const std::size_t elements = data_bytes / ref::size_of(dtype);
    ref::write_poison(dtype, v.data() + kGuardBytes, static_cast<std::int64_t>(elements));
  }
  return v;
}

int buffer_sets_for(std::size_t working_set_bytes, std::size_t l2_bytes, int requested) {
  if (requested > 0) return requested;
  constexpr std::size_t kMaxSets = 64;
  const std::size_t target = 3 * l2_bytes;
  if (working_set_bytes == 0 || working_set_bytes >= target) return 1;
  const std::size_t sets = (target + working_set_bytes - 1) / working_set_bytes + 1;
  return static_cast<int>(std::min(sets, kMaxSets));
}

DeviceBuffer::DeviceBuffer(std::size_t data_bytes, ref::DType dtype, std::string name)
    : bytes_(data_bytes), dtype_(dtype), name_(std::move(name)) {
  const hipError_t e = hipMalloc(&base_, 2 * kGuardBytes + data_bytes);
  if (e != hipSuccess) {
    base_ = nullptr;
    hip_check(e, fmt::format("hipMalloc({} bytes for {})", data_bytes, name_).c_str());
  }
  const std::vector<std::uint8_t> image = guarded_image(data_bytes, nullptr, dtype);
  hip_check(hipMemcpy(base_, image.data(), image.size(), hipMemcpyHostToDevice), "hipMemcpy (guards)");
  settle();
}

// hipMemcpy from pageable memory may return before its DMA lands, and device-to-device copies
// do not wait at all; kernels then run on the handle's non-blocking stream, which does not
// order itself after the legacy stream. Every write through this class is therefore completed
// before it returns.
void DeviceBuffer::settle() { hip_check(hipDeviceSynchronize(), "hipDeviceSynchronize"); }

DeviceBuffer::~DeviceBuffer() {
  if (base_) (void)hipFree(base_);
}

DeviceBuffer::DeviceBuffer(DeviceBuffer&& o) noexcept
    : base_(std::exchange(o.base_, nullptr)), bytes_(o.bytes_), dtype_(o.dtype_), name_(std::move(o.name_)) {}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& o) noexcept {
  if (this != &o) {
    if (base_) (void)hipFree(base_);
    base_ = std::exchange(o.base_, nullptr);
    bytes_ = o.bytes_;
    dtype_ = o.dtype_;
    name_ = std::move(o.name_);
  }
  return *this;
}

void DeviceBuffer::upload(const void* host, std::size_t bytes) {
  if (bytes != bytes_) throw std::logic_error(fmt::format("upload to {}: {} bytes for a {}-byte buffer", name_, bytes, bytes_));
  hip_check(hipMemcpy(data(), host, bytes, hipMemcpyHostToDevice), "hipMemcpy (upload)");
  settle();
}

void DeviceBuffer::download(void* host, std::size_t bytes) const {
  if (bytes != bytes_) throw std::logic_error(fmt::format("download of {}: {} bytes from a {}-byte buffer", name_, bytes, bytes_));
  hip_check(hipMemcpy(host, data(), bytes, hipMemcpyDeviceToHost), "hipMemcpy (download)");
}

void DeviceBuffer::copy_from(const DeviceBuffer& other) {
  if (other.bytes_ != bytes_) throw std::logic_error("copy_from: size mismatch");
  hip_check(hipMemcpy(data(), other.data(), bytes_, hipMemcpyDeviceToDevice), "hipMemcpy (device to device)");
  settle();
}

void DeviceBuffer::poison() {
  const std::vector<std::uint8_t> p = poison_image(dtype_, bytes_ / ref::size_of(dtype_));
  hip_check(hipMemcpy(data(), p.data(), p.size(), hipMemcpyHostToDevice), "hipMemcpy (poison)");
  settle();
}

std::string DeviceBuffer::check_guards() const {
  std::vector<std::uint8_t> front(kGuardBytes), back(kGuardBytes);
  hip_check(hipMemcpy(front.data(), base_, kGuardBytes, hipMemcpyDeviceToHost), "hipMemcpy (guard)");
  hip_check(hipMemcpy(back.data(), static_cast<std::uint8_t*>(base_) + kGuardBytes + bytes_, kGuardBytes,
                      hipMemcpyDeviceToHost),
            "hipMemcpy (guard)");
  const GuardReport f = check_guard(front.data(), kGuardBytes);
  const GuardReport b = check_guard(back.data(), kGuardBytes);
  std::string out;
  if (!f.ok())
    out += fmt::format("{} byte(s) before {} overwritten (nearest at -{})", f.corrupted, name_,
                       kGuardBytes - f.last);
  if (!b.ok()) {
    if (!out.empty()) out += "; ";
    out += fmt::format("{} byte(s) after {} overwritten (first at +{})", b.corrupted, name_, b.first);
  }
  return out;
}

}  // namespace hipfuse::driver
