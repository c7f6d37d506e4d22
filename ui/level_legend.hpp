#pragma once
// A row of colour chips with captions ("fp16", "free", …), painted directly: no child widgets.
#include <QColor>
#include <QString>
#include <QVector>
#include <QWidget>

namespace kvscope::ui {

class ColorLegend : public QWidget {
  Q_OBJECT
 public:
  struct Entry {
    QColor color;
    QString text;
    QString toolTip;
    bool dot = false;  // draw a dot inside the chip (shared blocks)
    QColor dotColor;
  };
  explicit ColorLegend(QWidget* parent = nullptr);
  void setEntries(QVector<Entry> entries);
  QSize sizeHint() const override;
  QSize minimumSizeHint() const override { return {60, sizeHint().height()}; }

 protected:
  void paintEvent(QPaintEvent* event) override;
  bool event(QEvent* event) override;

 private:
  QVector<QRect> layoutChips() const;
  QVector<Entry> entries_;
};

}  // namespace kvscope::ui
