// The SQLite layer is its own module (`BGeoSQLite`, as GRDB keeps its C shim apart); the
// library's clients (the executables, the tests) see its public types through this import.
@_exported import BGeoSQLite

// The reader is its own module (`BGeoReader`: evidence copy, cursors, redaction); the modules
// above the core and the executables see its API through this import, as they see the core's.
@_exported import BGeoReader
