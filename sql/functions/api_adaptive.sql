-- Adaptive targets: the expenditure estimate and target snapshots from it (app_adaptive.sql).

-- GET /adaptive/expenditure
create or replace function api.adaptive_expenditure(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
begin
  return app.expenditure_estimate(v_user_id);
end
$$;

-- POST /adaptive/recalculate: a new target snapshot from the estimate → 201
-- {snapshot, expenditure}; 409 insufficient_data while the estimate has too little data.
create or replace function api.adaptive_recalculate(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
  v_estimate jsonb := app.expenditure_estimate(v_user_id);
begin
  return jsonb_build_object('snapshot', app.snapshot_json(app.record_adaptive_targets(v_user_id, v_estimate)),
                            'expenditure', v_estimate);
end
$$;
