import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Posts one claimed webhook delivery: the body SQL signed, with the Standard Webhooks
/// headers it computed (webhook-id, webhook-timestamp, webhook-signature), a timeout, and no
/// redirect followed (a redirect could lead to an address the target check refuses). Any
/// 2xx is delivered; anything else, or no answer, is a failed try that SQL schedules again.
public final class WebhookSender: NSObject, URLSessionTaskDelegate, @unchecked Sendable {
    let configuration: DeliveryConfiguration
    private lazy var session = URLSession(configuration: .ephemeral, delegate: self, delegateQueue: nil)
    private let lock = NSLock()
    private var inFlight: URLSessionDataTask?

    public init(configuration: DeliveryConfiguration) { self.configuration = configuration }

    /// Blocking: run on the worker's own thread.
    public func send(_ message: OutboxMessage) -> DeliveryOutcome {
        guard let text = message.webhookURL, let url = URL(string: text), let host = url.host,
            ["http", "https"].contains(url.scheme ?? ""), let body = message.webhookBody,
            let id = message.webhookID, let timestamp = message.webhookTimestamp,
            let signature = message.webhookSignature
        else { return .failed(status: nil, "a webhook message without a usable URL, body or signature") }
        if !configuration.webhooksAllowPrivate, let refusal = WebhookTarget.refusal(host: host) {
            return .failed(status: nil, "refused: \(refusal) (LIFTBASE_WEBHOOKS_ALLOW_PRIVATE is off)")
        }
        var request = URLRequest(url: url, timeoutInterval: configuration.webhookTimeout)
        request.httpMethod = "POST"
        request.httpBody = Data(body.utf8)
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue("Liftbase-Webhooks/1", forHTTPHeaderField: "User-Agent")
        request.setValue(id, forHTTPHeaderField: "webhook-id")
        request.setValue(timestamp, forHTTPHeaderField: "webhook-timestamp")
        request.setValue(signature, forHTTPHeaderField: "webhook-signature")

        let done = DispatchSemaphore(value: 0)
        let outcome = OutcomeBox()
        let task = session.dataTask(with: request) { _, response, error in
            if let response = response as? HTTPURLResponse {
                outcome.value =
                    (200..<300).contains(response.statusCode)
                    ? .delivered(status: response.statusCode)
                    : .failed(status: response.statusCode, "the target answered \(response.statusCode)")
            } else {
                outcome.value = .failed(status: nil, error.map { "\($0.localizedDescription)" } ?? "no answer")
            }
            done.signal()
        }
        lock.withLock { inFlight = task }
        defer { lock.withLock { inFlight = nil } }
        task.resume()
        done.wait()
        return outcome.value ?? .failed(status: nil, "no answer")
    }

    /// Cancels the webhook being sent, if any (a worker that stops): its try ends at once.
    public func interrupt() { lock.withLock { inFlight?.cancel() } }

    public func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest,
        completionHandler: @escaping (URLRequest?) -> Void
    ) {
        completionHandler(nil)  // the 3xx itself is the answer: a failed try
    }

    private final class OutcomeBox: @unchecked Sendable {
        var value: DeliveryOutcome?
    }
}
