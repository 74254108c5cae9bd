#pragma once
// The builder behind buildGraph(): FxTextReader.cpp walks statements and
// evaluates values, FxCallLowering.cpp turns calls, method calls and indexing
// into nodes, FxSubmoduleInliner.cpp flattens calls of nested submodule
// classes (or keeps module calls opaque), FxHigherOrder.cpp keeps the nested
// classes higher-order ops take as subgraphs. Private to those files.

#include "core/ir/GraphBuilder.h"
#include "FxAnnotation.h"
#include "FxTargets.h"
#include "FxTextReader.h"

#include <absl/container/flat_hash_map.h>

#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace fusebox::fx {

/// Thrown inside the builder, caught in buildGraph: keeps every check one line.
struct Failure {
    std::string message;
};

/// Builds one graph from a parsed dump; every error throws a Failure.
class Builder {
public:
    /// Builds into model.graph (and model.warnings); fn and options must outlive it.
    Builder(const FxFunction &fn, const FxReadOptions &options, LoadedModel &model);

    /// Adds the inputs, one node per call and the outputs; throws a Failure on errors.
    void run();

private:
    static constexpr size_t npos = size_t(-1);

    /// A builder for the forward of the nested class `fn`, flattened at a
    /// call of self.<path> in `parent`: it shares the parent's graph and
    /// warnings, and has its own names, self path and scope.
    Builder(const FxFunction &fn, const Builder &parent, const std::string &path);

    /// Throws "file:line:column: <what>" at `at`.
    [[noreturn]] void fail(const Expr &at, const std::string &what) const
    {
        throw Failure{positionPrefix(m_file, at.line, at.column) + what};
    }
    /// "file:line" for warnings.
    std::string where(int line) const { return m_file + ":" + std::to_string(line); }

    // --- comments (FxTextReader.cpp) ---------------------------------------------
    /// Applies the "# File:", "# No stacktrace found" and "# scope:" comments
    /// on their own lines before `line` to the provenance of the next nodes.
    void applyDirectivesBefore(int line);
    /// The "# type: T" comment trailing a statement, or empty.
    std::string trailingType(const Stmt &s) const;

    // --- inputs and annotations (FxTextReader.cpp) -------------------------------
    /// Parses a type annotation; warns about dtypes Fusebox lacks.
    /// The parse is kept per text and handed out by reference (a dump
    /// repeats a few hundred annotations on every node): valid until the next call.
    const ParsedAnnotation &annotation(const Annotation &a);
    /// Adds the graph input `name`, typed by its annotation when there is one.
    void addInput(std::string_view name, const std::optional<Annotation> &ann, int line, int column);
    /// Fails when `name` is already bound.
    void checkNew(std::string_view name, int line, int column);
    /// Index of the AOT joint graph's tree_flatten_spec unpack in the body, or npos.
    size_t findTreeFlatten() const;

    // --- statements (FxTextReader.cpp) -------------------------------------------
    /// Runs forward's statements (but `skip`) up to the return, which it
    /// returns; fails when there is none.
    const Stmt &body(size_t skip);
    /// Handles one statement; true when it is the return (left to the caller).
    bool statement(const Stmt &s);
    /// "x[idx] = value": an operator.setitem node on x.
    void subscriptAssignment(const Stmt &s, const Expr &target);
    /// "a, b = value": binds each name to an item (or a getitem node) of value.
    void unpack(const Stmt &s, const Expr &targets);
    /// Sets the graph's outputs from a return statement.
    void returnStatement(const Stmt &s);

