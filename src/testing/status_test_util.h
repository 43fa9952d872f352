// GoogleTest helpers for arrow::Status / arrow::Result.
#pragma once

#include <utility>

#include <gtest/gtest.h>

#define LAKESHORE_CONCAT_INNER(a, b) a##b
#define LAKESHORE_CONCAT(a, b) LAKESHORE_CONCAT_INNER(a, b)

/// Fails the test (and returns) unless the Status `expr` is OK, printing it.
#define ASSERT_OK(expr)                                   \
  do {                                                    \
    auto&& _st = (expr);                                  \
    ASSERT_TRUE(_st.ok()) << #expr << ": " << _st.ToString(); \
  } while (false)

/// Evaluates the Result `rexpr`; fails the test unless it is OK, else assigns its value to `lhs`
/// (which may be a declaration: `ASSERT_OK_AND_ASSIGN(auto x, F())`).
#define ASSERT_OK_AND_ASSIGN(lhs, rexpr)                                        \
  auto&& LAKESHORE_CONCAT(_result_, __LINE__) = (rexpr);                        \
  ASSERT_TRUE(LAKESHORE_CONCAT(_result_, __LINE__).ok())                        \
      << #rexpr << ": " << LAKESHORE_CONCAT(_result_, __LINE__).status().ToString(); \
  lhs = std::move(LAKESHORE_CONCAT(_result_, __LINE__)).MoveValueUnsafe()  /* checked just above */
