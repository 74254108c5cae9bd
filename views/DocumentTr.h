#pragma once
// tr() for the Document's parts (DocumentJobs, DocumentReview, …): they are
// not QObjects, and their strings keep Document's translation context.

#include "Document.h"

namespace fusebox::document_tr {

inline QString tr(const char *text, const char *disambiguation = nullptr, int n = -1)
{
    return Document::tr(text, disambiguation, n);
}

} // namespace fusebox::document_tr
