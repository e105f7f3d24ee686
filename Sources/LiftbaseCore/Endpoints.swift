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

    // Onboarding, profile, goals, metrics
    Endpoint(.POST, "/onboarding/complete", "onboarding_complete", status: 201,
             "Profile, body stats, goal, targets and health metrics in one transaction"),
    Endpoint(.GET, "/user/goals", "goals_get", "The goal, or null while onboarding is needed"),
    Endpoint(.PUT, "/user/goals", "goals_put", "Set the goal; recomputes targets and metrics"),
    Endpoint(.GET, "/user/profile", "profile_get", "Display name, sex, age, height, activity, time zone, units"),
    Endpoint(.PUT, "/user/profile", "profile_put", "Replace the profile; recomputes targets and metrics"),
    Endpoint(.POST, "/user/metrics", "body_metrics_add", status: 201, "Append body stats; recomputes targets and metrics"),
    Endpoint(.GET, "/user/metrics", "body_metrics_list", "Body-stats history, newest first"),
    Endpoint(.GET, "/user/targets", "targets_get", "Effective daily targets: overrides, else the latest snapshot"),
    Endpoint(.PUT, "/user/targets", "targets_put", "Override daily targets; null clears"),
    Endpoint(.GET, "/profile/metrics/today", "metrics_today", "The latest health metrics with explanations"),
    Endpoint(.POST, "/profile/metrics/acknowledge", "metrics_acknowledge", "Acknowledge the latest health metrics"),
    Endpoint(.GET, "/profile/metrics/history", "metrics_history", "Health metrics, newest first"),
]
