// The Catch2 main of the core, torch and pt2 test binaries (the views binary
// has its own, which creates the QApplication first). Both turn on the
// rewrite contract's checks (core/rewrite/RewriteContract.h).
#define CATCH_CONFIG_RUNNER
#include <catch.hpp>

#include "core/rewrite/RewriteContract.h"

int main(int argc, char *argv[])
{
    fusebox::setRewriteContractChecks(true);
    return Catch::Session().run(argc, argv);
}
