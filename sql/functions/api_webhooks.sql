-- /webhooks: a user's webhook subscriptions and their deliveries (docs/webhooks.md).

-- POST /webhooks {url, events, client_id?}: 201 with the subscription and its secret, shown
-- this once.
create or replace function api.webhook_create(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
  v_body jsonb := coalesce(p_body, '{}');
  v_replayed text;
begin
  v_replayed := app.replayed_key('app.webhook_subscriptions', v_user_id, v_body);
  if v_replayed is not null then
    return app.replayed_webhook(v_user_id, v_replayed::uuid);
  end if;
  perform app.raise_if_invalid(app.webhook_problems(v_body));
  return app.create_webhook(v_user_id, v_body);
end
$$;

-- GET /webhooks?limit=&cursor=: oldest first, without secrets.
create or replace function api.webhooks_list(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
  v_page record := app.page_parameters(p_args, 'uuid');
  v_after app.webhook_subscriptions;
begin
  if v_page.cursor_uuid is not null then
    select s.* into v_after from app.webhook_subscriptions as s
     where s.user_id = v_user_id and s.id = v_page.cursor_uuid;
    if v_after.id is null then
      perform app.raise_unknown_cursor();
    end if;
  end if;
  return app.page(coalesce((
    select jsonb_agg(app.webhook_json(row(s.*)::app.webhook_subscriptions) order by s.created_at, s.id)
      from (select * from app.webhook_subscriptions as x
             where x.user_id = v_user_id
               and (v_after.id is null or (x.created_at, x.id) > (v_after.created_at, v_after.id))
             order by x.created_at, x.id
             limit v_page.page_size + 1) as s), '[]'), v_page.page_size);
end
$$;

-- DELETE /webhooks/{id}: 204; its pending deliveries go with it.
create or replace function api.webhook_delete(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
begin
  delete from app.webhook_subscriptions where user_id = v_user_id and id = app.id_parameter(p_args, 'id');
  if not found then
    perform app.raise_error(404, 'webhook_not_found', 'No such webhook.');
  end if;
  -- On Citus the outbox has no key to the subscription whose cascade would do this.
  if app.on_citus() then
    perform app.forget_webhook_deliveries(v_user_id, app.id_parameter(p_args, 'id'));
  end if;
  return null;
end
$$;

-- GET /webhooks/{id}/deliveries?limit=&cursor=: the subscription's deliveries, newest
-- first, with their state, tries and the last answer.
create or replace function api.webhook_deliveries(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
  v_page record := app.page_parameters(p_args, 'number');
  v_id uuid := app.id_parameter(p_args, 'id');
begin
  if not exists (select from app.webhook_subscriptions as s where s.user_id = v_user_id and s.id = v_id) then
    perform app.raise_error(404, 'webhook_not_found', 'No such webhook.');
  end if;
  return app.page(app.webhook_deliveries(v_user_id, v_id, v_page.cursor_number, v_page.page_size), v_page.page_size);
end
$$;
