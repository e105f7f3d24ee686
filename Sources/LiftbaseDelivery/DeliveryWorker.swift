import Foundation
import Logging
import PQ

/// The outbox's delivery loop (docs/webhooks.md "Delivery"): it claims due messages
/// (auth.outbox_claim: `for update skip locked`, so any number of workers may run, each
/// with its own connection on its own thread, never sending one row at the same time),
/// sends each, and records the outcome (auth.outbox_record: delivered, or due again after
/// an exponential backoff with jitter, or a dead letter after the last try). A claim leases
/// its rows: a worker killed mid-delivery leaves the row to come due again when the lease
/// lapses, so a message is delivered at least once; the idempotency key (webhook-id, the
/// mail's Message-ID) lets the receiver drop a repeat.
public final class DeliveryWorker: @unchecked Sendable {
    public struct Options: Sendable {
        public var name: String
        public var batchSize: Int
        public var lease: Duration
        public var pollInterval: Duration
        /// Deliver what is due now, then return (for cron and tests).
        public var once: Bool

        public init(
            name: String,
            batchSize: Int = 20,
            lease: Duration = .seconds(60),
            pollInterval: Duration = .seconds(1),
            once: Bool = false
        ) {
            self.name = name
            self.batchSize = batchSize
            self.lease = lease
            self.pollInterval = pollInterval
            self.once = once
        }
    }

    let databaseURL: String
    let configuration: DeliveryConfiguration
    let options: Options
    let logger: Logger
    let mail: MailSender
    let webhooks: WebhookSender
    private let lock = NSLock()
    private var stopping = false

    public init(databaseURL: String, configuration: DeliveryConfiguration, options: Options, logger: Logger) {
        self.databaseURL = databaseURL
        self.configuration = configuration
        self.options = options
        self.logger = logger
        mail = MailSender(configuration: configuration)
        webhooks = WebhookSender(configuration: configuration)
    }

    /// Ends the loop (SIGTERM, SIGINT): the message being sent is cut off (its webhook
    /// request cancelled, its msmtp ended), and it and the rest of the claimed batch are
    /// given back to the outbox, due at once for another worker, their tries not spent.
    public func stop() {
        lock.withLock { stopping = true }
        webhooks.interrupt()
        mail.interrupt()
    }
    var isStopping: Bool { lock.withLock { stopping } }

    /// Set when a mail try showed settings that cannot work (`DeliveryOutcome.settingsProblem`):
    /// this worker then leaves mail in the outbox, as without a relay.
    private var mailSettingsProblem: String?

    /// The kinds this worker sends: mail only when a relay is configured and works, so that
    /// otherwise reset mails wait in the outbox instead of using up their tries.
    var kinds: [String] {
        configuration.smtpHost == nil || mailSettingsProblem != nil ? ["webhook"] : ["email", "webhook"]
    }

    /// Runs on the calling thread until stopped (or, with `once`, until nothing is due).
    /// Answers how many messages it delivered.
    @discardableResult
    public func run() throws -> Int {
        if configuration.smtpHost == nil {
            logger.warning("LIFTBASE_SMTP_HOST is not set: mail stays in the outbox; webhooks are delivered")
        }
        var delivered = 0
        var connection: Connection?
        defer { connection?.close() }
        while !isStopping {
            do {
                let open = try connection ?? connect()
                connection = open
                let claimed = try claim(on: open)
                if claimed.isEmpty {
                    if options.once {
                        try reportLeasesElsewhere(on: open)
                        break
                    }
                    pause(options.pollInterval)
                    continue
                }
                var unsent = claimed[...]
                while let message = unsent.first, !isStopping {
                    let outcome = deliver(message)
                    // Cut off by a stop, or not tried for want of working settings: given back.
                    if isStopping && !outcome.ok { break }
                    if let fix = outcome.settingsProblem {
                        mailSettingsProblem = fix
                        logger.error("mail is not sent: \(fix) (\(outcome.error ?? "")); mail stays in the outbox")
                        break
                    }
                    unsent = unsent.dropFirst()
                    let state = try record(message, outcome, on: open)
                    if state == "delivered" { delivered += 1 }
                    log(message, outcome, state: state)
                }
                if !unsent.isEmpty {
                    let released = try release(unsent.map(\.id), on: open)
                    logger.info("outbox: gave back \(released) claimed message(s) unsent")
                }
            } catch let error as PostgresError {
                // The database went away or refused: reconnect after a pause. Rows claimed
                // and not recorded come due again when their lease lapses.
                logger.error("outbox: \(error.message)")
                connection?.close()
                connection = nil
                if options.once { throw error }
                pause(.seconds(5))
            }
        }
        return delivered
    }

