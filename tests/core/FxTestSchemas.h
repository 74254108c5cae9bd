#pragma once
// The small schema registry of the FX reader tests and the FX fuzz target
// (fuzz/fx_text_fuzz.cpp): the ops their fixtures normalise. No Catch2 here,
// so the fuzz build can include it.

#include "core/ir/OpSchema.h"

#include <string>

namespace fusebox::fxtest {

/// "aten::split.Tensor(Tensor self, int split_size, int dim=0)"; '*' starts
/// keyword-only parameters. Defaults must not contain ", ".
inline OpSchema schema(const std::string &text)
{
    OpSchema s;
    size_t paren = text.find('(');
    std::string qualified = text.substr(0, paren);
    size_t dot = qualified.find('.');
    s.name = qualified.substr(0, dot);
    s.overload = dot == std::string::npos ? "" : qualified.substr(dot + 1);
    std::string params = text.substr(paren + 1, text.rfind(')') - paren - 1);
    bool kwargOnly = false;
    size_t pos = 0;
    while (pos < params.size()) {
        size_t comma = params.find(", ", pos);
        std::string p = params.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
        pos = comma == std::string::npos ? params.size() : comma + 2;
        if (p == "*") {
            kwargOnly = true;
            continue;
        }
        SchemaArgument a;
        size_t space = p.rfind(' ');
        a.type = p.substr(0, space);
        std::string rest = p.substr(space + 1);
        if (size_t eq = rest.find('='); eq != std::string::npos) {
            a.defaultValue = rest.substr(eq + 1);
            rest.resize(eq);
        }
        a.name = rest;
        a.kwargOnly = kwargOnly;
        s.arguments.push_back(a);
    }
    s.returns.push_back({"", "Tensor", {}, false});
    return s;
}

inline const OpSchemaRegistry &testSchemas()
{
    static const OpSchemaRegistry registry = [] {
        OpSchemaRegistry r;
        for (const char *text : {
                 "aten::split.Tensor(Tensor self, int split_size, int dim=0)",
                 "aten::split.sizes(Tensor self, int[] split_size, int dim=0)",
                 "aten::split_with_sizes(Tensor self, int[] split_sizes, int dim=0)",
                 "aten::cat(Tensor[] tensors, int dim=0)",
                 "aten::relu(Tensor self)",
                 "aten::relu_(Tensor self)",
                 "aten::linear(Tensor input, Tensor weight, Tensor? bias=None)",
                 "aten::view(Tensor self, SymInt[] size)",
                 "aten::permute(Tensor self, int[] dims)",
                 "aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1)",
                 "aten::add.Scalar(Tensor self, Scalar other, Scalar alpha=1)",
                 "aten::mul.Tensor(Tensor self, Tensor other)",
                 "aten::sub.Tensor(Tensor self, Tensor other, *, Scalar alpha=1)",
                 "aten::sub.Scalar(Tensor self, Scalar other, Scalar alpha=1)",
                 "aten::div.Tensor(Tensor self, Tensor other)",
                 "aten::div.Scalar(Tensor self, Scalar other)",
                 "aten::matmul(Tensor self, Tensor other)",
                 "aten::neg(Tensor self)",
                 "aten::dropout(Tensor input, float p, bool train)",
                 // intlist first, as libtorch lists them: an int must still choose movedim.int
                 "aten::movedim.intlist(Tensor self, int[] source, int[] destination)",
                 "aten::movedim.int(Tensor self, int source, int destination)",
                 "aten::sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None)",
                 "aten::layer_norm(Tensor input, int[] normalized_shape, Tensor? weight=None, Tensor? bias=None, "
                 "float eps=1e-05, bool cudnn_enable=True)",
             })
            r.add(schema(text));
        return r;
    }();
    return registry;
}

} // namespace fusebox::fxtest
