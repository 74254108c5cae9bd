// Parser tests of the pattern language: every construct, the canonical
// writer's round trip, and every error class with its exact position.
#include "core/io/PatternFile.h"
#include "core/ir/OpSchema.h"

#include <catch.hpp>

#include <initializer_list>

using namespace fusebox;
using namespace fusebox::patternlang;

namespace {

// "name" or "name=default"; every parameter typed Tensor (types are not checked here).
OpSchema schema(std::string name, std::string overload, std::initializer_list<std::string> params)
{
    OpSchema s{std::move(name), std::move(overload), {}, {{"", "Tensor", {}, false}}, false};
    for (const std::string &p : params) {
        auto eq = p.find('=');
        SchemaArgument arg{p.substr(0, eq), "Tensor", {}, false};
        if (eq != std::string::npos)
            arg.defaultValue = p.substr(eq + 1);
        s.arguments.push_back(arg);
    }
    return s;
}

// The aten ops the example files use, declared as libtorch does.
const OpSchemaRegistry &testSchemas()
{
    static const OpSchemaRegistry registry = [] {
        OpSchemaRegistry r;
        r.add(schema("aten::linear", "", {"input", "weight", "bias=None"}));
        r.add(schema("aten::relu", "", {"self"}));
        r.add(schema("aten::gelu", "", {"self", "approximate='none'"}));
        r.add(schema("aten::mm", "", {"self", "mat2"}));
        r.add(schema("aten::add", "Tensor", {"self", "other", "alpha=1"}));
        r.add(schema("aten::cat", "", {"tensors", "dim=0"}));
        r.add(schema("aten::split", "Tensor", {"self", "split_size", "dim=0"}));
        r.add(schema("aten::split_with_sizes", "", {"self", "split_sizes", "dim=0"}));
        r.add(schema("aten::slice", "Tensor", {"self", "dim=0", "start=None", "end=None", "step=1"}));
        return r;
    }();
    return registry;
}

PatternFile parseOk(std::string_view text, const OpSchemaRegistry *schemas = nullptr)
{
    auto file = parsePatternFile(text, {schemas, "t.patterns"});
    INFO((file ? std::string() : file.error().message));
    REQUIRE(file.hasValue());
    return std::move(file).value();
}

std::string patternErrorOf(std::string_view text, const OpSchemaRegistry *schemas = nullptr)
{
    auto file = parsePatternFile(text, {schemas, "t.patterns"});
    REQUIRE_FALSE(file.hasValue());
    return file.error().message;
}

// Wraps match/where/replace lines into one pattern; the match starts on line 3.
std::string pattern(const std::string &match, const std::string &where, const std::string &replace)
{
    return "pattern p {\n    match {\n" + match + "    }\n    where {\n" + where + "    }\n    replace {\n" + replace
           + "    }\n}\n";
}

void checkRoundTrip(const std::string &text)
{
    PatternFile first = parseOk(text);
    std::string written = writePatternFile(first);
    PatternFile second = parseOk(written);
    CHECK(second == first);
    CHECK(writePatternFile(second) == written);
}

const char *kLinearRelu = R"(# comments with '#'
pattern linear_relu_fusion {
    benefit = 10
    description = "relu(linear(x, w, b)) -> fused op"
    match {
        y = aten::linear(x, w, b)
        r = (aten::relu | aten::gelu)(y)        # alternatives
    }
    where {
        users(y) == 1
        dtype(x) in [f32, bf16]
        rank(x) == 2
        shape(x)[1] % 8 == 0
    }
    replace {
        r = fusebox::linear_relu(x, w, b)
    }
}
)";

const char *kCatOfSlices = R"(pattern cat_of_slices {
    match {
        c = aten::cat([getitem(s, i)...], d)
        s = aten::split(t, size, d2)
    }
    where {
        consecutive(i)
        d == d2
    }
    replace {
        c = aten::slice(t, d, first(i) * size, (last(i) + 1) * size, 1)
    }
}
)";

} // namespace

