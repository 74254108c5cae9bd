#pragma once

#include <QString>

namespace fusebox {

class Document;

/// The review of a document as JSON: the model, node counts before/after,
/// every match with its pattern, anchor, status and verification (pending
/// candidates, rejections with their signatures, applied rewrites in order,
/// failed verifications), and per-pattern tallies.
QString reviewReportJson(const Document &document);
/// The same for people: a Markdown summary table and one section per status.
QString reviewReportMarkdown(const Document &document);

} // namespace fusebox
