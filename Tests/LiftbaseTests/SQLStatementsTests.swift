import Foundation
import LiftbaseCore
import Testing

@Suite("SQL statements")
struct SQLStatementsTests {
    @Test("a script splits at the semicolons outside comments, quotes and dollar-quoted bodies")
    func splitsAtTopLevelSemicolons() {
        let script = """
            -- a comment; with a semicolon
            create schema if not exists app; /* and; here */
            do $body$
            begin
              raise notice 'one; two';
            end
            $body$;
            select 'it''s; quoted', "odd;name" from t;
            select 1
            """
        #expect(
            SQLStatements.split(script) == [
                "-- a comment; with a semicolon\ncreate schema if not exists app;",
                "/* and; here */\ndo $body$\nbegin\n  raise notice 'one; two';\nend\n$body$;",
                "select 'it''s; quoted', \"odd;name\" from t;",
                "select 1",
            ]
        )
    }

    @Test("only comments and blank lines make no statement")
    func commentsAloneAreNothing() {
        #expect(SQLStatements.split("-- nothing here;\n\n/* nor; here */\n").isEmpty)
    }

    @Test("the bootstrap splits into its statements, the DO block whole")
    func bootstrapSplits() throws {
        let bootstrap = try String(
            contentsOf: URL(fileURLWithPath: TestDatabase.sqlDirectory + "/bootstrap.sql"),
            encoding: .utf8
        )
        let statements = SQLStatements.split(bootstrap)
        #expect(statements.first?.contains("end\n$bootstrap$;") == true)
        let lastSchema = "create schema if not exists liftbase_meta authorization liftbase_owner;"
        #expect(statements.contains { $0.hasSuffix(lastSchema) })
        #expect(statements.last == "reset role;")
    }
}