TEST_CASE("pattern files parse statements, alternatives and constraints", "[io][pattern]")
{
    PatternFile file = parseOk(kLinearRelu);
    REQUIRE(file.patterns.size() == 1);
    const PatternDecl &p = file.patterns[0];
    CHECK(p.name == "linear_relu_fusion");
    CHECK(p.pos.line == 2);
    CHECK(p.pos.column == 9);
    CHECK(p.benefit == 10);
    CHECK(p.description == "relu(linear(x, w, b)) -> fused op");
    CHECK(p.stage == Stage::Unspecified);
    REQUIRE(p.match.size() == 2);
    CHECK(p.match[0].target == "y");
    CHECK(p.match[0].value.ops[0].qualifiedName() == "aten::linear");
    REQUIRE(p.match[1].value.ops.size() == 2);
    CHECK(p.match[1].value.ops[1].name == "aten::gelu");
    CHECK(p.match[1].value.ops[1].pos.line == 7);
    CHECK(p.match[1].value.ops[1].pos.column == 27);
    CHECK(p.match[1].value.args[0].value.text == "y");
    CHECK(p.captures == std::vector<std::string>{"x", "w", "b"});
    CHECK(p.listCaptures.empty());
    CHECK(p.outputs == std::vector<std::string>{"r"});
    REQUIRE(p.where.size() == 4);
    const Expr &inList = p.where[1];
    CHECK(inList.kind == ExprKind::Binary);
    CHECK(inList.text == "in");
    CHECK(inList.operands[1].operands[1].kind == ExprKind::DType);
    CHECK(inList.operands[1].operands[1].text == "bf16");
    const Expr &modulo = p.where[3].operands[0];
    CHECK(modulo.text == "%");
    CHECK(modulo.operands[0].kind == ExprKind::Index);
    CHECK(modulo.operands[0].operands[0].text == "shape");
    CHECK(writePatternExpr(p.where[3]) == "shape(x)[1] % 8 == 0");
    CHECK(p.replace[0].value.ops[0].name == "fusebox::linear_relu");
    CHECK(file.find("linear_relu_fusion") == &file.patterns[0]);
}

TEST_CASE("variadic templates bind list captures", "[io][pattern]")
{
    const PatternDecl p = parseOk(kCatOfSlices).patterns.at(0);
    const Expr &list = p.match[0].value.args[0].value;
    CHECK(list.kind == ExprKind::Variadic);
    CHECK(list.operands[0].ops[0].name == "getitem");
    // s is a match value, so it is shared by every repetition; i is not.
    CHECK(p.captures == std::vector<std::string>{"i", "d", "t", "size", "d2"});
    CHECK(p.listCaptures == std::vector<std::string>{"i"});
    CHECK(writePatternExpr(p.replace[0].value.args[3].value) == "(last(i) + 1) * size");
}

TEST_CASE("match literals, keywords, wildcards and overloads", "[io][pattern]")
{
    const PatternDecl p = parseOk(
                              pattern("        s = aten::split.Tensor(t, 8, dim = -1)\n"
                                      "        n = aten::layer_norm(s, [16], _, None, eps=1e-05, cudnn_enable=True)\n"
                                      "        g = aten::gelu(n, approximate = 'tanh')\n",
                                      "", "        g = fusebox::op(\n            t, f16)\n"))
                              .patterns.at(0);
    const Expr &split = p.match[0].value;
    CHECK(split.ops[0].name == "aten::split");
    CHECK(split.ops[0].overload == "Tensor");
    CHECK(split.args[1].value.kind == ExprKind::Int);
    CHECK(split.args[1].value.intValue == 8);
    CHECK(split.args[2].keyword == "dim");
    CHECK(split.args[2].value.intValue == -1);
    const Expr &norm = p.match[1].value;
    CHECK(norm.args[1].value.kind == ExprKind::List);
    CHECK(norm.args[2].value.kind == ExprKind::Wildcard);
    CHECK(norm.args[3].value.kind == ExprKind::None);
    CHECK(norm.args[4].value.floatValue == 1e-05);
    CHECK(norm.args[5].value.boolValue);
    CHECK(p.match[2].value.args[1].value.kind == ExprKind::String);
    CHECK(p.match[2].value.args[1].value.text == "tanh");
    CHECK(p.captures == std::vector<std::string>{"t"});
    CHECK(p.replace[0].value.args[1].value.kind == ExprKind::DType);
}

