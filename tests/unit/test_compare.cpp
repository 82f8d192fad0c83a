// compare() verdicts and default tolerances of the CPU reference.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "hipfuse/reference/compare.h"
#include "hipfuse/reference/fill.h"

using namespace hipfuse::ref;

namespace {

std::vector<double> random_values(std::int64_t n, std::uint64_t seed) {
    Tensor t = make_tensor({1, 1, 1, n});
    fill_uniform(t, -1.0, 1.0, seed, DType::f32);
    return t.data;
}

Verdict check(const std::vector<double>& gpu, const std::vector<double>& ref, const Tolerance& tol) {
    return compare(gpu.data(), ref.data(), static_cast<std::int64_t>(ref.size()), tol);
}

const double qnan = std::numeric_limits<double>::quiet_NaN();
const double inf = std::numeric_limits<double>::infinity();

}  // namespace

TEST_CASE("reference compare: default tolerances") {
    const double u = std::ldexp(1.0, -24);
    CHECK(default_tolerance(DType::f32, 1).nrms == doctest::Approx(20 * u));
    CHECK(default_tolerance(DType::f32, 576).nrms == doctest::Approx((16 + 4 * 24) * u));
    CHECK(default_tolerance(DType::f16, 1).nrms == doctest::Approx(std::ldexp(1.0, -11) + 20 * u));
    CHECK(default_tolerance(DType::bf16, 1).nrms == doctest::Approx(std::ldexp(1.0, -8) + 20 * u));
    CHECK(default_tolerance(DType::f32, 4608).nrms > default_tolerance(DType::f32, 576).nrms);
    CHECK(default_tolerance(DType::f16, 1).max_abs_floor == std::ldexp(1.0, -14));
    CHECK(exact_tolerance().nrms == 0.0);
    CHECK(exact_tolerance().max_abs_floor == 0.0);
}

TEST_CASE("reference compare: passes rounding-level differences") {
    const auto ref = random_values(10000, 1);
    SUBCASE("fp32: a few ulp") {
        std::vector<double> gpu = ref;
        for (std::size_t i = 0; i < gpu.size(); i += 3) gpu[i] *= 1.0 + 3e-7;
        const Verdict v = check(gpu, ref, default_tolerance(DType::f32, 1));
        CHECK(v.kind == Verdict::passed);
        CHECK(v.ok());
        CHECK(v.checked == 10000);
        CHECK(v.nrms_error > 0.0);
        CHECK(v.message.rfind("PASSED", 0) == 0);
    }
    SUBCASE("fp16 and bf16 stores pass their tolerance, bf16 fails fp16's") {
        std::vector<double> g16 = ref, gbf = ref;
        for (double& v : g16) v = round_to(DType::f16, v);
        for (double& v : gbf) v = round_to(DType::bf16, v);
        CHECK(check(g16, ref, default_tolerance(DType::f16, 1)).kind == Verdict::passed);
        CHECK(check(gbf, ref, default_tolerance(DType::bf16, 1)).kind == Verdict::passed);
        CHECK(check(gbf, ref, default_tolerance(DType::f16, 1)).kind == Verdict::failed);
        CHECK(check(g16, ref, default_tolerance(DType::f32, 1)).kind == Verdict::failed);
    }
}

TEST_CASE("reference compare: failures") {
    const auto ref = random_values(10000, 2);
    SUBCASE("every element slightly off") {
        std::vector<double> gpu = ref;
        for (double& v : gpu) v *= 1.0 + 1e-3;
        const Verdict v = check(gpu, ref, default_tolerance(DType::f32, 1));
        CHECK(v.kind == Verdict::failed);
        CHECK(v.nrms_error == doctest::Approx(1e-3));
        CHECK(v.message.find("FAILED") == 0);
    }
    SUBCASE("one grossly wrong element hides in the norm but not in the per-element bound") {
        std::vector<double> gpu = ref;
        gpu[7777] = -gpu[7777];
        const Tolerance tol = default_tolerance(DType::bf16, 1);
        const Verdict v = check(gpu, ref, tol);
        CHECK(v.nrms_error < tol.nrms * 10);  // the norm alone would barely notice
        CHECK(v.kind == Verdict::failed);
        CHECK(v.elements_out_of_bounds == 1);
        CHECK(v.max_error_index == 7777);
        CHECK(v.max_abs_error == doctest::Approx(2 * std::fabs(ref[7777])));
    }
    SUBCASE("exact mode rejects one ulp") {
        std::vector<double> gpu = ref;
        CHECK(check(gpu, ref, exact_tolerance()).kind == Verdict::passed);
        gpu[5] = std::nextafter(static_cast<float>(gpu[5]), 2.0f);
        const Verdict v = check(gpu, ref, exact_tolerance());
        CHECK(v.kind == Verdict::failed);
        CHECK(v.max_error_index == 5);
    }
}

