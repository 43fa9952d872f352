// Typed configuration: each key carries its name, default, doc and validation in one place.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "lakeshore/status.h"

namespace lakeshore {

/// Properties as stored (hoodie.properties keys, Python kwargs): key → string value.
using Properties = std::map<std::string, std::string>;

/// The untyped face of a config option, for listing, docs and validation of raw properties.
class ConfigOptionBase {
 public:
  ConfigOptionBase(std::string_view key, std::string_view doc) : key_(key), doc_(doc) {}
  virtual ~ConfigOptionBase() = default;
  std::string_view key() const { return key_; }
  std::string_view doc() const { return doc_; }
  /// The default rendered as a string.
  virtual std::string DefaultString() const = 0;
  /// Parses and validates a raw value; the error names the key and the bad value.
  virtual Status Check(const std::string& value) const = 0;

 private:
  std::string_view key_;
  std::string_view doc_;
};

/// Parses a raw value as T (bool: exactly true or false; integers; numbers; strings as is); the error
/// names `key`.
template <typename T>
Result<T> ParseConfigValue(std::string_view key, const std::string& value);
template <> Result<bool> ParseConfigValue<bool>(std::string_view key, const std::string& value);
template <> Result<int64_t> ParseConfigValue<int64_t>(std::string_view key, const std::string& value);
template <> Result<double> ParseConfigValue<double>(std::string_view key, const std::string& value);
template <> Result<std::string> ParseConfigValue<std::string>(std::string_view key, const std::string& value);

/// Renders a value as a property string.
std::string RenderConfigValue(bool v);
std::string RenderConfigValue(int64_t v);
std::string RenderConfigValue(double v);
std::string RenderConfigValue(const std::string& v);

/// The items of a comma-separated value (Hudi's field and partition lists), each trimmed of
/// spaces; empty items are dropped.
std::vector<std::string> SplitConfigList(const std::string& text);

/// A typed option: T is bool, int64_t, double or std::string.
template <typename T>
class ConfigOption : public ConfigOptionBase {
 public:
  using Validator = Status (*)(const T&);
  ConfigOption(std::string_view key, T default_value, std::string_view doc,
               Validator validate = nullptr)
      : ConfigOptionBase(key, doc), default_(std::move(default_value)), validate_(validate) {}

  const T& default_value() const { return default_; }
  std::string DefaultString() const override { return RenderConfigValue(default_); }
  Status Check(const std::string& value) const override { return Parse(value).status(); }

  /// Parses and validates `value`.
  Result<T> Parse(const std::string& value) const {
    ARROW_ASSIGN_OR_RAISE(T v, ParseConfigValue<T>(key(), value));
    if (validate_ != nullptr) {
      Status st = validate_(v);
      if (!st.ok()) return Status::Invalid("config '", key(), "': ", st.message());
    }
    return v;
  }

  /// The value in `props`, or the default when absent.
  Result<T> Get(const Properties& props) const {
    auto it = props.find(std::string(key()));
    if (it == props.end()) return default_;
    return Parse(it->second);
  }

 private:
  T default_;
  Validator validate_;
};

/// Checks every entry of `props` against `known`: unknown keys and invalid values are errors
/// naming the key.
Status ValidateProperties(const Properties& props, const std::vector<const ConfigOptionBase*>& known);

/// Validators shared by many options.
Status MustBePositive(const int64_t& v);
Status MustBeNonNegative(const int64_t& v);



}  // namespace lakeshore
