// Settings ▸ Inductor Version: which Inductor profile the document follows.
#include "InductorVersionSetting.h"

#include "Document.h"
#include "QtStrings.h"

#include "core/pt2/Pt2Bridge.h"
#include "core/pt2/PythonCommand.h"
#include "patterns/InductorProfile.h"

#include <QAction>
#include <QActionGroup>
#include <QMenu>
#include <QSettings>

namespace fusebox {

InductorVersionSetting::InductorVersionSetting(Document *document, QObject *parent)
    : QObject(parent)
    , m_document(document)
{}

QMenu *InductorVersionSetting::menu()
{
    if (m_menu)
        return m_menu;
    m_menu = new QMenu(tr("&Inductor Version"));
    m_menu->setToolTipsVisible(true);
    m_group = new QActionGroup(m_menu);
    m_automatic = m_menu->addAction(tr("&Automatic"));
    m_automatic->setData(QString());
    m_automatic->setToolTip(tr("The torch of the PyTorch 2 Fusebox uses (Settings ▸ PyTorch 2 Python), else the "
                               "newest profile; a version between two profiles uses the older"));
    m_menu->addSeparator();
    for (const InductorProfile &p : inductorProfiles()) {
        QAction *a = m_menu->addAction(qs(p.label()));
        a->setData(qs(p.version));
        a->setToolTip(tr("Give %1's answers whatever PyTorch 2 is installed").arg(qs(p.label())));
    }
    for (QAction *a : m_menu->actions()) {
        if (a->isSeparator())
            continue;
        a->setCheckable(true);
        m_group->addAction(a);
        connect(a, &QAction::triggered, this, [this, a] { choose(a->data().toString()); });
    }
    apply();
    return m_menu;
}

void InductorVersionSetting::refresh(const QString &pythonCommand, const QString &checkedTorch)
{
    m_python = pythonCommand;
    m_checkedTorch = checkedTorch;
    apply();
}

void InductorVersionSetting::choose(const QString &version)
{
    if (version.isEmpty())
        QSettings().remove(kKey);
    else
        QSettings().setValue(kKey, version);
    apply();
}

InductorVersionSetting::Resolved InductorVersionSetting::resolveAutomatic() const
{
    std::string version = m_checkedTorch.toStdString();
    QString where;
    if (auto command = pt2::findPythonCommand(m_python.toStdString())) {
        where = tr("the PyTorch 2 at %1").arg(QString::fromStdString(command->text()));
        if (version.empty())
            version = pt2::cachedTorchVersion(*command).value_or("");
    }
    Resolved r;
    r.profile = &newestInductorProfile();
    if (version.empty()) {
        r.why = where.isEmpty() ? tr("no PyTorch 2 found: the newest profile")
                                : tr("%1 has not reported its torch yet: the newest profile").arg(where);
        return r;
    }
    auto chosen = chooseInductorProfile(version);
    if (!chosen) {
        r.why = tr("the newest profile");
        r.note = tr("%1: %2").arg(where, QString::fromStdString(chosen.error().message));
        return r;
    }
    r.profile = chosen->profile;
    r.why = tr("%1: torch %2").arg(where, QString::fromStdString(version));
    r.note = QString::fromStdString(chosen->note);
    return r;
}

void InductorVersionSetting::apply()
{
    const QString choice = QSettings().value(kKey).toString();
    const Resolved automatic = resolveAutomatic();
    Resolved r = automatic;
    const InductorProfile *named = choice.isEmpty() ? nullptr : findInductorProfile(choice.toStdString());
    if (named)
        r = {named, tr("chosen in Settings ▸ Inductor Version"), {}};
    else if (!choice.isEmpty())
        r.note = tr("Settings ▸ Inductor Version names %1, which Fusebox has no profile for: Automatic").arg(choice);
    m_document->setInductorProfile(*r.profile);
    if (m_menu) {
        m_automatic->setText(tr("&Automatic (%1)").arg(qs(automatic.profile->label())));
        for (QAction *a : m_group->actions())
            a->setChecked(a->data().toString() == (named ? choice : QString()));
    }
    QString line = tr("Answers follow %1 (%2)").arg(qs(r.profile->label()), r.why);
    if (!r.note.isEmpty())
        line += QStringLiteral("; ") + r.note;
    if (line != m_lastLine)
        emit logLine(line);
    m_lastLine = line;
}

} // namespace fusebox
