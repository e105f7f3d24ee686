import Foundation
import LiftbaseCore

/// How `liftbase deliver` reaches the outside (docs/webhooks.md "Configuration"), read from
/// the environment. As for the server's settings, a value that is set but malformed stops the
/// start with one line naming it.
public struct DeliveryConfiguration: Sendable {
    /// The SMTP relay mail goes through (msmtp does the SMTP; see MailSender). Without a host,
    /// mail is not sent: it waits in the outbox, and the worker says so once at start.
    public var smtpHost: String?
    public var smtpPort: Int
    /// STARTTLS on the submission port (the default); off only for a relay on the same host.
    public var smtpStartTLS: Bool
    public var smtpUser: String?
    public var smtpPassword: String?
    public var mailFrom: String
    /// The base of the links in mails, e.g. https://app.example.com: a reset link is
    /// <base>/reset-password?token=... (docs/webhooks.md lists each mail's page).
    public var publicURL: String
    /// A folder whose <template>.txt / <template>.html replace the built-in templates.
    public var mailTemplates: String?
    /// The sendmail-compatible program that speaks SMTP (msmtp's command line).
    public var sendmailProgram: String
    /// Whether webhooks may target loopback, private and link-local addresses (off: refused,
    /// so a subscription cannot reach the operator's own network).
    public var webhooksAllowPrivate: Bool
    public var webhookTimeout: TimeInterval
    /// Tries per message before it becomes a dead letter (SQL reads it from the connection).
    public var maxAttempts: Int

    public init(environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        func value(_ name: String) throws -> String? {
            do {
                return try Configuration.setting(name, in: environment)
            } catch {
                throw DeliveryConfigurationError("\(error)")
            }
        }
        func flag(_ name: String, default fallback: Bool) throws -> Bool {
            switch try value(name)?.lowercased() {
            case nil: return fallback
            case "on", "true", "1": return true
            case "off", "false", "0": return false
            case let other?: throw DeliveryConfigurationError("\(name)=\(other): must be on or off")
            }
        }
        func number(_ name: String, in range: ClosedRange<Int>, default fallback: Int) throws -> Int {
            guard let text = try value(name) else { return fallback }
            guard let number = Int(text), range.contains(number) else {
                throw DeliveryConfigurationError(
                    "\(name)=\(text): must be a whole number from \(range.lowerBound) to \(range.upperBound)"
                )
            }
            return number
        }
        smtpHost = try value("LIFTBASE_SMTP_HOST")
        smtpPort = try number("LIFTBASE_SMTP_PORT", in: 1...65535, default: 587)
        smtpStartTLS = try flag("LIFTBASE_SMTP_STARTTLS", default: true)
        smtpUser = try value("LIFTBASE_SMTP_USER")
        smtpPassword = try value("LIFTBASE_SMTP_PASSWORD")
        mailFrom = try value("LIFTBASE_SMTP_FROM") ?? "liftbase@localhost"
        publicURL = try value("LIFTBASE_PUBLIC_URL") ?? "http://localhost:8080"
        guard let url = URL(string: publicURL), ["http", "https"].contains(url.scheme ?? "") else {
            throw DeliveryConfigurationError("LIFTBASE_PUBLIC_URL=\(publicURL): must be an http(s) URL")
        }
        mailTemplates = try value("LIFTBASE_MAIL_TEMPLATES")
        sendmailProgram = try value("LIFTBASE_SENDMAIL") ?? "msmtp"
        webhooksAllowPrivate = try flag("LIFTBASE_WEBHOOKS_ALLOW_PRIVATE", default: false)
        webhookTimeout = TimeInterval(try number("LIFTBASE_WEBHOOK_TIMEOUT_SECONDS", in: 1...120, default: 10))
        maxAttempts = try number("LIFTBASE_DELIVERY_MAX_ATTEMPTS", in: 1...100, default: 8)
    }
}

public struct DeliveryConfigurationError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
