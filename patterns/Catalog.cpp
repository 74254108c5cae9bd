#include "Catalog.h"

#include "InductorProfile.h"

namespace fusebox {

PatternSet builtinCatalog()
{
    PatternSet set;
    addSplitCatPatterns(set);
    addGroupBatchPatterns(set);
    applyInductorProfile(set, newestInductorProfile());
    return set;
}

} // namespace fusebox
