#pragma once

namespace fusebox {

/// Whether a rewrite changed the graph (MLIR's LogicalResult, as returned by
/// matchAndRewrite): success() only when it did. A rewrite that finds its
/// match no longer holding returns failure() and leaves the graph as it was;
/// the driver, GreedyDriver::apply() and the IDE count only successes.
/// [[nodiscard]]: a caller that drops it would count a no-op as a rewrite.
class [[nodiscard]] LogicalResult {
public:
    static LogicalResult success(bool isSuccess = true) { return LogicalResult(isSuccess); }
    static LogicalResult failure(bool isFailure = true) { return LogicalResult(!isFailure); }

    bool succeeded() const { return m_success; }
    bool failed() const { return !m_success; }

private:
    explicit LogicalResult(bool isSuccess)
        : m_success(isSuccess)
    {}
    bool m_success;
};

inline LogicalResult success(bool isSuccess = true)
{
    return LogicalResult::success(isSuccess);
}
inline LogicalResult failure(bool isFailure = true)
{
    return LogicalResult::failure(isFailure);
}
inline bool succeeded(LogicalResult result)
{
    return result.succeeded();
}
inline bool failed(LogicalResult result)
{
    return result.failed();
}

} // namespace fusebox
