#include "Catalog.h"

namespace fusebox {

PatternSet builtinCatalog()
{
    PatternSet set;
    addSplitCatPatterns(set);
    addGroupBatchPatterns(set);
    setInductorSources(set);
    return set;
}

} // namespace fusebox
