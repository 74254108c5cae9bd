#include "RewriteContract.h"

#include <atomic>

namespace fusebox {
namespace {
#ifdef NDEBUG
std::atomic<bool> g_checks{false};
#else
std::atomic<bool> g_checks{true};
#endif
} // namespace

void setRewriteContractChecks(bool on)
{
    g_checks.store(on);
}
bool rewriteContractChecks()
{
    return g_checks.load();
}

} // namespace fusebox
