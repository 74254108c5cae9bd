// writeFxText: IR -> print_readable()-style Python that readFxText reads back
// to the same graph. docs/fx-text.md lists the conventions (scope comments,
// "# type:" comments, metadata lines).

#include "FxAnnotation.h"
#include "FxFunctionalSignatures.h"
#include "FxSubgraphs.h"
#include "FxSubscripts.h"
#include "FxTargets.h"
#include "FxText.h"
#include "core/ir/ParallelFor.h"

#include <absl/container/flat_hash_set.h>

#include <cctype>
#include <cstdio>
#include <deque>
#include <optional>
#include <set>
#include <algorithm>
#include <unordered_map>
#include <unordered_set>

namespace fusebox {
namespace {

/// The torch memory formats and layouts an argument names (the reader keeps
/// them as their dotted name).
bool isTorchConstantName(std::string_view s)
{
    static constexpr std::string_view kNames[] = {"torch.contiguous_format", "torch.preserve_format",
                                                  "torch.channels_last",     "torch.channels_last_3d",
                                                  "torch.strided",           "torch.sparse_coo",
                                                  "torch.sparse_csr",        "torch.sparse_csc",
                                                  "torch.sparse_bsr",        "torch.sparse_bsc",
                                                  "torch._mkldnn",           "torch.jagged"};
    return std::find(std::begin(kNames), std::end(kNames), s) != std::end(kNames);
}

/// A Python string literal ('...'), escaping what the reader decodes.
std::string pyString(std::string_view s, char quote = '\'')
{
    std::string out(1, quote);
    for (unsigned char c : s) {
        if (c == '\\' || c == static_cast<unsigned char>(quote)) {
            out += '\\';
            out += static_cast<char>(c);
        } else if (c == '\n') {
            out += "\\n";
        } else if (c == '\t') {
            out += "\\t";
        } else if (c == '\r') {
            out += "\\r";
        } else if (c < 0x20 || c == 0x7f) {
            char buf[5];
            std::snprintf(buf, sizeof buf, "\\x%02x", c);
            out += buf;
        } else {
            out += static_cast<char>(c);
        }
    }
    return out + quote;
}

class Writer {
public:
    Writer(const Graph &graph, const FxWriteOptions &options)
        : m_graph(graph)
        , m_options(options)
    {}

    std::string run()
    {
        for (const auto &[key, value] : m_graph.metadata())
            m_out += "# metadata " + pyString(key, '"') + " = " + pyString(value, '"') + "\n";
        m_out += "class " + m_options.className + "(torch.nn.Module):\n";
        assignNames();
        writeSignature();
        writeBody();
        writeReturn();
        writeSubmodules();
        return std::move(m_out);
    }

private:
    void assignNames()
    {
        m_names.assign(m_graph.idBound(), nullptr);
        // The names taken, built only when some name must change (rarely:
        // importers give identifiers already).
        std::optional<absl::flat_hash_set<std::string>> used;
        auto usedNames = [&]() -> absl::flat_hash_set<std::string> & {
            if (!used) {
                used.emplace();
                for (NodeId id : m_graph.nodeIds())
                    if (fx::isIdentifier(m_graph.node(id)->name) && !fx::isReservedName(m_graph.node(id)->name))
                        used->insert(m_graph.node(id)->name);
            }
            return *used;
        };
        for (NodeId id : m_graph.nodeIds()) {
            const std::string &name = m_graph.node(id)->name;
            if (fx::isIdentifier(name) && !fx::isReservedName(name)) {
                m_names[id.value] = &name;
                continue;
            }
            // Not writable as Python: a close identifier (the round trip renames it).
            std::string base;
            for (char c : name)
                base += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
            if (base.empty() || std::isdigit(static_cast<unsigned char>(base[0])) || fx::isReservedName(base))
                base = "_" + base;
            std::string candidate = base;
            for (int i = 1; usedNames().contains(candidate); ++i)
                candidate = base + "_" + std::to_string(i);
            usedNames().insert(candidate);
            m_names[id.value] = &m_renamed.emplace_back(std::move(candidate));
        }
    }

