#pragma once
// A Document's parts as each part reaches the others: the set is given to
// every part's constructor (Document.h says what each part does). The
// parts call one another only through it, and the facade's public API; none
// is a friend of another or of the facade.

namespace fusebox {

class DocumentGraph;
class DocumentHistory;
class DocumentJobs;
class DocumentPatterns;
class DocumentPersistence;
class DocumentPt2;
class DocumentReview;

/// Filled by Document as it makes the parts, before any part is used; the
/// parts live as long as the document.
struct DocumentParts {
    DocumentHistory *history = nullptr;
    DocumentGraph *model = nullptr;
    DocumentPatterns *patternSet = nullptr;
    DocumentReview *review = nullptr;
    DocumentJobs *jobs = nullptr;
    DocumentPersistence *persistence = nullptr;
    DocumentPt2 *pt2 = nullptr;
};

} // namespace fusebox
