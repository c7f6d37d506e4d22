#include "common/option_widgets.hpp"

#include <QComboBox>
#include <QObject>
#include <QSpinBox>

#include <algorithm>
#include <climits>

#include "common/utf8_text.hpp"
#include "quant/level.hpp"
#include "run/option_table.hpp"

namespace kvscope::ui {
QString optionToolTip(std::string_view flag) {
  const option_spec* spec = find_option(flag);
  if (!spec) return {};  // cannot happen: callers pass the table's own flags
  return QString::fromStdString(option_help(*spec)) +
         QObject::tr("\n(kvscope-cli: --%1)").arg(qs(spec->flag));
}

QSpinBox* optionSpinBox(std::string_view flag) {
  const option_spec* spec = find_option(flag);
  auto* box = new QSpinBox;
  box->setObjectName(qs(flag));
  if (!spec) return box;  // cannot happen: callers pass the table's own flags
  const double top = spec->max > 0 ? spec->max : static_cast<double>(INT_MAX);
  box->setRange(static_cast<int>(spec->min), static_cast<int>(std::min(top, static_cast<double>(INT_MAX))));
  if (!spec->unit.empty()) box->setSuffix(QStringLiteral(" ") + qs(spec->unit));
  box->setToolTip(optionToolTip(flag));
  box->setKeyboardTracking(false);
  box->setMinimumWidth(50);
  return box;
}

QComboBox* levelComboBox(std::string_view flag) {
  auto* box = new QComboBox;
  box->setObjectName(qs(flag));
  box->setToolTip(optionToolTip(flag));
  for (precision p : all_precisions) box->addItem(qs(tag(p)));
  return box;
}

}  // namespace kvscope::ui
