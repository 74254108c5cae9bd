#include "SessionFile.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace fusebox {

namespace {
constexpr int kVersion = 1;
}

QString writeSession(const Session &session)
{
    QJsonObject root{{"fusebox_session", kVersion},
                     {"model", session.modelPath},
                     {"demo", session.demo},
                     {"verify_each_apply", session.verifyEachApply}};
    if (!session.inputShapes.empty()) {
        QJsonArray shapes;
        for (const auto &shape : session.inputShapes) {
            QJsonArray dims;
            for (int64_t d : shape)
                dims.append(qint64(d));
            shapes.append(dims);
        }
        root.insert("input_shapes", shapes);
    }
    root.insert("pass", QJsonDocument::fromJson(QByteArray::fromStdString(writePassConfig(session.pass))).object());
    QJsonArray steps;
    for (const SessionStep &step : session.steps) {
        QJsonObject written;
        if (step.applyAll) {
            written.insert("apply_all", true);
            if (step.rewrites >= 0)
                written.insert("rewrites", step.rewrites);
        } else {
            QJsonArray signatures;
            for (const std::string &s : step.signatures)
                signatures.append(QString::fromStdString(s));
            written.insert("apply", signatures);
        }
        if (step.customPatterns) {
            QJsonArray names;
            for (const std::string &name : *step.customPatterns)
                names.append(QString::fromStdString(name));
            written.insert("custom_patterns", names);
        }
        steps.append(written);
    }
    root.insert("steps", steps);
    return QString::fromUtf8(QJsonDocument(root).toJson(QJsonDocument::Indented));
}

Expected<Session> readSession(const QString &text, const QString &sourceName)
{
    const std::string source = sourceName.toStdString();
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(text.toUtf8(), &parseError);
    if (parseError.error != QJsonParseError::NoError)
        return Error{source + ": offset " + std::to_string(parseError.offset) + ": "
                     + parseError.errorString().toStdString()};
    const QJsonObject root = doc.object();
    if (!doc.isObject() || root.value("fusebox_session").toInt() != kVersion)
        return Error{source + ": not a Fusebox session (expected {\"fusebox_session\": 1, ...})"};
    Session session;
    session.modelPath = root.value("model").toString();
    session.demo = root.value("demo").toBool();
    session.verifyEachApply = root.value("verify_each_apply").toBool(true);
    if (session.modelPath.isEmpty() && !session.demo)
        return Error{source + ": model: expected the model's path"};
    const QJsonArray shapes = root.value("input_shapes").toArray();
    for (qsizetype i = 0; i < shapes.size(); ++i) {
        if (!shapes[i].isArray())
            return Error{source + ": input_shapes[" + std::to_string(i) + "]: expected a list of sizes"};
        std::vector<int64_t> dims;
        for (const QJsonValue &d : shapes[i].toArray()) {
            if (!d.isDouble() || d.toDouble() < 0 || d.toDouble() != double(qint64(d.toDouble())))
                return Error{source + ": input_shapes[" + std::to_string(i) + "]: expected sizes (integers ≥ 0)"};
            dims.push_back(qint64(d.toDouble()));
        }
        session.inputShapes.push_back(std::move(dims));
    }
    const QByteArray pass = QJsonDocument(root.value("pass").toObject()).toJson(QJsonDocument::Compact);
    auto config = readPassConfig(pass.toStdString(), source + ": pass");
    if (!config)
        return config.error();
    session.pass = std::move(*config);
    const QJsonArray steps = root.value("steps").toArray();
    for (qsizetype i = 0; i < steps.size(); ++i) {
        const QJsonObject step = steps[i].toObject();
        SessionStep s;
        if (step.value("apply_all").toBool()) {
            s.applyAll = true;
            s.rewrites = step.value("rewrites").toInt(-1);
        } else if (step.value("apply").isArray()) {
            for (const QJsonValue &v : step.value("apply").toArray())
                s.signatures.push_back(v.toString().toStdString());
        } else {
            return Error{source + ": steps[" + std::to_string(i) + "]: expected \"apply\" or \"apply_all\""};
        }
        if (step.contains("custom_patterns")) {
            if (!step.value("custom_patterns").isArray())
                return Error{source + ": steps[" + std::to_string(i) + "].custom_patterns: expected a list of names"};
            s.customPatterns.emplace();
            for (const QJsonValue &v : step.value("custom_patterns").toArray())
                s.customPatterns->push_back(v.toString().toStdString());
        }
        session.steps.push_back(std::move(s));
    }
    return session;
}

} // namespace fusebox
