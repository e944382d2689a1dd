import Hummingbird
import NIOCore

/// The request context of every route: Hummingbird's basics plus the client's address
/// (the TCP peer), which throttles logins and registrations per address.
public struct TrailMapRequestContext: RequestContext, RemoteAddressRequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The connected peer, nil for a Unix-socket or already closed connection.
    public let remoteAddress: SocketAddress?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }

    /// The peer's IP address as text (no port), or nil.
    public var clientAddress: String? { remoteAddress?.ipAddress }
}