    /// The name node id is written under.
    const std::string &name(NodeId id) const
    {
        static const std::string missing = "_missing";
        return id.value < m_names.size() && m_names[id.value] ? *m_names[id.value] : missing;
    }

    /// An argument of `of` (when given): its subgraphs are written as
    /// self.<name>, and a higher-order op's op arguments as torch.ops.* values.
    std::string arg(const Arg &a, const Node *of = nullptr) const
    {
        if (const auto *id = std::get_if<NodeId>(&a.value))
            return name(*id);
        if (const auto *s = std::get_if<std::string>(&a.value)) {
            // torch.contiguous_format and the like, which the reader keeps by
            // name: written as the value, not as a string PyTorch would refuse.
            if (isTorchConstantName(*s))
                return *s;
            return of ? referenceOrString(*s, *of) : pyString(*s);
        }
        if (const auto *list = std::get_if<ArgList>(&a.value)) {
            std::string s;
            for (size_t i = 0; i < list->items.size(); ++i)
                s += (i ? ", " : "") + arg(list->items[i], of);
            switch (list->kind) {
            case ArgList::Kind::Tuple: return "(" + s + (list->items.size() == 1 ? ",)" : ")");
            case ArgList::Kind::Slice: return "slice(" + s + ")";
            case ArgList::Kind::List: return "[" + s + "]";
            case ArgList::Kind::Dict: {
                std::string d;
                for (size_t i = 0; i + 1 < list->items.size(); i += 2)
                    d += (i ? ", " : "") + arg(list->items[i], of) + ": " + arg(list->items[i + 1], of);
                return "{" + d + "}";
            }
            }
        }
        if (const auto *d = std::get_if<Device>(&a.value))
            return d->index < 0 ? "device(type=" + pyString(d->type) + ")"
                                : "device(type=" + pyString(d->type) + ", index=" + std::to_string(d->index) + ")";
        return a.toString();
    }

    /// A string argument of n: self.<name> for a subgraph n carries, the
    /// torch.ops value for an op passed to a higher-order op, else a literal.
    static std::string referenceOrString(const std::string &s, const Node &n)
    {
        if (std::string sub = subgraphArgName(Arg(s)); !sub.empty() && fx::isIdentifier(sub) && subgraphText(n, sub))
            return "self." + sub;
        if (n.op.starts_with("higher_order::"))
            if (std::string op = opReferenceSpelling(s); !op.empty())
                return op;
        return pyString(s);
    }

    /// F.batch_norm(...) and friends in their Python argument order (FxFunctionalSignatures.h).
    std::optional<std::string> functionalCall(const Node &n, const std::string &spelling) const
    {
        const std::string_view name = fx::functionalName(spelling);
        if (name.empty() || !n.kwargs().empty())
            return std::nullopt;
        std::vector<NamedArg> flags;
        auto args = fx::functionalArguments(name, n.op, n.args(), flags);
        if (!args)
            return std::nullopt;
        std::string s;
        for (const Arg &a : *args)
            s += (s.empty() ? "" : ", ") + arg(a, &n);
        for (const NamedArg &kw : flags)
            s += (s.empty() ? "" : ", ") + kw.name + " = " + arg(kw.value, &n);
        std::string base = spelling;
        if (!flags.empty() && base.ends_with("_"))
            base.pop_back();
        return base + "(" + s + ")";
    }

    std::string callArgs(const Node &n, size_t skip = 0) const
    {
        std::string s;
        for (size_t i = skip; i < n.args().size(); ++i)
            s += (s.empty() ? "" : ", ") + arg(n.args()[i], &n);
        for (const NamedArg &kw : n.kwargs())
            s += (s.empty() ? "" : ", ") + kw.name + " = " + arg(kw.value, &n);
        return s;
    }

    /// self.a.b, with getattr(self.x, "0") for path parts that are not identifiers (as FX writes them).
    static std::string selfAccess(std::string_view path)
    {
        std::string s = "self";
        size_t begin = 0;
        while (begin <= path.size()) {
            size_t dot = path.find('.', begin);
            std::string_view part = path.substr(begin,
                                                dot == std::string_view::npos ? std::string_view::npos : dot - begin);
            s = fx::isIdentifier(part) ? s + "." + std::string(part) : "getattr(" + s + ", " + pyString(part) + ")";
            if (dot == std::string_view::npos)
                break;
            begin = dot + 1;
        }
        return s;
    }

