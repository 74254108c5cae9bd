// Linked into every executable that allocates with mimalloc
// (fusebox_use_mimalloc in the top-level CMakeLists.txt).
//
// mimalloc hands out memory in 2 MiB pages (madvise(MADV_HUGEPAGE)) instead
// of 4 KiB ones: a 100k-node fusebox-pass run touches ~240 MB, which with
// small pages is ~110,000 page faults, a sixth of its wall time (kernel time
// 0.35 s of ~2 s on 2 cores, and more TLB misses in the user time); with
// large pages it is ~3,000 faults and ~0.06 s. The peak grows by ~12 MB
// (pages are committed whole). Where the kernel offers no transparent huge
// pages the advice is ignored and nothing changes.

#include <mimalloc.h>

#include <cstdlib>

namespace {

struct LargeOsPages {
    LargeOsPages()
    {
        // mimalloc reads its MIMALLOC_* variables when the process starts; one
        // the user set wins (MIMALLOC_LARGE_OS_PAGES=0 turns this off).
        if (!std::getenv("MIMALLOC_LARGE_OS_PAGES"))
            mi_option_enable(mi_option_large_os_pages);
    }
} largeOsPages;

} // namespace
