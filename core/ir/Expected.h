#pragma once

#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace fusebox {

/// An error as core/ reports it: one line naming the file, line/field and the
/// offending value ("model.pt: not a TorchScript archive (constants.pkl missing)").
struct Error {
    std::string message;
};

/// A value or an Error (std::expected is C++23; GCC 12's C++20 mode lacks it).
/// Contract: exactly one of value()/error() is valid, as told by hasValue().
/// [[nodiscard]]: a dropped Expected is a dropped error.
template<typename T>
class [[nodiscard]] Expected {
public:
    Expected(T value)
        : m_state(std::move(value))
    {}
    Expected(Error error)
        : m_state(std::move(error))
    {}

    bool hasValue() const { return m_state.index() == 0; }
    explicit operator bool() const { return hasValue(); }

    T &value() & { return std::get<0>(m_state); }
    const T &value() const & { return std::get<0>(m_state); }
    T &&value() && { return std::get<0>(std::move(m_state)); }
    T *operator->() { return &value(); }
    const T *operator->() const { return &value(); }
    T &operator*() & { return value(); }
    const T &operator*() const & { return value(); }

    const Error &error() const { return std::get<1>(m_state); }

private:
    std::variant<T, Error> m_state;
};

/// Success or an Error, for operations that return nothing. [[nodiscard]]:
/// ignoring one is ignoring an error.
class [[nodiscard]] Status {
public:
    Status() = default;
    Status(Error error)
        : m_error(std::move(error))
    {}
    static Status ok() { return {}; }

    bool isOk() const { return !m_error.has_value(); }
    explicit operator bool() const { return isOk(); }
    const Error &error() const { return *m_error; }

private:
    std::optional<Error> m_error;
};

} // namespace fusebox
