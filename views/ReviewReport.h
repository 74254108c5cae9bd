#pragma once

#include "patterns/RewriteReport.h"

#include <QString>

namespace fusebox {

class Document;

/// The review of a document in the report model `fusebox-pass run --report`
/// writes too (patterns/RewriteReport.h): the model, node counts
/// before/after, per-pattern counters (matched: the candidates of the last
/// search, pending or rejected), the rewrites applied in order, the ones
/// undone by verification, and every match with its pattern, anchor, status
/// and verification (pending candidates, rejections with their signatures,
/// applied rewrites, failed verifications).
RewriteReport reviewReport(const Document &document);
/// reviewReport() as JSON (reportJson).
QString reviewReportJson(const Document &document);
/// The same for people: a Markdown summary table and one section per status.
QString reviewReportMarkdown(const Document &document);

} // namespace fusebox