    // --- expressions (FxTextReader.cpp) ------------------------------------------
    /// "torch.ops.aten.add" for a chain of attributes on a global (not a value).
    std::optional<std::string> dottedName(const Expr &e) const;
    /// "layer.weight" for self.layer.weight / getattr(self.layer, "weight"); "" for self.
    std::optional<std::string> selfPath(const Expr &e) const;
    /// The value of e; nodes it creates are named `name` (or automatically when empty).
    Arg evaluate(const Expr &e, const std::string &name);
    /// A 64-bit integer literal.
    Arg intLiteral(const Expr &e) const;
    /// A bound name, or None/True/False/inf/nan.
    Arg lookup(const Expr &e) const;
    /// A unary operator: folded on constants, a node on values.
    Arg unary(const Expr &e, const std::string &name);
    /// self.x (a constant), torch.* globals (dtypes, inf, names) or a Tensor attribute node.
    Arg attribute(const Expr &e, const std::string &name);
    /// A node name for a parameter path: "layer.weight" -> "layer_weight".
    static std::string sanitize(const std::string &path);
    /// "a.b" of a and b; either may be empty.
    static std::string joinPath(const std::string &a, const std::string &b)
    {
        return a.empty() ? b : b.empty() ? a : a + "." + b;
    }
    /// The graph name of a node the code names `name`: prefixed in flattened
    /// submodules ("submod_0_relu"); empty stays empty (named after the op).
    std::string implicitName(const std::string &op);
    /// Whether forward's code calls `name` bare (`name(...)`): a value the
    /// reader names must not take it, or the text written back would call the
    /// value (found by fx_text_fuzz).
    bool calledBare(const std::string &name);
    std::string nodeName(const std::string &name) const { return name.empty() ? name : m_namePrefix + name; }
    /// `name` with a leading '_' when it is one the writer must not assign
    /// to ("torch", "slice", "self"), as the writer would write it: a round
    /// trip then keeps the name. Summarised as a warning.
    std::string writableName(std::string name, int line);

    // --- calls and indexing (FxCallLowering.cpp) ---------------------------------
    /// object[index]: an item of a list, a getitem node, or tensor indexing.
    Arg subscript(const Expr &e, const std::string &name);
    /// Basic tensor indexing (`x[:, 0]`, `x[1:3]`) as the aten::slice /
    /// aten::select chain TorchScript's tracer records for it, so that both
    /// imports of a model agree (written back as torch.ops calls). Other indices (None, Ellipsis, tensors) stay
    /// one opaque operator.getitem node.
    Arg tensorIndex(const Arg &object, const Arg &index, const std::string &name, int line);
    void markSubscript(NodeId last, const Arg &object, const Arg &index);
    /// The evaluated positional and keyword arguments of a call.
    CallArgs callArgs(const Expr &call);
    /// A call: device(...), slice(...), getattr(self, ...), a module, function or method call.
    Arg call(const Expr &e, const std::string &name);
    /// device(type, index) / torch.device("cuda:0") as a Device value.
    Arg deviceLiteral(const Expr &e);
    /// An item of a list or tuple the reader evaluated; fails out of range.
    Arg itemOf(const Expr &at, const std::vector<Arg> &items, int64_t i) const;
    /// A call of the dotted function `dotted` (torch.*, F.*, operator.*, ...).
    Arg functionCall(const Expr &e, const std::string &dotted, const std::string &name);
    /// F.embedding(input, weight, padding_idx, max_norm, norm_type,
    /// scale_grad_by_freq, sparse) -> aten::embedding(weight, indices,
    /// padding_idx=-1, scale_grad_by_freq, sparse). max_norm (a renormalising
    /// pre-step) and norm_type have no place in the op; they are kept (and the
    /// call falls back to "arguments kept as written") only when max_norm is set.
    static void adaptFunctionalEmbedding(CallArgs &a);
    /// value.method(...) as the Tensor method's op.
    Arg methodCall(const Expr &e, const std::string &name);

