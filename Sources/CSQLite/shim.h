#ifndef CSQLITE_SHIM_H
#define CSQLITE_SHIM_H
#include <sqlite3.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/// The SQLITE_TRANSIENT destructor, which Swift cannot spell as a macro.
static inline sqlite3_destructor_type csqlite_transient(void) { return SQLITE_TRANSIENT; }

/// Process-wide settings, before SQLite initialises (sqlite3_config is variadic too). Memory
/// statistics off: with them on, every allocation and free of every connection takes one global
/// mutex, which threads reading and writing at once (sanitize's three) wait on.
static inline int csqlite_configure(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}

/// sqlite3_db_config is variadic; Swift cannot call it directly.
static inline int csqlite_defensive_on(sqlite3 *db) {
    return sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, (int *)0);
}
/// Keeps the WAL file when the last connection closes (no checkpoint): simulated "live" dumps.
static inline int csqlite_no_checkpoint_on_close(sqlite3 *db) {
    return sqlite3_db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, (int *)0);
}

/// `bgeo_holds_at(x)`: 1 when x's bytes as stored (text or blob) hold an `@`, 0 when not, NULL for
/// NULL. One byte search where `LIKE '%@%'` steps and compares per character: the secrets' learning
/// asks it of every upload request's data (`LogQuery.eventsHoldingAt`). A superset of the rows
/// the reader's own test keeps, which it applies after (a UTF-16 text may hold the byte alone).
static void csqlite_holds_at(sqlite3_context *context, int argc, sqlite3_value **argv) {
    (void)argc;
    if (sqlite3_value_type(argv[0]) == SQLITE_NULL) {
        sqlite3_result_null(context);
        return;
    }
    const void *bytes = sqlite3_value_blob(argv[0]);
    int count = sqlite3_value_bytes(argv[0]);
    sqlite3_result_int(context, bytes != 0 && count > 0 && memchr(bytes, '@', (size_t)count) != 0);
}

/// The package's SQL functions, on one connection.
static inline int csqlite_register_functions(sqlite3 *db) {
    return sqlite3_create_function_v2(db, "bgeo_holds_at", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS,
                                      0, csqlite_holds_at, 0, 0, 0);
}

/* The evidence VFS ("bgeo-evidence"): the default VFS, except that the main database is
 * opened by the name exactly as given (no symbolic link resolved: "/proc/self/fd/N" stays the
 * file the reader's descriptor holds) and read through the read-only methods below, which
 * cannot write, truncate or lock, and say the file never changes (SQLite then reads no journal,
 * -wal or -shm). Temporary files (large sorts) go to the default VFS as usual. */

typedef struct {
    sqlite3_file base;
    int fd;
} csqlite_evidence_file;

/* The default VFS, found at registration (a static local: a header's static global is not
 * emitted for Swift). */
static inline sqlite3_vfs **csqlite_default_vfs(void) {
    static sqlite3_vfs *vfs;
    return &vfs;
}

static int csqlite_evidence_close(sqlite3_file *file) {
    close(((csqlite_evidence_file *)file)->fd);
    return SQLITE_OK;
}

static int csqlite_evidence_read(sqlite3_file *file, void *buffer, int amount, sqlite3_int64 offset) {
    int fd = ((csqlite_evidence_file *)file)->fd;
    int done = 0;
    while (done < amount) {
        ssize_t n = pread(fd, (char *)buffer + done, (size_t)(amount - done), (off_t)(offset + done));
        if (n < 0) {
            if (errno == EINTR) continue;
            return SQLITE_IOERR_READ;
        }
        if (n == 0) {
            /* SQLite expects the rest zeroed on a short read. */
            memset((char *)buffer + done, 0, (size_t)(amount - done));
            return SQLITE_IOERR_SHORT_READ;
        }
        done += (int)n;
    }
    return SQLITE_OK;
}

