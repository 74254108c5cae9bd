#include "core/ir/GraphBuilder.h"
#include "FxTextReaderImpl.h"

#include "FxFunctionalSignatures.h"

#include <algorithm>
#include <array>
#include <limits>

namespace fusebox::fx {
namespace {

bool isDigits(std::string_view s)
{
    return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

/// Names FX code uses as modules or builtins rather than values.
bool isGlobalRoot(std::string_view name)
{
    for (std::string_view g : {"torch", "F", "operator", "_operator", "math", "builtins", "pytree", "fx_pytree",
                               "device", "slice", "getattr", "inf", "nan", "None", "True", "False"})
        if (name == g)
            return true;
    return false;
}

/// Python modules FX code calls functions of.
bool isModuleRoot(std::string_view name)
{
    for (std::string_view g : {"torch", "F", "operator", "_operator", "math", "builtins", "pytree", "fx_pytree"})
        if (name == g)
            return true;
    return false;
}

/// A torch.ops.aten cat or split_with_sizes call that names its dim by
/// keyword, as Inductor's normalization_aten_pass writes it.
bool keepsDimKeyword(const std::string &op, const std::string &spelling, const std::vector<NamedArg> &kwargs)
{
    if (!spelling.starts_with("torch.ops.aten.") || (op != "aten::cat" && op != "aten::split_with_sizes"))
        return false;
    return std::any_of(kwargs.begin(), kwargs.end(), [](const NamedArg &kw) { return kw.name == "dim"; });
}

} // namespace

// --- indexing ----------------------------------------------------------------
Arg Builder::subscript(const Expr &e, const std::string &name)
{
    Arg object = evaluate(*e.object, {});
    Arg index = evaluate(*e.items[0], {});
    // x[2,] is x[(2,)]: for a tensor the same as x[2] (and for a list a
    // TypeError in Python): read as x[2], as the writer writes it back.
    if (const auto *tuple = std::get_if<ArgList>(&index.value);
        tuple && tuple->kind == ArgList::Kind::Tuple && tuple->items.size() == 1 && tuple->items[0].asInt())
        index = Arg(*tuple->items[0].asInt());
    if (auto *items = object.items(); items && index.asInt())
        return itemOf(e, *items, *index.asInt());
    if (object.isNode() && index.asInt())
        return Arg(addNode("getitem", std::nullopt, "", {object, index}, {}, name, e.line, true));
    return tensorIndex(object, index, name, e.line);
}

/// An item of a list or tuple the reader evaluated (a literal, or the values
/// a flattened submodule returned); fails out of range.
Arg Builder::itemOf(const Expr &at, const std::vector<Arg> &items, int64_t i) const
{
    const int64_t n = int64_t(items.size());
    if (i < -n || i >= n)
        fail(at, "expected an index below " + std::to_string(n) + ", found " + std::to_string(i));
    return items[size_t(i < 0 ? i + n : i)];
}

/// Basic tensor indexing (`x[:, 0]`, `x[1:3]`) as the aten::slice /
/// aten::select chain TorchScript's tracer records for it, so that both
/// imports of a model agree (written back as torch.ops calls). Other indices (None, Ellipsis, tensors) stay
/// one opaque operator.getitem node.
Arg Builder::tensorIndex(const Arg &object, const Arg &index, const std::string &name, int line)
{
    std::vector<Arg> items;
    if (const auto *list = std::get_if<ArgList>(&index.value); list && list->kind != ArgList::Kind::Slice)
        items = list->items;
    else
        items = {index};
    auto isBasic = [](const Arg &a) {
        const auto *l = std::get_if<ArgList>(&a.value);
        return a.asInt().has_value() || (l && l->kind == ArgList::Kind::Slice && l->items.size() == 3);
    };
    if (!object.isNode() || items.empty() || !std::all_of(items.begin(), items.end(), isBasic))
        return Arg(addNode(CanonicalTarget{"operator.getitem", std::nullopt, false}, "operator.getitem",
                           {object, index}, {}, name, line));
    Arg value = object;
    int64_t dim = 0;
    for (size_t i = 0; i < items.size(); ++i) {
        const std::string stepName = i + 1 == items.size() ? name : std::string();
        if (auto at = items[i].asInt()) {
            value = Arg(
                addNode("aten::select", std::string("int"), "", {value, Arg(dim), Arg(*at)}, {}, stepName, line, true));
            continue;
        }
        const auto &bounds = std::get<ArgList>(items[i].value).items;
        auto orElse = [](const Arg &a, int64_t fallback) { return a.asInt() ? Arg(*a.asInt()) : Arg(fallback); };
        value = Arg(addNode("aten::slice", std::string("Tensor"), "",
                            {value, Arg(dim), orElse(bounds[0], 0),
                             orElse(bounds[1], std::numeric_limits<int64_t>::max()), orElse(bounds[2], 1)},
                            {}, stepName, line, true));
        ++dim;
    }
    markSubscript(value.node(), object, index);
    return value;
}

/// Marks the nodes one Python subscript became as `operator.getitem`, and
/// the last one with the index as written: Inductor's batch_linear keys on a
/// getitem's parent (the subscripted value), which subscriptParent() finds
/// again from these marks.
void Builder::markSubscript(NodeId last, const Arg &object, const Arg &index)
{
    auto nodeText = [this](NodeId id) { return "%" + m_build.node(id).name; };
    for (NodeId id = last; id.isValid() && !(object.isNode() && id == object.node());) {
        Node &n = m_build.node(id);
        n.provenance.originalSpelling = "operator.getitem";
        if (id == last)
            n.provenance.writtenArgs = index.toString(nodeText);
        id = n.args().empty() || !n.args()[0].isNode() ? NodeId() : n.args()[0].node();
    }
}

// --- calls -------------------------------------------------------------------
CallArgs Builder::callArgs(const Expr &call)
{
    CallArgs out;
    out.args.reserve(call.items.size());
    out.kwargs.reserve(call.keywords.size());
    for (const ExprPtr &item : call.items)
        out.args.push_back(evaluate(*item, {}));
    for (const auto &[key, value] : call.keywords)
        out.kwargs.push_back({std::string(key), evaluate(*value, {})});
    return out;
}

Arg Builder::call(const Expr &e, const std::string &name)
{
    const Expr &f = *e.object;
    if (f.kind == Expr::Kind::Name && !m_env.contains(f.text)) {
        if (f.text == "device")
            return deviceLiteral(e);
        if (f.text == "slice") {
            CallArgs a = callArgs(e);
            while (a.args.size() < 3)
                a.args.insert(a.args.size() == 1 ? a.args.begin() : a.args.end(), Arg(NoneArg{}));
            return Arg::list(std::move(a.args), ArgList::Kind::Slice);
        }
        if (f.text == "getattr")
            if (selfPath(e))
                return attribute(e, name);
    }
    if (auto path = selfPath(f))
        return moduleCall(e, *path, name);
    if (auto dotted = dottedName(f)) {
        const Expr *root = &f;
        while (root->object)
            root = root->object;
        if (root != &f && !isModuleRoot(root->text))
            fail(*root, "name '" + std::string(root->text) + "' is not defined");
        if (*dotted == "torch.device")
            return deviceLiteral(e);
        if (f.kind == Expr::Kind::Name && isGlobalRoot(*dotted) && *dotted != "getattr")
            fail(f, "expected a function, found '" + *dotted + "'");
        return functionCall(e, *dotted, name);
    }
    if (f.kind == Expr::Kind::Attribute)
        return methodCall(e, name);
    fail(f, "expected a function, found an expression");
}

Arg Builder::deviceLiteral(const Expr &e)
{
    CallArgs a = callArgs(e);
    Device d;
    auto str = [](const Arg &x) {
        auto *s = std::get_if<std::string>(&x.value);
        return s ? *s : std::string();
    };
    if (!a.args.empty())
        d.type = str(a.args[0]);
    if (a.args.size() > 1 && a.args[1].asInt())
        d.index = int(*a.args[1].asInt());
    for (const NamedArg &kw : a.kwargs) {
        if (kw.name == "type")
            d.type = str(kw.value);
        else if (kw.name == "index" && kw.value.asInt())
            d.index = int(*kw.value.asInt());
    }
    if (auto colon = d.type.find(':'); colon != std::string::npos && isDigits(d.type.substr(colon + 1))) {
        d.index = std::stoi(d.type.substr(colon + 1));
        d.type.resize(colon);
    }
    if (d.type.empty())
        fail(e, "expected device(type='...'), found a device without a type");
    return Arg(d);
}

Arg Builder::functionCall(const Expr &e, const std::string &dotted, const std::string &name)
{
    CallArgs a = callArgs(e);
    CanonicalTarget t = canonicalTarget(dotted);
    std::string spelling = dotted;
    if (t.op == "getitem") {
        if (const auto *items = a.args.size() == 2 ? a.args[0].items() : nullptr;
            items && a.args[1].asInt() && a.kwargs.empty())
            return itemOf(e, *items, *a.args[1].asInt());
        if (a.args.size() == 2 && a.args[0].isNode() && a.args[1].asInt() && a.kwargs.empty())
            return Arg(addNode("getitem", std::nullopt, spelling, a.args, {}, name, e.line, true));
        if (a.args.size() == 2 && a.kwargs.empty())
            return tensorIndex(a.args[0], a.args[1], name, e.line);
        t = CanonicalTarget{"operator.getitem", std::nullopt, false};
    } else if (dotted.starts_with("operator.") && a.args.size() == 2 && (a.args[0].isList() || a.args[1].isList())) {
        // operator.mul([None], n): Python's list operators, no ATen op (as the infix form reads).
        t = CanonicalTarget{dotted, std::nullopt, false};
    }
    if (functionalName(dotted) == "embedding" && a.args.size() >= 2) {
        adaptFunctionalEmbedding(a);
        // Written back as torch.ops.aten.embedding: the F spelling takes
        // its arguments in another order.
        spelling.clear();
    }
    if (std::string_view fname = functionalName(dotted); !fname.empty()) {
        if (auto adapted = adaptFunctional(fname, a)) {
            t = CanonicalTarget{adapted->op, std::nullopt, true};
            // In ATen's order only for an op the schemas know: one they lack
            // is named by its spelling, so its arguments stay as written.
            if (m_options.schemas && !m_options.schemas->knows(adapted->op))
                return Arg(addNode(t, spelling, std::move(a.args), std::move(a.kwargs), name, e.line));
            return Arg(
                addNode(t, spelling, std::move(adapted->call.args), std::move(adapted->call.kwargs), name, e.line));
        }
        // Python-only functionals (isPythonOnlyFunctional) come here unmapped
        // from canonicalFunction: they keep their spelling, with their
        // arguments in one form however the dump passed them.
        if (auto positional = pythonOnlyPositional(fname, a))
            return Arg(addNode(t, spelling, std::move(positional->args), {}, name, e.line));
    }
    if (!functionalName(dotted).empty()) {
        // Python-only keywords of torch.nn.functional that ATen schemas lack.
        std::vector<NamedArg> kept;
        for (NamedArg &kw : a.kwargs) {
            if (kw.name == "_stacklevel")
                continue;
            if (kw.name == "inplace") {
                if (kw.value == Arg(true)) {
                    t.op += "_";
                    spelling += "_";
                }
                continue;
            }
            if (kw.name == "training" && t.op.starts_with("aten::") && t.op.find("dropout") != std::string::npos)
                kw.name = "train";
            kept.push_back(std::move(kw));
        }
        a.kwargs = std::move(kept);
    }
    return Arg(addNode(t, spelling, std::move(a.args), std::move(a.kwargs), name, e.line));
}

/// F.embedding(input, weight, padding_idx, max_norm, norm_type,
/// scale_grad_by_freq, sparse) -> aten::embedding(weight, indices,
/// padding_idx=-1, scale_grad_by_freq, sparse). max_norm (a renormalising
/// pre-step) and norm_type have no place in the op; they are kept (and the
/// call falls back to "arguments kept as written") only when max_norm is set.
void Builder::adaptFunctionalEmbedding(CallArgs &a)
{
    std::vector<Arg> positional = a.args;
    std::vector<NamedArg> named;
    const char *names[] = {"input", "weight", "padding_idx", "max_norm", "norm_type", "scale_grad_by_freq", "sparse"};
    for (size_t i = 2; i < positional.size() && i < 7; ++i)
        named.push_back({names[i], positional[i]});
    for (NamedArg &kw : a.kwargs)
        named.push_back(kw);
    CallArgs out;
    out.args = {positional[1], positional[0]};
    bool maxNorm = false;
    for (NamedArg &kw : named) {
        if (kw.name == "max_norm") {
            maxNorm = !std::holds_alternative<NoneArg>(kw.value.value);
            if (maxNorm)
                out.kwargs.push_back(kw);
            continue;
        }
        if (kw.name == "norm_type" && !maxNorm)
            continue;
        if (kw.name == "padding_idx" && std::holds_alternative<NoneArg>(kw.value.value))
            kw.value = Arg(int64_t(-1));
        out.kwargs.push_back(kw);
    }
    a = std::move(out);
}

Arg Builder::methodCall(const Expr &e, const std::string &name)
{
    const Expr &f = *e.object;
    Arg self = evaluate(*f.object, {});
    CallArgs a = callArgs(e);
    CanonicalTarget t = canonicalMethod(f.text);
    if (takesVarargsList(f.text) && !a.args.empty() && !a.args[0].isList()
        && !std::holds_alternative<DType>(a.args[0].value)) {
        // x.view(2, 8) passes one int list to the schema.
        std::vector<Arg> sizes = std::move(a.args);
        a.args = {Arg::list(std::move(sizes))};
    }
    if (auto dtype = conversionMethodDType(f.text); dtype && a.args.empty() && a.kwargs.empty()) {
        // x.float() is x.to(torch.float32), as TorchScript records it.
        return Arg(addNode(CanonicalTarget{"aten::to", std::nullopt, true}, "Tensor." + std::string(f.text),
                           {self, Arg(*dtype)}, {}, name, e.line));
    }
    a.args.insert(a.args.begin(), self);
    if (t.op == "getitem" && a.args.size() == 2 && self.isNode() && a.args[1].asInt())
        return Arg(addNode("getitem", std::nullopt, "Tensor.__getitem__", a.args, {}, name, e.line, true));
    return Arg(addNode(t, "Tensor." + std::string(f.text), std::move(a.args), std::move(a.kwargs), name, e.line));
}

// --- node creation -------------------------------------------------------------
NodeId Builder::addNode(std::string op, std::optional<std::string> overload, const std::string &spelling,
                        std::vector<Arg> args, std::vector<NamedArg> kwargs, const std::string &name, int line,
                        bool mapped)
{
    return addNode(CanonicalTarget{std::move(op), std::move(overload), mapped}, spelling, std::move(args),
                   std::move(kwargs), name, line);
}

void Builder::normaliseTarget(CanonicalTarget &t, const std::string &spelling, const std::vector<Arg> &args,
                              std::vector<NamedArg> &kwargs)
{
    if (t.op == "aten::split" && !t.overload) {
        // torch.split / x.split with a list of sections is split_with_sizes,
        // as Tensor.split calls it (and TorchScript and torch.export record it).
        const Arg *sections = args.size() > 1 ? &args[1] : nullptr;
        for (const NamedArg &kw : kwargs)
            if (kw.name == "split_size_or_sections" || kw.name == "split_size")
                sections = &kw.value;
        if (sections && sections->isList()) {
            t.op = "aten::split_with_sizes";
            for (NamedArg &kw : kwargs)
                if (kw.name == "split_size_or_sections" || kw.name == "split_size")
                    kw.name = "split_sizes";
        }
    }
    if (t.op == "aten::einsum" && args.size() > 2 && !spelling.starts_with("torch.ops."))
        // torch.einsum(equation, *operands), as Dynamo records it: a Python
        // varargs call that no ATen schema takes. Kept as written, silently:
        // it is the node Inductor's pre-grad passes see (einsum_to_pointwise_pass).
        t.mapped = false;
}

std::string Builder::writtenArguments(const std::string &spelling, const std::vector<Arg> &args,
                                      const std::vector<NamedArg> &kwargs)
{
    std::string written;
    if ((spelling.starts_with("torch.") && !spelling.starts_with("torch.ops.")) || spelling.starts_with("Tensor.")) {
        // Appended in place, as toString() would print them: this runs for
        // nearly every node of a Dynamo dump.
        auto nodeText = [this](std::string &out, NodeId id) { out.append("%").append(m_build.node(id).name); };
        for (size_t i = 1; i < args.size(); ++i) {
            if (!written.empty())
                written += ", ";
            args[i].appendTo(written, nodeText);
        }
        for (const NamedArg &kw : kwargs) {
            if (!written.empty())
                written += ", ";
            written.append(kw.name).append("=");
            kw.value.appendTo(written, nodeText);
        }
    }
    return written;
}

void Builder::fitToSchema(CanonicalTarget &t, const std::string &spelling, std::vector<Arg> &args,
                          std::vector<NamedArg> &kwargs, std::string &overload, int line)
{
    const bool known = m_options.schemas->knows(t.op);
    // (Made only for an op the schemas lack: this runs for every call read.)
    auto unknownKind = [&] {
        return isPyTorchNamespace(t.op.substr(0, t.op.find("::")))
                   ? "ops without a schema in " + m_options.schemaOrigin + ", arguments kept as written"
                   : std::string("custom ops (no schema), arguments kept as written");
    };
    if (!known && !t.overload && !spelling.empty()) {
        // A torch-level call whose ATen op the schemas lack: named by its
        // spelling (unless it has none to keep, as F.embedding).
        summarise(unknownKind(), t.op, line);
        t.op = spelling;
        return;
    }
    if (!known) {
        summarise(unknownKind(), t.op, line);
        return;
    }
    const bool dimByKeyword = keepsDimKeyword(t.op, spelling, kwargs);
    // Moved in and back out, fitted or as written: no copy of the arguments.
    SchemaFit fit = fitSchema(*m_options.schemas, t.op, t.overload, CallArgs{std::move(args), std::move(kwargs)},
                              [this](NodeId id) { return nodeType(id); });
    args = std::move(fit.call.args);
    kwargs = std::move(fit.call.kwargs);
    if (!fit.fitted) {
        m_warnings.push_back(where(line) + ": " + fit.message + "; arguments kept as written");
        // A torch-level call's arguments are in Python's order, not ATen's:
        // named by its spelling, it is written back as read (as an ATen op,
        // F.layer_norm(x, 1, 6, w, b, 1e-05) was written with ATen's
        // argument names and lost its eps).
        if (!t.overload && !spelling.empty())
            t.op = spelling;
        return;
    }
    overload = fit.overload;
    if (dimByKeyword) {
        // Inductor's post-grad cat rules match a keyword dim only
        // (normalization_aten_pass writes it so): keep the form.
        kwargs.insert(kwargs.begin(), NamedArg{"dim", args.back()});
        args.pop_back();
    }
}

NodeId Builder::addNode(CanonicalTarget t, const std::string &spelling, std::vector<Arg> args,
                        std::vector<NamedArg> kwargs, const std::string &name, int line)
{
    normaliseTarget(t, spelling, args, kwargs);
    std::string written = writtenArguments(spelling, args, kwargs);
    std::string overload = t.overload.value_or("");
    const bool isModule = t.op.starts_with("call_module:");
    if (!t.mapped && !isModule) {
        t.op = spelling.empty() ? t.op : spelling;
        if (!isTorchLevelCall(t.op))
            summarise("calls of targets that are not ATen ops, imported as opaque nodes", t.op, line);
    } else if (m_options.schemas && t.op.find("::") != std::string::npos && !t.op.starts_with("higher_order::")) {
        // (Higher-order ops have no schema to fit: their arguments stay as written.)
        fitToSchema(t, spelling, args, kwargs, overload, line);
    }
    NodeId id = m_build.addOp(t.op, std::move(args), std::move(kwargs),
                              name.empty() ? nodeName(implicitName(t.op)) : writableName(nodeName(name), line));
    noteLine(id, line);
    Node &n = m_build.node(id);
    attachSubgraphs(n);
    n.overload = overload;
    n.provenance.scope = m_scope;
    n.provenance.source = m_source;
    if (spelling != n.op && !isTorchOpsSpelling(spelling, n.op, n.overload))
        n.provenance.originalSpelling = spelling;
    n.provenance.writtenArgs = std::move(written);
    return id;
}

/// The name of a node the dump does not name (a subscript's slice, a call
/// inside an expression): the graph's own name for the op, or FX's "slice_1"
/// where that would be a builtin the reader resolves, or the bare function the
/// node calls (`max(a, b)` -> max_1), which the writer could not assign to
/// without hiding the function, or one the code calls bare elsewhere. Empty:
/// let the graph name it.
std::string Builder::implicitName(const std::string &op)
{
    const size_t colon = op.rfind("::");
    if (colon != std::string::npos) {
        const std::string base = op.substr(colon + 2);
        return isReservedName(base) || calledBare(base) ? base + "_1" : std::string();
    }
    const bool bareFunction = isIdentifier(op) && op != ops::kGetItem && op != ops::kSetItem;
    return bareFunction ? op + "_1" : std::string();
}

bool Builder::calledBare(const std::string &name)
{
    if (!m_calledBare) {
        m_calledBare.emplace();
        std::vector<const Expr *> pending;
        for (const Stmt &s : m_fn.body)
            if (s.value)
                pending.push_back(s.value);
        while (!pending.empty()) {
            const Expr *e = pending.back();
            pending.pop_back();
            if (e->kind == Expr::Kind::Call && e->object && e->object->kind == Expr::Kind::Name)
                m_calledBare->insert(e->object->text);
            if (e->object)
                pending.push_back(e->object);
            for (const ExprPtr &item : e->items)
                if (item)
                    pending.push_back(item);
            for (const auto &keyword : e->keywords)
                if (keyword.second)
                    pending.push_back(keyword.second);
        }
    }
    return m_calledBare->contains(name);
}

/// The value type fitSchema uses to choose overloads; "" when unknown.
std::string Builder::nodeType(NodeId id) const
{
    const Node *n = m_graph.node(id);
    for (const Builder *b = this; b; b = b->m_parent)
        if (b->isAnnotatedTensor(id))
            return "Tensor";
    if (!n || (n->type == "Tensor" && !n->meta.isKnown()))
        return {};
    return n->type;
}

} // namespace fusebox::fx
