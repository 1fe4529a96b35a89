import Foundation

/// An evidence file's descriptor kept open while the dump is read where it lies: the file the
/// reader reads is this descriptor's, whatever happens to its name meanwhile.
final class HeldDescriptor: Sendable {
    let fd: Int32

    init(_ fd: Int32) {
        self.fd = fd
    }

    deinit {
        close(fd)
    }

    /// A path that opens the file `fd` holds (not a name looked up again): Linux's
    /// `/proc/self/fd/N`, else `/dev/fd/N`.
    static func path(of fd: Int32) -> String {
        let proc = "/proc/self/fd"
        return (access(proc, F_OK) == 0 ? proc : "/dev/fd") + "/\(fd)"
    }
}
