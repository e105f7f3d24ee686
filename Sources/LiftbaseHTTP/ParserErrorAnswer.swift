import HTTPTypes
import NIOCore
import NIOHTTP1
import NIOHTTPTypes

/// Answers a request that HTTP/1.1 parsing refused (an oversized or malformed head, both
/// Content-Length and Transfer-Encoding, a negative length...) in Liftbase's error shape,
/// then closes the connection. Without it the server's default answer is a bare 400.
/// Only when no response is in flight on the connection: mid-response, a parse error is
/// left to the server's own handling.
final class ParserErrorAnswer: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    static let body =
        #"{"error":{"code":"malformed_request","message":"The request is not valid HTTP/1.1 or exceeds its limits."}}"#

    private var responsesPending = 0

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head = unwrapInboundIn(data) { responsesPending += 1 }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { responsesPending -= 1 }
        context.write(data, promise: promise)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard error is HTTPParserError, responsesPending == 0 else {
            context.fireErrorCaught(error)
            return
        }
        let head = HTTPResponse(
            status: .badRequest,
            headerFields: [
                .contentType: "application/json", .contentLength: String(Self.body.utf8.count), .connection: "close",
            ]
        )
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(context.channel.allocator.buffer(string: Self.body))), promise: nil)
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
    }
}
