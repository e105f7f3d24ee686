-- Onboarding: the first profile, body stats, goal, targets and health metrics.

-- POST /onboarding/complete: profile, body-stats entry, goal, target snapshot and health
-- metrics in this one transaction, so the metrics exist the moment it commits. The goal
-- row is written first: of concurrent onboardings of one user exactly one succeeds.
create or replace function api.onboarding_complete(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
  v_body jsonb := coalesce(p_body, '{}');
  v_recorded jsonb;
begin
  if exists (select from app.goals as g where g.user_id = v_user_id) then
    perform app.raise_error(409, 'onboarding_already_completed', 'Onboarding was already completed.');
  end if;
  perform app.raise_if_invalid(
    app.profile_problems(v_body) || app.goal_problems(v_body) || app.body_metric_problems(v_body, true));

  if not app.save_goal(v_user_id, app.read_text(v_body, 'goal_type'), app.read_number(v_body, 'goal_rate_per_week'), false) then
    perform app.raise_error(409, 'onboarding_already_completed', 'Onboarding was already completed.');
  end if;
  perform app.save_profile(v_user_id, v_body);
  perform app.add_body_metric(v_user_id, v_body);
  v_recorded := app.record_targets(v_user_id, 'onboarding');

  return jsonb_build_object(
    'profile', app.profile_json(v_user_id),
    'goals', app.goal_json(v_user_id),
    'snapshot', v_recorded -> 'snapshot',
    'metrics', v_recorded -> 'metrics');
end
$$;
