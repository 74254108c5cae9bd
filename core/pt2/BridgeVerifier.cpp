#include "BridgeVerifier.h"

#include "BridgeGraph.h"

namespace fusebox::pt2 {

Expected<BridgeVerifier> BridgeVerifier::create(std::shared_ptr<Pt2Bridge> bridge, const Graph &original,
                                                double precision, const RequestControl &control)
{
    if (!bridge)
        return Error{noPythonMessage()};
    auto info = bridge->check(control);
    if (!info)
        return info.error();
    BridgeVerifier v;
    v.m_bridge = std::move(bridge);
    v.m_originalText = bridgeGraphText(original);
    v.m_weights = bridgeWeights(original);
    v.m_precision = precision;
    v.m_engine = "PyTorch " + info->torch + " through the bridge";
    if (Status begun = v.begin(control); !begun)
        return begun.error();
    return v;
}

Status BridgeVerifier::begin(const RequestControl &control) const
{
    auto r = m_bridge->request("verify_begin",
                               {{"graph", m_originalText},
                                {"weights", m_weights},
                                {"precision", m_precision},
                                {"iterations", 1},
                                {"seed", 0}},
                               control);
    if (!r)
        return r.error();
    m_handle = r->value("handle", int64_t{-1});
    return {};
}

Expected<BridgeVerification> BridgeVerifier::check(const Graph &rewritten, const RequestControl &control) const
{
    const std::string text = bridgeGraphText(rewritten);
    auto r = m_bridge->verifyCheck(m_handle, text, control);
    // A restarted Python has lost the original's outputs: run it again, once.
    if (!r && r.error().message.find("no verification session") != std::string::npos) {
        if (Status begun = begin(control); !begun)
            return begun.error();
        r = m_bridge->verifyCheck(m_handle, text, control);
    }
    if (!r)
        return Error{"the rewritten graph does not run in PyTorch 2: " + r.error().message};
    return r;
}

} // namespace fusebox::pt2
