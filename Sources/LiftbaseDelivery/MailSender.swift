import Foundation

/// Sends a mail through the operator's SMTP relay with msmtp, a maintained SMTP client with
/// the sendmail interface (Debian's `msmtp` package): STARTTLS, authentication and the SMTP
/// dialogue are its job, and its exit status and server reply become the try's outcome. The
/// password reaches it through its environment, never its command line (which `ps` shows).
public struct MailSender: Sendable {
    let configuration: DeliveryConfiguration

    public init(configuration: DeliveryConfiguration) { self.configuration = configuration }

    /// The mail of `message` (a claimed email row) as a MIME message, multipart text + HTML.
    public func compose(_ message: OutboxMessage, date: Date = Date()) throws -> (recipient: String, mime: String) {
        guard let recipient = message.emailTo, let name = message.emailTemplate else {
            throw DeliveryFailure("an email message without recipient or template")
        }
        guard let template = try MailTemplate.named(name, folder: configuration.mailTemplates) else {
            throw DeliveryFailure("no mail template \(name)")
        }
        var variables = Self.strings(ofJSON: message.emailVariables)
        if let token = variables["token"] {
            let base =
                configuration.publicURL.hasSuffix("/")
                ? String(configuration.publicURL.dropLast()) : configuration.publicURL
            let escaped = token.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? token
            variables["link"] = "\(base)/\(Self.linkPath(template: name))?token=\(escaped)"
        }
        let mail = template.rendered(variables)
        let boundary = "liftbase-" + message.idempotencyKey.filter { $0.isLetter || $0.isNumber || $0 == "-" }
        let headers = [
            "From: \(Self.headerValue(configuration.mailFrom))",
            "To: \(Self.headerValue(recipient))",
            "Subject: \(Self.encodedWord(mail.subject))",
            "Date: \(Self.rfc5322Date(date))",
            // The idempotency key: a mail sent again after a lost answer is the same message.
            "Message-ID: <\(message.idempotencyKey)@liftbase>",
            "MIME-Version: 1.0",
            "Content-Type: multipart/alternative; boundary=\"\(boundary)\"",
        ]
        let parts = [
            "--\(boundary)", "Content-Type: text/plain; charset=utf-8", "Content-Transfer-Encoding: 8bit", "",
            mail.text, "--\(boundary)", "Content-Type: text/html; charset=utf-8", "Content-Transfer-Encoding: 8bit",
            "", mail.html, "--\(boundary)--", "",
        ]
        let mime = (headers + [""] + parts).joined(separator: "\n").replacingOccurrences(of: "\r\n", with: "\n")
            .replacingOccurrences(of: "\n", with: "\r\n")
        return (recipient, mime)
    }

    /// Where a mail's link leads on the app's site (LIFTBASE_PUBLIC_URL), with its token.
    static func linkPath(template: String) -> String {
        switch template {
        case "email_verification": return "verify-email"
        case "invitation": return "sign-up"
        default: return "reset-password"
        }
    }