    // --- module calls (FxSubmoduleInliner.cpp) -----------------------------------
    /// self.path(...): flattened when path names a nested class, otherwise an
    /// opaque call_module node.
    Arg moduleCall(const Expr &e, const std::string &path, const std::string &name);
    /// The nested class self.<path> names (a child of this class, or of a
    /// child for dotted paths), or null.
    const NestedClass *findNested(const std::string &path) const;
    /// Inlines the nested class's forward at the call e; its return value.
    Arg flatten(const Expr &e, const NestedClass &nested, const std::string &path);
    /// Binds forward's parameters to a call's arguments (evaluated by the
    /// caller); `callee` ("self.submod_0") names it in errors.
    void bindParameters(const Expr &call, const CallArgs &args, const std::string &callee);

    // --- higher-order ops (FxHigherOrder.cpp) ------------------------------------
    /// self.<path> used as a value where path names a nested class (a
    /// higher-order op's subgraph): the argument "subgraph:<name>"; the
    /// class's code is kept for the nodes that take it (attachSubgraphs).
    Arg subgraphValue(const Expr &e, const NestedClass &nested, const std::string &path);
    /// Sets n.opaqueBody to the code of the subgraphs n's arguments name (FxSubgraphs.h).
    void attachSubgraphs(Node &n) const;

    // --- node creation (FxCallLowering.cpp) --------------------------------------
    /// addNode() for a target given as op, overload and whether it is mapped.
    NodeId addNode(std::string op, std::optional<std::string> overload, const std::string &spelling,
                   std::vector<Arg> args, std::vector<NamedArg> kwargs, const std::string &name, int line, bool mapped);
    /// Adds the node of a call of t (spelled `spelling` in the dump), fitting
    /// its arguments to the op's schema when there is one; unmapped targets
    /// become opaque nodes with a warning.
    NodeId addNode(CanonicalTarget t, const std::string &spelling, std::vector<Arg> args, std::vector<NamedArg> kwargs,
                   const std::string &name, int line);
    /// addNode's steps: the target as Python calls it (a list split is
    /// split_with_sizes; a varargs einsum stays as written), the arguments as
    /// the dump wrote them (kept for the writer), and the op fitted to its
    /// schema (`overload` set), or named by its spelling when it cannot be.
    static void normaliseTarget(CanonicalTarget &t, const std::string &spelling, const std::vector<Arg> &args,
                                std::vector<NamedArg> &kwargs);
    std::string writtenArguments(const std::string &spelling, const std::vector<Arg> &args,
                                 const std::vector<NamedArg> &kwargs);
    void fitToSchema(CanonicalTarget &t, const std::string &spelling, std::vector<Arg> &args,
                     std::vector<NamedArg> &kwargs, std::string &overload, int line);
    /// The value type fitSchema uses to choose overloads; "" when unknown.
    std::string nodeType(NodeId id) const;

    /// A bound name: its value and the line that bound it.
    struct Binding {
        Arg value;
        int line = 0;
    };
    /// The names bound so far. The hash map holds an index into a vector of
    /// bindings, not the bindings: a dump binds a name a statement (15,000 in a
    /// 10k-node dump), and slots of 72 bytes spread over a megabyte made each
    /// insert and lookup a cache miss (a tenth of a read); slots of 24 bytes fit
    /// the cache, and the bindings are appended in order.
    class Environment {
    public:
        void reserve(size_t names)
        {
            m_index.reserve(names);
            m_bindings.reserve(names);
        }
        /// The binding of `name`, or null.
        const Binding *find(std::string_view name) const
        {
            auto it = m_index.find(name);
            return it == m_index.end() ? nullptr : &m_bindings[it->second];
        }
        bool contains(std::string_view name) const { return m_index.contains(name); }
        /// Binds `name` (a view that outlives the build) to value, or rebinds it.
        void bind(std::string_view name, Arg value, int line)
        {
            auto [it, fresh] = m_index.try_emplace(name, uint32_t(m_bindings.size()));
            if (fresh)
                m_bindings.push_back(Binding{std::move(value), line});
            else
                m_bindings[it->second] = Binding{std::move(value), line};
        }

