// Where each built-in rule lives in PyTorch's sources (docs/inductor-2.6-passes.md
// is the longer reference). An explanation names this code as the one that
// applies the rule's checks. The table is written with torch 2.6.0's line
// numbers; kLines214 moves each to the same code in torch 2.14.1 (the same
// def, or the same class's match; found in Debian testing's root by the
// enclosing name, since 2.14 rewrote the type hints).

#include "patterns/Catalog.h"

#include <map>
#include <regex>
#include <string_view>

namespace fusebox {
namespace {

constexpr std::string_view kLinearCheck = " (is_linear_node_can_be_fused, group_batch_fusion.py:604)";

const std::map<std::string_view, std::string> &sources()
{
    static const std::map<std::string_view, std::string> table = {
        // Pre-grad group/batch fusions (group_batch_fusion.py).
        {"batch_linear_lhs", "group_batch_fusion.py:502 BatchLinearLHSFusion.match" + std::string(kLinearCheck)},
        {"batch_linear", "group_batch_fusion.py:634 PreGradBatchLinearFusion.match" + std::string(kLinearCheck)},
        {"batch_layernorm", "group_batch_fusion.py:751 BatchLayernormFusion.match"},
        {"batch_tanh", "group_batch_fusion.py:923 BatchPointwiseOpsPreGradFusion.match"},
        {"batch_sigmoid", "group_batch_fusion.py:923 BatchPointwiseOpsPreGradFusion.match"},
        {"batch_relu", "group_batch_fusion.py:923 BatchPointwiseOpsPreGradFusion.match"},
        {"batch_detach", "group_batch_fusion.py:1058 BatchMathOpsPreGradFusion.match"},
        {"batch_nan_to_num", "group_batch_fusion.py:1058 BatchMathOpsPreGradFusion.match"},
        {"batch_clamp", "group_batch_fusion.py:1058 BatchMathOpsPreGradFusion.match"},
        {"einsum_to_pointwise_pass", "not in 2.6: Inductor 2.14's split_cat.py replace_einsum_to_pointwise "
                                     "(match_einsum_strings)"},
        {"decompose_mm_pass", "decompose_mem_bound_mm.py should_decompose_mm / should_decompose_bmm"},
        {"cat_linear", "not in 2.6: Inductor 2.14's group_batch_fusion.py:805 match_cat_linear "
                       "(CatLinearFusion.match :906)"},
        {"batch_dropout", "not in 2.6: PRE_GRAD_FUSIONS (group_batch_fusion.py:118) has no batch_dropout; "
                          "Fusebox follows BatchMathOpsPreGradFusion.match (:1058)"},
        // Post-grad group/batch fusions.
        {"batch_linear_post_grad", "group_batch_fusion.py:196 PostGradBatchLinearFusion.match"},
        {"group_linear", "group_batch_fusion.py:334 GroupLinearFusion.match"},
        {"batch_aten_tanh", "group_batch_fusion.py:1002 BatchPointwiseOpsPostGradFusion.match"},
        {"batch_aten_sigmoid", "group_batch_fusion.py:1002 BatchPointwiseOpsPostGradFusion.match"},
        {"batch_aten_relu", "group_batch_fusion.py:1002 BatchPointwiseOpsPostGradFusion.match"},
        {"batch_aten_add", "group_batch_fusion.py:414 BatchPointwiseMathOpsPostGradFusion.match"},
        {"batch_aten_sub", "group_batch_fusion.py:414 BatchPointwiseMathOpsPostGradFusion.match"},
        {"batch_aten_div", "group_batch_fusion.py:414 BatchPointwiseMathOpsPostGradFusion.match"},
        {"batch_aten_mul", "group_batch_fusion.py:414 BatchPointwiseMathOpsPostGradFusion.match"},
        // Split/cat pattern passes (split_cat.py): the pattern and its handler.
        {"normalization_pass",
         "split_cat.py:206-528 normalize_{split,unbind,cat,stack,squeeze,reshape,clamp,detach}_default"},
        {"remove_split_with_size_one_pass", "split_cat.py:226 remove_split_with_size_one"},
        {"merge_getitem_cat_pass", "split_cat.py:1473 merge_getitem_cat"},
        {"merge_stack_tahn_unbind_pass", "split_cat.py:52 (2.6 registers no pattern for this pass)"},
        {"merge_splits_pass", "split_cat.py:577 merge_splits"},
        {"mutate_cat_pass", "split_cat.py:1579 mutate_cat_node"},
        {"split_cat_pass",
         "split_cat.py:1255 merge_split_squeeze, :1389 simplify_split_cat (SplitCatSimplifier, :655)"},
        {"unbind_stack_pass", "split_cat.py:1324 merge_unbind_stack (UnbindCatRemover, :1102)"},
        {"split_cat_to_slices_pass", "split_cat.py:2051 split_cat_to_slices"},
        {"unbind_cat_to_view_pass", "split_cat.py:2134 unbind_cat_to_view"},
        {"split_stack_to_cats_pass", "split_cat.py:2304 split_stack_to_cats"},
        {"unbind_stack_to_slices_pass", "split_cat.py:2377 unbind_stack_to_slices"},
        {"move_reshape_out_of_split_stack_pass", "split_cat.py:2477 move_reshape_out_of_split_stack"},
        {"unbind_stack_aten_pass", "split_cat.py:1695 merge_unbind_stack_aten"},
        {"normalization_aten_pass", "split_cat.py:1643 normalize_cat_default_aten (2.14 adds "
                                    "normalize_split_default_aten, normalize_split_with_size_default_aten)"},
        {"split_cat_aten_pass", "not in 2.6: Inductor 2.14's split_cat.py:1803 merge_split_cat_aten"},
        {"select_cat_aten_pass", "not in 2.6: Inductor 2.14's split_cat.py:1907 merge_select_cat_aten"},
        // fuse_fx's graph transforms (pre_grad.py).
        {"sink_cat_after_pointwise", "pre_grad.py:618 sink_cat_after_pointwise"},
        {"linear_permute_fusion", "pre_grad.py:669 linear_permute_fusion"},
        {"permute_linear_fusion", "pre_grad.py:710 permute_linear_fusion"},
        {"permute_matmul_fusion", "pre_grad.py:744 permute_matmul_fusion"},
    };
    return table;
}

/// "file.py:LINE" of torch 2.6.0 -> the line of the same code in torch 2.14.1.
const std::map<std::string_view, int> kLines214 = {{"group_batch_fusion.py:1002", 1260},
                                                   {"group_batch_fusion.py:1058", 1320},
                                                   {"group_batch_fusion.py:118", 114},
                                                   {"group_batch_fusion.py:196", 193},
                                                   {"group_batch_fusion.py:334", 331},
                                                   {"group_batch_fusion.py:414", 412},
                                                   {"group_batch_fusion.py:502", 500},
                                                   {"group_batch_fusion.py:604", 619},
                                                   {"group_batch_fusion.py:634", 649},
                                                   {"group_batch_fusion.py:751", 1003},
                                                   {"group_batch_fusion.py:923", 1180},
                                                   {"pre_grad.py:618", 778},
                                                   {"pre_grad.py:669", 841},
                                                   {"pre_grad.py:710", 882},
                                                   {"pre_grad.py:744", 916},
                                                   {"split_cat.py:1255", 1307},
                                                   {"split_cat.py:1324", 1373},
                                                   {"split_cat.py:1473", 1523},
                                                   {"split_cat.py:1579", 1630},
                                                   {"split_cat.py:1695", 2013},
                                                   {"split_cat.py:2051", 2369},
                                                   {"split_cat.py:206", 221},
                                                   {"split_cat.py:2134", 2452},
                                                   {"split_cat.py:226", 241},
                                                   {"split_cat.py:1643", 1959},
                                                   {"split_cat.py:2304", 2626},
                                                   {"split_cat.py:2377", 2699},
                                                   {"split_cat.py:2477", 2797},
                                                   {"split_cat.py:52", 55},
                                                   {"split_cat.py:577", 599}

};

/// `source` with each "file.py:LINE" moved to `version`'s line; 2.6's as written.
std::string forVersion(const std::string &source, std::string_view version)
{
    if (version == "2.6")
        return source;
    static const std::regex ref(R"((\w+\.py):(\d+))");
    std::string out;
    auto last = source.cbegin();
    for (std::sregex_iterator it(source.begin(), source.end(), ref), end; it != end; ++it) {
        const auto &m = *it;
        out.append(last, m[0].first);
        auto moved = kLines214.find(m.str(0));
        out += moved == kLines214.end() ? m.str(0) : m.str(1) + ":" + std::to_string(moved->second);
        last = m[0].second;
    }
    out.append(last, source.cend());
    return out;
}

} // namespace

void setInductorSources(PatternSet &set, std::string_view version)
{
    for (const Pattern *p : set.all()) {
        auto it = sources().find(p->name());
        if (it != sources().end())
            set.find(p->name())->setInductorSource(forVersion(it->second, version));
    }
}

} // namespace fusebox
