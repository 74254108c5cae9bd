#include "Spelling.h"

#include <algorithm>
#include <numeric>

namespace fusebox {

size_t editDistance(std::string_view a, std::string_view b)
{
    std::vector<size_t> row(b.size() + 1);
    std::iota(row.begin(), row.end(), 0);
    for (size_t i = 1; i <= a.size(); ++i) {
        size_t diagonal = row[0];
        row[0] = i;
        for (size_t j = 1; j <= b.size(); ++j) {
            size_t above = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
            diagonal = above;
        }
    }
    return row[b.size()];
}

std::vector<std::string> closestMatches(std::string_view word, const std::vector<std::string> &candidates, size_t limit)
{
    const size_t budget = std::max<size_t>(2, word.size() / 3);
    std::vector<std::pair<size_t, std::string>> scored;
    for (const std::string &c : candidates) {
        size_t d = editDistance(word, c);
        if (d <= budget)
            scored.push_back({d, c});
    }
    std::stable_sort(scored.begin(), scored.end(), [](const auto &x, const auto &y) { return x.first < y.first; });
    std::vector<std::string> best;
    for (size_t i = 0; i < scored.size() && i < limit; ++i)
        best.push_back(scored[i].second);
    return best;
}

std::string didYouMean(std::string_view word, const std::vector<std::string> &candidates)
{
    auto best = closestMatches(word, candidates, 2);
    if (best.empty())
        return {};
    std::string text = " (did you mean '" + best[0] + "'";
    if (best.size() > 1)
        text += " or '" + best[1] + "'";
    return text + "?)";
}

} // namespace fusebox
