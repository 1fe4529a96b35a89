import BGeoForensics
import Foundation

/// What the simulated server answers to one upload (or refresh) request.
struct HTTPReply {
    var status: Int
    var response: String
}
