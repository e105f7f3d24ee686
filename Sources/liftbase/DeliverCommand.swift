import ArgumentParser
import Foundation
import LiftbaseCore
import LiftbaseDelivery
import Logging

/// `liftbase deliver`: the outbox's delivery worker (reset mails over SMTP, webhooks), a
/// process of its own beside `liftbase serve`, so that no request ever waits on a mail relay
/// or a webhook target. Run one or several (docs/webhooks.md); SIGTERM or SIGINT ends it
/// after the message it is sending.
struct DeliverCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "deliver",
        abstract: "Deliver the outbox: reset mails over SMTP and webhooks, with retries."
    )

    @OptionGroup var database: DatabaseOptions
    @Flag(help: "Deliver what is due now, then exit.") var once = false
    @Option(help: "Messages claimed at a time.") var batch = 20
    @Option(help: "Seconds a claimed message stays this worker's before another may retry it.") var lease = 60
    @Option(name: .customLong("name"), help: "This worker's name in the outbox (default: host and process id).")
    var workerName: String?

    func validate() throws {
        guard (1...500).contains(batch) else { throw ValidationError("--batch must be 1 to 500") }
        guard (1...3600).contains(lease) else { throw ValidationError("--lease must be 1 to 3600 seconds") }
    }

    func run() throws {
        let settings = try database.configuration()
        let delivery = try DeliveryConfiguration()
        var logger = Logger(label: "liftbase.deliver", factory: { LogLineHandler(label: $0) })
        logger.logLevel = settings.logLevel
        let worker = DeliveryWorker(
            databaseURL: try settings.requireDatabaseURL(),
            configuration: delivery,
            options: .init(
                name: workerName ?? "\(ProcessInfo.processInfo.hostName)-\(getpid())",
                batchSize: batch,
                lease: .seconds(lease),
                once: once
            ),
            logger: logger
        )
        let signals = [SIGTERM, SIGINT].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { worker.stop() }
            source.resume()
            return source
        }
        defer { for source in signals { source.cancel() } }
        let delivered = try worker.run()
        logger.info("deliver: \(delivered) message(s) delivered")
        if once {
            print("delivered \(delivered) message(s)")
            if let holders = worker.leasesElsewhere {
                print("other workers hold messages being delivered now: \(holders)")
            }
        }
    }
}
