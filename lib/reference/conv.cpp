#include "hipfuse/reference/conv.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "parallel.h"

namespace hipfuse::ref {
namespace {

// Every problem viewed as 3 spatial dims (D, H, W); missing leading dims have length 1.
struct Problem {
    std::int64_t n = 0, c = 0, k = 0, groups = 1, c_per_group = 0, k_per_group = 0;
    std::int64_t in[3] = {1, 1, 1}, out[3] = {1, 1, 1}, filter[3] = {1, 1, 1};
    std::int64_t pad[3] = {0, 0, 0}, stride[3] = {1, 1, 1}, dilation[3] = {1, 1, 1};

    std::int64_t in_size() const { return in[0] * in[1] * in[2]; }
    std::int64_t out_size() const { return out[0] * out[1] * out[2]; }
    std::int64_t filter_size() const { return filter[0] * filter[1] * filter[2]; }
};

[[noreturn]] void fail(const std::string& what) { throw std::invalid_argument("conv_forward: " + what); }

std::int64_t floor_div(std::int64_t a, std::int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }
std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return -floor_div(-a, b); }

std::int64_t param(const std::vector<std::int64_t>& v, std::size_t d, std::int64_t fallback) {
    if (v.empty()) return fallback;
    return v[d];
}

Problem resolve(const std::vector<std::int64_t>& x, const std::vector<std::int64_t>& w, const ConvGeometry& g) {
    if (x.size() < 3 || x.size() > 5) fail("x must have 3 to 5 dims {N, C, spatial...}, got " + std::to_string(x.size()));
    if (w.size() != x.size()) fail("w rank " + std::to_string(w.size()) + " != x rank " + std::to_string(x.size()));
    const std::size_t spatial = x.size() - 2;
    for (const auto* v : {&g.pad, &g.stride, &g.dilation}) {
        if (!v->empty() && v->size() != spatial) fail("pad/stride/dilation need one value per spatial dim");
    }
    Problem p;
    p.n = x[0];
    p.c = x[1];
    p.k = w[0];
    p.groups = g.groups;
    if (p.groups < 1) fail("groups must be >= 1");
    if (p.c % p.groups != 0 || w[1] != p.c / p.groups) {
        fail("channels do not match: x C = " + std::to_string(p.c) + ", w C/groups = " + std::to_string(w[1]) +
             ", groups = " + std::to_string(p.groups));
    }
    if (p.k % p.groups != 0) fail("K = " + std::to_string(p.k) + " is not a multiple of groups");
    p.c_per_group = w[1];
    p.k_per_group = p.k / p.groups;
    for (std::size_t d = 0; d < spatial; ++d) {
        const std::size_t i = 3 - spatial + d;  // right-align into (D, H, W)
        p.in[i] = x[2 + d];
        p.filter[i] = w[2 + d];
        p.pad[i] = param(g.pad, d, 0);
        p.stride[i] = param(g.stride, d, 1);
        p.dilation[i] = param(g.dilation, d, 1);
        if (p.pad[i] < 0 || p.stride[i] < 1 || p.dilation[i] < 1 || p.filter[i] < 1) {
            fail("need pad >= 0, stride >= 1, dilation >= 1, filter >= 1");
        }
        const std::int64_t span = p.dilation[i] * (p.filter[i] - 1) + 1;
        const std::int64_t padded = p.in[i] + 2 * p.pad[i] - span;
        if (padded < 0) fail("filter (dilated) larger than padded input in spatial dim " + std::to_string(d));
        p.out[i] = padded / p.stride[i] + 1;
    }
    return p;
}

// Output positions o in [lo, hi) whose input coordinate o*stride + offset lies in [0, in), for
// offset = tap*dilation - pad. Empty when lo >= hi.
struct Range {
    std::int64_t lo, hi, offset;
};

Range valid_range(const Problem& p, int d, std::int64_t tap) {
    const std::int64_t offset = tap * p.dilation[d] - p.pad[d];
    return Range{std::max<std::int64_t>(0, ceil_div(-offset, p.stride[d])),
                 std::min<std::int64_t>(p.out[d], floor_div(p.in[d] - 1 - offset, p.stride[d]) + 1), offset};
}

// out[i] += sum_t w[t] * in[i * stride + t * dilation] for i in [0, count): every tap in range.
// With the tap count a compile-time constant the taps unroll and the i loop vectorises
// (__restrict: no runtime alias checks); one pass over the output row serves all taps.
template <int Taps>
void row_interior(double* __restrict out, const double* __restrict in, std::int64_t count, std::int64_t stride,
                  std::int64_t dilation, const double* w) {
    double wr[Taps];
    for (int t = 0; t < Taps; ++t) wr[t] = w[t];
    if (stride == 1) {
        // Blocks of 4 with a fixed-size inner loop: vectorised even at -O2, whose cost model
        // refuses loops that need a scalar epilogue.
        std::int64_t i = 0;
        for (; i + 4 <= count; i += 4) {
            double acc[4] = {out[i], out[i + 1], out[i + 2], out[i + 3]};
            for (int t = 0; t < Taps; ++t) {
                const double* src = in + i + t * dilation;
                for (int j = 0; j < 4; ++j) acc[j] += wr[t] * src[j];
            }
            for (int j = 0; j < 4; ++j) out[i + j] = acc[j];
        }
        for (; i < count; ++i) {
            double acc = out[i];
            for (int t = 0; t < Taps; ++t) acc += wr[t] * in[i + t * dilation];
            out[i] = acc;
        }
    } else {
        for (std::int64_t i = 0; i < count; ++i) {
            double acc = out[i];
            for (int t = 0; t < Taps; ++t) acc += wr[t] * in[i * stride + t * dilation];
            out[i] = acc;
        }
    }
}

void row_interior_any(double* __restrict out, const double* __restrict in, std::int64_t count, std::int64_t stride,
                      std::int64_t dilation, const double* w, std::int64_t taps) {
    switch (taps) {
    case 1: return row_interior<1>(out, in, count, stride, dilation, w);
    case 2: return row_interior<2>(out, in, count, stride, dilation, w);
    case 3: return row_interior<3>(out, in, count, stride, dilation, w);
    case 4: return row_interior<4>(out, in, count, stride, dilation, w);
    case 5: return row_interior<5>(out, in, count, stride, dilation, w);
    case 7: return row_interior<7>(out, in, count, stride, dilation, w);
    default:
        for (std::int64_t t = 0; t < taps; ++t) {
            const double wt = w[t];
            for (std::int64_t i = 0; i < count; ++i) out[i] += wt * in[i * stride + t * dilation];
        }
    }
}

// One output row along W from one input row and one filter row: interior through the fused
// kernel, the few edge outputs (where some taps fall into the padding) one at a time.
void conv_row(const Problem& p, double* out, const double* in, const double* w) {
    const std::int64_t taps = p.filter[2], stride = p.stride[2], dilation = p.dilation[2];
    // Offsets grow with the tap: tap 0 has the last start, the last tap the first end.
    const Range first = valid_range(p, 2, 0);
    const std::int64_t lo = first.lo, offset = first.offset;
    const std::int64_t hi = std::max(lo, valid_range(p, 2, taps - 1).hi);
    auto edge = [&](std::int64_t o) {
        double acc = out[o];
        for (std::int64_t t = 0; t < taps; ++t) {
            const std::int64_t iw = o * stride + offset + t * dilation;
            if (iw >= 0 && iw < p.in[2]) acc += w[t] * in[iw];
        }
        out[o] = acc;
    };
    for (std::int64_t o = 0; o < std::min(lo, p.out[2]); ++o) edge(o);
    if (lo < hi) row_interior_any(out + lo, in + lo * stride + offset, hi - lo, stride, dilation, w, taps);
    for (std::int64_t o = hi; o < p.out[2]; ++o) edge(o);
}

// One (n, k) output plane.
void conv_plane(const Problem& p, const double* x, const double* w, double* y, std::int64_t n, std::int64_t k) {
    const std::int64_t group = k / p.k_per_group;
    double* out = y + (n * p.k + k) * p.out_size();
    for (std::int64_t cg = 0; cg < p.c_per_group; ++cg) {
        const std::int64_t c = group * p.c_per_group + cg;
        const double* in = x + (n * p.c + c) * p.in_size();
        const double* wk = w + (k * p.c_per_group + cg) * p.filter_size();
        for (std::int64_t fd = 0; fd < p.filter[0]; ++fd) {
            const Range rd = valid_range(p, 0, fd);
            for (std::int64_t fh = 0; fh < p.filter[1]; ++fh) {
                const Range rh = valid_range(p, 1, fh);
                const double* w_row = wk + (fd * p.filter[1] + fh) * p.filter[2];
                for (std::int64_t od = rd.lo; od < rd.hi; ++od) {
                    const std::int64_t id = od * p.stride[0] + rd.offset;
                    for (std::int64_t oh = rh.lo; oh < rh.hi; ++oh) {
                        const std::int64_t ih = oh * p.stride[1] + rh.offset;
                        conv_row(p, out + (od * p.out[1] + oh) * p.out[2], in + (id * p.in[1] + ih) * p.in[2], w_row);
                    }
                }
            }
        }
    }
}

}  // namespace

