#include "RunVerification.h"

#include "core/ir/GraphSource.h"
#include "core/torch/NumericVerifier.h"
#include "core/torch/TorchRuntime.h"

namespace fusebox::cli {

Expected<RunVerifier> RunVerifier::create(const Graph &original, double precision,
                                          std::shared_ptr<pt2::Pt2Bridge> bridge, const std::string &noBridgeReason)
{
    RunVerifier v;
    if (isPt2Graph(original)) {
        if (bridge) {
            auto created = pt2::BridgeVerifier::create(std::move(bridge), original, precision);
            if (!created)
                return created.error();
            v.m_verifier = std::make_shared<const pt2::BridgeVerifier>(std::move(*created));
            return v;
        }
        if (!libtorchLinked()) // the dispatch hands this case to fusebox-pass-torch
            return Error{noBridgeReason};
        v.m_note = "a PT2 graph verified in libtorch 1.13, not in PyTorch 2: " + noBridgeReason;
    }
    auto created = RewriteVerifier::create(original, precision, /*allowBridge=*/!isPt2Graph(original));
    if (!created)
        return created.error();
    v.m_verifier = std::make_shared<const RewriteVerifier>(std::move(*created));
    return v;
}

} // namespace fusebox::cli
