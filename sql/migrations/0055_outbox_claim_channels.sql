-- auth.outbox_claim takes the channels a worker sends (a worker without a mail relay claims
-- webhooks only), so its three-argument form goes.
drop function if exists auth.outbox_claim(text, integer, interval);
