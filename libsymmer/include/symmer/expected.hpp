// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// symmer::Expected<T>: a value or an Error that says what was wrong, for code that must not
// throw or crash on bad input (/proc files, the shared node segment, configuration, API
// arguments). A small subset of C++23 std::expected, so callers can move to it later.
//
//   symmer::Expected<int> parse(std::string_view s) {
//     if (s.empty()) return symmer::Error(symmer::Errc::kParse, "empty input");
//     return 42;
//   }
//   auto v = parse(text);
//   if (!v) log(v.error().message);
//
// symmer::Status (= Expected<void>) is the same for operations that return no value.

#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>

namespace symmer {

/// Broad class of an error, for callers that react differently (retry, skip, report).
enum class Errc {
  kInvalidArgument,  ///< the caller passed a value out of range or of the wrong shape
  kNotFound,         ///< a file, device, object or key does not exist
  kIo,               ///< reading or writing failed (permissions, short read, I/O error)
  kParse,            ///< input text or data is malformed, truncated or inconsistent
  kUnsupported,      ///< the operation does not apply here (no such hardware, old kernel)
  kInternal,         ///< a library underneath failed in a way the caller cannot fix
};

/// Name of an error class ("parse error", "not found"...), for messages.
const char* errc_name(Errc code) noexcept;

/// An error: its class and a message naming what was wrong ("/proc/stat line 3: ...").
struct Error {
  Errc code = Errc::kInternal;
  std::string message;

  Error() = default;
  Error(Errc c, std::string m) : code(c), message(std::move(m)) {}

  /// "<class>: <message>", e.g. "parse error: /proc/stat: no cpu lines".
  std::string to_string() const { return std::string(errc_name(code)) + ": " + message; }
};

/// Thrown by Expected::value() when it holds an error; what() is Error::to_string().
class BadExpectedAccess : public std::logic_error {
 public:
  explicit BadExpectedAccess(const Error& e) : std::logic_error(e.to_string()), error_(e) {}
  const Error& error() const noexcept { return error_; }

 private:
  Error error_;
};

/// A T or an Error. Converts implicitly from both, so functions `return value;` or
/// `return Error(...)`.
template <typename T>
class [[nodiscard]] Expected {
  static_assert(!std::is_same_v<std::remove_cv_t<T>, Error>, "Expected<Error> is ambiguous");

 public:
  /// A value: anything T is constructible from (so `return "text";` works for strings).
  template <typename U = T,
            typename = std::enable_if_t<std::is_constructible_v<T, U&&> &&
                                        !std::is_same_v<std::remove_cvref_t<U>, Error> &&
                                        !std::is_same_v<std::remove_cvref_t<U>, Expected>>>
  Expected(U&& v) : state_(std::in_place_index<0>, std::forward<U>(v)) {}  // NOLINT: implicit
  Expected(Error e) : state_(std::in_place_index<1>, std::move(e)) {}      // NOLINT: implicit

  bool has_value() const noexcept { return state_.index() == 0; }
  explicit operator bool() const noexcept { return has_value(); }

  /// The value; throws BadExpectedAccess when this holds an error.
  T& value() & {
    check();
    return std::get<0>(state_);
  }
  const T& value() const& {
    check();
    return std::get<0>(state_);
  }
  T&& value() && {
    check();
    return std::get<0>(std::move(state_));
  }

  /// The value without a check: only after has_value() returned true.
  T& operator*() & noexcept { return *std::get_if<0>(&state_); }
  const T& operator*() const& noexcept { return *std::get_if<0>(&state_); }
  T* operator->() noexcept { return std::get_if<0>(&state_); }
  const T* operator->() const noexcept { return std::get_if<0>(&state_); }

  /// The value, or `fallback` when this holds an error.
  template <typename U>
  T value_or(U&& fallback) const& {
    return has_value() ? std::get<0>(state_) : static_cast<T>(std::forward<U>(fallback));
  }

  /// The error; only meaningful after has_value() returned false (else a kInternal error
  /// saying so, never undefined behaviour).
  const Error& error() const& noexcept {
    const Error* e = std::get_if<1>(&state_);
    return e ? *e : no_error();
  }
  Error error() && noexcept {
    if (Error* e = std::get_if<1>(&state_)) return std::move(*e);
    return no_error();
  }

 private:
  void check() const {
    if (!has_value()) throw BadExpectedAccess(*std::get_if<1>(&state_));
  }
  static const Error& no_error() noexcept {
    static const Error kNoError(Errc::kInternal,
                                "error() called on an Expected that holds a value");
    return kNoError;
  }
  std::variant<T, Error> state_;
};

/// Success or an Error, for operations that return nothing.
template <>
class [[nodiscard]] Expected<void> {
 public:
  Expected() = default;
  Expected(Error e) : error_(std::move(e)), ok_(false) {}  // NOLINT: implicit

  bool has_value() const noexcept { return ok_; }
  explicit operator bool() const noexcept { return ok_; }
  /// Throws BadExpectedAccess when this holds an error.
  void value() const {
    if (!ok_) throw BadExpectedAccess(error_);
  }
  /// The error; only after has_value() returned false.
  const Error& error() const& noexcept { return error_; }

 private:
  Error error_;
  bool ok_ = true;
};

using Status = Expected<void>;

inline const char* errc_name(Errc code) noexcept {
  switch (code) {
    case Errc::kInvalidArgument:
      return "invalid argument";
    case Errc::kNotFound:
      return "not found";
    case Errc::kIo:
      return "I/O error";
    case Errc::kParse:
      return "parse error";
    case Errc::kUnsupported:
      return "unsupported";
    case Errc::kInternal:
      break;
  }
  return "internal error";
}

}  // namespace symmer
