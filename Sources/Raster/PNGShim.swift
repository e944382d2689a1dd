import CPNG

/// Small helpers around the C shim.
enum PNGShim {
    /// Size of the error message buffer handed to the shim.
    static let messageCapacity = 256

    /// Calls a shim function with an error buffer; returns its status and message ("" on success).
    static func call(_ body: (UnsafeMutablePointer<CChar>, Int) -> Int32) -> (status: Int32, message: String) {
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: messageCapacity) { buffer in
            guard let base = buffer.baseAddress else {
                return (CPNG_ERR_NOMEM, "out of memory")
            }
            base.initialize(repeating: 0, count: buffer.count)
            let status = body(base, buffer.count)
            return (status, status == CPNG_OK ? "" : String(cString: base))
        }
    }
}
