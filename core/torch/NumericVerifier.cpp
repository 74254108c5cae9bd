#include "NumericVerifier.h"

#include "TorchValueConversion.h"

#include <ATen/ATen.h>

#include <cmath>
#include <cstdio>
#include <limits>

namespace fusebox {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

/// "1e-04", "1.5e-03", "3.2e-02": short scientific notation.
std::string sci(double value)
{
    if (value == 0)
        return "0";
    char text[32];
    std::snprintf(text, sizeof text, "%.1e", value);
    std::string s = text;
    if (auto dot = s.find(".0e"); dot != std::string::npos)
        s.erase(dot, 2);
    return s;
}

std::string elementText(const at::Tensor &flat, int64_t index)
{
    at::Tensor item = flat[index];
    char text[64];
    if (item.is_complex()) {
        auto z = item.item<c10::complex<double>>();
        std::snprintf(text, sizeof text, "%.6g%+.6gj", z.real(), z.imag());
    } else if (at::isFloatingType(item.scalar_type())) {
        std::snprintf(text, sizeof text, "%.6g", item.item<double>());
    } else if (item.scalar_type() == at::kBool) {
        return item.item<bool>() ? "True" : "False";
    } else {
        std::snprintf(text, sizeof text, "%lld", static_cast<long long>(item.item<int64_t>()));
    }
    return text;
}

/// "[2, 1]": the multi-dimensional position of a flat index.
std::string position(int64_t flat, at::IntArrayRef sizes)
{
    std::vector<int64_t> index(sizes.size());
    for (size_t d = sizes.size(); d-- > 0;) {
        index[d] = sizes[d] ? flat % sizes[d] : 0;
        flat = sizes[d] ? flat / sizes[d] : 0;
    }
    std::string text = "[";
    for (size_t d = 0; d < index.size(); ++d)
        text += (d ? ", " : "") + std::to_string(index[d]);
    return text + "]";
}

struct OutputDiff {
    bool ok = true;
    double maxAbs = 0;
    double maxRel = 0;
    /// The |diff| that ranks failing outputs (inf for dtype/shape mismatch, NaN).
    double worst = 0;
    std::string message;
};

OutputDiff compareOne(const HostTensor &expected, const HostTensor &actual, double precision, const std::string &label)
{
    OutputDiff d;
    auto mismatch = [&](const std::string &what, const std::string &e, const std::string &a) {
        d.ok = false;
        d.worst = d.maxAbs = kInf;
        d.message = label + ": " + what + " " + e + " expected, " + a + " got";
        return d;
    };
    if (expected.meta.dtype != actual.meta.dtype)
        return mismatch("dtype", std::string(shortName(expected.meta.dtype)), std::string(shortName(actual.meta.dtype)));
    if (expected.meta.shape != actual.meta.shape)
        return mismatch("shape", expected.meta.shapeString(), actual.meta.shapeString());

    at::Tensor b = torchimport::tensorFromWeight(expected, label + " (expected)").flatten();
    at::Tensor a = torchimport::tensorFromWeight(actual, label).flatten();
    if (b.numel() == 0)
        return d;
    const bool exact = !at::isFloatingType(b.scalar_type()) && !at::isComplexType(b.scalar_type());
    const auto wide = b.is_complex() ? at::kComplexDouble : at::kDouble;
    at::Tensor bw = b.to(wide), aw = a.to(wide);
    at::Tensor absB = bw.abs();
    at::Tensor diff = (aw - bw).abs();
    at::Tensor bad;
    if (exact) {
        bad = a.ne(b);
        // Huge int64 values may differ by less than a double resolves.
        diff = diff.masked_fill(bad & diff.eq(0), 1);
    } else {
        // Equal infinities and NaN-vs-NaN count as equal.
        at::Tensor same = aw.eq(bw) | (aw.isnan() & bw.isnan());
        diff = diff.masked_fill(same, 0);
        bad = diff.gt(absB * precision + precision) | diff.isnan();
    }
    at::Tensor ranked = at::nan_to_num(diff, kInf, kInf, kInf);
    d.maxAbs = ranked.max().item<double>();
    at::Tensor nonZero = absB.gt(0);
    if (nonZero.any().item<bool>())
        d.maxRel = (ranked.masked_select(nonZero) / absB.masked_select(nonZero)).max().item<double>();
    if (!bad.any().item<bool>())
        return d;

    const int64_t index = ranked.masked_fill(bad.logical_not(), -1).argmax().item<int64_t>();
    d.ok = false;
    d.worst = ranked[index].item<double>();
    // A copy: sizes() points into the tensor, a temporary here.
    const std::vector<int64_t> sizes = torchimport::tensorFromWeight(expected, label).sizes().vec();
    d.message = label + ": max |diff| " + sci(d.worst) + " at index " + std::to_string(index)
                + (sizes.size() > 1 ? " " + position(index, sizes) : "") + " (expected " + elementText(b, index)
                + ", got " + elementText(a, index) + ") > "
                + (exact ? std::string("0 (compared exactly)")
                         : sci(precision) + " + " + sci(precision) + "*|expected|");
    return d;
}

} // namespace

