/// One message a worker claimed (auth.outbox_claim): a mail or a webhook delivery, for one
/// try. The columns not of its kind are nil.
public struct OutboxMessage: Sendable, Equatable {
    public enum Kind: String, Sendable { case email, webhook }

    public let id: Int64
    public let attempt: Int
    public let kind: Kind
    public let idempotencyKey: String
    public let event: String?
    public let emailTo: String?
    public let emailTemplate: String?
    /// The template's variables as JSON text (e.g. token, expires_at, email).
    public let emailVariables: String?
    public let webhookURL: String?
    /// The exact bytes to POST: what the signature covers.
    public let webhookBody: String?
    public let webhookID: String?
    public let webhookTimestamp: String?
    public let webhookSignature: String?

    /// The columns of `auth.outbox_claim`, in its order.
    static let columns =
        "id, attempt, kind, idempotency_key, event, email_to, email_template, email_variables::text, "
        + "webhook_url, webhook_body, webhook_id, webhook_timestamp, webhook_signature"

    init?(row: [String?]) {
        guard row.count == 13, let id = row[0].flatMap(Int64.init), let attempt = row[1].flatMap(Int.init),
            let kind = row[2].flatMap(Kind.init(rawValue:)), let key = row[3]
        else { return nil }
        self.id = id
        self.attempt = attempt
        self.kind = kind
        idempotencyKey = key
        event = row[4]
        emailTo = row[5]
        emailTemplate = row[6]
        emailVariables = row[7]
        webhookURL = row[8]
        webhookBody = row[9]
        webhookID = row[10]
        webhookTimestamp = row[11]
        webhookSignature = row[12]
    }
}

/// What one try came to, for auth.outbox_record: the HTTP status or SMTP/sendmail code when
/// one came back, and what went wrong.
public struct DeliveryOutcome: Sendable, Equatable {
    public let ok: Bool
    public let status: Int?
    public let error: String?
    /// Set when the try could not work whatever the message (no msmtp, a relay that does not
    /// offer the STARTTLS the settings ask for): what the operator should change. Such a try
    /// is given back, not spent.
    public let settingsProblem: String?

    public static func delivered(status: Int?) -> DeliveryOutcome {
        .init(ok: true, status: status, error: nil, settingsProblem: nil)
    }
    public static func failed(status: Int?, _ error: String) -> DeliveryOutcome {
        .init(ok: false, status: status, error: error, settingsProblem: nil)
    }
    public static func misconfigured(_ error: String, fix: String) -> DeliveryOutcome {
        .init(ok: false, status: nil, error: error, settingsProblem: fix)
    }
}
