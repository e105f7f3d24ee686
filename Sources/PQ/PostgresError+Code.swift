extension PostgresError {
    /// A SQLSTATE: five characters, the first two naming the class. Only the codes a caller
    /// of this module acts on are named; any other arrives with its raw value.
    public struct Code: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
        public let rawValue: String

        public init(rawValue: String) { self.rawValue = rawValue }
        public init(stringLiteral value: String) { self.rawValue = value }

        /// The class: the first two characters (`23` for every integrity constraint violation).
        public var errorClass: Substring { rawValue.prefix(2) }
        public var description: String { rawValue }

        // Class 08: connection exception
        public static let connectionException: Code = "08000"
        public static let connectionDoesNotExist: Code = "08003"
        public static let connectionFailure: Code = "08006"
        // Class 22: data exception
        public static let dataException: Code = "22000"
        public static let numericValueOutOfRange: Code = "22003"
        public static let invalidDatetimeFormat: Code = "22007"
        public static let datetimeFieldOverflow: Code = "22008"
        public static let divisionByZero: Code = "22012"
        public static let invalidParameterValue: Code = "22023"
        public static let invalidTextRepresentation: Code = "22P02"
        public static let untranslatableCharacter: Code = "22P05"
        // Class 23: integrity constraint violation
        public static let notNullViolation: Code = "23502"
        public static let foreignKeyViolation: Code = "23503"
        public static let uniqueViolation: Code = "23505"
        public static let checkViolation: Code = "23514"
        // Class 25: invalid transaction state
        public static let readOnlySQLTransaction: Code = "25006"
        // Class 26: invalid SQL statement name (a prepared statement the server forgot)
        public static let invalidSQLStatementName: Code = "26000"
        // Class 28: invalid authorization specification
        public static let invalidAuthorizationSpecification: Code = "28000"
        public static let invalidPassword: Code = "28P01"
        // Class 40: transaction rollback
        public static let serializationFailure: Code = "40001"
        public static let deadlockDetected: Code = "40P01"
        // Class 42: syntax error or access rule violation
        public static let insufficientPrivilege: Code = "42501"
        public static let undefinedFunction: Code = "42883"
        public static let undefinedTable: Code = "42P01"
        // Class 54: program limit exceeded
        public static let programLimitExceeded: Code = "54000"
        public static let statementTooComplex: Code = "54001"
        // Class 57: operator intervention
        public static let operatorIntervention: Code = "57000"
        public static let queryCanceled: Code = "57014"
        public static let adminShutdown: Code = "57P01"
        public static let crashShutdown: Code = "57P02"
        // Class F0: configuration file error
        public static let configFileError: Code = "F0000"
        // Class XX: internal error
        public static let internalError: Code = "XX000"
    }
}
