#include "Spelling.h"

#include <algorithm>
#include <numeric>
#include <vector>

namespace fusebox {

size_t editDistance(std::string_view a, std::string_view b)
{
    // Optimal string alignment: Levenshtein plus adjacent transpositions,
    // the commonest typo ("rleu" is one edit from "relu").
    const size_t n = a.size(), m = b.size();
    std::vector<std::vector<size_t>> d(n + 1, std::vector<size_t>(m + 1));
    for (size_t i = 0; i <= n; ++i)
        d[i][0] = i;
    for (size_t j = 0; j <= m; ++j)
        d[0][j] = j;
    for (size_t i = 1; i <= n; ++i) {
        for (size_t j = 1; j <= m; ++j) {
            const size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
            d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
                d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
        }
    }
    return d[n][m];
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
    // Closest first; among equals, the word with a doubled letter typed once
    // ("reluu" -> "relu"), then a candidate of the word's length (a
    // substitution or a swap), then one that adds or drops letters.
    auto lengthGap = [&](const std::string &c) {
        return c.size() > word.size() ? c.size() - word.size() : word.size() - c.size();
    };
    auto undoubles = [&](const std::string &c) {
        for (size_t i = 1; i < word.size(); ++i)
            if (word[i] == word[i - 1] && c.size() + 1 == word.size() && c.compare(0, i, word, 0, i) == 0
                && c.compare(i, std::string::npos, word, i + 1, std::string::npos) == 0)
                return true;
        return false;
    };
    std::stable_sort(scored.begin(), scored.end(), [&](const auto &x, const auto &y) {
        if (x.first != y.first)
            return x.first < y.first;
        if (undoubles(x.second) != undoubles(y.second))
            return undoubles(x.second);
        return lengthGap(x.second) < lengthGap(y.second);
    });
    // A second guess only when it is about as close as the first: one edit
    // away beside a four-edit one ("batch_lienar": batch_linear, not also
    // cat_linear) only muddies the answer.
    std::vector<std::string> best;
    for (size_t i = 0; i < scored.size() && i < limit && scored[i].first <= scored[0].first + 1; ++i)
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
