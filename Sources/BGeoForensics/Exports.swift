// The SQLite layer is its own module (`BGeoSQLite`, as GRDB keeps its C shim apart); the
// library's clients (the executables, the tests) see its public types through this import.
@_exported import BGeoSQLite