TEST_CASE("constraint expressions follow the documented precedence", "[io][pattern]")
{
    const PatternDecl p = parseOk(pattern("        y = aten::relu(x)\n",
                                          "        rank(x) + 1 * 2 == 3 and not users(y) > 1 or numel(x) != 0\n"
                                          "        shape(x)[-1] - (rank(x) - 1) >= 0\n",
                                          "        y = x\n"))
                              .patterns.at(0);
    const Expr &c = p.where[0];
    CHECK(c.text == "or");
    CHECK(c.operands[0].text == "and");
    CHECK(c.operands[0].operands[1].kind == ExprKind::Unary);
    CHECK(c.operands[0].operands[0].operands[0].operands[1].text == "*");
    CHECK(p.where[1].operands[0].operands[0].operands[1].intValue == -1);
    CHECK(writePatternExpr(p.where[1]) == "shape(x)[-1] - (rank(x) - 1) >= 0");
    CHECK(p.replace[0].value.kind == ExprKind::Name);
}

TEST_CASE("options, stage and one-line blocks", "[io][pattern]")
{
    PatternFile file = parseOk("pattern a { stage = pre_grad\n options { min_fuse_set_size = 2\n max = [1, 2.5]\n"
                               " flag = False }\n match { y = aten::relu(x) }\n replace { y = x } }\n"
                               "pattern b { match { y = aten::relu(x) }\n replace { y = x } }");
    REQUIRE(file.patterns.size() == 2);
    CHECK(file.patterns[0].stage == Stage::PreGrad);
    REQUIRE(file.patterns[0].options.size() == 3);
    CHECK(file.patterns[0].options[1].key == "max");
    CHECK(file.patterns[0].options[1].value.operands[1].floatValue == 2.5);
    CHECK_FALSE(file.patterns[1].benefit);
}

TEST_CASE("written pattern files read back equal", "[io][pattern]")
{
    checkRoundTrip(kLinearRelu);
    checkRoundTrip(kCatOfSlices);
    checkRoundTrip(pattern("        y = (aten::relu | aten::gelu)(aten::add.Tensor(x, 2.0, alpha=-1))\n",
                           "        not (users(y) == 1 or rank(x) in [2, 3]) and shape(x)[0] * (2 + 1) < 7\n"
                           "        -rank(x) < -1 and numel(x) / 2 % 3 == 0\n",
                           "        t = fusebox::f(x, \"a \\\"q\\\"\\n\", None, [1e-05, -3.5], True)\n"
                           "        y = getitem(t, -(rank(x) - 1))\n"));
    // Layout is not meaning: a reformatted file is equal.
    CHECK(parseOk(kLinearRelu) == parseOk(writePatternFile(parseOk(kLinearRelu))));
    CHECK_FALSE(parseOk(kLinearRelu) == parseOk(kCatOfSlices));
}

TEST_CASE("the example pattern files parse against the schemas", "[io][pattern]")
{
    for (const char *name : {"linear_relu_fusion", "add_of_matmuls", "cat_of_slices"}) {
        const std::string path = std::string(FUSEBOX_SOURCE_DIR) + "/resources/patterns/" + name + ".patterns";
        INFO(path);
        auto file = readPatternFile(path, {&testSchemas(), {}});
        INFO((file ? std::string() : file.error().message));
        REQUIRE(file.hasValue());
        CHECK_FALSE(file->patterns.empty());
        CHECK(file->sourceName == path);
        CHECK(parsePatternFile(writePatternFile(*file), {&testSchemas(), {}}).value() == *file);
    }
    auto matmuls = readPatternFile(std::string(FUSEBOX_SOURCE_DIR) + "/resources/patterns/add_of_matmuls.patterns");
    REQUIRE(matmuls.hasValue());
    CHECK(matmuls->find("matmuls_sharing_lhs")->outputs == std::vector<std::string>{"p", "q"});
    CHECK(readPatternFile("/nonexistent/x.patterns").error().message
          == "/nonexistent/x.patterns: cannot open pattern file");
}

