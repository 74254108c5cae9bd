// pt2GraphSchemas(): libtorch 1.13's schemas with PyTorch 2's filling the
// gaps. No libtorch here: torchSchemas() comes from libtorch in the full
// build and from the embedded dump in fusebox-pass's light build.
#include "TorchSchemas.h"

#include "core/pt2/Pt2Bridge.h"
#include "core/pt2/PythonCommand.h"

namespace fusebox {

GraphSchemas pt2GraphSchemas()
{
    struct Merged {
        OpSchemaRegistry registry;
        std::string origin = "libtorch 1.13";
    };
    static const Merged merged = [] {
        Merged m;
        m.registry = torchSchemas();
        std::string version;
        if (auto command = pt2::findPythonCommand())
            if (auto pt2 = pt2::cachedSchemas(*command, &version)) {
                for (const std::string &name : pt2->opNames())
                    for (const OpSchema *s : pt2->overloads(name))
                        if (!m.registry.find(s->name, s->overload))
                            m.registry.add(*s);
                m.origin = "PyTorch " + version + " and libtorch 1.13";
            }
        return m;
    }();
    return {merged.registry, merged.origin};
}

} // namespace fusebox
