#pragma once
// Controls for options of core's option table: the range, unit and help shown are the table's,
// as kvscope-cli's flags give them, so a GUI field and its flag cannot drift apart.
#include <string_view>

class QComboBox;
class QSpinBox;
class QString;

namespace kvscope::ui {

// The option's help as the table gives it (range and default included) and the flag that sets
// it from kvscope-cli: the tooltip of every control of a table option.
QString optionToolTip(std::string_view flag);

// A spin box for a count option (`flag` as kvscope-cli spells it, e.g. "block-size"): its
// range (capped to what a QSpinBox holds), unit, help and object name. Applies on commit
// (no keyboard tracking).
QSpinBox* optionSpinBox(std::string_view flag);

// A combo box listing the precision levels (fp16, q8, fp8, q4), item i being ordinal i, for
// the level option `flag` ("min-level", "fixed-level", …): its object name and help.
QComboBox* levelComboBox(std::string_view flag);

}  // namespace kvscope::ui