    /// Sends one claimed mail (blocking: run on the worker's own thread).
    public func send(_ message: OutboxMessage) -> DeliveryOutcome {
        guard let host = configuration.smtpHost else {
            return .failed(status: nil, "LIFTBASE_SMTP_HOST is not set")
        }
        let composed: (recipient: String, mime: String)
        do { composed = try compose(message) } catch { return .failed(status: nil, "\(error)") }

        var arguments = [
            "--host=\(host)", "--port=\(configuration.smtpPort)", "--from=\(Self.address(configuration.mailFrom))",
            "--tls=\(configuration.smtpStartTLS ? "on" : "off")",
        ]
        if configuration.smtpStartTLS { arguments += ["--tls-starttls=on", "--tls-trust-file=system"] }
        if let user = configuration.smtpUser {
            arguments += ["--auth=on", "--user=\(user)", #"--passwordeval=printf '%s' "$LIFTBASE_SMTP_PASSWORD""#]
        } else {
            arguments += ["--auth=off"]
        }
        arguments += ["--", composed.recipient]

        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [configuration.sendmailProgram, "--file=/dev/null"] + arguments
        var environment = ProcessInfo.processInfo.environment
        environment["LIFTBASE_SMTP_PASSWORD"] = configuration.smtpPassword ?? ""
        process.environment = environment
        let input = Pipe()
        let errors = Pipe()
        process.standardInput = input
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errors
        do {
            try process.run()
        } catch {
            return .failed(status: nil, "cannot run \(configuration.sendmailProgram): \(error)")
        }
        running.set(process)
        defer { running.set(nil) }
        input.fileHandleForWriting.write(Data(composed.mime.utf8))
        try? input.fileHandleForWriting.close()
        let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        if process.terminationStatus == 0 { return .delivered(status: 250) }
        // One line, however many msmtp wrote.
        let cause = stderr.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            .joined(separator: " ")
        let error = "\(configuration.sendmailProgram) exited \(process.terminationStatus): \(cause)"
        if let fix = settingsFix(exitStatus: process.terminationStatus, cause: cause, host: host) {
            return .misconfigured(error, fix: fix)
        }
        return .failed(status: Self.smtpReplyCode(in: cause), error)
    }

    /// What to change when a try failed for a reason no retry can mend, or nil.
    func settingsFix(exitStatus: Int32, cause: String, host: String) -> String? {
        if exitStatus == 127 {
            return "\(configuration.sendmailProgram) is not installed: install msmtp (apt-get install msmtp) or set "
                + "LIFTBASE_SENDMAIL to a sendmail-compatible program"
        }
        if cause.contains("does not support TLS via the STARTTLS command") {
            return "the relay \(host):\(configuration.smtpPort) does not offer STARTTLS: set "
                + "LIFTBASE_SMTP_STARTTLS=off for a relay on this host or network, or use a relay that offers it"
        }
        return nil
    }

    /// Ends the msmtp of the mail being sent, if any (a worker that stops).
    public func interrupt() { running.terminate() }

    private let running = RunningProcess()

    /// The bare address of a From such as `Liftbase <no-reply@example.com>`: the envelope's.
    static func address(_ from: String) -> String {
        guard let open = from.lastIndex(of: "<"), let close = from.lastIndex(of: ">"), open < close else {
            return from.trimmingCharacters(in: .whitespaces)
        }
        return String(from[from.index(after: open)..<close])
    }

    /// The SMTP reply code msmtp quotes ("server message: 550 ..."), if any.
    static func smtpReplyCode(in text: String) -> Int? {
        guard let range = text.range(of: #"server message: [2-5][0-9][0-9]"#, options: .regularExpression) else {
            return nil
        }
        return Int(text[range].suffix(3))
    }

    static func strings(ofJSON text: String?) -> [String: String] {
        guard let text, let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
        else { return [:] }
        return object.compactMapValues { value in
            switch value {
            case let text as String: return text
            case let number as NSNumber: return number.stringValue
            default: return nil
            }
        }
    }

    /// A header value on one line: a CR or LF in data must never start a header of its own.
    static func headerValue(_ text: String) -> String {
        text.replacingOccurrences(of: "\r", with: " ").replacingOccurrences(of: "\n", with: " ")
    }

    /// RFC 2047: a subject with other than printable ASCII is sent as a UTF-8 encoded word.
    static func encodedWord(_ text: String) -> String {
        let line = headerValue(text)
        if line.unicodeScalars.allSatisfy({ $0.isASCII && $0.value >= 0x20 }) { return line }
        return "=?utf-8?B?\(Data(line.utf8).base64EncodedString())?="
    }

    static func rfc5322Date(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss '+0000'"
        return formatter.string(from: date)
    }
}

/// The one msmtp a worker runs at a time, so that a stop can end it.
final class RunningProcess: @unchecked Sendable {
    private let lock = NSLock()
    private var process: Process?

    func set(_ process: Process?) { lock.withLock { self.process = process } }
    func terminate() { lock.withLock { if process?.isRunning == true { process?.terminate() } } }
}

public struct DeliveryFailure: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
