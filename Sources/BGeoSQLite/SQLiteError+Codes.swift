import CSQLite

extension SQLiteError {
    /// The primary result codes the package's readers and writers tell apart, so that only this
    /// module imports the C API (GRDB's `ResultCode` does the same).
    public enum Code {
        public static let full = SQLITE_FULL
        public static let readOnly = SQLITE_READONLY
        public static let permission = SQLITE_PERM
        public static let cannotOpen = SQLITE_CANTOPEN
        public static let authorization = SQLITE_AUTH
        public static let ioError = SQLITE_IOERR
        public static let corrupt = SQLITE_CORRUPT
        public static let notADatabase = SQLITE_NOTADB
        public static let noMemory = SQLITE_NOMEM
    }
}