TEST_CASE("reference compare: NaN and Inf are judged apart") {
    const std::vector<double> ref{1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
    const Tolerance tol = default_tolerance(DType::f32, 1);
    SUBCASE("NaN where the reference is finite fails") {
        std::vector<double> gpu = ref;
        gpu[3] = qnan;
        const Verdict v = check(gpu, ref, tol);
        CHECK(v.kind == Verdict::failed);
        CHECK(v.nan_inf_mismatches == 1);
        CHECK(v.nrms_error == 0.0);  // the finite elements agree
        CHECK(v.message.find("NaN/Inf") != std::string::npos);
    }
    SUBCASE("finite where the reference is Inf fails, as does the opposite infinity") {
        std::vector<double> r = ref, gpu = ref;
        r[0] = inf;
        gpu[0] = 1e30;
        r[1] = inf;
        gpu[1] = -inf;
        CHECK(check(gpu, r, tol).nan_inf_mismatches == 2);
        CHECK(check(gpu, r, tol).kind == Verdict::failed);
    }
    SUBCASE("matching non-finite values agree") {
        std::vector<double> r = ref;
        r[2] = qnan;
        r[4] = -inf;
        const std::vector<double> gpu = r;
        const Verdict v = check(gpu, r, tol);
        CHECK(v.kind == Verdict::passed);
        CHECK(v.nan_inf_mismatches == 0);
    }
}

TEST_CASE("reference compare: mistrusted references") {
    const Tolerance tol = default_tolerance(DType::f32, 1);
    SUBCASE("more than 90% zeros") {
        std::vector<double> ref(100, 0.0);
        for (int i = 0; i < 9; ++i) ref[static_cast<std::size_t>(i * 11)] = i + 1.0;
        const Verdict v = check(ref, ref, tol);
        CHECK(v.kind == Verdict::mistrusted);
        CHECK(v.nonzero_fraction == doctest::Approx(0.09));
        CHECK(v.message.find("MISTRUSTED") == 0);
        ref[99] = 5.0;  // 10% nonzero is enough
        CHECK(check(ref, ref, tol).kind == Verdict::passed);
    }
    SUBCASE("all zeros, and a wrong answer still fails") {
        const std::vector<double> ref(50, 0.0);
        std::vector<double> gpu = ref;
        CHECK(check(gpu, ref, tol).kind == Verdict::mistrusted);
        gpu[10] = 0.5;
        const Verdict v = check(gpu, ref, tol);
        CHECK(v.kind == Verdict::failed);
        CHECK(std::isinf(v.nrms_error));
    }
    SUBCASE("constant reference") {
        const std::vector<double> ref(20, 3.0);
        CHECK(check(ref, ref, tol).kind == Verdict::mistrusted);
    }
    SUBCASE("nothing checked") {
        CHECK(compare(nullptr, nullptr, 0, tol).kind == Verdict::mistrusted);
    }
    CHECK(std::string(name(Verdict::mistrusted)) == "MISTRUSTED");
}

TEST_CASE("reference compare: the absolute floor absorbs flushed denormals") {
    std::vector<double> ref = random_values(100, 3);
    ref[0] = 1e-40;  // an fp32 denormal that a flush-to-zero kernel writes as 0
    std::vector<double> gpu = ref;
    gpu[0] = 0.0;
    CHECK(check(gpu, ref, default_tolerance(DType::f32, 1)).kind == Verdict::passed);
}

TEST_CASE("reference compare: an element with an alternate is judged against its nearest value") {
    const std::vector<double> ref = random_values(1000, 7);
    std::vector<double> gpu = ref;
    gpu[500] = ref[500] + 0.25;  // the other branch of a derivative jump
    const Tolerance tol = default_tolerance(DType::f32, 1);
    CHECK(check(gpu, ref, tol).kind == Verdict::failed);

    const std::vector<Alternate> other{{500, ref[500] + 0.25}};
    const Verdict v = compare(gpu.data(), ref.data(), 1000, tol, other);
    CHECK(v.kind == Verdict::passed);
    CHECK(v.alternates == 1);
    CHECK(v.max_abs_error == 0.0);
    CHECK(v.message.find("1 at an activation-derivative jump") != std::string::npos);

    // An alternate elsewhere does not excuse the wrong element.
    const std::vector<Alternate> elsewhere{{499, ref[499] + 0.25}};
    CHECK(compare(gpu.data(), ref.data(), 1000, tol, elsewhere).kind == Verdict::failed);
    // Two candidates for one element: the nearer one counts; neither near fails.
    const std::vector<Alternate> two{{500, ref[500] - 0.25}, {500, ref[500] + 0.25}};
    CHECK(compare(gpu.data(), ref.data(), 1000, tol, two).kind == Verdict::passed);
    gpu[500] = ref[500] + 0.5;
    CHECK(compare(gpu.data(), ref.data(), 1000, tol, two).kind == Verdict::failed);

    const std::vector<Alternate> unsorted{{600, 0.0}, {500, 0.0}};
    CHECK_THROWS_AS(compare(gpu.data(), ref.data(), 1000, tol, unsorted), std::invalid_argument);
    const std::vector<Alternate> outside{{1000, 0.0}};
    CHECK_THROWS_AS(compare(gpu.data(), ref.data(), 1000, tol, outside), std::out_of_range);
}
