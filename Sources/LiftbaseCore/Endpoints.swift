/// The endpoint table of the Liftbase API (see API.md). Add a row here and a function in
/// `sql/functions/api_*.sql`; routing and the OpenAPI document follow.
public let endpoints: [Endpoint] = [
    // Accounts and auth
    Endpoint(.POST, "/auth/register", "auth_register", status: 201, auth: false, "Create an account and a session"),
    Endpoint(.POST, "/auth/login", "auth_login", auth: false, "Start a session"),
    Endpoint(.POST, "/auth/logout", "auth_logout", status: 204, "Revoke this session's token"),
    Endpoint(.POST, "/auth/password/forgot", "auth_password_forgot", status: 202, auth: false, "Queue a password reset token"),
    Endpoint(.POST, "/auth/password/reset", "auth_password_reset", status: 204, auth: false, "Set a new password with a reset token"),
    Endpoint(.POST, "/auth/password/change", "auth_password_change", status: 204, "Change the password; other sessions end"),
    Endpoint(.GET, "/me", "me", "The account, its settings, and whether onboarding is needed"),
    Endpoint(.PATCH, "/me", "me_update", "Update the display name"),
    Endpoint(.DELETE, "/me", "me_delete", status: 204, "Delete the account and every row it owns"),
]
