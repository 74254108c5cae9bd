#include "RewriteVerifier.h"

#include "NumericVerifier.h"

#include "core/pt2/BridgeVerifier.h"

namespace fusebox {

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
    auto found = pt2::Pt2Bridge::find();
    if (!found)
        return Error{libtorchError + "; and PyTorch 2 cannot run it either: " + found.error().message};
    auto bridged = pt2::BridgeVerifier::create(std::move(*found), original, precision);
    if (!bridged)
        return Error{libtorchError + "; and PyTorch 2 cannot run it either: " + bridged.error().message};
    RewriteVerifier verifier{{}, {}, {}, precision};
    verifier.m_engine = bridged->engine();
    verifier.m_bridge = std::make_shared<const pt2::BridgeVerifier>(std::move(*bridged));
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
    if (m_bridge)
        return m_bridge->check(rewritten);
    auto actual = runGraph(rewritten, m_inputs);
    if (!actual)
        return Error{"the rewritten graph does not run: " + actual.error().message};
    return compareOutputs(m_expected, *actual, m_names, m_precision);
}

} // namespace fusebox
