/// The endpoint table of the Liftbase API. Add a row here and its function in
/// `sql/functions/api_<route group>.sql` (the group is the path's first segment: `/plans/{id}`
/// → api_plans.sql); routing, the OpenAPI document and the table's checks follow.
public let endpoints: [Endpoint] = [
    // Accounts and auth
    Endpoint(
        .POST,
        "/auth/register",
        function: "auth_register",
        status: 201,
        auth: false,
        summary: "Create an account and a session"
    ),
    Endpoint(.POST, "/auth/login", function: "auth_login", auth: false, summary: "Start a session"),
    Endpoint(
        .POST,
        "/auth/login/two-factor",
        function: "auth_login_two_factor",
        auth: false,
        summary: "A login's second step: the challenge and a code"
    ),
    Endpoint(
        .POST,
        "/auth/oidc/{provider}",
        function: "auth_oidc",
        auth: false,
        verifiesIDToken: true,
        summary: "Sign in (or up) with an ID token of Apple, Google or another OpenID provider"
    ),
    Endpoint(.POST, "/auth/logout", function: "auth_logout", status: 204, summary: "Revoke this session's token"),
    Endpoint(
        .POST,
        "/auth/token",
        function: "auth_token",
        auth: false,
        summary: "Spend a refresh token for a new access token and refresh token"
    ),
    Endpoint(
        .POST,
        "/auth/email/verify",
        function: "auth_email_verify",
        status: 204,
        auth: false,
        summary: "Verify an account's email address"
    ),
    Endpoint(
        .POST,
        "/auth/email/verification",
        function: "auth_email_verification",
        status: 202,
        auth: false,
        summary: "Send another verification mail"
    ),
    Endpoint(
        .POST,
        "/auth/password/forgot",
        function: "auth_password_forgot",
        status: 202,
        auth: false,
        summary: "Queue a password reset token"
    ),
    Endpoint(
        .POST,
        "/auth/password/reset",
        function: "auth_password_reset",
        status: 204,
        auth: false,
        summary: "Set a new password with a reset token"
    ),
    Endpoint(
        .POST,
        "/auth/password/change",
        function: "auth_password_change",
        status: 204,
        summary: "Change the password; other sessions end"
    ),
    Endpoint(.GET, "/me", function: "me", summary: "The account, its settings, and whether onboarding is needed"),
    Endpoint(.PATCH, "/me", function: "me_update", summary: "Update the display name"),
    Endpoint(.DELETE, "/me", function: "me_delete", status: 204, summary: "Delete the account and every row it owns"),
    Endpoint(
        .GET,
        "/me/security-events",
        function: "security_events_list",
        summary: "The account's security log, newest first"
    ),
    Endpoint(.GET, "/me/api-keys", function: "api_keys_list", summary: "Personal API keys, without their secrets"),
    Endpoint(
        .POST,
        "/me/api-keys",
        function: "api_key_create",
        status: 201,
        summary: "Create a personal API key; the key is shown once"
    ),
    Endpoint(.DELETE, "/me/api-keys/{id}", function: "api_key_delete", status: 204, summary: "Revoke an API key"),
    Endpoint(.GET, "/me/two-factor", function: "two_factor_get", summary: "Whether two-factor sign-in is on"),
    Endpoint(.POST, "/me/two-factor", function: "two_factor_enrol", summary: "Start enrolling a TOTP secret"),
    Endpoint(
        .POST,
        "/me/two-factor/confirm",
        function: "two_factor_confirm",
        summary: "Turn two-factor sign-in on with a code; answers the recovery codes"
    ),
    Endpoint(
        .DELETE,
        "/me/two-factor",
        function: "two_factor_disable",
        status: 204,
        summary: "Turn two-factor sign-in off with the password and a code"
    ),

    // Onboarding, profile, goals, metrics
    Endpoint(
        .POST,
        "/onboarding/complete",
        function: "onboarding_complete",
        status: 201,
        summary: "Profile, body stats, goal, targets and health metrics in one transaction"
    ),
    Endpoint(.GET, "/user/goals", function: "goals_get", summary: "The goal, or null while onboarding is needed"),
    Endpoint(.PUT, "/user/goals", function: "goals_put", summary: "Set the goal; recomputes targets and metrics"),
    Endpoint(
        .GET,
        "/user/profile",
        function: "profile_get",
        summary: "Display name, sex, age, height, activity, time zone, units"
    ),
    Endpoint(
        .PUT,
        "/user/profile",
        function: "profile_put",
        summary: "Replace the profile; recomputes targets and metrics"
    ),
    Endpoint(
        .POST,
        "/user/metrics",
        function: "body_metrics_add",
        status: 201,
        summary: "Append body stats; recomputes targets and metrics"
    ),
    Endpoint(.GET, "/user/metrics", function: "body_metrics_list", summary: "Body-stats history, newest first"),
    Endpoint(
        .PATCH,
        "/user/metrics/{id}",
        function: "body_metric_update",
        summary: "Correct a weigh-in; recomputes targets and metrics"
    ),
    Endpoint(
        .DELETE,
        "/user/metrics/{id}",
        function: "body_metric_delete",
        status: 204,
        summary: "Delete a weigh-in; recomputes targets and metrics"
    ),
    Endpoint(
        .GET,
        "/user/measures",
        function: "measures_get",
        summary: "Standard measures and the account's own types"
    ),
    Endpoint(
        .POST,
        "/user/measurement-types",
        function: "measurement_type_create",
        status: 201,
        summary: "A measure of the account's own"
    ),
    Endpoint(
        .PATCH,
        "/user/measurement-types/{id}",
        function: "measurement_type_update",
        summary: "Rename an own measure or change its unit or range"
    ),
    Endpoint(
        .DELETE,
        "/user/measurement-types/{id}",
        function: "measurement_type_delete",
        status: 204,
        summary: "Delete an own measure and its entries"
    ),
    Endpoint(
        .POST,
        "/user/measurements",
        function: "measurement_create",
        status: 201,
        summary: "Record a body measurement"
    ),
    Endpoint(.GET, "/user/measurements", function: "measurements_list", summary: "Body measurements, newest first"),
    Endpoint(.PATCH, "/user/measurements/{id}", function: "measurement_update", summary: "Correct a body measurement"),
    Endpoint(
        .DELETE,
        "/user/measurements/{id}",
        function: "measurement_delete",
        status: 204,
        summary: "Delete a body measurement"
    ),
    Endpoint(
        .GET,
        "/user/measurement-series",
        function: "measurement_series",
        summary: "One measure's values over a date range, for a graph"
    ),
    Endpoint(
        .POST,
        "/progress-photos",
        function: "progress_photo_upload",
        status: 201,
        body: .image,
        maximumBodySize: Endpoint.maximumImageBodySize,
        summary: "Upload a progress photo (JPEG, PNG, HEIC or WebP); its location is removed"
    ),
    Endpoint(.GET, "/progress-photos", function: "progress_photos_list", summary: "Progress photos, newest day first"),
    Endpoint(
        .GET,
        "/progress-photos/archive",
        function: "progress_photos_archive",
        binaryAnswer: .tarArchive,
        summary: "Every progress photo as a tar archive, with a list of what each is"
    ),
    Endpoint(.GET, "/progress-photos/{id}", function: "progress_photo_get", summary: "What a progress photo is"),
    Endpoint(
        .GET,
        "/progress-photos/{id}/image",
        function: "progress_photo_image",
        binaryAnswer: .bytes,
        summary: "A progress photo's image"
    ),
    Endpoint(
        .PATCH,
        "/progress-photos/{id}",
        function: "progress_photo_update",
        summary: "Correct a progress photo's day, pose or measurement"
    ),
    Endpoint(
        .DELETE,
        "/progress-photos/{id}",
        function: "progress_photo_delete",
        status: 204,
        summary: "Delete a progress photo and its image"
    ),
    Endpoint(
        .GET,
        "/user/targets",
        function: "targets_get",
        summary: "Effective daily targets: overrides, else the latest snapshot"
    ),
    Endpoint(.PUT, "/user/targets", function: "targets_put", summary: "Override daily targets; null clears"),
    Endpoint(
        .GET,
        "/profile/metrics/today",
        function: "metrics_today",
        summary: "The latest health metrics with explanations"
    ),
    Endpoint(
        .POST,
        "/profile/metrics/acknowledge",
        function: "metrics_acknowledge",
        summary: "Acknowledge the latest health metrics"
    ),
    Endpoint(.GET, "/profile/metrics/history", function: "metrics_history", summary: "Health metrics, newest first"),

    // Training
    Endpoint(.GET, "/training/templates", function: "templates_list", summary: "The built-in templates"),
    Endpoint(.GET, "/training/templates/{id}", function: "template_get", summary: "One template"),
    Endpoint(
        .POST,
        "/training/sessions",
        function: "sessions_create",
        status: 201,
        summary: "Log a session (completed or in progress)"
    ),
    Endpoint(.GET, "/training/sessions", function: "sessions_list", summary: "Sessions, newest first"),
    Endpoint(.GET, "/training/sessions/last", function: "session_last", summary: "The latest completed session"),
    Endpoint(
        .GET,
        "/training/sessions/in-progress",
        function: "session_in_progress",
        summary: "The resumable session, or null"
    ),
    Endpoint(
        .GET,
        "/training/sessions/{id}",
        function: "session_get",
        summary: "One session with its exercises and sets"
    ),
    Endpoint(
        .PUT,
        "/training/sessions/{id}",
        function: "session_replace",
        summary: "Replace a session and its exercises"
    ),
    Endpoint(
        .PATCH,
        "/training/sessions/{id}",
        function: "session_update",
        summary: "Finish, rename or annotate a session"
    ),
    Endpoint(.DELETE, "/training/sessions/{id}", function: "session_delete", status: 204, summary: "Delete a session"),
    Endpoint(
        .POST,
        "/training/sessions/{id}/duplicate",
        function: "session_duplicate",
        status: 201,
        summary: "Copy a session to today"
    ),
    Endpoint(
        .GET,
        "/training/summary/weekly",
        function: "weekly_summary",
        summary: "Sessions, duration, working sets and volume of a week"
    ),
    Endpoint(.GET, "/exercises", function: "exercises_list", summary: "The catalog and the user's own exercises"),
    Endpoint(.POST, "/exercises", function: "exercise_create", status: 201, summary: "Create an own exercise"),
    Endpoint(.PATCH, "/exercises/{id}", function: "exercise_update", summary: "Change an own exercise"),
    Endpoint(.DELETE, "/exercises/{id}", function: "exercise_delete", status: 204, summary: "Delete an own exercise"),
    Endpoint(
        .POST,
        "/exercises/{id}/merge",
        function: "exercise_merge",
        summary: "Move everything of one exercise to another and remember its name for imports"
    ),
    Endpoint(
        .GET,
        "/exercises/{id}/substitutions",
        function: "exercise_substitutions",
        summary: "Replacements scored by specificity, for the user's equipment and exclusions"
    ),
    Endpoint(.PUT, "/user/exclusions", function: "exclusions_put", summary: "Exercises and muscles to avoid"),
    Endpoint(
        .GET,
        "/equipment",
        function: "equipment_list",
        summary: "The equipment catalog with the user's selection"
    ),
    Endpoint(.PUT, "/equipment/selection", function: "equipment_select", summary: "Replace the equipment selection"),
    Endpoint(.GET, "/plans", function: "plans_list", summary: "Saved workout plans"),
    Endpoint(.POST, "/plans", function: "plan_create", status: 201, summary: "Save a workout plan"),
    Endpoint(.GET, "/plans/{id}", function: "plan_get", summary: "One plan with its exercises"),
    Endpoint(.PATCH, "/plans/{id}", function: "plan_rename", summary: "Rename a plan"),
    Endpoint(.DELETE, "/plans/{id}", function: "plan_delete", status: 204, summary: "Delete a plan"),
    Endpoint(
        .POST,
        "/plans/{id}/use",
        function: "plan_use",
        status: 201,
        summary: "Start an in-progress session from a plan"
    ),
    Endpoint(.GET, "/setup", function: "setup_get", summary: "Setup state"),
    Endpoint(.POST, "/setup/complete", function: "setup_complete", summary: "Mark setup complete"),
    Endpoint(
        .DELETE,
        "/preferences",
        function: "preferences_delete",
        status: 204,
        summary: "Reset equipment, plans and setup"
    ),

    // Programs
    Endpoint(
        .POST,
        "/program",
        function: "program_create",
        status: 201,
        summary: "Start a program (the active one ends): blocks, phases, schedule"
    ),
    Endpoint(
        .GET,
        "/program",
        function: "program_get",
        summary: "The active program: current block, phase, week and adherence"
    ),
    Endpoint(
        .GET,
        "/program/next",
        function: "program_next",
        summary: "The next planned session with targets per set (mode=normal|short_on_time)"
    ),
    Endpoint(
        .POST,
        "/program/sessions/{id}/log",
        function: "program_session_log",
        status: 201,
        summary: "Log a planned session; returns the next targets"
    ),
    Endpoint(
        .POST,
        "/program/sessions/{id}/skip",
        function: "program_session_skip",
        summary: "Skip a planned session: it shifts, or combines into the next"
    ),
    Endpoint(
        .GET,
        "/analytics/timeline",
        function: "analytics_timeline",
        summary: "Program blocks and phases over time"
    ),

    // Food and nutrition
    Endpoint(
        .GET,
        "/food/search",
        function: "food_search",
        summary: "Foods ranked exact > prefix > word similarity > trigram"
    ),
    Endpoint(.GET, "/food/barcode/{code}", function: "food_barcode", summary: "A food by barcode (own foods first)"),
    Endpoint(.GET, "/food/items/{id}", function: "food_get", summary: "One food with per-100 g and per-serving values"),
    Endpoint(.POST, "/food/items", function: "food_create", status: 201, summary: "A food of the user's own"),
    Endpoint(
        .POST,
        "/nutrition/entries",
        function: "entry_create",
        status: 201,
        summary: "Log food: from a food, favorite, meal or values"
    ),
    Endpoint(.GET, "/nutrition/entries", function: "entries_list", summary: "The diary of a day or a date range"),
    Endpoint(
        .POST,
        "/health/samples",
        function: "health_samples_sync",
        summary: "A batch of Apple Health or Health Connect samples and deletions"
    ),
    Endpoint(.GET, "/health/daily", function: "health_daily", summary: "Each day's value of a health type"),
    Endpoint(.POST, "/nutrition/water", function: "water_create", status: 201, summary: "Log a drink of water"),
    Endpoint(.GET, "/nutrition/water", function: "water_day", summary: "A day's water: total, target and entries"),
    Endpoint(.PATCH, "/nutrition/water/{id}", function: "water_update", summary: "Correct a water entry"),
    Endpoint(.DELETE, "/nutrition/water/{id}", function: "water_delete", status: 204, summary: "Delete a water entry"),
    Endpoint(.PATCH, "/nutrition/entries/{id}", function: "entry_update", summary: "Edit a diary entry"),
    Endpoint(
        .DELETE,
        "/nutrition/entries/{id}",
        function: "entry_delete",
        status: 204,
        summary: "Delete a diary entry"
    ),
    Endpoint(
        .GET,
        "/nutrition/daily",
        function: "nutrition_daily",
        summary: "A day's totals against targets, remaining, per meal"
    ),
    Endpoint(.GET, "/meals/favorites", function: "favorites_list", summary: "Favorites"),
    Endpoint(
        .POST,
        "/meals/favorites",
        function: "favorite_create",
        status: 201,
        summary: "Save a favorite from an entry or values"
    ),
    Endpoint(.DELETE, "/meals/favorites/{id}", function: "favorite_delete", status: 204, summary: "Delete a favorite"),
    Endpoint(.GET, "/meals/custom", function: "custom_meals_list", summary: "Custom meals with computed totals"),
    Endpoint(.POST, "/meals/custom", function: "custom_meal_create", status: 201, summary: "Create a custom meal"),
    Endpoint(
        .PATCH,
        "/meals/custom/{id}",
        function: "custom_meal_update",
        summary: "Rename a meal or replace its items"
    ),
    Endpoint(
        .DELETE,
        "/meals/custom/{id}",
        function: "custom_meal_delete",
        status: 204,
        summary: "Delete a custom meal"
    ),

    // Analytics and adaptive targets
    Endpoint(
        .GET,
        "/analytics/volume",
        function: "analytics_volume",
        summary: "Weekly working sets per muscle by the overlap rule"
    ),
    Endpoint(
        .GET,
        "/analytics/e1rm",
        function: "analytics_e1rm",
        summary: "Best estimated one-rep max per session (RPE chart or Epley)"
    ),
    Endpoint(
        .GET,
        "/analytics/rpe-distribution",
        function: "analytics_rpe_distribution",
        summary: "Working sets per RPE"
    ),
    Endpoint(
        .GET,
        "/analytics/nutrition",
        function: "analytics_nutrition",
        summary: "Diary totals and averages per day, week or month vs targets"
    ),
    Endpoint(
        .GET,
        "/analytics/workouts",
        function: "analytics_workouts",
        summary: "Sessions, sets, volume and duration per day, week or month"
    ),
    Endpoint(
        .GET,
        "/analytics/cardio",
        function: "analytics_cardio",
        summary: "Distance, time and pace per week and per exercise"
    ),
    Endpoint(
        .GET,
        "/analytics/records",
        function: "analytics_records",
        summary: "Personal records per exercise by tracking type"
    ),
    Endpoint(.GET, "/analytics/weight", function: "analytics_weight", summary: "Daily weight and trend weight"),
    Endpoint(
        .GET,
        "/adaptive/expenditure",
        function: "adaptive_expenditure",
        summary: "Energy expenditure from intake and weight change"
    ),
    Endpoint(
        .POST,
        "/adaptive/recalculate",
        function: "adaptive_recalculate",
        status: 201,
        summary: "A target snapshot from the expenditure estimate"
    ),
    // Imports: whole exports of other apps, up to 20 MiB; a Liftbase document up to 64 MiB
    // (every other route takes 1 MiB)
    Endpoint(
        .POST,
        "/import/strong",
        function: "import_strong",
        body: .csv,
        maximumBodySize: importMaximumBodySize,
        summary: "Import a Strong workout export (CSV)"
    ),
    Endpoint(
        .POST,
        "/import/hevy",
        function: "import_hevy",
        body: .csv,
        maximumBodySize: importMaximumBodySize,
        summary: "Import a Hevy workout export (CSV)"
    ),
    Endpoint(
        .POST,
        "/import/fitnotes",
        function: "import_fitnotes",
        body: .csv,
        maximumBodySize: importMaximumBodySize,
        summary: "Import a FitNotes training export (CSV): one session per day"
    ),
    Endpoint(
        .POST,
        "/import/cronometer",
        function: "import_cronometer",
        body: .csv,
        maximumBodySize: importMaximumBodySize,
        summary: "Import a Cronometer servings export (CSV) into the diary"
    ),
    Endpoint(
        .POST,
        "/import/myfitnesspal",
        function: "import_myfitnesspal",
        body: .csv,
        maximumBodySize: importMaximumBodySize,
        summary: "Import a MyFitnessPal nutrition summary (CSV): one diary entry per day and meal"
    ),
    Endpoint(
        .POST,
        "/import/liftbase",
        function: "import_liftbase",
        maximumBodySize: liftbaseImportMaximumBodySize,
        summary: "Import a Liftbase export document (JSON)"
    ),
    // Settings and data
    Endpoint(
        .GET,
        "/settings",
        function: "settings_get",
        summary: "Units, time zone, reminders, biometric unlock, health sync"
    ),
    Endpoint(
        .PATCH,
        "/settings",
        function: "settings_update",
        summary: "Change the named settings; nested objects merge"
    ),
    Endpoint(
        .GET,
        "/sync/changes",
        function: "sync_changes",
        summary: "Changes since a cursor, in commit order, with tombstones"
    ),
    Endpoint(.GET, "/webhooks", function: "webhooks_list", summary: "Webhook subscriptions, without secrets"),
    Endpoint(
        .POST,
        "/webhooks",
        function: "webhook_create",
        status: 201,
        summary: "Subscribe an endpoint to events; the secret is shown once"
    ),
    Endpoint(.DELETE, "/webhooks/{id}", function: "webhook_delete", status: 204, summary: "Delete a webhook"),
    Endpoint(
        .GET,
        "/webhooks/{id}/deliveries",
        function: "webhook_deliveries",
        summary: "A subscription's recent deliveries with their state"
    ),
    Endpoint(
        .GET,
        "/export",
        function: "export_json",
        streamed: "application/json",
        summary: "Every row of the user as a liftbase-export document (docs/export-format.md)"
    ),
    Endpoint(
        .GET,
        "/export/workouts.csv",
        function: "export_workouts_csv",
        streamed: "text/csv; charset=utf-8",
        summary: "Completed workouts in Strong's CSV layout, one row per set"
    ),
    Endpoint(
        .GET,
        "/export/nutrition.csv",
        function: "export_nutrition_csv",
        streamed: "text/csv; charset=utf-8",
        summary: "The food diary as CSV"
    ),
    Endpoint(
        .GET,
        "/export/body_metrics.csv",
        function: "export_body_metrics_csv",
        streamed: "text/csv; charset=utf-8",
        summary: "Body-stats history as CSV"
    ),
]

/// The body limit of the CSV import routes: years of workouts in one export file.
public let importMaximumBodySize = 20 << 20

/// The body limit of `POST /import/liftbase`: a Liftbase export of five years of training and
/// diary is about 13 MB, and an account keeps growing.
public let liftbaseImportMaximumBodySize = 64 << 20
