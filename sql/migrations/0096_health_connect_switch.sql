-- Health Connect replaced Google Fit on Android: the settings' switch is named after the
-- platform that moves data now (POST /health/samples); `google_fit` stays accepted and shown
-- as its old name (docs/health.md).
alter table app.user_settings rename column google_fit_sync to health_connect_sync;
