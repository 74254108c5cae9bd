#pragma once
// A compiled pattern-file pattern (internal to patterns/custom). The compiler
// (PatternCompiler.cpp) fills a CompiledPattern; FilePattern matches it
// (FilePatternMatch.cpp) and rewrites with it (FilePatternRewrite.cpp).

#include "core/io/PatternAst.h"
#include "core/ir/Graph.h"
#include "core/rewrite/Pattern.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace fusebox {

class OpSchemaRegistry;

namespace custom {

/// One op call of the match: a statement, or a call nested in an argument.
struct CallSpec {
    const patternlang::Expr *call = nullptr;
    /// Index into CompiledPattern::decl.match for statements, -1 when nested.
    int statement = -1;
    /// True when the call sits in a variadic template (matched once per item).
    bool inTemplate = false;
    // Check descriptions, built once so quiet matching formats nothing.
    std::string opText;                ///< "r = (aten::relu | aten::gelu)(y): op is aten::relu | aten::gelu"
    std::string distinctText;          ///< "...: a node not matched already"
    std::string defaultsText;          ///< "...: arguments left out hold their defaults"
    std::vector<std::string> argTexts; ///< per pattern argument: "...: argument 1 `w`"
};

/// Finding a statement nobody matched so far among the users of a bound value.
struct SearchStep {
    int spec = -1;    ///< the statement's CallSpec
    std::string via;  ///< the bound name (capture or match value) whose users are tried
    std::string text; ///< "q = aten::mm(a, c): found among the users of a"
};

struct CompiledPattern {
    patternlang::PatternDecl decl;
    std::string sourceName;
    const OpSchemaRegistry *schemas = nullptr;

    std::vector<CallSpec> specs;
    std::map<const patternlang::Expr *, int> specOf; ///< nested OpCall expr -> spec
    std::vector<int> statementSpec;                  ///< match statement -> spec
    std::map<std::string, int> statementIndex;       ///< match target -> statement
    std::map<std::string, int> captureIndex;         ///< capture name -> index into decl.captures
    std::vector<bool> isListCapture;                 ///< per capture
    std::vector<bool> isOutput;                      ///< per match statement
    int anchorStatement = -1;
    std::vector<SearchStep> steps;
    /// Per constraint: its canonical text (the check's description).
    std::vector<std::string> whereTexts;
    /// Computed literal arguments of the replacement (`first(i) * size`) and
    /// their texts: the match checks they can be evaluated.
    std::vector<const patternlang::Expr *> computed;
    std::vector<std::string> computedTexts;
    /// Captures a replacement output is renamed to (`r = x`): must bind nodes.
    std::vector<std::string> nodeCaptures;
    /// True when a capture could depend on a matched node (user searches or
    /// several outputs): then the match checks the rewrite makes no cycle.
    bool needsCycleCheck = false;
};

/// What a successful search bound.
struct Bindings {
    std::vector<NodeId> statementNode;        ///< per match statement
    std::vector<std::optional<Arg>> captures; ///< per capture
    std::vector<NodeId> matched;              ///< every matched node, anchor first
    std::vector<int> choices;                 ///< candidate picked at each search step
    int progress = 0;                         ///< checks passed on this path
};

class FilePattern final : public VerticalPattern {
public:
    FilePattern(std::shared_ptr<const CompiledPattern> compiled, PassStage stage, int benefit,
                std::vector<std::string> rootOps, std::string description);

    std::optional<Match> match(const Graph &graph, NodeId anchor, MatchTrace &trace) const override;
    LogicalResult rewrite(PatternRewriter &rewriter, const Match &match) const override;

    const CompiledPattern &compiled() const { return *m_compiled; }

    /// The bindings of a match at anchor (a quiet search); nullopt when none.
    std::optional<Bindings> bind(const Graph &graph, NodeId anchor) const;

    void setOptionsFrom(const PatternOptions &options) { this->options() = options; }

private:
    std::shared_ptr<const CompiledPattern> m_compiled;
};

/// "%name" of a node or the literal's text ("f32", "[0, 1]") for check values.
std::string formatValue(const Graph &graph, const Arg &value);

} // namespace custom
} // namespace fusebox
