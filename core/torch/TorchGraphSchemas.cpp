// pt2GraphSchemas(): libtorch 1.13's schemas with PyTorch 2's filling the
// gaps. No libtorch here: torchSchemas() comes from libtorch in the full
// build and from the embedded dump in fusebox-pass's light build.
#include "TorchSchemas.h"

#include <memory>

#include "core/pt2/Pt2Bridge.h"
#include "core/pt2/PythonCommand.h"

namespace fusebox {

GraphSchemas pt2GraphSchemas()
{
    struct Merged {
        /// torchSchemas() itself when there is nothing to add (no copy of
        /// it: every FX read in a process starts here), else `withPt2`.
        const OpSchemaRegistry *registry = nullptr;
        std::unique_ptr<OpSchemaRegistry> withPt2;
        std::string origin = "libtorch 1.13";
    };
    static const Merged merged = [] {
        Merged m;
        m.registry = &torchSchemas();
        std::string version;
        if (auto command = pt2::findPythonCommand())
            if (auto pt2 = pt2::cachedSchemas(*command, &version)) {
                m.withPt2 = std::make_unique<OpSchemaRegistry>(torchSchemas());
                for (const std::string &name : pt2->opNames())
                    for (const OpSchema *s : pt2->overloads(name))
                        if (!m.withPt2->find(s->name, s->overload))
                            m.withPt2->add(*s);
                m.registry = m.withPt2.get();
                m.origin = "PyTorch " + version + " and libtorch 1.13";
            }
        return m;
    }();
    return {*merged.registry, merged.origin};
}

} // namespace fusebox
