#include "PatternFile.h"
#include "PatternReaderImpl.h"

#include <fstream>
#include <sstream>

namespace fusebox {

namespace patternlang {

const std::vector<std::string> &builtinFunctions()
{
    static const std::vector<std::string> names = {"users", "dtype",       "rank",  "shape", "numel",
                                                   "len",   "consecutive", "first", "last"};
    return names;
}

std::string_view stageName(Stage stage)
{
    switch (stage) {
    case Stage::PreGrad: return "pre_grad";
    case Stage::PostGrad: return "post_grad";
    case Stage::Unspecified: break;
    }
    return "";
}

} // namespace patternlang

const patternlang::PatternDecl *PatternFile::find(std::string_view name) const
{
    for (const auto &p : patterns)
        if (p.name == name)
            return &p;
    return nullptr;
}

Expected<PatternFile> parsePatternFile(std::string_view text, const PatternFileReadOptions &options)
{
    auto file = patternlang::parsePatternSyntax(text, options.sourceName);
    if (!file)
        return file;
    if (Status checked = patternlang::checkPatternFile(*file, options); !checked)
        return checked.error();
    return file;
}

Expected<PatternFile> readPatternFile(const std::string &path, const PatternFileReadOptions &options)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return Error{path + ": cannot open pattern file"};
    std::ostringstream text;
    text << in.rdbuf();
    PatternFileReadOptions withSource = options;
    if (withSource.sourceName.empty())
        withSource.sourceName = path;
    return parsePatternFile(text.str(), withSource);
}

} // namespace fusebox
