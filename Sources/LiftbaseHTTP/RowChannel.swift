import Foundation

/// Hands text chunks from a pool thread (the producer, which may block) to an async reader
/// (which must not), holding at most `capacity` chunks: a slow client slows the query down
/// instead of letting the export pile up in memory.
final class RowChannel: @unchecked Sendable {
    private let condition = NSCondition()
    private let capacity: Int
    /// How long the producer waits for room before it takes the reader for gone (a response
    /// dropped unwritten must not hold a database connection for ever).
    private let stallTimeout: TimeInterval
    private var buffer: [String] = []
    private var waiting: CheckedContinuation<String?, any Error>?
    private var outcome: Result<Void, any Error>?
    private var readerGone = false

    init(capacity: Int = 4, stallTimeout: TimeInterval = 60) {
        self.capacity = capacity
        self.stallTimeout = stallTimeout
    }

    // MARK: Producer (a pool thread)

    /// Queues a chunk, blocking while the buffer is full. False when the reader is gone:
    /// the producer should stop.
    func send(_ chunk: String) -> Bool {
        condition.lock()
        let deadline = Date(timeIntervalSinceNow: stallTimeout)
        while buffer.count >= capacity && !readerGone {
            if !condition.wait(until: deadline) { readerGone = true }
        }
        guard !readerGone else {
            condition.unlock()
            return false
        }
        if let reader = waiting {
            waiting = nil
            condition.unlock()
            reader.resume(returning: chunk)
        } else {
            buffer.append(chunk)
            condition.unlock()
        }
        return true
    }

    /// Ends the stream: the reader gets the remaining chunks, then nil or the error.
    func finish(_ error: (any Error)?) {
        condition.lock()
        outcome = error.map { .failure($0) } ?? .success(())
        let reader = waiting
        waiting = nil
        condition.unlock()
        if let reader {
            if let error { reader.resume(throwing: error) } else { reader.resume(returning: nil) }
        }
    }

    // MARK: Reader (async)

    /// The next chunk, nil at the end; throws the producer's error.
    func next() async throws -> String? {
        try await withCheckedThrowingContinuation { (reader: CheckedContinuation<String?, any Error>) in
            condition.lock()
            if !buffer.isEmpty {
                let chunk = buffer.removeFirst()
                condition.signal()
                condition.unlock()
                reader.resume(returning: chunk)
            } else if let outcome {
                condition.unlock()
                reader.resume(with: outcome.map { nil })
            } else {
                waiting = reader
                condition.unlock()
            }
        }
    }

    /// The reader stops (the client went away or the response is done): the producer's
    /// next `send` returns false.
    func cancel() {
        condition.lock()
        readerGone = true
        buffer.removeAll()
        condition.broadcast()
        condition.unlock()
    }
}