TEST_CASE("syntax errors name the position, what was expected and what was found", "[io][pattern]")
{
    CHECK(patternErrorOf(pattern("        y = aten::relu(x,, 1)\n", "", "        y = x\n"))
          == "t.patterns:3:26: expected an expression, found ','");
    CHECK(patternErrorOf(pattern("        y = aten::relu x\n", "", "        y = x\n"))
          == "t.patterns:3:24: expected '(', found 'x'");
    CHECK(patternErrorOf(pattern("        y = aten::relu(x) z\n", "", "        y = x\n"))
          == "t.patterns:3:27: expected end of line, found 'z'");
    CHECK(patternErrorOf(pattern("        y aten::relu(x)\n", "", "        y = x\n"))
          == "t.patterns:3:11: expected '=', found 'aten'");
    CHECK(patternErrorOf(pattern("        y = aten::relu(x)\n", "        rank(x) < 2 < 3\n", "        y = x\n"))
          == "t.patterns:6:21: comparisons do not chain: use 'and'");
    CHECK(patternErrorOf(pattern("        y = aten::relu(dim=1, x)\n", "", "        y = x\n"))
          == "t.patterns:3:31: positional argument after a keyword argument");
    CHECK(patternErrorOf("patern p {}") == "t.patterns:1:1: expected 'pattern', found 'patern'");
    CHECK(patternErrorOf("pattern p {\n    benefit = 1.5\n}") == "t.patterns:2:15: benefit must be an integer literal");
    CHECK(patternErrorOf("pattern p {\n    stage = forward\n}")
          == "t.patterns:2:13: expected 'pre_grad' or 'post_grad', found 'forward'");
    CHECK(
        patternErrorOf("pattern p {\n    matches {}\n}").starts_with("t.patterns:2:5: unknown pattern field 'matches'"));
    CHECK(patternErrorOf("pattern p {\n    match {}\n    match {}\n}")
          == "t.patterns:3:5: duplicate 'match' in pattern 'p'");
    CHECK(patternErrorOf("pattern p {\n  match { y = aten::relu(x) @ 2 }\n}")
          == "t.patterns:2:29: unexpected character '@'");
    CHECK(patternErrorOf("pattern p {\n  description = \"open\n}") == "t.patterns:2:17: unterminated string");
    CHECK(patternErrorOf(pattern("        c = aten::cat([x, y...], 0)\n", "", "        c = x\n"))
          == "t.patterns:3:28: a variadic list holds only its template: write [template...]");
}

TEST_CASE("unbalanced brackets and braces point at the opening one", "[io][pattern]")
{
    CHECK(patternErrorOf("pattern p {\n    match {\n        y = aten::relu(x\n    }\n}")
          == "t.patterns:3:23: unbalanced '(': not closed before '}' at 4:5");
    CHECK(patternErrorOf("pattern p {\n    match {\n        y = aten::relu(x]\n")
          == "t.patterns:3:25: expected ')' to close '(' at 3:23, found ']'");
    CHECK(patternErrorOf("pattern p {\n    match {\n        y = aten::relu(x)\n    }\n")
          == "t.patterns:1:11: unbalanced '{': not closed before end of file");
    CHECK(patternErrorOf("pattern p {\n    match {\n        y = aten::relu(x)\n}\npattern q {\n}\n")
          == "t.patterns:1:11: unbalanced '{': not closed before 'pattern' at 5:1");
    CHECK(patternErrorOf("pattern p {\n    match { y = aten::relu(x) }\n    replace { y = x }\n}\n}\n")
          == "t.patterns:5:1: unbalanced '}': no '{' to close");
    CHECK(patternErrorOf("y = aten::relu(x))") == "t.patterns:1:18: unbalanced ')': no '(' to close");
}

