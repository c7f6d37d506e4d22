#pragma once
// toml++ 3.3.0 with its internal checks turned into exceptions. Include this instead of
// <toml++/toml.h>, and before anything else that includes toml++.
//
// Why: toml++ checks its own invariants with TOML_ASSERT / TOML_ASSERT_ASSUME and marks paths it
// believes impossible with TOML_UNREACHABLE. Some are reachable from input: `[` followed by a
// backtick or a NUL byte fails an assertion in parser::parse_key (abort in a debug build,
// __builtin_assume(false) in a release build with clang), and a non-ASCII bare key such as
// `qΠthreshold` reaches TOML_UNREACHABLE in is_unicode_whitespace. Debian's shared library is
// built with whatever these macros were there, so the parser is compiled here, header-only,
// with the macros below: a failed check throws toml_internal_error, which the caller reports
// as a parse error. (In the few noexcept helpers the throw ends in std::terminate: an abort,
// never undefined behaviour.) Policy files are also refused before parsing when they hold any
// byte but printable ASCII, tab, CR and LF, which keeps toml++ off its Unicode tables.
#include <stdexcept>
#include <string>

#if defined(TOMLPLUSPLUS_H) || defined(TOML_HAS_INCLUDE)
#error "io/toml_checked.hpp must come before any other toml++ include"
#endif

namespace kvscope {

// A toml++ internal check failed on some input: treat the document as unparseable.
struct toml_internal_error : std::logic_error {
  using std::logic_error::logic_error;
};

[[noreturn]] inline void throw_toml_internal_error(const char* what) {
  throw toml_internal_error(std::string("toml++ internal check failed: ") + what);
}

}  // namespace kvscope

// Compile the implementation into this translation unit rather than link the shared library.
#undef TOML_HEADER_ONLY
#define TOML_HEADER_ONLY 1
#undef TOML_SHARED_LIB
#define TOML_SHARED_LIB 0
#define TOML_ASSERT(expr) \
  ((expr) ? static_cast<void>(0) : ::kvscope::throw_toml_internal_error(#expr))

// toml++ replaces TOML_ASSERT with nothing and TOML_ASSERT_ASSUME with an assumption when NDEBUG
// is defined; hide NDEBUG while its preprocessor header decides, so both stay our check.
#pragma push_macro("NDEBUG")
#undef NDEBUG
#include <toml++/impl/preprocessor.h>
#pragma pop_macro("NDEBUG")

// Defined unconditionally by the header above: replace them now that it has been read once
// (#pragma once keeps toml.h from defining them again).
#undef TOML_UNREACHABLE
#define TOML_UNREACHABLE ::kvscope::throw_toml_internal_error("unreachable code reached")
#undef TOML_ASSUME
#define TOML_ASSUME(...) static_assert(true)

#include <toml++/toml.h>

#if TOML_LIB_MAJOR != 3 || TOML_LIB_MINOR != 3
#error "io/toml_checked.hpp was written against toml++ 3.3; check its macros again"
#endif

// <cassert> may have been read while NDEBUG was hidden: read it again so assert() follows the
// build's NDEBUG in the rest of the file.
#include <cassert>
