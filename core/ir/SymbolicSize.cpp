#include "SymbolicSize.h"

#include <algorithm>
#include <cctype>
#include <climits>
#include <set>
#include <string_view>

namespace fusebox {
namespace {

bool isNameStart(char c)
{
    return std::isalpha(static_cast<unsigned char>(c)) || c == '_';
}

bool isNameChar(char c)
{
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

/// The highest power of a symbol read or made. A size is a product of a
/// few dims; squaring a size again and again (`n = n * n` in a graph) would
/// otherwise overflow the power.
constexpr int kMaxPower = 64;

/// The product of two monomials (powers of a symbol in both add up);
/// nullopt past kMaxPower.
std::optional<SymbolicSize::Monomial> multiply(const SymbolicSize::Monomial &a, const SymbolicSize::Monomial &b)
{
    std::map<std::string, int> powers;
    for (const auto *m : {&a, &b})
        for (const auto &[symbol, power] : *m)
            if ((powers[symbol] += power) > kMaxPower)
                return std::nullopt;
    return SymbolicSize::Monomial(powers.begin(), powers.end());
}

/// a / b when every symbol of b appears in a at least as often.
std::optional<SymbolicSize::Monomial> divide(const SymbolicSize::Monomial &a, const SymbolicSize::Monomial &b)
{
    std::map<std::string, int> powers(a.begin(), a.end());
    for (const auto &[symbol, power] : b) {
        auto it = powers.find(symbol);
        if (it == powers.end() || it->second < power)
            return std::nullopt;
        if ((it->second -= power) == 0)
            powers.erase(it);
    }
    return SymbolicSize::Monomial(powers.begin(), powers.end());
}

/// "s0**2*s1": a monomial's factors as sympy's Mul prints them.
std::string monomialText(const SymbolicSize::Monomial &m)
{
    std::string out;
    for (const auto &[symbol, power] : m) {
        if (!out.empty())
            out += '*';
        out += symbol;
        if (power != 1)
            out += "**" + std::to_string(power);
    }
    return out;
}

/// A term with a positive coefficient: "16", "s0", "2*s0*s1".
std::string positiveTermText(uint64_t coefficient, const SymbolicSize::Monomial &m)
{
    if (m.empty())
        return std::to_string(coefficient);
    return coefficient == 1 ? monomialText(m) : std::to_string(coefficient) + "*" + monomialText(m);
}

/// Reads sympy's str() of a polynomial. One instance per text.
class PolynomialReader {
public:
    explicit PolynomialReader(std::string_view text)
        : m_text(text)
    {}

    std::optional<std::map<SymbolicSize::Monomial, int64_t>> read()
    {
        std::map<SymbolicSize::Monomial, int64_t> terms;
        skipSpaces();
        int64_t sign = 1;
        if (accept('-'))
            sign = -1;
        while (true) {
            skipSpaces();
            int64_t coefficient = 1;
            SymbolicSize::Monomial monomial;
            if (!term(coefficient, monomial))
                return std::nullopt;
            int64_t &sum = terms[monomial];
            if (__builtin_mul_overflow(coefficient, sign, &coefficient)
                || __builtin_add_overflow(sum, coefficient, &sum))
                return std::nullopt;
            skipSpaces();
            if (m_pos == m_text.size())
                break;
            if (accept('+'))
                sign = 1;
            else if (accept('-'))
                sign = -1;
            else
                return std::nullopt;
        }
        std::erase_if(terms, [](const auto &t) { return t.second == 0; });
        return terms;
    }

private:
    /// factor ('*' factor)*, where a factor is an int or name['**' int].
    bool term(int64_t &coefficient, SymbolicSize::Monomial &monomial)
    {
        std::map<std::string, int> powers;
        do {
            if (m_pos < m_text.size() && std::isdigit(static_cast<unsigned char>(m_text[m_pos]))) {
                auto value = integer();
                if (!value || __builtin_mul_overflow(coefficient, *value, &coefficient))
                    return false;
            } else if (m_pos < m_text.size() && isNameStart(m_text[m_pos])) {
                const size_t start = m_pos;
                while (m_pos < m_text.size() && isNameChar(m_text[m_pos]))
                    ++m_pos;
                const std::string name(m_text.substr(start, m_pos - start));
                int power = 1;
                if (m_text.substr(m_pos).starts_with("**")) {
                    m_pos += 2;
                    auto value = integer();
                    if (!value || *value < 1 || *value > kMaxPower)
                        return false;
                    power = int(*value);
                }
                if ((powers[name] += power) > kMaxPower)
                    return false;
            } else {
                return false;
            }
        } while (!m_text.substr(m_pos).starts_with("**") && accept('*'));
        monomial.assign(powers.begin(), powers.end());
        return true;
    }

    std::optional<int64_t> integer()
    {
        int64_t value = 0;
        const size_t start = m_pos;
        for (; m_pos < m_text.size() && std::isdigit(static_cast<unsigned char>(m_text[m_pos])); ++m_pos)
            if (__builtin_mul_overflow(value, 10, &value) || __builtin_add_overflow(value, m_text[m_pos] - '0', &value))
                return std::nullopt;
        return m_pos > start ? std::optional(value) : std::nullopt;
    }

    bool accept(char c)
    {
        if (m_pos < m_text.size() && m_text[m_pos] == c) {
            ++m_pos;
            return true;
        }
        return false;
    }

    void skipSpaces()
    {
        while (m_pos < m_text.size() && m_text[m_pos] == ' ')
            ++m_pos;
    }

    std::string_view m_text;
    size_t m_pos = 0;
};

} // namespace

SymbolicSize::SymbolicSize(int64_t value)
{
    if (value != 0)
        m_terms[{}] = value;
}

std::optional<SymbolicSize> SymbolicSize::parse(const Dim &dim)
{
    if (const auto *value = std::get_if<int64_t>(&dim))
        return SymbolicSize(*value);
    auto terms = PolynomialReader(std::get<std::string>(dim)).read();
    if (!terms)
        return std::nullopt;
    SymbolicSize out;
    out.m_terms = std::move(*terms);
    return out;
}

std::optional<int64_t> SymbolicSize::constant() const
{
    if (m_terms.empty())
        return 0;
    if (m_terms.size() == 1 && m_terms.begin()->first.empty())
        return m_terms.begin()->second;
    return std::nullopt;
}

std::optional<int64_t> SymbolicSize::valueAt(const std::map<std::string, int64_t> &sizes) const
{
    int64_t total = 0;
    for (const auto &[monomial, coefficient] : m_terms) {
        int64_t term = coefficient;
        for (const auto &[symbol, power] : monomial) {
            auto size = sizes.find(symbol);
            if (size == sizes.end())
                return std::nullopt;
            for (int i = 0; i < power; ++i)
                if (__builtin_mul_overflow(term, size->second, &term))
                    return std::nullopt;
        }
        if (__builtin_add_overflow(total, term, &total))
            return std::nullopt;
    }
    return total;
}

Dim SymbolicSize::toDim() const
{
    if (auto value = constant())
        return Dim(*value);
    // sympy orders an Add's terms by their exponent vectors over the sorted
    // symbols, greatest first ("lex"): s0*s1 + s0 + s1 + 1.
    std::set<std::string> symbols;
    for (const auto &[monomial, coefficient] : m_terms)
        for (const auto &[symbol, power] : monomial)
            symbols.insert(symbol);
    auto exponents = [&](const Monomial &m) {
        std::vector<int> out;
        for (const std::string &s : symbols) {
            auto it = std::find_if(m.begin(), m.end(), [&](const Factor &f) { return f.first == s; });
            out.push_back(it == m.end() ? 0 : it->second);
        }
        return out;
    };
    std::vector<std::pair<Monomial, int64_t>> terms(m_terms.begin(), m_terms.end());
    std::stable_sort(terms.begin(), terms.end(),
                     [&](const auto &a, const auto &b) { return exponents(a.first) > exponents(b.first); });
    // Its one exception (Expr.as_ordered_terms): a positive number plus a
    // negative multiple of one symbol or power reads number first, "16 - s0".
    if (terms.size() == 2 && terms[1].first.empty() && terms[1].second > 0 && terms[0].second < 0
        && terms[0].first.size() == 1)
        std::swap(terms[0], terms[1]);
    std::string text;
    for (const auto &[monomial, coefficient] : terms) {
        // (As unsigned: the most negative int64 has no positive twin.)
        const uint64_t magnitude = coefficient < 0 ? 0 - uint64_t(coefficient) : uint64_t(coefficient);
        if (text.empty())
            text = (coefficient < 0 ? "-" : "") + positiveTermText(magnitude, monomial);
        else
            text += (coefficient < 0 ? " - " : " + ") + positiveTermText(magnitude, monomial);
    }
    return Dim(text);
}

std::optional<SymbolicSize> SymbolicSize::plus(const SymbolicSize &other) const
{
    SymbolicSize out = *this;
    for (const auto &[monomial, coefficient] : other.m_terms) {
        int64_t &sum = out.m_terms[monomial];
        if (__builtin_add_overflow(sum, coefficient, &sum))
            return std::nullopt;
        if (sum == 0)
            out.m_terms.erase(monomial);
    }
    return out;
}

std::optional<SymbolicSize> SymbolicSize::minus(const SymbolicSize &other) const
{
    auto negated = other.times(SymbolicSize(-1));
    return negated ? plus(*negated) : std::nullopt;
}

std::optional<SymbolicSize> SymbolicSize::times(const SymbolicSize &other) const
{
    if (m_terms.size() > 1 && other.m_terms.size() > 1)
        return std::nullopt;
    // A sum times a term is expanded by sympy only when the term is a number.
    const SymbolicSize &single = m_terms.size() <= 1 ? *this : other;
    const SymbolicSize &rest = &single == this ? other : *this;
    if (single.m_terms.empty())
        return SymbolicSize();
    const auto &[monomial, factor] = *single.m_terms.begin();
    if (!monomial.empty() && rest.m_terms.size() > 1)
        return std::nullopt;
    SymbolicSize out;
    for (const auto &[m, coefficient] : rest.m_terms) {
        int64_t product = 0;
        if (__builtin_mul_overflow(coefficient, factor, &product))
            return std::nullopt;
        auto term = multiply(m, monomial);
        if (!term)
            return std::nullopt;
        out.m_terms[*term] = product;
    }
    return out;
}

std::optional<SymbolicSize> SymbolicSize::dividedBy(const SymbolicSize &divisor) const
{
    if (divisor.m_terms.empty())
        return std::nullopt;
    if (divisor.m_terms.size() > 1) {
        // By a sum: only a whole multiple of it ((32*s0 + 16*s1) / (2*s0 + s1) is 16).
        const auto &[monomial, coefficient] = *divisor.m_terms.begin();
        auto it = m_terms.find(monomial);
        if (it == m_terms.end() || (coefficient == -1 && it->second == INT64_MIN) || it->second % coefficient != 0)
            return std::nullopt;
        const SymbolicSize quotient(it->second / coefficient);
        auto back = divisor.times(quotient);
        return back && *back == *this ? std::optional(quotient) : std::nullopt;
    }
    const auto &[by, factor] = *divisor.m_terms.begin();
    SymbolicSize out;
    for (const auto &[monomial, coefficient] : m_terms) {
        auto quotient = divide(monomial, by);
        if (!quotient || (factor == -1 && coefficient == INT64_MIN) || coefficient % factor != 0)
            return std::nullopt;
        out.m_terms[*quotient] = coefficient / factor;
    }
    return out;
}

namespace {

/// `start` combined with each of `dims` in turn (plus, times); nullopt when a
/// dim is no polynomial or a step has no answer.
std::optional<Dim> foldDims(const std::vector<Dim> &dims, SymbolicSize start,
                            std::optional<SymbolicSize> (SymbolicSize::*combine)(const SymbolicSize &) const)
{
    for (const Dim &d : dims) {
        auto size = SymbolicSize::parse(d);
        auto next = size ? (start.*combine)(*size) : std::nullopt;
        if (!next)
            return std::nullopt;
        start = std::move(*next);
    }
    return start.toDim();
}

} // namespace

std::optional<Dim> sumOfDims(const std::vector<Dim> &dims)
{
    return foldDims(dims, SymbolicSize(), &SymbolicSize::plus);
}

std::optional<Dim> productOfDims(const std::vector<Dim> &dims)
{
    return foldDims(dims, SymbolicSize(1), &SymbolicSize::times);
}

std::optional<Dim> quotientOfDims(const Dim &numerator, const Dim &denominator)
{
    auto n = SymbolicSize::parse(numerator), d = SymbolicSize::parse(denominator);
    if (!n || !d || d->constant() == 0)
        return std::nullopt;
    auto q = n->dividedBy(*d);
    return q ? std::optional(q->toDim()) : std::nullopt;
}

std::optional<std::vector<Dim>> withInferredSize(std::vector<Dim> sizes, const Dim &whole)
{
    auto isMinusOne = [](const Dim &d) {
        const auto *value = std::get_if<int64_t>(&d);
        return value && *value == -1;
    };
    auto inferred = std::find_if(sizes.begin(), sizes.end(), isMinusOne);
    if (inferred == sizes.end())
        return sizes;
    std::vector<Dim> rest;
    for (auto it = sizes.begin(); it != sizes.end(); ++it)
        if (it != inferred)
            rest.push_back(*it);
    auto part = productOfDims(rest);
    auto left = part ? quotientOfDims(whole, *part) : std::nullopt;
    if (!left)
        return std::nullopt;
    *inferred = *left;
    return sizes;
}

} // namespace fusebox
