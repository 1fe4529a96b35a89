import BGeoReader
import Foundation

/// Writing bytes to a file descriptor whole, retrying short writes and interruptions.
package enum FileDescriptorWrite {
    /// Writes every byte of `bytes` to `fd`; returns the errno of the first failed write (nil: all written).
    package static func all(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Int32? {
        var offset = 0
        while offset < bytes.count {
            let n = write(fd, bytes.baseAddress! + offset, bytes.count - offset)
            if n < 0 {
                if errno == EINTR { continue }
                return errno
            }
            offset += n
        }
        return nil
    }
}