    private:
        absl::flat_hash_map<std::string_view, uint32_t> m_index;
        std::vector<Binding> m_bindings;
    };

    /// Findings that would repeat per node, reported once per kind at the
    /// end of the read: "<kind>: a ×3, b (first at file:line)".
    struct Summary {
        size_t count = 0;
        int firstLine = 0;
        std::vector<std::pair<std::string, size_t>> items;
    };
    /// Counts one occurrence of `item` under `kind` (kinds in first-seen order).
    void summarise(const std::string &kind, const std::string &item, int line);
    /// Appends one warning per summarised kind (the top-level builder, at the end).
    void reportSummaries();

    const FxFunction &m_fn;
    /// calledBare()'s names, gathered from m_fn on first use.
    std::optional<std::unordered_set<std::string_view>> m_calledBare;
    const FxReadOptions &m_options;
    Graph &m_graph;
    GraphBuilder m_build{m_graph};
    std::vector<std::string> &m_warnings;
    std::vector<int> &m_nodeLines;
    /// Records the dump line node `id` was read from (LoadedModel::nodeLines).
    void noteLine(NodeId id, int line)
    {
        if (m_nodeLines.size() <= id.value)
            m_nodeLines.resize(id.value + 1, 0);
        m_nodeLines[id.value] = line;
    }
    std::vector<std::pair<std::string, Summary>> m_ownSummaries;
    std::vector<std::pair<std::string, Summary>> *m_summaries = &m_ownSummaries;
    /// Subgraph name -> its class's code, shared with flattened submodules.
    std::unordered_map<std::string, std::string> m_ownSubgraphs;
    std::unordered_map<std::string, std::string> *m_subgraphs = &m_ownSubgraphs;
    /// canonicalFunction() of each dotted target met so far, shared with
    /// flattened submodules: a dump calls a few dozen targets thousands of
    /// times, and canonicalising one is a tenth of making its node.
    absl::flat_hash_map<std::string, CanonicalTarget> m_ownTargets;
    absl::flat_hash_map<std::string, CanonicalTarget> *m_targets = &m_ownTargets;
    const CanonicalTarget &canonicalTarget(const std::string &dotted)
    {
        auto [it, fresh] = m_targets->try_emplace(dotted);
        if (fresh)
            it->second = canonicalFunction(dotted);
        return it->second;
    }
    std::string m_file;
    /// Keys view the names in m_fn's expressions and parameters, which
    /// outlive the build: a binding copies no name.
    Environment m_env;
    /// Inputs annotated as tensors (torch.Tensor, Parameter, "f32[4]"): a
    /// tensor even before its shape is known, so a schema's Tensor[]
    /// parameter cannot take one (einsum("i,j->ij", t, w) is not
    /// aten::einsum(equation, tensors=t, path=w)).
    /// Indexed by NodeId (ids are dense): no allocation per input.
    std::vector<bool> m_annotatedTensors;
    bool isAnnotatedTensor(NodeId id) const
    {
        return id.value < m_annotatedTensors.size() && m_annotatedTensors[id.value];
    }
    std::unordered_map<std::string_view, Annotation> m_pending;
    /// Annotations parsed so far, by text: a large dump repeats a few hundred
    /// of them ("f32[16][1]cpu") on every node.
    absl::flat_hash_map<std::string_view, ParsedAnnotation> m_annotations; // keys view the dump, as m_env's
    std::unordered_map<std::string, const NestedClass *> m_nested;
    size_t m_commentCursor = 0;
    std::string m_scope;
    SourceLocation m_source;
    /// In a flattened submodule: the builder of the calling code (null at
    /// the top level), the module path `self` stands for ("submod_0.inner"),
    /// the scope "# scope:" comments are relative to, and the node name prefix.
    const Builder *m_parent = nullptr;
    std::string m_selfPath;
    std::string m_scopeBase;
    std::string m_namePrefix;
};

} // namespace fusebox::fx
