#include "RewriteVerifier.h"

#include "NumericVerifier.h"

#include "core/io/FxText.h"
#include "core/pt2/Pt2Bridge.h"

namespace fusebox {

namespace {

/// The original run in PyTorch 2 through the bridge, when libtorch cannot.
Expected<std::pair<std::shared_ptr<pt2::Pt2Bridge>, int64_t>> beginOnBridge(const Graph &original, double precision,
                                                                            std::string *engine)
{
    auto found = pt2::Pt2Bridge::find();
    if (!found)
        return found.error();
    std::shared_ptr<pt2::Pt2Bridge> bridge = std::move(*found);
    auto info = bridge->check();
    if (!info)
        return info.error();
    auto handle = bridge->verifyBegin(writeFxText(original), precision);
    if (!handle)
        return handle.error();
    *engine = "PyTorch " + info->torch + " through the bridge";
    return std::make_pair(std::move(bridge), *handle);
}

} // namespace

Expected<RewriteVerifier> RewriteVerifier::create(const Graph &original, double precision, bool allowBridge)
{
    auto inputs = randomInputs(original, 0);
    if (!inputs)
        return inputs.error();
    std::string libtorchError;
    if (auto executor = Executor::create(original)) {
        std::vector<std::string> names;
        auto expected = executor->run(*inputs, &names);
        if (expected)
            return RewriteVerifier{std::move(*inputs), std::move(*expected), std::move(names), precision};
        libtorchError = expected.error().message;
    } else {
        libtorchError = executor.error().message;
    }
    if (!allowBridge)
        return Error{libtorchError};
    std::string engine;
    auto bridged = beginOnBridge(original, precision, &engine);
    if (!bridged)
        return Error{libtorchError + "; and PyTorch 2 cannot run it either: " + bridged.error().message};
    RewriteVerifier verifier{{}, {}, {}, precision};
    verifier.m_engine = engine;
    verifier.m_bridge = std::move(bridged->first);
    verifier.m_handle = bridged->second;
    return verifier;
}

RewriteVerifier::RewriteVerifier(std::vector<HostTensor> inputs, std::vector<HostTensor> expected,
                                 std::vector<std::string> names, double precision)
    : m_inputs(std::move(inputs))
    , m_expected(std::move(expected))
    , m_names(std::move(names))
    , m_precision(precision)
{}

Expected<VerificationResult> RewriteVerifier::check(const Graph &rewritten) const
{
    if (m_bridge) {
        auto r = m_bridge->verifyCheck(m_handle, writeFxText(rewritten));
        if (!r)
            return Error{"the rewritten graph does not run in PyTorch 2: " + r.error().message};
        return r;
    }
    auto actual = runGraph(rewritten, m_inputs);
    if (!actual)
        return Error{"the rewritten graph does not run: " + actual.error().message};
    return compareOutputs(m_expected, *actual, m_names, m_precision);
}

std::optional<std::string> RewriteVerifier::operator()(const Graph &rewritten) const
{
    return failureOf(check(rewritten));
}

} // namespace fusebox