TEST_CASE("unknown ops suggest the closest schema names", "[io][pattern]")
{
    const OpSchemaRegistry *schemas = &testSchemas();
    CHECK(patternErrorOf(pattern("        y = aten::rleu(x)\n", "", "        y = x\n"), schemas)
          == "t.patterns:3:13: unknown op 'aten::rleu' (did you mean 'aten::relu'?)");
    CHECK(patternErrorOf(pattern("        y = (aten::relu | aten::gleu)(x)\n", "", "        y = x\n"), schemas)
          == "t.patterns:3:27: unknown op 'aten::gleu' (did you mean 'aten::gelu'?)");
    CHECK(patternErrorOf(pattern("        y = aten::split.Tensr(x, 2)\n", "", "        y = x\n"), schemas)
          == "t.patterns:3:13: unknown overload 'aten::split.Tensr' (did you mean 'aten::split.Tensor'?)");
    CHECK(patternErrorOf(pattern("        y = aten::relu(x)\n", "", "        y = aten::zzzzzz(x)\n"), schemas)
          == "t.patterns:8:13: unknown op 'aten::zzzzzz'");
    // Without schemas, or in a namespace the registry does not know, any op is accepted.
    parseOk(pattern("        y = aten::rleu(x)\n", "", "        y = x\n"));
    parseOk(pattern("        y = aten::relu(x)\n", "", "        y = custom::fused(x, 1, k=2)\n"), schemas);
}

TEST_CASE("calls that fit no overload are arity errors", "[io][pattern]")
{
    const OpSchemaRegistry *schemas = &testSchemas();
    CHECK(patternErrorOf(pattern("        y = aten::relu(x, w, b)\n", "", "        y = x\n"), schemas)
          == "t.patterns:3:13: aten::relu: 3 positional arguments, the schema takes 1");
    CHECK(patternErrorOf(pattern("        y = aten::split(t, 2, axis=1)\n", "", "        y = t\n"), schemas)
          == "t.patterns:3:13: aten::split.Tensor: unknown keyword 'axis'");
    CHECK(patternErrorOf(pattern("        y = aten::relu(x)\n", "", "        y = aten::mm(x)\n"), schemas)
          == "t.patterns:8:13: aten::mm: missing argument 'mat2'");
    CHECK(patternErrorOf(pattern("        y = getitem(x, 0, 1)\n", "", "        y = x\n"))
          == "t.patterns:3:13: getitem takes 2 positional arguments (value, index), found 3");
    // Defaults may be left out; a variadic list is one argument.
    parseOk(kCatOfSlices, schemas);
    parseOk(pattern("        y = aten::linear(x, w)\n", "", "        y = aten::gelu(y, approximate='tanh')\n"), schemas);
}

TEST_CASE("names must be bound by the match", "[io][pattern]")
{
    CHECK(patternErrorOf(pattern("        y = aten::relu(input)\n", "        rank(inpt) == 2\n", "        y = input\n"))
          == "t.patterns:6:14: unbound variable 'inpt': the match does not bind it (did you mean 'input'?)");
    CHECK(patternErrorOf(pattern("        y = aten::relu(x)\n", "", "        y = fusebox::f(x, weight)\n"))
          == "t.patterns:8:27: replacement uses 'weight', which the match does not bind");
    CHECK(patternErrorOf(pattern("        y = aten::relu(x)\n", "", "        y = aten::mul(x, rank(q) + 1)\n"))
          == "t.patterns:8:31: replacement uses 'q', which the match does not bind (did you mean 'y' or 'x'?)");
    CHECK(patternErrorOf(pattern("        y = aten::relu(x)\n", "", "        y = aten::mul(t, 2)\n        t = x\n"))
          == "t.patterns:8:23: 't' is used before the replacement defines it");
    CHECK(patternErrorOf(pattern("        y = aten::relu(x)\n", "", "        x = aten::neg(x)\n        y = x\n"))
          == "t.patterns:8:9: 'x' is an input of the match, not a value it computes: only match statement "
             "targets can be replaced");
    CHECK(patternErrorOf(pattern("        y = aten::relu(x)\n", "", "        t = aten::neg(x)\n"))
          == "t.patterns:1:9: pattern 'p': the replacement assigns no match value, so nothing would be replaced "
             "(assign one, e.g. 'y = ...')");
    CHECK(patternErrorOf(pattern("        y = aten::relu(x)\n", "", "        y = x\n        y = x\n"))
          == "t.patterns:9:9: 'y' is assigned twice in the replacement (first at 8:9)");
}

