#pragma once
// Where a test finds the source tree, the build tree and the traced fixture
// models. Every test file sees these three macros (tests/CMakeLists.txt
// includes this header first in each of them).
//
// They are looked up when a test runs, not compiled in: paths compiled in
// differ in every clone, so every test file that used one missed ccache in
// CI's fresh clone and was compiled again (40 files, about 5 of its 20
// minutes).

namespace fusebox::testing {

/// The source tree the tests were configured from: CMAKE_HOME_DIRECTORY in
/// the build tree's CMakeCache.txt. Aborts with one line when it cannot be read.
const char *sourceDir();
/// The build tree: the folder above the running test binary's own (build/tests/X).
const char *binaryDir();
/// binaryDir()/fixtures: the models traced at build time (tests/fixtures/).
const char *fixtureDir();

} // namespace fusebox::testing

#define FUSEBOX_SOURCE_DIR (::fusebox::testing::sourceDir())
#define FUSEBOX_BINARY_DIR (::fusebox::testing::binaryDir())
#define FUSEBOX_FIXTURE_DIR (::fusebox::testing::fixtureDir())
