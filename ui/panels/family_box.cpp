#include "panels/family_box.hpp"

#include <QComboBox>
#include <QFormLayout>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QStringList>

#include <optional>

#include "common/option_widgets.hpp"

namespace kvscope::ui {
namespace {

QString familyHelp(policy_family f) {
  switch (f) {
    case policy_family::ewma:
      return QObject::tr("One level for every cold block, from the EWMA of the pressure and its thresholds "
                         "(the reference runtime's controller).");
    case policy_family::fixed: return QObject::tr("Every cold block at one fixed level, whatever the pressure.");
    case policy_family::age:
      return QObject::tr("Blocks go to q8 once this many tokens old, to q4 once older still (vLLM issue #49198), "
                         "and to q3 once older again if a q3 age is set.");
    case policy_family::sinks_recent:
      return QObject::tr("The first and last tokens of a sequence stay fp16, the rest at one level "
                         "(vLLM PR #41684).");
  }
  return {};
}

}  // namespace

FamilyBox::FamilyBox(QWidget* parent) : QWidget(parent) {
  form_ = new QFormLayout(this);
  form_->setContentsMargins(0, 0, 0, 0);
  form_->setVerticalSpacing(3);
  family_ = new QComboBox;
  family_->setObjectName(QStringLiteral("family"));
  for (const std::string& name : policy_family_names()) {
    const auto f = parse_policy_family(name);
    family_->addItem(QString::fromStdString(name), static_cast<int>(*f));
    family_->setItemData(family_->count() - 1, familyHelp(*f), Qt::ToolTipRole);
  }
  family_->setToolTip(optionToolTip("family"));
  fixedLevel_ = levelComboBox("fixed-level");
  q8Age_ = optionSpinBox("q8-age-tokens");
  q4Age_ = optionSpinBox("q4-age-tokens");
  q3Age_ = optionSpinBox("q3-age-tokens");
  q3Age_->setSpecialValueText(tr("off"));  // 0: no q3 (the table's "0 = off")
  sinks_ = optionSpinBox("sink-tokens");
  recent_ = optionSpinBox("recent-tokens");
  form_->addRow(tr("family"), family_);
  form_->addRow(tr("level"), fixedLevel_);
  form_->addRow(tr("q8 from age"), q8Age_);
  form_->addRow(tr("q4 from age"), q4Age_);
  form_->addRow(tr("q3 from age"), q3Age_);
  form_->addRow(tr("fp16 sinks"), sinks_);
  form_->addRow(tr("fp16 recent"), recent_);

  connect(family_, &QComboBox::currentIndexChanged, this, [this] {
    showRows();
    Q_EMIT changed(QString());
  });
  connect(fixedLevel_, &QComboBox::currentIndexChanged, this, [this] { Q_EMIT changed(QString()); });
  for (QSpinBox* box : {q8Age_, q4Age_, q3Age_}) {
    connect(box, &QSpinBox::valueChanged, this, [this, box] { onAge(box); });
  }
  for (QSpinBox* box : {sinks_, recent_}) {
    connect(box, &QSpinBox::valueChanged, this, [this] { Q_EMIT changed(QString()); });
  }
  showConfig(policy_config{});
}

void FamilyBox::showConfig(const policy_config& config) {
  {
    const QSignalBlocker b1(family_), b2(fixedLevel_), b3(q8Age_), b4(q4Age_), b5(sinks_), b6(recent_), b7(q3Age_);
    family_->setCurrentIndex(family_->findData(static_cast<int>(config.family)));
    fixedLevel_->setCurrentIndex(ordinal(config.fixed_level));
    q8Age_->setValue(static_cast<int>(config.q8_age_tokens));
    q4Age_->setValue(static_cast<int>(config.q4_age_tokens));
    q3Age_->setValue(static_cast<int>(config.q3_age_tokens.value_or(0)));
    sinks_->setValue(static_cast<int>(config.sink_tokens));
    recent_->setValue(static_cast<int>(config.recent_tokens));
  }
  showRows();
}

void FamilyBox::applyTo(policy_config& config) const {
  config.family = static_cast<policy_family>(family_->currentData().toInt());
  config.fixed_level = precision_from_ordinal(fixedLevel_->currentIndex());
  config.q8_age_tokens = static_cast<std::uint32_t>(q8Age_->value());
  config.q4_age_tokens = static_cast<std::uint32_t>(q4Age_->value());
  const auto q3 = static_cast<std::uint32_t>(q3Age_->value());
  config.q3_age_tokens = q3 == 0 ? std::nullopt : std::optional<std::uint32_t>(q3);
  config.sink_tokens = static_cast<std::uint32_t>(sinks_->value());
  config.recent_tokens = static_cast<std::uint32_t>(recent_->value());
}

void FamilyBox::showRows() {
  const auto f = static_cast<policy_family>(family_->currentData().toInt());
  form_->setRowVisible(fixedLevel_, f == policy_family::fixed || f == policy_family::sinks_recent);
  form_->setRowVisible(q8Age_, f == policy_family::age);
  form_->setRowVisible(q4Age_, f == policy_family::age);
  form_->setRowVisible(q3Age_, f == policy_family::age);
  form_->setRowVisible(sinks_, f == policy_family::sinks_recent);
  form_->setRowVisible(recent_, f == policy_family::sinks_recent);
}

void FamilyBox::onAge(const QSpinBox* moved) {
  // The box the user moved keeps its value and the others follow it (q3 only while it is on),
  // except q3 below q4.
  const QSignalBlocker b1(q8Age_), b2(q4Age_), b3(q3Age_);
  QStringList why;
  const auto carry = [&why](QSpinBox* box, int value, const QString& because) {
    box->setValue(value);
    why << because;
  };
  const bool q3On = q3Age_->value() != 0;
  if (moved == q8Age_ && q4Age_->value() < q8Age_->value()) {
    carry(q4Age_, q8Age_->value(), tr("q4 age moved up with q8: q4_age_tokens must be >= q8_age_tokens."));
  }
  if (moved != q3Age_ && q3On && q3Age_->value() < q4Age_->value()) {
    carry(q3Age_, q4Age_->value(), tr("q3 age moved up with q4: q3_age_tokens must be >= q4_age_tokens."));
  }
  // q3 is the extra level: turned on or moved below q4 it starts at q4, rather than pulling the
  // reference runtime's ages down (one arrow step up from "off" would otherwise zero them).
  if (moved == q3Age_ && q3On && q3Age_->value() < q4Age_->value()) {
    carry(q3Age_, q4Age_->value(), tr("q3 age set to the q4 age: q3_age_tokens must be >= q4_age_tokens."));
  }
  if (moved != q8Age_ && q4Age_->value() < q8Age_->value()) {
    carry(q8Age_, q4Age_->value(), tr("q8 age moved down with q4: q4_age_tokens must be >= q8_age_tokens."));
  }
  Q_EMIT changed(why.join(QLatin1Char(' ')));
}

}  // namespace kvscope::ui