std::vector<std::int64_t> conv_output_lengths(const std::vector<std::int64_t>& x_lengths,
                                              const std::vector<std::int64_t>& w_lengths,
                                              const ConvGeometry& geometry) {
    const Problem p = resolve(x_lengths, w_lengths, geometry);
    std::vector<std::int64_t> y{p.n, p.k};
    for (std::size_t d = 3 - (x_lengths.size() - 2); d < 3; ++d) y.push_back(p.out[d]);
    return y;
}

Tensor conv_forward(const Tensor& x, const Tensor& w, const ConvGeometry& geometry) {
    const Problem p = resolve(x.lengths, w.lengths, geometry);
    if (x.numel() != element_count(x.lengths) || w.numel() != element_count(w.lengths)) {
        fail("tensor data size does not match its lengths");
    }
    Tensor y = make_tensor(conv_output_lengths(x.lengths, w.lengths, geometry));
    const double* xd = x.data.data();
    const double* wd = w.data.data();
    double* yd = y.data.data();
    detail::parallel_for(p.n * p.k, [&](std::int64_t item) { conv_plane(p, xd, wd, yd, item / p.k, item % p.k); });
    return y;
}

double conv_forward_at(const Tensor& x, const Tensor& w, const ConvGeometry& geometry,
                       const std::vector<std::int64_t>& y_index) {
    const Problem p = resolve(x.lengths, w.lengths, geometry);
    if (y_index.size() != x.lengths.size()) fail("y_index rank does not match");
    std::int64_t o[3] = {0, 0, 0};
    for (std::size_t d = 2; d < y_index.size(); ++d) o[3 - (y_index.size() - d)] = y_index[d];
    const std::int64_t n = y_index[0], k = y_index[1];
    for (int d = 0; d < 3; ++d) {
        if (o[d] < 0 || o[d] >= p.out[d]) throw std::out_of_range("conv_forward_at: index out of range");
    }
    if (n < 0 || n >= p.n || k < 0 || k >= p.k) throw std::out_of_range("conv_forward_at: index out of range");
    const std::int64_t group = k / p.k_per_group;
    double sum = 0.0;
    for (std::int64_t cg = 0; cg < p.c_per_group; ++cg) {
        const std::int64_t c = group * p.c_per_group + cg;
        for (std::int64_t fd = 0; fd < p.filter[0]; ++fd) {
            const std::int64_t id = o[0] * p.stride[0] - p.pad[0] + fd * p.dilation[0];
            if (id < 0 || id >= p.in[0]) continue;
            for (std::int64_t fh = 0; fh < p.filter[1]; ++fh) {
                const std::int64_t ih = o[1] * p.stride[1] - p.pad[1] + fh * p.dilation[1];
                if (ih < 0 || ih >= p.in[1]) continue;
                for (std::int64_t fw = 0; fw < p.filter[2]; ++fw) {
                    const std::int64_t iw = o[2] * p.stride[2] - p.pad[2] + fw * p.dilation[2];
                    if (iw < 0 || iw >= p.in[2]) continue;
                    const double xv = x[(((n * p.c + c) * p.in[0] + id) * p.in[1] + ih) * p.in[2] + iw];
                    const double wv = w[(((k * p.c_per_group + cg) * p.filter[0] + fd) * p.filter[1] + fh) * p.filter[2] + fw];
                    sum += xv * wv;
                }
            }
        }
    }
    return sum;
}

double conv_forward_flops(const std::vector<std::int64_t>& x_lengths, const std::vector<std::int64_t>& w_lengths,
                          const ConvGeometry& geometry) {
    const Problem p = resolve(x_lengths, w_lengths, geometry);
    return 2.0 * static_cast<double>(p.n) * static_cast<double>(p.k) * static_cast<double>(p.out_size()) *
           static_cast<double>(p.c_per_group) * static_cast<double>(p.filter_size());
}

}  // namespace hipfuse::ref
