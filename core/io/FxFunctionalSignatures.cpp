#include "FxFunctionalSignatures.h"

#include "core/ir/TextSplit.h"

#include <algorithm>
#include <array>
#include <vector>

namespace fusebox::fx {
namespace {

/// One function: its Python parameters ("name" or "name=default", defaults in
/// schema syntax), the ATen op, the op's positional arguments (parameter
/// names or literals) and a boolean parameter that, when True, appends
/// `suffix` to the op (inplace -> "_", return_indices -> "_with_indices").
struct Entry {
    std::string_view name;
    std::string_view params;
    std::string_view op;
    std::string_view atenArgs;
    std::string_view flag;
    std::string_view suffix;
};

constexpr std::string_view kDropout = "input,p=0.5,training=True,inplace=False";
constexpr std::string_view kPool
    = "input,kernel_size,stride=None,padding=0,dilation=1,ceil_mode=False,return_indices=False";

constexpr std::array<Entry, 22> kEntries = {{
    {"dropout", kDropout, "aten::dropout", "input,p,training", "inplace", "_"},
    {"alpha_dropout", kDropout, "aten::alpha_dropout", "input,p,training", "inplace", "_"},
    {"feature_alpha_dropout", kDropout, "aten::feature_alpha_dropout", "input,p,training", "inplace", "_"},
    {"dropout1d", kDropout, "aten::feature_dropout", "input,p,training", "inplace", "_"},
    {"dropout2d", kDropout, "aten::feature_dropout", "input,p,training", "inplace", "_"},
    {"dropout3d", kDropout, "aten::feature_dropout", "input,p,training", "inplace", "_"},
    {"batch_norm", "input,running_mean,running_var,weight=None,bias=None,training=False,momentum=0.1,eps=1e-05",
     "aten::batch_norm", "input,weight,bias,running_mean,running_var,training,momentum,eps,True", "", ""},
    {"instance_norm",
     "input,running_mean=None,running_var=None,weight=None,bias=None,use_input_stats=True,momentum=0.1,eps=1e-05",
     "aten::instance_norm", "input,weight,bias,running_mean,running_var,use_input_stats,momentum,eps,True", "", ""},
    {"layer_norm", "input,normalized_shape,weight=None,bias=None,eps=1e-05", "aten::layer_norm",
     "input,normalized_shape,weight,bias,eps,True", "", ""},
    {"group_norm", "input,num_groups,weight=None,bias=None,eps=1e-05", "aten::group_norm",
     "input,num_groups,weight,bias,eps,True", "", ""},
    {"max_pool1d", kPool, "aten::max_pool1d", "input,kernel_size,stride,padding,dilation,ceil_mode", "return_indices",
     "_with_indices"},
    {"max_pool2d", kPool, "aten::max_pool2d", "input,kernel_size,stride,padding,dilation,ceil_mode", "return_indices",
     "_with_indices"},
    {"max_pool3d", kPool, "aten::max_pool3d", "input,kernel_size,stride,padding,dilation,ceil_mode", "return_indices",
     "_with_indices"},
    {"relu", "input,inplace=False", "aten::relu", "input", "inplace", "_"},
    {"silu", "input,inplace=False", "aten::silu", "input", "inplace", "_"},
    {"mish", "input,inplace=False", "aten::mish", "input", "inplace", "_"},
    {"hardswish", "input,inplace=False", "aten::hardswish", "input", "inplace", "_"},
    {"hardsigmoid", "input,inplace=False", "aten::hardsigmoid", "input", "inplace", "_"},
    {"selu", "input,inplace=False", "aten::selu", "input", "inplace", "_"},
    {"elu", "input,alpha=1.0,inplace=False", "aten::elu", "input,alpha", "inplace", "_"},
    {"leaky_relu", "input,negative_slope=0.01,inplace=False", "aten::leaky_relu", "input,negative_slope", "inplace",
     "_"},
    {"hardtanh", "input,min_val=-1.0,max_val=1.0,inplace=False", "aten::hardtanh", "input,min_val,max_val", "inplace",
     "_"},
}};

/// Parameter name -> value. Names view the constant parameter lists; a
/// list has at most a dozen, so a vector is searched (bound for every
/// torch.nn.functional call a dump makes).
struct Bound {
    std::vector<std::pair<std::string_view, Arg>> values;
    const Arg *find(std::string_view name) const
    {
        for (const auto &[n, v] : values)
            if (n == name)
                return &v;
        return nullptr;
    }
};

/// The call bound to Python parameters `params` ("name" or "name=default"),
/// as Python binds it, defaults filled; nullopt when it does not bind.
std::optional<Bound> bindPython(std::string_view paramList, const CallArgs &call)
{
    Bound bound;
    const std::vector<std::string_view> params = splitAt(paramList, ',');
    if (call.args.size() > params.size())
        return std::nullopt;
    std::vector<std::string_view> names;
    names.reserve(params.size());
    for (std::string_view p : params)
        names.push_back(p.substr(0, p.find('=')));
    bound.values.reserve(params.size());
    for (size_t i = 0; i < call.args.size(); ++i)
        bound.values.emplace_back(names[i], call.args[i]);
    for (const NamedArg &kw : call.kwargs) {
        if (kw.name == "_stacklevel")
            continue;
        auto known = std::find(names.begin(), names.end(), kw.name);
        if (known == names.end() || bound.find(kw.name))
            return std::nullopt;
        bound.values.emplace_back(*known, kw.value);
    }
    for (size_t i = 0; i < params.size(); ++i) {
        if (bound.find(names[i]))
            continue;
        const size_t eq = params[i].find('=');
        if (eq == std::string_view::npos)
            return std::nullopt; // a required parameter is missing
        auto value = parseSchemaDefault(params[i].substr(eq + 1));
        if (!value)
            return std::nullopt;
        bound.values.emplace_back(names[i], std::move(*value));
    }
    return bound;
}

/// Python signatures of Python-only functionals (isPythonOnlyFunctional)
/// whose calls Dynamo and Inductor write differently: Dynamo passes every
/// argument positionally, a pass that normalises the call (Inductor's
/// normalize_function) by keyword.
constexpr std::array<std::pair<std::string_view, std::string_view>, 5> kPythonOnlySignatures = {{
    {"embedding_bag", "input,weight,offsets=None,max_norm=None,norm_type=2.0,scale_grad_by_freq=False,"
                      "mode='mean',sparse=False,per_sample_weights=None,include_last_offset=False,padding_idx=None"},
    {"normalize", "input,p=2.0,dim=1,eps=1e-12,out=None"},
    {"cross_entropy", "input,target,weight=None,size_average=None,ignore_index=-100,reduce=None,"
                      "reduction='mean',label_smoothing=0.0"},
    {"nll_loss", "input,target,weight=None,size_average=None,ignore_index=-100,reduce=None,reduction='mean'"},
    {"mse_loss", "input,target,size_average=None,reduce=None,reduction='mean'"},
}};

const Entry *findEntry(std::string_view name)
{
    for (const Entry &e : kEntries)
        if (e.name == name)
            return &e;
    return nullptr;
}

} // namespace

std::optional<FunctionalAdaptation> adaptFunctional(std::string_view name, const CallArgs &call)
{
    const Entry *entry = findEntry(name);
    if (!entry)
        return std::nullopt;
    auto bound = bindPython(entry->params, call);
    if (!bound)
        return std::nullopt;
    FunctionalAdaptation out;
    out.op = std::string(entry->op);
    if (!entry->flag.empty()) {
        const Arg *flag = bound->find(entry->flag);
        if (*flag == Arg(true))
            out.op += entry->suffix;
        else if (*flag != Arg(false))
            return std::nullopt; // a symbolic flag: no op to choose
    }
    for (std::string_view a : splitAt(entry->atenArgs, ',')) {
        if (const Arg *found = bound->find(a)) {
            Arg value = *found;
            if (a == "stride" && value.isNone())
                value = Arg::list({}); // F's stride=None is aten's stride=[]
            out.call.args.push_back(std::move(value));
        } else if (auto literal = parseSchemaDefault(a)) {
            out.call.args.push_back(*literal);
        } else {
            return std::nullopt;
        }
    }
    return out;
}

std::optional<CallArgs> pythonOnlyPositional(std::string_view name, const CallArgs &call)
{
    for (const auto &[function, params] : kPythonOnlySignatures) {
        if (function != name)
            continue;
        auto bound = bindPython(params, call);
        if (!bound)
            return std::nullopt;
        CallArgs out;
        for (std::string_view p : splitAt(params, ','))
            out.args.push_back(*bound->find(p.substr(0, p.find('='))));
        return out;
    }
    return std::nullopt;
}

std::optional<std::vector<Arg>> functionalArguments(std::string_view name, std::string_view op,
                                                    const std::vector<Arg> &atenArgs, std::vector<NamedArg> &flags)
{
    const Entry *entry = findEntry(name);
    if (!entry)
        return std::nullopt;
    const std::vector<std::string_view> aten = splitAt(entry->atenArgs, ',');
    if (atenArgs.size() != aten.size())
        return std::nullopt;
    std::vector<Arg> out;
    for (std::string_view p : splitAt(entry->params, ',')) {
        std::string_view n = p.substr(0, p.find('='));
        if (n == entry->flag) {
            if (op == std::string(entry->op) + std::string(entry->suffix))
                flags.push_back({std::string(n), Arg(true)});
            continue;
        }
        size_t i = 0;
        while (i < aten.size() && aten[i] != n)
            ++i;
        if (i == aten.size())
            return std::nullopt;
        Arg value = atenArgs[i];
        if (n == "stride" && value == Arg::list({}))
            value = Arg(NoneArg{});
        out.push_back(std::move(value));
    }
    return out;
}

std::string_view functionalName(std::string_view dotted)
{
    for (std::string_view prefix : {"torch.nn.functional.", "F."})
        if (dotted.starts_with(prefix))
            return dotted.substr(prefix.size());
    return {};
}

bool isPythonOnlyFunctional(std::string_view name)
{
    for (std::string_view n : {"interpolate", "upsample", "upsample_nearest", "upsample_bilinear", "normalize",
                               "multi_head_attention_forward", "grid_sample", "affine_grid", "unfold", "fold",
                               "local_response_norm", "rms_norm", "cross_entropy", "nll_loss", "mse_loss",
                               // returns the first of aten::embedding_bag's four outputs; mode is a string
                               "embedding_bag"})
        if (name == n)
            return true;
    return false;
}

} // namespace fusebox::fx