VerificationResult compareOutputs(const std::vector<HostTensor> &expected, const std::vector<HostTensor> &actual,
                                  const std::vector<std::string> &names, double precision)
{
    VerificationResult result;
    if (expected.size() != actual.size()) {
        result.message = std::to_string(expected.size()) + " outputs expected, " + std::to_string(actual.size())
                         + " got";
        return result;
    }
    int worstFailing = -1, worstPassing = -1;
    double worstFailingDiff = -1, worstPassingDiff = -1;
    for (size_t i = 0; i < expected.size(); ++i) {
        const std::string name = i < names.size() ? names[i] : std::string();
        const std::string label = "output " + std::to_string(i) + (name.empty() ? "" : " (%" + name + ")");
        OutputDiff d;
        try {
            d = compareOne(expected[i], actual[i], precision, label);
        } catch (const std::exception &e) {
            d.ok = false;
            d.worst = d.maxAbs = kInf;
            d.message = torchimport::oneLineMessage(e);
        }
        result.maxAbsDiff = std::max(result.maxAbsDiff, d.maxAbs);
        result.maxRelDiff = std::max(result.maxRelDiff, d.maxRel);
        if (!d.ok && d.worst > worstFailingDiff) {
            worstFailing = static_cast<int>(i);
            worstFailingDiff = d.worst;
            result.message = d.message;
        } else if (d.ok && d.maxAbs > worstPassingDiff) {
            worstPassing = static_cast<int>(i);
            worstPassingDiff = d.maxAbs;
        }
    }
    result.passed = worstFailing < 0;
    result.worstOutput = result.passed ? worstPassing : worstFailing;
    if (result.worstOutput >= 0 && static_cast<size_t>(result.worstOutput) < names.size())
        result.worstOutputName = names[result.worstOutput];
    if (result.passed)
        result.message = std::to_string(expected.size()) + (expected.size() == 1 ? " output matches" : " outputs match")
                         + " within " + sci(precision) + " + " + sci(precision) + "*|expected| (max |diff| "
                         + sci(result.maxAbsDiff) + ")";
    return result;
}

Expected<VerificationResult> verifyEquivalent(const Graph &before, const Graph &after, const VerifyOptions &options)
{
    if (before.inputs().size() != after.inputs().size())
        return Error{"the graphs have different inputs: " + std::to_string(before.inputs().size()) + " before, "
                     + std::to_string(after.inputs().size()) + " after"};
    Expected<Executor> runBefore = Executor::create(before);
    if (!runBefore)
        return Error{"before: " + runBefore.error().message};
    Expected<Executor> runAfter = Executor::create(after);
    if (!runAfter)
        return Error{"after: " + runAfter.error().message};

    VerificationResult total;
    total.passed = true;
    const int iterations = std::max(1, options.iterations);
    for (int i = 0; i < iterations; ++i) {
        const uint64_t seed = options.seed + static_cast<uint64_t>(i);
        Expected<std::vector<HostTensor>> inputs = randomInputs(before, seed);
        if (!inputs)
            return Error{"before: " + inputs.error().message};
        std::vector<std::string> names;
        Expected<std::vector<HostTensor>> expected = runBefore->run(*inputs, &names);
        if (!expected)
            return Error{"before: " + expected.error().message};
        Expected<std::vector<HostTensor>> actual = runAfter->run(*inputs);
        if (!actual)
            return Error{"after: " + actual.error().message};
        VerificationResult r = compareOutputs(*expected, *actual, names, options.precision);
        r.maxAbsDiff = std::max(r.maxAbsDiff, total.maxAbsDiff);
        r.maxRelDiff = std::max(r.maxRelDiff, total.maxRelDiff);
        if (!r.passed) {
            if (iterations > 1)
                r.message += " (input set " + std::to_string(i) + ", seed " + std::to_string(seed) + ")";
            return r;
        }
        total = std::move(r);
    }
    if (iterations > 1)
        total.message += " on " + std::to_string(iterations) + " input sets";
    return total;
}

} // namespace fusebox
