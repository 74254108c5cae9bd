#include "RewriteVerifier.h"

#include "NumericVerifier.h"

namespace fusebox {

Expected<RewriteVerifier> RewriteVerifier::create(const Graph &original, double precision)
{
    auto inputs = randomInputs(original, 0);
    if (!inputs)
        return inputs.error();
    auto executor = Executor::create(original);
    if (!executor)
        return executor.error();
    std::vector<std::string> names;
    auto expected = executor->run(*inputs, &names);
    if (!expected)
        return expected.error();
    return RewriteVerifier{std::move(*inputs), std::move(*expected), std::move(names), precision};
}

RewriteVerifier::RewriteVerifier(std::vector<HostTensor> inputs, std::vector<HostTensor> expected,
                                 std::vector<std::string> names, double precision)
    : m_inputs(std::move(inputs)), m_expected(std::move(expected)), m_names(std::move(names)), m_precision(precision)
{
}

std::optional<std::string> RewriteVerifier::operator()(const Graph &rewritten) const
{
    auto actual = runGraph(rewritten, m_inputs);
    if (!actual)
        return "the rewritten graph does not run: " + actual.error().message;
    VerificationResult r = compareOutputs(m_expected, *actual, m_names, m_precision);
    if (!r.passed)
        return r.message;
    return std::nullopt;
}

} // namespace fusebox