static int csqlite_evidence_write(sqlite3_file *file, const void *buffer, int amount, sqlite3_int64 offset) {
    (void)file; (void)buffer; (void)amount; (void)offset;
    return SQLITE_READONLY;
}

static int csqlite_evidence_truncate(sqlite3_file *file, sqlite3_int64 size) {
    (void)file; (void)size;
    return SQLITE_READONLY;
}

static int csqlite_evidence_sync(sqlite3_file *file, int flags) {
    (void)file; (void)flags;
    return SQLITE_OK;
}

static int csqlite_evidence_size(sqlite3_file *file, sqlite3_int64 *size) {
    struct stat info;
    if (fstat(((csqlite_evidence_file *)file)->fd, &info) != 0) return SQLITE_IOERR_FSTAT;
    *size = (sqlite3_int64)info.st_size;
    return SQLITE_OK;
}

static int csqlite_evidence_lock(sqlite3_file *file, int level) {
    (void)file; (void)level;
    return SQLITE_OK;
}

static int csqlite_evidence_reserved(sqlite3_file *file, int *reserved) {
    (void)file;
    *reserved = 0;
    return SQLITE_OK;
}

static int csqlite_evidence_control(sqlite3_file *file, int op, void *argument) {
    (void)file; (void)op; (void)argument;
    return SQLITE_NOTFOUND;
}

static int csqlite_evidence_sector(sqlite3_file *file) {
    (void)file;
    return 4096;
}

static int csqlite_evidence_characteristics(sqlite3_file *file) {
    (void)file;
    return SQLITE_IOCAP_IMMUTABLE;
}

static const sqlite3_io_methods csqlite_evidence_methods = {
    1, csqlite_evidence_close, csqlite_evidence_read, csqlite_evidence_write, csqlite_evidence_truncate,
    csqlite_evidence_sync, csqlite_evidence_size, csqlite_evidence_lock, csqlite_evidence_lock,
    csqlite_evidence_reserved, csqlite_evidence_control, csqlite_evidence_sector, csqlite_evidence_characteristics
};

static int csqlite_evidence_open(sqlite3_vfs *vfs, const char *name, sqlite3_file *file, int flags, int *outFlags) {
    (void)vfs;
    if (!(flags & SQLITE_OPEN_MAIN_DB) || name == 0) {
        sqlite3_vfs *base = *csqlite_default_vfs();
        return base->xOpen(base, name, file, flags, outFlags);
    }
    file->pMethods = 0;
    if (flags & (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)) return SQLITE_READONLY;
    int fd = open(name, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return SQLITE_CANTOPEN;
    ((csqlite_evidence_file *)file)->fd = fd;
    file->pMethods = &csqlite_evidence_methods;
    if (outFlags) *outFlags = SQLITE_OPEN_READONLY;
    return SQLITE_OK;
}

static int csqlite_name_as_given(sqlite3_vfs *vfs, const char *name, int size, char *out) {
    (void)vfs;
    size_t length = strlen(name);
    if ((size_t)size <= length) return SQLITE_CANTOPEN;
    memcpy(out, name, length + 1);
    return SQLITE_OK;
}

/// Registers (once: the caller calls it from a one-time initialiser) the evidence VFS.
/// Returns SQLITE_OK or SQLite's code.
static inline int csqlite_register_evidence_vfs(void) {
    static sqlite3_vfs evidence;
    sqlite3_vfs *base = sqlite3_vfs_find(0);
    if (base == 0) return SQLITE_ERROR;
    *csqlite_default_vfs() = base;
    evidence = *base;
    evidence.pNext = 0;
    evidence.zName = "bgeo-evidence";
    if (evidence.szOsFile < (int)sizeof(csqlite_evidence_file)) evidence.szOsFile = (int)sizeof(csqlite_evidence_file);
    evidence.xOpen = csqlite_evidence_open;
    evidence.xFullPathname = csqlite_name_as_given;
    return sqlite3_vfs_register(&evidence, 0);
}
#endif
