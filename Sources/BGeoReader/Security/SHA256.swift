import CCrypto

/// Incremental SHA-256 (OpenSSL's EVP, which uses the CPU's SHA extensions where present).
public struct SHA256Hasher: ~Copyable {
    private let context: OpaquePointer

    public init() {
        context = EVP_MD_CTX_new()
        EVP_DigestInit_ex(context, EVP_sha256(), nil)
    }

    deinit { EVP_MD_CTX_free(context) }

    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        EVP_DigestUpdate(context, base, bytes.count)
    }

    public mutating func update(_ text: String) {
        var copy = text
        copy.withUTF8 { update(UnsafeRawBufferPointer($0)) }
    }

    /// Lower-case hex digest; the hasher is consumed.
    public consuming func finalizeHex() -> String {
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        EVP_DigestFinal_ex(context, &digest, &length)
        return SHA256Hasher.hex(digest)
    }

    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0xf)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// SHA-256 of a string's UTF-8 bytes, hex.
    public static func hex(of text: String) -> String {
        var hasher = SHA256Hasher()
        hasher.update(text)
        return hasher.finalizeHex()
    }
}
