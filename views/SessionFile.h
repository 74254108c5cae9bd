#pragma once

#include "core/io/PassConfig.h"
#include "core/ir/Expected.h"

#include <QString>

#include <optional>
#include <string>
#include <vector>

namespace fusebox {

/// One undo step of a review, as a session replays it: the matches applied
/// together (by matchSignature()), or an Apply All.
struct SessionStep {
    bool applyAll = false;
    std::vector<std::string> signatures;
    /// Apply All: how many rewrites it made (-1 when the file does not say),
    /// so that a replay that makes fewer says so.
    int rewrites = -1;
    /// The custom patterns the document had when the step was made, so that a
    /// replay runs each step with those (a pattern added after an Apply All
    /// must not join it); nullopt in files written before (every one).
    std::optional<std::vector<std::string>> customPatterns;
    friend bool operator==(const SessionStep &, const SessionStep &) = default;
};

/// A saved review (File ▸ Save Session, *.fusebox): the model, the pass
/// configuration (rules, options, custom patterns, rejections), the
/// verification toggle and the applied steps in order. Reopening loads the
/// model and replays the steps, so the graph, the decisions and the undo
/// history come back.
///
/// {"fusebox_session": 1, "model": "/abs/model.pt" | "", "demo": false,
///  "input_shapes": [[32, 13], [32, 384]] (optional: the shapes the model was opened with),
///  "verify_each_apply": true, "pass": {pass file},
///  "steps": [{"apply": [sig, ...]} | {"apply_all": true, "rewrites": 12}]}
/// (each step may add "custom_patterns": [name, ...]: SessionStep::customPatterns)
struct Session {
    QString modelPath;
    bool demo = false;
    /// The input shapes the review used (File ▸ Input Shapes…, --input-shape);
    /// empty when the model's own were used.
    std::vector<std::vector<int64_t>> inputShapes;
    bool verifyEachApply = true;
    PassConfig pass;
    std::vector<SessionStep> steps;
};

QString writeSession(const Session &session);
/// Errors name the source and the field ("review.fusebox: steps[2]: expected
/// \"apply\" or \"apply_all\"").
Expected<Session> readSession(const QString &text, const QString &sourceName);

} // namespace fusebox
