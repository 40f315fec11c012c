// Cutting `query`'s SQL into statements: semicolons inside literals,
// quoted names and comments do not cut.
#include "adapters/parquet/sql_statements.h"

#include <gtest/gtest.h>

namespace deltacommit::data_internal {
namespace {

using Statements = std::vector<std::string>;

TEST(SplitSqlStatementsTest, OneStatementWithOrWithoutTheSemicolon) {
  EXPECT_EQ(SplitSqlStatements("SELECT 1"), Statements{"SELECT 1"});
  EXPECT_EQ(SplitSqlStatements("  SELECT 1 ;  \n"), Statements{"SELECT 1"});
}

TEST(SplitSqlStatementsTest, CutsAtEachTopLevelSemicolon) {
  EXPECT_EQ(SplitSqlStatements("SET threads = 1; CREATE TEMP TABLE x AS SELECT 2;SELECT * FROM x"),
            (Statements{"SET threads = 1", "CREATE TEMP TABLE x AS SELECT 2", "SELECT * FROM x"}));
}

TEST(SplitSqlStatementsTest, EmptyAndCommentOnlyStatementsAreDropped) {
  EXPECT_EQ(SplitSqlStatements(";; SELECT 1;; -- done\n"), Statements{"SELECT 1"});
  EXPECT_EQ(SplitSqlStatements("  "), Statements{});
  EXPECT_EQ(SplitSqlStatements("/* nothing */ ; -- here"), Statements{});
}

TEST(SplitSqlStatementsTest, SemicolonsInStringsAndQuotedNamesDoNotCut) {
  EXPECT_EQ(SplitSqlStatements("SELECT 'a;b', 'it''s;' AS \"x;y\"; SELECT 2"),
            (Statements{"SELECT 'a;b', 'it''s;' AS \"x;y\"", "SELECT 2"}));
  EXPECT_EQ(SplitSqlStatements(R"(SELECT E'\';' ; SELECT 2)"),
            (Statements{R"(SELECT E'\';')", "SELECT 2"}));
  // A backslash ends nothing in a plain literal.
  EXPECT_EQ(SplitSqlStatements(R"(SELECT '\'; SELECT 2)"),
            (Statements{R"(SELECT '\')", "SELECT 2"}));
}

TEST(SplitSqlStatementsTest, DollarQuotesButNotParameters) {
  EXPECT_EQ(SplitSqlStatements("SELECT $$a;b$$, $q$c;$$;d$q$; SELECT 2"),
            (Statements{"SELECT $$a;b$$, $q$c;$$;d$q$", "SELECT 2"}));
  EXPECT_EQ(SplitSqlStatements("SELECT $1; SELECT $2"), (Statements{"SELECT $1", "SELECT $2"}));
}

TEST(SplitSqlStatementsTest, CommentsDoNotCutButStayInTheStatement) {
  EXPECT_EQ(SplitSqlStatements("SELECT 1 -- one; two\n, 2; SELECT /* a; /* b; */ c; */ 3"),
            (Statements{"SELECT 1 -- one; two\n, 2", "SELECT /* a; /* b; */ c; */ 3"}));
}

TEST(SplitSqlStatementsTest, UnterminatedQuotesRunToTheEnd) {
  EXPECT_EQ(SplitSqlStatements("SELECT 'a; SELECT 2"), Statements{"SELECT 'a; SELECT 2"});
  EXPECT_EQ(SplitSqlStatements("SELECT 1 /* a; SELECT 2"), Statements{"SELECT 1 /* a; SELECT 2"});
}

}  // namespace
}  // namespace deltacommit::data_internal