    func connect() throws -> Connection {
        let connection = try Connection(databaseURL)
        // The outbox holds reset tokens and webhook secrets: only the owner reads it.
        // The role apart: on Citus a SET ROLE inside a multi-statement query (an implicit
        // transaction block) is sent on to the workers, which refuse it.
        try connection.execute("set role liftbase_owner")
        try connection.execute(
            "set timezone = 'UTC'; set liftbase.delivery_max_attempts = \(configuration.maxAttempts)"
        )
        return connection
    }

    func claim(on connection: Connection) throws -> [OutboxMessage] {
        let lease = "\(options.lease.components.seconds) seconds"
        let kinds = "{" + kinds.joined(separator: ",") + "}"
        return try connection.query(
            "select \(OutboxMessage.columns) from auth.outbox_claim($1, $2::integer, $3::interval, $4::text[])",
            [options.name, String(options.batchSize), lease, kinds]
        ).rows.compactMap(OutboxMessage.init(row:))
    }

    func deliver(_ message: OutboxMessage) -> DeliveryOutcome {
        switch message.kind {
        case .email: return mail.send(message)
        case .webhook: return webhooks.send(message)
        }
    }

    /// A try's outcome in one line: delivered at info level, a failure at warning with its cause.
    private func log(_ message: OutboxMessage, _ outcome: DeliveryOutcome, state: String) {
        let what =
            "outbox \(message.id) \(message.kind.rawValue) try \(message.attempt) of \(configuration.maxAttempts)"
        guard let error = outcome.error else {
            logger.info("\(what): \(state)")
            return
        }
        let next = state == "dead" ? "a dead letter now (liftbase outbox retry \(message.id))" : state
        logger.warning("\(what) failed: \(error); \(next)")
    }

    func release(_ ids: [Int64], on connection: Connection) throws -> Int {
        let list = "{" + ids.map(String.init).joined(separator: ",") + "}"
        let released = try connection.query(
            "select auth.outbox_release($1, $2::bigint[])",
            [options.name, list]
        ).scalar
        return Int(released ?? "0") ?? 0
    }

    /// With `once`, when nothing was due: the other workers that hold messages being
    /// delivered, with how many each ("worker-a (3), worker-b (1)"), or nil when none does.
    public private(set) var leasesElsewhere: String?

    private func reportLeasesElsewhere(on connection: Connection) throws {
        let leases = try connection.query(
            "select worker, messages from auth.outbox_leases_elsewhere($1)",
            [options.name]
        )
        .rows
        guard !leases.isEmpty else { return }
        leasesElsewhere = leases.map { "\($0[0] ?? "a worker") (\($0[1] ?? "0"))" }.joined(separator: ", ")
    }

    func record(_ message: OutboxMessage, _ outcome: DeliveryOutcome, on connection: Connection) throws -> String {
        try connection.query(
            "select auth.outbox_record($1::bigint, $2::integer, $3::boolean, $4::integer, $5)",
            [
                String(message.id), String(message.attempt), outcome.ok ? "true" : "false",
                outcome.status.map(String.init), outcome.error,
            ]
        ).scalar ?? "ignored"
    }

    private func pause(_ duration: Duration) {
        let deadline = ContinuousClock.now + duration
        while !isStopping && ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.05) }
    }
}
