#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace fusebox {

/// Edit distance between two strings: insertions, deletions, substitutions
/// and swaps of adjacent letters each cost 1 (optimal string alignment).
size_t editDistance(std::string_view a, std::string_view b);

/// Up to `limit` candidates closest to `word` (edit distance at most a third
/// of the word's length, at least 2, and at most one more than the closest
/// one's), closest first; for "did you mean" hints.
std::vector<std::string> closestMatches(std::string_view word, const std::vector<std::string> &candidates,
                                        size_t limit = 3);

/// " (did you mean 'a' or 'b'?)" or "" when there is no close candidate.
std::string didYouMean(std::string_view word, const std::vector<std::string> &candidates);

} // namespace fusebox
