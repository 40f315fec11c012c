#include "service/http/metrics.h"

#include <fmt/format.h>

#include <cassert>
#include <cmath>
#include <type_traits>
#include <utility>

namespace deltacommit::http {
namespace {

// Label values escape backslash, double quote and newline; help text
// escapes backslash and newline.
std::string Escape(std::string_view text, bool quote) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '"' && quote) {
      out += "\\\"";
    } else {
      out.push_back(c);
    }
  }
  return out;
}

// Shortest text that reads back as the same double; +Inf/-Inf/NaN as
// Prometheus spells them.
std::string FormatDouble(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  return fmt::format("{}", value);
}

}  // namespace

Metrics::FamilyBase::FamilyBase(std::string name, std::string help,
                                std::string type,
                                std::vector<std::string> label_names)
    : name_(std::move(name)),
      help_(std::move(help)),
      type_(std::move(type)),
      label_names_(std::move(label_names)) {}

void Metrics::FamilyBase::Render(std::string& out) const {
  out += "# HELP " + name_ + " " + Escape(help_, false) + "\n";
  out += "# TYPE " + name_ + " " + type_ + "\n";
  RenderChildren(out);
}

std::string Metrics::FamilyBase::LabelText(const LabelValues& values,
                                           std::string_view extra) const {
  if (label_names_.empty() && extra.empty()) return "";
  std::string text = "{";
  for (size_t i = 0; i < label_names_.size(); ++i) {
    if (i > 0) text += ",";
    text += label_names_[i] + "=\"" + Escape(values[i], true) + "\"";
  }
  if (!extra.empty()) {
    if (!label_names_.empty()) text += ",";
    text += extra;
  }
  return text + "}";
}

template <typename Value>
Metrics::Family<Value>::Family(std::string name, std::string help,
                               std::string type,
                               std::vector<std::string> label_names,
                               std::vector<double> bounds)
    : FamilyBase(std::move(name), std::move(help), std::move(type),
                 std::move(label_names)),
      bounds_(std::move(bounds)) {
  // A family without labels has exactly one child: show it from the start.
  if (label_names_.empty()) WithLabels({});
}

template <typename Value>
Value& Metrics::Family<Value>::WithLabels(const LabelValues& values) {
  assert(values.size() == label_names_.size());
  std::lock_guard<std::mutex> lock(mu_);
  std::unique_ptr<Value>& child = children_[values];
  if (child == nullptr) {
    if constexpr (std::is_same_v<Value, Histogram>) {
      child = std::make_unique<Histogram>(bounds_);
    } else {
      child = std::make_unique<Value>();
    }
  }
  return *child;
}

template <typename Value>
void Metrics::Family<Value>::RenderChildren(std::string& out) const {
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& [values, child] : children_) {
    if constexpr (std::is_same_v<Value, Histogram>) {
      Histogram::Snapshot snapshot = child->Read();
      for (size_t i = 0; i < snapshot.cumulative.size(); ++i) {
        double bound = i < bounds_.size() ? bounds_[i] : INFINITY;
        out += name_ + "_bucket" +
               LabelText(values, "le=\"" + FormatDouble(bound) + "\"") + " " +
               std::to_string(snapshot.cumulative[i]) + "\n";
      }
      std::string labels = LabelText(values);
      out += name_ + "_sum" + labels + " " + FormatDouble(snapshot.sum) + "\n";
      out += name_ + "_count" + labels + " " +
             std::to_string(snapshot.cumulative.back()) + "\n";
    } else {
      out += name_ + LabelText(values) + " " + std::to_string(child->value()) +
             "\n";
    }
  }
}

template class Metrics::Family<Counter>;
template class Metrics::Family<Gauge>;
template class Metrics::Family<Histogram>;

Metrics::Metrics() = default;
Metrics::~Metrics() = default;

template <typename Value>
Metrics::Family<Value>& Metrics::Register(
    std::unique_ptr<Family<Value>> family) {
  Family<Value>& ref = *family;
  std::lock_guard<std::mutex> lock(mu_);
  for ([[maybe_unused]] const auto& existing : families_) {
    assert(existing->name() != ref.name());
  }
  families_.push_back(std::move(family));
  return ref;
}

Metrics::Family<Counter>& Metrics::AddCounter(
    std::string name, std::string help, std::vector<std::string> label_names) {
  return Register(std::make_unique<Family<Counter>>(
      std::move(name), std::move(help), "counter", std::move(label_names)));
}

Metrics::Family<Gauge>& Metrics::AddGauge(
    std::string name, std::string help, std::vector<std::string> label_names) {
  return Register(std::make_unique<Family<Gauge>>(
      std::move(name), std::move(help), "gauge", std::move(label_names)));
}

Metrics::Family<Histogram>& Metrics::AddHistogram(
    std::string name, std::string help, std::vector<std::string> label_names,
    std::vector<double> upper_bounds) {
  return Register(std::make_unique<Family<Histogram>>(
      std::move(name), std::move(help), "histogram", std::move(label_names),
      std::move(upper_bounds)));
}

std::string Metrics::Render() const {
  std::string out;
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& family : families_) family->Render(out);
  return out;
}

}  // namespace deltacommit::http
