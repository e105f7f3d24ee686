-- /sync/*: the change feed (docs/sync.md).

-- GET /sync/changes?cursor=&limit=: the user's changes after the cursor, in the order they
-- committed; without a cursor, the user's current state. A cursor this feed never gave out
-- is a 400; one older than the tombstones kept (app.sync_tombstone_retention) is a 410
-- cursor_expired: the client starts over without a cursor.
create or replace function api.sync_changes(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
  v_page record := app.page_parameters(p_args, 'number', 100, 500);
  v_state app.sync_state;
begin
  select s.* into v_state from app.sync_state as s where s.user_id = v_user_id;
  if v_page.cursor_number > coalesce(v_state.last_seq, 0) then
    perform app.raise_unknown_cursor();
  end if;
  if v_page.cursor_number < v_state.pruned_seq then
    perform app.raise_error(410, 'cursor_expired',
      'Changes after this cursor are no longer kept: start again without a cursor.');
  end if;
  return app.sync_page(v_user_id, coalesce(v_page.cursor_number, 0), v_page.page_size);
end
$$;