    void directives(const Node &n, const std::string &indent)
    {
        if (n.provenance.scope != m_scope) {
            m_scope = n.provenance.scope;
            m_out += indent + (m_scope.empty() ? "# scope:" : "# scope: " + m_scope) + "\n";
        }
        if (n.provenance.source != m_source) {
            m_source = n.provenance.source;
            if (!m_source.isKnown()) {
                m_out += indent + "# No stacktrace found for following nodes\n";
            } else {
                m_out += indent + "# File: " + m_source.file + ":" + std::to_string(m_source.line);
                if (m_source.column > 0)
                    m_out += ":" + std::to_string(m_source.column);
                m_out += "\n";
            }
        }
    }

    std::string inputAnnotation(const Node &n) const
    {
        if (n.type == "SymInt" && !n.meta.isKnown()) {
            const std::string &spelling = n.provenance.originalSpelling;
            return spelling.starts_with("Sym(") ? spelling : "Sym(" + n.name + ")";
        }
        if (n.meta.isKnown())
            return fx::formatAnnotation(n.meta);
        return n.type == "Tensor" ? std::string() : n.type;
    }

    void writeSignature()
    {
        bool multiline = false;
        for (NodeId id : m_graph.inputs()) {
            const Node &n = *m_graph.node(id);
            multiline = multiline || !n.provenance.scope.empty() || n.provenance.source.isKnown();
        }
        std::vector<std::string> params;
        for (NodeId id : m_graph.inputs()) {
            const Node &n = *m_graph.node(id);
            std::string ann = inputAnnotation(n);
            params.push_back(name(id) + (ann.empty() ? "" : ": " + pyString(ann, '"')));
        }
        if (!multiline) {
            m_out += "    def forward(self";
            for (const std::string &p : params)
                m_out += ", " + p;
            m_out += "):\n";
            return;
        }
        // One parameter a line, so that scope and File comments can precede each.
        m_out += "    def forward(\n        self,\n";
        for (size_t i = 0; i < params.size(); ++i) {
            directives(*m_graph.node(m_graph.inputs()[i]), "        ");
            m_out += "        " + params[i] + ",\n";
        }
        m_out += "    ):\n";
    }

    /// Every op and constant, in program order. A large body is written in
    /// two halves at once: the second half's writer starts in the state
    /// (scope and File comments) the first half's last node leaves, which is
    /// all that one node's text depends on besides the names, so the text is
    /// byte for byte that of one writer.
    void writeBody()
    {
        std::vector<const Node *> body;
        body.reserve(m_graph.size());
        for (NodeId id : m_graph.nodeIds()) {
            const Node &n = *m_graph.node(id);
            if (n.kind() == NodeKind::Op || n.kind() == NodeKind::Constant)
                body.push_back(&n);
            // A subscript the reader lowered is written back as one, as
            // Dynamo printed it; its inner steps are not written.
            if (auto sub = fx::loweredSubscript(m_graph, id)) {
                for (NodeId step : sub->steps)
                    m_subscriptSteps.insert(step);
                m_subscripts.emplace(id, std::move(*sub));
            }
        }
        if (!m_options.parallel || body.size() < kParallelBodyNodes) {
            for (const Node *n : body)
                writeNode(*n);
            return;
        }
        const size_t half = body.size() / 2;
        Writer second(*this);
        second.m_out.clear();
        second.m_scope = body[half - 1]->provenance.scope;
        second.m_source = body[half - 1]->provenance.source;
        // (One after the other on a one-core machine: the same text.)
        parallelFor(2, 0, [&](size_t part) {
            Writer &writer = part == 0 ? *this : second;
            const size_t end = part == 0 ? half : body.size();
            for (size_t i = part == 0 ? 0 : half; i < end; ++i)
                writer.writeNode(*body[i]);
        });
        m_out += second.m_out;
        m_scope = std::move(second.m_scope);
        m_source = std::move(second.m_source);
    }

