import Foundation

/// The mails Liftbase sends, as a subject and a text and an HTML body with `{{name}}`
/// placeholders. Built in, or replaced by an operator: a folder (LIFTBASE_MAIL_TEMPLATES)
/// holding `<template>.txt` (its first line `Subject: ...`, a blank line, then the text) and
/// `<template>.html`. Placeholders are the message's variables plus `link`.
public struct MailTemplate: Sendable, Equatable {
    public var subject: String
    public var text: String
    public var html: String

    static let builtIn: [String: MailTemplate] = [
        "password_reset": MailTemplate(
            subject: "Reset your Liftbase password",
            text: """
                Someone, we hope you, asked to reset the password of {{email}} on Liftbase.

                Choose a new password here:
                {{link}}

                The link works until {{expires_at}} and only once. If you did not ask for it, \
                ignore this mail: your password stays as it is.
                """,
            html: """
                <!doctype html>
                <html><body>
                <p>Someone, we hope you, asked to reset the password of {{email}} on Liftbase.</p>
                <p><a href="{{link}}">Choose a new password</a></p>
                <p>The link works until {{expires_at}} and only once. If you did not ask for it, \
                ignore this mail: your password stays as it is.</p>
                </body></html>
                """
        ),
        "email_verification": MailTemplate(
            subject: "Verify your address for Liftbase",
            text: """
                Someone, we hope you, made a Liftbase account with {{email}}.

                Verify this address here:
                {{link}}

                The link works until {{expires_at}} and only once. If you made no account, \
                ignore this mail.
                """,
            html: """
                <!doctype html>
                <html><body>
                <p>Someone, we hope you, made a Liftbase account with {{email}}.</p>
                <p><a href="{{link}}">Verify this address</a></p>
                <p>The link works until {{expires_at}} and only once. If you made no account, \
                ignore this mail.</p>
                </body></html>
                """
        ),
        "invitation": MailTemplate(
            subject: "You are invited to Liftbase",
            text: """
                You are invited to make a Liftbase account with {{email}}.

                Sign up here:
                {{link}}

                The invitation works until {{expires_at}} and only once.
                """,
            html: """
                <!doctype html>
                <html><body>
                <p>You are invited to make a Liftbase account with {{email}}.</p>
                <p><a href="{{link}}">Sign up</a></p>
                <p>The invitation works until {{expires_at}} and only once.</p>
                </body></html>
                """
        ),
    ]

    /// The template `name`: the operator's files when a folder is configured and holds them,
    /// else the built-in one; nil when neither exists.
    public static func named(_ name: String, folder: String?) throws -> MailTemplate? {
        guard let folder else { return builtIn[name] }
        let base = URL(fileURLWithPath: folder).appendingPathComponent(name)
        let textFile = base.appendingPathExtension("txt")
        guard FileManager.default.fileExists(atPath: textFile.path) else { return builtIn[name] }
        let textFileContents = try String(contentsOf: textFile, encoding: .utf8)
        let html = try String(contentsOf: base.appendingPathExtension("html"), encoding: .utf8)
        let lines = textFileContents.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false)
        guard let first = lines.first, first.hasPrefix("Subject:") else {
            throw DeliveryConfigurationError("\(textFile.path): the first line must be `Subject: ...`")
        }
        let body = lines.count > 1 ? String(lines[1]).trimmingCharacters(in: .newlines) : ""
        return MailTemplate(
            subject: first.dropFirst("Subject:".count).trimmingCharacters(in: .whitespaces),
            text: body,
            html: html
        )
    }

    /// The template with its placeholders filled: as they are in the subject and the text,
    /// HTML-escaped in the HTML. An unknown placeholder stays as written, so a typo shows.
    public func rendered(_ variables: [String: String]) -> MailTemplate {
        func fill(_ template: String, escaping: Bool) -> String {
            variables.reduce(template) { text, variable in
                text.replacingOccurrences(
                    of: "{{\(variable.key)}}",
                    with: escaping ? Self.escapedHTML(variable.value) : variable.value
                )
            }
        }
        return MailTemplate(
            subject: fill(subject, escaping: false),
            text: fill(text, escaping: false),
            html: fill(html, escaping: true)
        )
    }

    static func escapedHTML(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
