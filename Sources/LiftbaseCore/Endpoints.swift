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

    // Training
    Endpoint(.GET, "/training/templates", "templates_list", "The built-in templates"),
    Endpoint(.GET, "/training/templates/{id}", "template_get", "One template"),
    Endpoint(.POST, "/training/sessions", "sessions_create", status: 201, "Log a session (completed or in progress)"),
    Endpoint(.GET, "/training/sessions", "sessions_list", "Sessions, newest first"),
    Endpoint(.GET, "/training/sessions/last", "session_last", "The latest completed session"),
    Endpoint(.GET, "/training/sessions/in-progress", "session_in_progress", "The resumable session, or null"),
    Endpoint(.GET, "/training/sessions/{id}", "session_get", "One session with its exercises and sets"),
    Endpoint(.PUT, "/training/sessions/{id}", "session_replace", "Replace a session and its exercises"),
    Endpoint(.PATCH, "/training/sessions/{id}", "session_update", "Finish, rename or annotate a session"),
    Endpoint(.DELETE, "/training/sessions/{id}", "session_delete", status: 204, "Delete a session"),
    Endpoint(.POST, "/training/sessions/{id}/duplicate", "session_duplicate", status: 201, "Copy a session to today"),
    Endpoint(.GET, "/training/summary/weekly", "weekly_summary", "Sessions, duration, working sets and volume of a week"),
    Endpoint(.GET, "/exercises", "exercises_list", "The catalog and the user's own exercises"),
    Endpoint(.POST, "/exercises", "exercise_create", status: 201, "Create an own exercise"),
    Endpoint(.PATCH, "/exercises/{id}", "exercise_update", "Change an own exercise"),
    Endpoint(.DELETE, "/exercises/{id}", "exercise_delete", status: 204, "Delete an own exercise"),
    Endpoint(.GET, "/exercises/{id}/substitutions", "exercise_substitutions",
             "Replacements scored by specificity, for the user's equipment and exclusions"),
    Endpoint(.PUT, "/user/exclusions", "exclusions_put", "Exercises and muscles to avoid"),
    Endpoint(.GET, "/equipment", "equipment_list", "The equipment catalog with the user's selection"),
    Endpoint(.PUT, "/equipment/selection", "equipment_select", "Replace the equipment selection"),
    Endpoint(.GET, "/plans", "plans_list", "Saved workout plans"),
    Endpoint(.POST, "/plans", "plan_create", status: 201, "Save a workout plan"),
    Endpoint(.GET, "/plans/{id}", "plan_get", "One plan with its exercises"),
    Endpoint(.PATCH, "/plans/{id}", "plan_rename", "Rename a plan"),
    Endpoint(.DELETE, "/plans/{id}", "plan_delete", status: 204, "Delete a plan"),
    Endpoint(.POST, "/plans/{id}/use", "plan_use", status: 201, "Start an in-progress session from a plan"),
    Endpoint(.GET, "/setup", "setup_get", "Setup state"),
    Endpoint(.POST, "/setup/complete", "setup_complete", "Mark setup complete"),
    Endpoint(.DELETE, "/preferences", "preferences_delete", status: 204, "Reset equipment, plans and setup"),

    // Programs
    Endpoint(.POST, "/program", "program_create", status: 201, "Start a program (the active one ends): blocks, phases, schedule"),
    Endpoint(.GET, "/program", "program_get", "The active program: current block, phase, week and adherence"),
    Endpoint(.GET, "/program/next", "program_next", "The next planned session with targets per set (mode=normal|short_on_time)"),
    Endpoint(.POST, "/program/sessions/{id}/log", "program_session_log", status: 201, "Log a planned session; returns the next targets"),
    Endpoint(.POST, "/program/sessions/{id}/skip", "program_session_skip", "Skip a planned session: it shifts, or combines into the next"),
    Endpoint(.GET, "/analytics/timeline", "analytics_timeline", "Program blocks and phases over time"),

    // Food and nutrition
    Endpoint(.GET, "/food/search", "food_search", "Foods ranked exact > prefix > word similarity > trigram"),
    Endpoint(.GET, "/food/barcode/{code}", "food_barcode", "A food by barcode (own foods first)"),
    Endpoint(.GET, "/food/items/{id}", "food_get", "One food with per-100 g and per-serving values"),
    Endpoint(.POST, "/food/items", "food_create", status: 201, "A food of the user's own"),
    Endpoint(.POST, "/nutrition/entries", "entry_create", status: 201, "Log food: from a food, favorite, meal or values"),
    Endpoint(.GET, "/nutrition/entries", "entries_list", "The diary of a day or a date range"),
    Endpoint(.PATCH, "/nutrition/entries/{id}", "entry_update", "Edit a diary entry"),
    Endpoint(.DELETE, "/nutrition/entries/{id}", "entry_delete", status: 204, "Delete a diary entry"),
    Endpoint(.GET, "/nutrition/daily", "nutrition_daily", "A day's totals against targets, remaining, per meal"),
    Endpoint(.GET, "/meals/favorites", "favorites_list", "Favorites"),
    Endpoint(.POST, "/meals/favorites", "favorite_create", status: 201, "Save a favorite from an entry or values"),
    Endpoint(.DELETE, "/meals/favorites/{id}", "favorite_delete", status: 204, "Delete a favorite"),
    Endpoint(.GET, "/meals/custom", "custom_meals_list", "Custom meals with computed totals"),
    Endpoint(.POST, "/meals/custom", "custom_meal_create", status: 201, "Create a custom meal"),
    Endpoint(.PATCH, "/meals/custom/{id}", "custom_meal_update", "Rename a meal or replace its items"),
    Endpoint(.DELETE, "/meals/custom/{id}", "custom_meal_delete", status: 204, "Delete a custom meal"),

    // Analytics and adaptive targets
    Endpoint(.GET, "/analytics/volume", "analytics_volume", "Weekly working sets per muscle by the overlap rule"),
    Endpoint(.GET, "/analytics/e1rm", "analytics_e1rm", "Best estimated one-rep max per session (RPE chart or Epley)"),
    Endpoint(.GET, "/analytics/rpe-distribution", "analytics_rpe_distribution", "Working sets per RPE"),
    Endpoint(.GET, "/analytics/nutrition", "analytics_nutrition", "Diary totals and averages per day, week or month vs targets"),
    Endpoint(.GET, "/analytics/workouts", "analytics_workouts", "Sessions, sets, volume and duration per day, week or month"),
    Endpoint(.GET, "/analytics/weight", "analytics_weight", "Daily weight and trend weight"),
    Endpoint(.GET, "/adaptive/expenditure", "adaptive_expenditure", "Energy expenditure from intake and weight change"),
    Endpoint(.POST, "/adaptive/recalculate", "adaptive_recalculate", status: 201, "A target snapshot from the expenditure estimate"),
    // Imports: whole exports of other apps, up to 20 MiB; a Liftbase document up to 64 MiB
    // (every other route takes 1 MiB)
    Endpoint(.POST, "/import/strong", "import_strong", body: .csv, maximumBodySize: importMaximumBodySize,
             "Import a Strong workout export (CSV)"),
    Endpoint(.POST, "/import/hevy", "import_hevy", body: .csv, maximumBodySize: importMaximumBodySize,
             "Import a Hevy workout export (CSV)"),
    Endpoint(.POST, "/import/cronometer", "import_cronometer", body: .csv, maximumBodySize: importMaximumBodySize,
             "Import a Cronometer servings export (CSV) into the diary"),
    Endpoint(.POST, "/import/liftbase", "import_liftbase", maximumBodySize: liftbaseImportMaximumBodySize,
             "Import a Liftbase export document (JSON)"),
    // Settings and data
    Endpoint(.GET, "/settings", "settings_get", "Units, time zone, reminders, biometric unlock, health sync"),
    Endpoint(.PATCH, "/settings", "settings_update", "Change the named settings; nested objects merge"),
    Endpoint(.GET, "/export", "export_json", streamed: "application/json",
             "Every row of the user as a liftbase-export document (docs/export-format.md)"),
    Endpoint(.GET, "/export/workouts.csv", "export_workouts_csv", streamed: "text/csv; charset=utf-8",
             "Completed workouts in Strong's CSV layout, one row per set"),
    Endpoint(.GET, "/export/nutrition.csv", "export_nutrition_csv", streamed: "text/csv; charset=utf-8", "The food diary as CSV"),
    Endpoint(.GET, "/export/body_metrics.csv", "export_body_metrics_csv", streamed: "text/csv; charset=utf-8",
             "Body-stats history as CSV"),
]

/// The body limit of the CSV import routes: years of workouts in one export file.
public let importMaximumBodySize = 20 << 20

/// The body limit of `POST /import/liftbase`: a Liftbase export of five years of training and
/// diary is about 13 MB, and an account keeps growing.
public let liftbaseImportMaximumBodySize = 64 << 20