    /// Bodies below this many nodes are written by one thread (a thread's
    /// start costs more than it saves there).
    static constexpr size_t kParallelBodyNodes = 20000;

    void writeNode(const Node &n)
    {
        if (m_subscriptSteps.contains(n.id()))
            return;
        directives(n, "        ");
        std::string ann;
        std::string typeComment;
        if (n.meta.isKnown())
            ann = fx::formatAnnotation(n.meta);
        else if (n.type == "SymInt")
            ann = "Sym(" + name(n.id()) + ")";
        if (n.type != "Tensor" && !(n.type == "SymInt" && !n.meta.isKnown()))
            typeComment = "  # type: " + n.type;
        std::string lhs = name(n.id()) + (ann.empty() ? "" : ": " + pyString(ann, '"'));
        std::string rhs = n.kind() == NodeKind::Constant ? selfAccess(n.weightKey.empty() ? n.name : n.weightKey)
                                                         : expression(n);
        m_out += "        " + lhs + " = " + rhs + typeComment + "\n";
    }

    /// The call as the reader maps it back to n's op and overload.
    std::string expression(const Node &n) const
    {
        if (auto sub = m_subscripts.find(n.id()); sub != m_subscripts.end())
            return name(sub->second.object) + "[" + sub->second.index + "]";
        const std::string &spelling = n.provenance.originalSpelling;
        const auto &args = n.args();
        const bool firstIsNode = !args.empty() && args[0].isNode();
        if (n.op == ops::kGetItem) {
            if (spelling == "Tensor.__getitem__" && firstIsNode)
                return arg(args[0], &n) + ".__getitem__(" + callArgs(n, 1) + ")";
            if (spelling.empty() && args.size() == 2 && n.kwargs().empty())
                return arg(args[0], &n) + "[" + arg(args[1], &n) + "]";
            return "operator.getitem(" + callArgs(n) + ")";
        }
        if (n.op == ops::kSetItem)
            return "operator.setitem(" + callArgs(n) + ")";
        if (n.op.starts_with("call_module:"))
            return selfAccess(std::string_view(n.op).substr(12)) + "(" + callArgs(n) + ")";
        if (n.op.starts_with("higher_order::") && fx::isIdentifier(std::string_view(n.op).substr(14)))
            // (Higher-order ops have no overloads; one read from a dump is kept.)
            return "torch.ops.higher_order." + n.op.substr(14) + (n.overload.empty() ? "" : "." + n.overload) + "("
                   + callArgs(n) + ")";
        if (n.op.find("::") == std::string::npos) {
            // getattr(x, 'shape') as FX prints it: x.shape.
            if (n.op == "getattr" && args.size() == 2 && firstIsNode && n.kwargs().empty())
                if (const auto *attr = std::get_if<std::string>(&args[1].value);
                    attr && fx::isIdentifier(*attr) && !fx::isReservedName(*attr))
                    return arg(args[0], &n) + "." + *attr;
            // Opaque: the op is the target as the dump spelled it.
            if (n.op.starts_with("Tensor.") && firstIsNode)
                return arg(args[0], &n) + "." + n.op.substr(7) + "(" + callArgs(n, 1) + ")";
            // A method called on a literal (a name bound to a tuple): on the
            // literal, parenthesised; "Tensor.transpose(...)" did not read
            // back (found by fx_text_fuzz).
            if (n.op.starts_with("Tensor.") && !args.empty())
                return "(" + arg(args[0], &n) + ")." + n.op.substr(7) + "(" + callArgs(n, 1) + ")";
            return n.op + "(" + callArgs(n) + ")";
        }
        if (spelling.starts_with("operator.") && fx::canonicalFunction(spelling).op == n.op) {
            const bool unary = args.size() == 1;
            std::string symbol = fx::infixForOperator(spelling, unary);
            if (!symbol.empty() && n.kwargs().empty() && unary)
                return symbol + arg(args[0], &n);
            if (!symbol.empty() && n.kwargs().empty() && args.size() == 2)
                return arg(args[0], &n) + " " + symbol + " " + arg(args[1], &n);
            return spelling + "(" + callArgs(n) + ")";
        }
        if (spelling.starts_with("Tensor.") && !args.empty()) {
            std::string method = spelling.substr(7);
            // On a literal (a name bound to a tuple), parenthesised: spelt
            // otherwise, the call read back with another spelling (fx_text_fuzz).
            const std::string self = firstIsNode ? arg(args[0], &n) : "(" + arg(args[0], &n) + ")";
            bool folds = fx::takesVarargsList(method) && args.size() >= 2 && !args[1].isList()
                         && !std::holds_alternative<DType>(args[1].value);
            if (fx::canonicalMethod(method).op == n.op && !folds)
                return self + "." + method + "(" + callArgs(n, 1) + ")";
            if (auto dtype = fx::conversionMethodDType(method);
                dtype && n.op == "aten::to" && args.size() == 2 && n.kwargs().empty() && args[1] == Arg(*dtype))
                return self + "." + method + "()";
        } else if (!spelling.empty() && spelling.find("::") == std::string::npos) {
            if (auto call = functionalCall(n, spelling))
                return *call;
            fx::CanonicalTarget t = fx::canonicalFunction(spelling);
            // torch.split reads as split_with_sizes when given a list of sections.
            const bool listSplit = t.op == "aten::split" && n.op == "aten::split_with_sizes" && n.args().size() > 1
                                   && n.args()[1].isList();
            if (t.mapped && (t.op == n.op || listSplit) && (!t.overload || *t.overload == n.overload))
                return spelling + "(" + callArgs(n) + ")";
        }
        return fx::torchOpsSpelling(n.op, n.overload) + "(" + callArgs(n) + ")";
    }

