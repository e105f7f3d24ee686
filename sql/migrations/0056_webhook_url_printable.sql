-- A webhook URL is printable ASCII after its scheme: no control characters, spaces or raw
-- non-ASCII (an internationalized host is given in its punycode form), so that what is
-- stored is a URL a client and an HTTP library read the same way.
alter domain app.webhook_url add constraint webhook_url_printable check (value ~ '^[hH][tT][tT][pP][sS]?://[\x21-\x7e]+$');
comment on domain app.webhook_url is 'must be an http or https URL of printable ASCII, at most 2,048 bytes';
