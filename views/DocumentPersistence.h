#pragma once

#include "DocumentParts.h"

#include "SessionFile.h"
#include "core/io/PassConfig.h"

#include <QString>

#include <string>
#include <vector>

namespace fusebox {

class Document;

/// What a review saves and reopens: the pass file (the enabled rules with
/// their options and order, the custom patterns, the rejections), exported
/// from and imported into the pattern set and the decisions, and a session's
/// steps replayed on a freshly loaded graph.
class DocumentPersistence final {
public:
    DocumentPersistence(Document &document, const DocumentParts &parts);
    DocumentPersistence(const DocumentPersistence &) = delete;
    DocumentPersistence &operator=(const DocumentPersistence &) = delete;

    PassConfig passConfig() const;
    Status savePassFile(const QString &path);
    Status loadPassFile(const QString &path);
    Status applyPassConfig(const PassConfig &config, const std::string &sourceName);
    bool replaySteps(const std::vector<SessionStep> &steps, QString *error, const PassConfig *pass,
                     const std::string &sourceName);

private:
    Document &m_document;
    const DocumentParts &m_parts;
};

} // namespace fusebox
