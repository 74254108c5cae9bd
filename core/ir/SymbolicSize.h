#pragma once
// Sizes of dynamic shapes as PyTorch 2 writes them: polynomials in shape
// symbols with integer coefficients ("2*s37", "s0 + s1", "16*s0*s1"), read
// from and printed as sympy prints them (str(), sympy 1.14, the version in
// both PyTorch 2 roots), so that a size Fusebox computes reads exactly as the
// one Inductor logs beside it. What sympy keeps unexpanded (a product of
// sums, "s1*(s0 + 1)") or writes with other operators (FloorDiv,
// Max) is not a polynomial here: arithmetic that would need it gives no
// answer rather than another spelling.

#include "TensorMeta.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace fusebox {

/// A polynomial in shape symbols with integer coefficients, kept expanded.
class SymbolicSize {
public:
    /// A symbol and its power.
    using Factor = std::pair<std::string, int>;
    /// A product of symbols, sorted by name; empty for the constant term.
    using Monomial = std::vector<Factor>;

    /// The constant `value`.
    explicit SymbolicSize(int64_t value = 0);

    /// Reads an int dim, or a symbol dim spelled as sympy prints a
    /// polynomial ("s0", "2*s1 + 1", "s0**2 - s0", "16 - s0"); nullopt for
    /// anything else ("s1*(s0 + 1)", "((s0 + 1)//2)", "Max(1, s0)").
    static std::optional<SymbolicSize> parse(const Dim &dim);

    /// The constant value, when no symbol is left.
    std::optional<int64_t> constant() const;
    /// The value with each symbol given its size in `sizes` (2*s37 + 1 at
    /// s37 = 16 is 33); nullopt when a symbol has no size there or the value
    /// overflows.
    std::optional<int64_t> valueAt(const std::map<std::string, int64_t> &sizes) const;
    /// An int dim when constant, else the polynomial as sympy's str() prints it.
    Dim toDim() const;

    /// The sum and difference; nullopt where a coefficient overflows.
    std::optional<SymbolicSize> plus(const SymbolicSize &other) const;
    std::optional<SymbolicSize> minus(const SymbolicSize &other) const;
    /// The product, when sympy would print it expanded: one side is a
    /// constant or a single term (2*(s0 + 1) is 2*s0 + 2; s1*(s0 + 1) stays
    /// a product of a sum in sympy, so nullopt here).
    std::optional<SymbolicSize> times(const SymbolicSize &other) const;
    /// The exact quotient by a single term (16*s0*s1 / 4*s0 = 4*s1), or by a
    /// sum of which this is a whole multiple ((32*s0 + 16*s1) / (2*s0 + s1)
    /// = 16); nullopt otherwise, and for a zero divisor.
    std::optional<SymbolicSize> dividedBy(const SymbolicSize &divisor) const;

    friend bool operator==(const SymbolicSize &, const SymbolicSize &) = default;

private:
    /// Monomial -> coefficient; no zero coefficients are stored.
    std::map<Monomial, int64_t> m_terms;
};

/// The sum of the dims, as an int or sympy's spelling; nullopt when one is
/// not a polynomial (SymbolicSize::parse).
std::optional<Dim> sumOfDims(const std::vector<Dim> &dims);

/// The product of the dims; nullopt when one is not a polynomial or the
/// product is not one sympy prints expanded (SymbolicSize::times).
std::optional<Dim> productOfDims(const std::vector<Dim> &dims);

/// numerator / denominator, exactly (SymbolicSize::dividedBy); nullopt
/// otherwise, or when the denominator is zero.
std::optional<Dim> quotientOfDims(const Dim &numerator, const Dim &denominator);

/// `sizes` with its -1, if it has one, replaced by what is left of `whole`
/// once the other sizes are divided out (view's and unflatten's rule:
/// view(-1, 2, 2) of numel 4*s0 is [s0, 2, 2]); nullopt when that is not
/// exact, or `whole` is not a polynomial.
std::optional<std::vector<Dim>> withInferredSize(std::vector<Dim> sizes, const Dim &whole);

} // namespace fusebox
