#pragma once
// The models the build traces for the torch tests (tests/fixtures/).

#include <string>

/// FUSEBOX_FIXTURE_DIR/name.
inline std::string fixture(const std::string &name)
{
    return std::string(FUSEBOX_FIXTURE_DIR) + "/" + name;
}
