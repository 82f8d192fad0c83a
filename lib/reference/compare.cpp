#include "hipfuse/reference/compare.h"

#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>
#include <utility>
#include <vector>

namespace hipfuse::ref {
namespace {

bool same_nonfinite(double g, double r) { return (std::isnan(g) && std::isnan(r)) || g == r; }

std::string format(const char* fmt, double a, double b = 0, double c = 0, double d = 0) {
    char buf[160];
    std::snprintf(buf, sizeof buf, fmt, a, b, c, d);
    return buf;
}

}  // namespace

Tolerance exact_tolerance() { return Tolerance{0.0, 0.0}; }

// Why these numbers (u = unit roundoff = 2^-24 for fp32; inputs are exact in their dtype and this
// reference is exact to ~1e-16, so every difference is the kernel's own rounding):
//  - fp32 accumulation of L products: each addition errs by <= u relative to the partial sum; with
//    random signs the errors add like a random walk, ~sqrt(L) * u, and partial sums of zero-mean
//    data are about as large as the result. 4 * sqrt(L) * u covers that with margin.
//  - element-wise work in fp32 (the fp32 store, expf/tanhf/powf/rsqrtf, parameters converted to
//    float) costs a few ulp per op: 16 u for a short chain.
//    BN inference runs folded, y = v * s + (bias - mean * s) with s = scale * rsqrt(var + eps)
//    (kernels/common/pointwise_chain.h): s errs by ~3 u (rsqrtf's 2 ulp and the product), so y
//    errs by ~3 u * (|v s| + |mean s|) + 2 u |y|. Without cancellation that is ~5 u of |y|; when
//    v is near the mean, |v s| and |mean s| are of the order of the spread of y (rms(r) in the
//    per-element bound below) for the parameters BN sees in practice (|mean| within a few
//    standard deviations of v), so the same 16 u covers it.
//    fp32: nrms = (16 + 4 sqrt(L)) * 2^-24   (L = 1: 1.2e-6; L = 576: 6.7e-6; L = 4608: 1.7e-5)
//  - fp16 / bf16 outputs: the fp32 result is rounded once at the store, relative error <= 2^-11
//    (fp16, 11 significant bits) or 2^-8 (bf16, 8 bits) per element, hence also in the norm; the
//    fp32 terms above add on top.
//    fp16: nrms = 2^-11 + fp32 term (~4.9e-4);  bf16: nrms = 2^-8 + fp32 term (~3.9e-3)
//  - max_abs_floor = the dtype's smallest normal number: below it the format has no relative
//    precision and GPUs flush fp32 denormals to zero.
Tolerance default_tolerance(DType dtype, std::int64_t reduction_length) {
    if (reduction_length < 1) reduction_length = 1;
    const double fp32 = (16.0 + 4.0 * std::sqrt(static_cast<double>(reduction_length))) * std::ldexp(1.0, -24);
    switch (dtype) {
    case DType::f32: return Tolerance{fp32, std::ldexp(1.0, -126)};
    case DType::f16: return Tolerance{std::ldexp(1.0, -11) + fp32, std::ldexp(1.0, -14)};
    case DType::bf16: return Tolerance{std::ldexp(1.0, -8) + fp32, std::ldexp(1.0, -126)};
    }
    throw std::invalid_argument("default_tolerance: unknown dtype");
}

const char* name(Verdict::Kind kind) {
    switch (kind) {
    case Verdict::passed: return "PASSED";
    case Verdict::failed: return "FAILED";
    case Verdict::mistrusted: return "MISTRUSTED";
    }
    return "?";
}

Verdict compare(const double* gpu, const double* ref_values, std::int64_t count, const Tolerance& tolerance,
                const std::vector<Alternate>& alternates) {
    if (count < 0) throw std::invalid_argument("compare: negative count");
    Verdict v;
    v.checked = count;

    // The reference each element is judged against: its own value, or the nearest alternate.
    std::vector<std::pair<std::int64_t, double>> chosen;  // (index, value), sorted by index
    for (const Alternate& a : alternates) {
        if (a.index < 0 || a.index >= count) throw std::out_of_range("compare: alternate index out of range");
        if (!chosen.empty() && a.index < chosen.back().first) throw std::invalid_argument("compare: alternates unsorted");
        if (chosen.empty() || chosen.back().first != a.index) chosen.emplace_back(a.index, ref_values[a.index]);
        double& best = chosen.back().second;
        if (std::fabs(gpu[a.index] - a.value) < std::fabs(gpu[a.index] - best)) best = a.value;
    }
    v.alternates = static_cast<std::int64_t>(chosen.size());
    std::size_t next = 0;  // cursor into `chosen`, restarted by each pass over the elements
    const auto ref_at = [&](std::int64_t i) {
        if (next < chosen.size() && chosen[next].first == i) return chosen[next++].second;
        return ref_values[i];
    };
    const auto ref_value = [&](std::int64_t i) {  // random access, for the message
        for (const auto& [index, value] : chosen)
            if (index == i) return value;
        return ref_values[i];
    };

    double sum_sq_diff = 0.0, sum_sq_ref = 0.0;
    std::int64_t finite = 0, nonzero = 0, first_mismatch = -1;
    bool constant = true;
    for (std::int64_t i = 0; i < count; ++i) {
        const double g = gpu[i], r = ref_at(i);
        if (r != 0.0) ++nonzero;
        if (constant && !same_nonfinite(r, ref_values[0])) constant = false;
        if (!std::isfinite(g) || !std::isfinite(r)) {
            if (!same_nonfinite(g, r)) {
                if (v.nan_inf_mismatches++ == 0) first_mismatch = i;
            }
            continue;
        }
        const double d = std::fabs(g - r);
        sum_sq_diff += d * d;
        sum_sq_ref += r * r;
        ++finite;
        if (d > v.max_abs_error || v.max_error_index < 0) {
            v.max_abs_error = d;
            v.max_error_index = i;
        }
    }
    v.nonzero_fraction = count ? static_cast<double>(nonzero) / static_cast<double>(count) : 0.0;
    if (sum_sq_ref > 0.0) {
        v.nrms_error = std::sqrt(sum_sq_diff / sum_sq_ref);
    } else {  // all-zero reference: only an all-zero answer has no relative error
        v.nrms_error = sum_sq_diff == 0.0 ? 0.0 : std::numeric_limits<double>::infinity();
    }

    const double rms_ref = finite ? std::sqrt(sum_sq_ref / static_cast<double>(finite)) : 0.0;
    std::int64_t first_out = -1;
    next = 0;
    for (std::int64_t i = 0; i < count; ++i) {
        const double g = gpu[i], r = ref_at(i);
        if (!std::isfinite(g) || !std::isfinite(r)) continue;
        const double bound = tolerance.max_abs_floor + element_factor * tolerance.nrms * (std::fabs(r) + rms_ref);
        if (std::fabs(g - r) > bound) {
            if (v.elements_out_of_bounds++ == 0) first_out = i;
        }
    }

    const bool norm_ok = v.nrms_error <= tolerance.nrms || v.max_abs_error <= tolerance.max_abs_floor;
    if (v.nan_inf_mismatches > 0 || v.elements_out_of_bounds > 0 || !norm_ok) {
        v.kind = Verdict::failed;
    } else if (count == 0 || 1.0 - v.nonzero_fraction > mistrust_zero_fraction || (count >= 2 && constant)) {
        v.kind = Verdict::mistrusted;
    } else {
        v.kind = Verdict::passed;
    }

    std::string m = name(v.kind);
    m += format(": nrms %.3g (tol %.3g), max abs %.3g", v.nrms_error, tolerance.nrms, v.max_abs_error);
    if (v.max_error_index >= 0) {
        m += format(" at %.0f (gpu %.9g, ref %.9g)", static_cast<double>(v.max_error_index), gpu[v.max_error_index],
                    ref_value(v.max_error_index));
    }
    if (v.elements_out_of_bounds > 0) {
        m += format(", %.0f elements over the per-element bound (first at %.0f: gpu %.9g, ref %.9g)",
                    static_cast<double>(v.elements_out_of_bounds), static_cast<double>(first_out), gpu[first_out],
                    ref_value(first_out));
    }
    if (v.nan_inf_mismatches > 0) {
        m += format(", %.0f NaN/Inf mismatches (first at %.0f: gpu %g, ref %g)",
                    static_cast<double>(v.nan_inf_mismatches), static_cast<double>(first_mismatch),
                    gpu[first_mismatch], ref_value(first_mismatch));
    }
    if (v.alternates > 0) {
        m += format(", %.0f at an activation-derivative jump (either side accepted)", static_cast<double>(v.alternates));
    }
    m += format(", %.0f checked, %.1f%% of the reference nonzero", static_cast<double>(count),
                100.0 * v.nonzero_fraction);
    if (v.kind == Verdict::mistrusted) {
        m += count == 0 ? " (nothing checked)"
             : constant && count >= 2 ? " (reference is constant)"
                                      : " (reference is over 90% zeros)";
    }
    v.message = m;
    return v;
}

}  // namespace hipfuse::ref
