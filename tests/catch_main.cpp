// The Catch2 main of the core and torch test binaries (the views binary has
// its own, which creates the QApplication first).
#define CATCH_CONFIG_MAIN
#include <catch.hpp>