    void writeReturn()
    {
        std::vector<std::string> values;
        if (const Node *out = m_graph.node(m_graph.output()))
            if (!out->args().empty())
                if (const auto *items = out->args()[0].items())
                    for (const Arg &a : *items)
                        values.push_back(arg(a));
        std::string joined;
        for (size_t i = 0; i < values.size(); ++i)
            joined += (i ? ", " : "") + values[i];
        m_out += "        return (" + joined + (values.size() == 1 ? ",)" : ")") + "\n";
    }

    /// Submodule code kept on opaque module-call nodes, once per submodule,
    /// and the subgraphs of higher-order ops, once per name.
    void writeSubmodules()
    {
        std::set<std::string> written;
        for (NodeId id : m_graph.nodeIds()) {
            const Node &n = *m_graph.node(id);
            if (n.opaqueBody.empty())
                continue;
            if (!n.op.starts_with("call_module:")) {
                for (const FxSubgraph &sub : subgraphsOf(n))
                    if (written.insert(std::string(kSubgraphArgPrefix) + sub.name).second)
                        writeClass(sub.text);
            } else if (written.insert(n.op).second) {
                writeClass(n.opaqueBody);
            }
        }
    }

    /// A class's code, nested in the module class.
    void writeClass(std::string_view code)
    {
        m_out += "\n";
        size_t pos = 0;
        while (pos < code.size()) {
            size_t end = code.find('\n', pos);
            if (end == std::string_view::npos)
                end = code.size();
            std::string_view line = code.substr(pos, end - pos);
            m_out += line.empty() ? "\n" : "    " + std::string(line) + "\n";
            pos = end + 1;
        }
    }

    const Graph &m_graph;
    const FxWriteOptions &m_options;
    /// Per node id: the node's own name, or one in m_renamed.
    std::vector<const std::string *> m_names;
    std::deque<std::string> m_renamed;
    /// Lowered subscripts written back as one (by their last node), and
    /// their inner steps, which are not written.
    std::unordered_map<NodeId, fx::LoweredSubscript> m_subscripts;
    std::unordered_set<NodeId> m_subscriptSteps;
    std::string m_out;
    std::string m_scope;
    SourceLocation m_source;
};

} // namespace

std::string writeFxText(const Graph &graph, const FxWriteOptions &options)
{
    return Writer(graph, options).run();
}

} // namespace fusebox