TEST_CASE("structural errors of patterns", "[io][pattern]")
{
    CHECK(patternErrorOf("pattern p {\n    match { y = aten::relu(x) }\n    replace { y = x }\n}\n"
                         "pattern p {\n    match { y = aten::relu(x) }\n    replace { y = x }\n}\n")
          == "t.patterns:5:9: duplicate pattern 'p' (first defined at 1:9)");
    CHECK(patternErrorOf(pattern("        y = aten::relu(x)\n        y = aten::gelu(x)\n", "", "        y = x\n"))
          == "t.patterns:4:9: 'y' is defined twice in the match (first at 3:9)");
    CHECK(patternErrorOf("pattern p {\n    match {\n    }\n    replace { y = x }\n}")
          == "t.patterns:1:9: pattern 'p' has an empty match");
    CHECK(patternErrorOf("pattern p {\n    match { y = aten::relu(x) }\n}")
          == "t.patterns:1:9: pattern 'p' has no replacement");
    CHECK(patternErrorOf(pattern("        y = x\n", "", "        y = x\n"))
          == "t.patterns:3:13: a match statement's value must be an op call, found 'x'");
    CHECK(patternErrorOf(pattern("        y = aten::add(x, n + 1)\n", "", "        y = x\n"))
          == "t.patterns:3:26: 'n + 1' is not allowed in the match: bind a capture and constrain it in 'where'");
    CHECK(patternErrorOf(pattern("        y = aten::relu(users(x))\n", "", "        y = x\n"))
          == "t.patterns:3:24: expected an op (namespace::name or getitem), found function 'users'");
    CHECK(patternErrorOf(pattern("        y = aten::cat([aten::cat([x...])...])\n", "", "        y = x\n"))
          == "t.patterns:3:34: variadic lists do not nest");
    CHECK(patternErrorOf(pattern("        y = aten::cat([x...])\n", "", "        y = aten::cat([x...])\n"))
          == "t.patterns:8:23: variadic lists '[template...]' can only appear in the match");
    CHECK(patternErrorOf(pattern("        y = aten::relu(x)\n", "        _ == 1\n", "        y = x\n"))
          == "t.patterns:6:9: '_' is a wildcard: it can only appear in the match");
    CHECK(patternErrorOf(pattern("        y = aten::relu(x)\n", "        user(y) == 1\n", "        y = x\n"))
          == "t.patterns:6:9: unknown function 'user' (did you mean 'users'?)");
    CHECK(patternErrorOf(pattern("        y = aten::relu(x)\n", "        shape(x, 1) == 1\n", "        y = x\n"))
          == "t.patterns:6:9: 'shape' takes one positional argument, found 2");
    CHECK(
        patternErrorOf(pattern("        y = aten::relu(x)\n", "        users(aten::relu(x)) == 1\n", "        y = x\n"))
        == "t.patterns:6:15: op calls are not allowed in constraints: bind the value in the match");
    CHECK(patternErrorOf(
              "pattern p {\n    options { a = 1\n a = x }\n    match { y = aten::relu(x) }\n    replace { y = x }\n}")
          == "t.patterns:3:2: option 'a' is set twice (first at 2:15)");
    CHECK(
        patternErrorOf("pattern p {\n    options { a = x }\n    match { y = aten::relu(x) }\n    replace { y = x }\n}")
        == "t.patterns:2:19: option 'a' must be a literal, found 'x'");
}

TEST_CASE("absurd nesting is an error, not a stack overflow", "[io][pattern]")
{
    const std::string deep(5000, '(');
    const std::string close(5000, ')');
    const std::string error = patternErrorOf(
        pattern("        y = aten::relu(x)\n", "        " + deep + "rank(x)" + close + " == 2\n", "        y = x\n"));
    CHECK(error.find("nesting deeper than 200 levels") != std::string::npos);
    std::string nots;
    for (int i = 0; i < 5000; ++i)
        nots += "not ";
    CHECK(patternErrorOf(pattern("        y = aten::relu(x)\n", "        " + nots + "True\n", "        y = x\n"))
              .find("nesting deeper than 200 levels")
          != std::string::npos);
    // Ordinary nesting is fine.
    parseOk(pattern("        y = aten::relu(x)\n", "        ((((rank(x)))) == 2)\n", "        y = x\n"));
}
