-- Progress photos (docs/photos.md): the format judged by the bytes, the size limit and the
-- account's quota (operator settings), the metadata an upload names, a measurement that
-- goes away leaving the photo, the change feed, the export's list, and replays.
begin;
\ir support/helpers.psql
select plan(27);

select pg_temp.sign_up('a', 'photos-a@example.com', 'photos a password');
select pg_temp.sign_up('b', 'photos-b@example.com', 'photos b password');

-- An upload as the HTTP layer makes it: the body's bytes, and the arguments with the
-- Content-Type the body came with.
create function pg_temp.upload(p_token_name text, p_bytes bytea, p_args jsonb default '{}')
returns jsonb language plpgsql as $$
begin
  perform set_config('liftbase.user_id', '', true);
  perform set_config('liftbase.response_status', '', true);
  perform set_config('liftbase.sync_last', '', true);
  perform set_config('liftbase.sync_statement', '', true);
  return api.progress_photo_upload((select token from tokens where name = p_token_name), p_bytes,
                                   jsonb_build_object('content_type', 'image/png') || p_args);
end $$;
-- A PNG of p_size bytes: its signature and filler (the format is all that is judged).
create function pg_temp.png(p_size integer) returns bytea language sql as $$
  select '\x89504e470d0a1a0a'::bytea || decode(repeat('07', p_size - 8), 'hex') $$;
grant execute on function pg_temp.upload(text, bytea, jsonb), pg_temp.png(integer)
  to liftbase_api;
set local role liftbase_api;

-- The same upload when it is expected to fail: {"state": SQLSTATE} and the error's DETAIL.
create function pg_temp.upload_error(p_token_name text, p_bytes bytea, p_args jsonb default '{}')
returns jsonb language plpgsql as $$
declare
  v_state text;
  v_detail text;
begin
  perform set_config('liftbase.user_id', '', true);
  perform api.progress_photo_upload((select token from tokens where name = p_token_name), p_bytes,
                                    jsonb_build_object('content_type', 'image/png') || p_args);
  return null;
exception when others then
  get stacked diagnostics v_state = returned_sqlstate, v_detail = pg_exception_detail;
  return jsonb_build_object('state', v_state) || coalesce(nullif(v_detail, '')::jsonb, '{}');
end $$;

-- Format ----------------------------------------------------------------------------------------
select is(pg_temp.upload_error('a', convert_to('just text', 'UTF8')) ->> 'code', 'unsupported_image',
  'bytes of no image format are refused');
select is(pg_temp.upload_error('a', pg_temp.png(100), '{"content_type": "image/webp"}') ->> 'code',
  'content_type_mismatch', 'a PNG that says it is WebP is refused');
select is(pg_temp.upload_error('a', pg_temp.png(100), '{"content_type": "image/webp"}') ->> 'detected_type',
  'image/png', 'naming what it is');
select is(pg_temp.upload_error('a', pg_temp.png(100), '{"content_type": "image/jpg"}') ->> 'code',
  'content_type_mismatch', 'and one that says image/jpg, a name clients give JPEG');

-- Metadata --------------------------------------------------------------------------------------
select is(pg_temp.upload_error('a', pg_temp.png(100), '{"pose": "sideways"}') -> 'fields' ->> 'pose',
  'must be one of front, side, back, other', 'a pose of the four');
select is(pg_temp.upload_error('a', pg_temp.png(100), '{"taken_on": "2999-01-01"}') -> 'fields' ->> 'taken_on',
  'may not be after today', 'a photo of a day to come is refused');
create temporary table b_waist as select pg_temp.call('measurement_create', 'b', '{"measure": "waist", "value": 80}') as entry;
select is(pg_temp.upload_error('a', pg_temp.png(100),
            jsonb_build_object('measurement_id', (select entry -> 'id' from b_waist))) ->> 'code',
  'invalid_parameter', 'another account''s measurement is not one of yours');
select is(pg_temp.rows_of('app.progress_photos', (select user_id from tokens where name = 'a')), 0::bigint, 'nothing refused was stored');

create temporary table p (key text primary key, photo jsonb);
insert into p select 'waist', pg_temp.call('measurement_create', 'a', '{"measure": "waist", "value": 81}');
insert into p select 'first', pg_temp.upload('a', pg_temp.png(100),
  jsonb_build_object('taken_on', '2024-02-03', 'pose', 'back',
                     'measurement_id', (select photo ->> 'id' from p where key = 'waist')));
select is((select photo - 'created_at' - 'sha256' - 'id' - 'image_url' - 'measurement_id' from p where key = 'first'),
  '{"pose": "back", "taken_on": "2024-02-03", "byte_size": 100, "updated_at": null, "content_type": "image/png"}',
  'the photo as stored');
select is((select photo ->> 'sha256' from p where key = 'first'), encode(sha256(pg_temp.png(100)), 'hex'),
  'its hash is of its bytes');
select is((select length(bytes) from app.progress_photo_images), 100, 'the bytes sit beside it');
select is((select photo ->> 'measurement_id' from p where key = 'first'), (select photo ->> 'id' from p where key = 'waist'),
  'linked to the measurement');
select pg_temp.call('measurement_delete', 'a', null, jsonb_build_object('id', (select photo ->> 'id' from p where key = 'waist')));
select is(pg_temp.call('progress_photo_get', 'a', null, jsonb_build_object('id', (select photo ->> 'id' from p where key = 'first')))
            ->> 'measurement_id', null, 'a deleted measurement leaves the photo, unlinked');
select is(pg_temp.error_of('progress_photo_get', 'b', null, jsonb_build_object('id', (select photo ->> 'id' from p where key = 'first')))
            ->> 'code', 'photo_not_found', 'another account sees no such photo');

-- A change names its details in the body, under the same rules as an upload's query.
select is(pg_temp.error_of('progress_photo_update', 'a', '{"taken_on": "2999-01-01", "measurement_id": "12"}',
                           jsonb_build_object('id', (select photo ->> 'id' from p where key = 'first'))) -> 'fields',
  '{"taken_on": "may not be after today", "measurement_id": "must be the id of one of your measurements"}',
  'a change to a day to come, or to a measurement named as text, is refused');
select is(pg_temp.error_of('progress_photo_update', 'a',
                           jsonb_build_object('measurement_id', (select entry -> 'id' from b_waist)),
                           jsonb_build_object('id', (select photo ->> 'id' from p where key = 'first')))
            -> 'fields' ->> 'measurement_id',
  'must be the id of one of your measurements', 'so is another account''s measurement');
select is(pg_temp.call('progress_photo_update', 'a', '{"pose": "side", "measurement_id": null}',
                       jsonb_build_object('id', (select photo ->> 'id' from p where key = 'first'))) ->> 'pose',
  'side', 'a null measurement unlinks, and the rest is changed');

-- Replays ---------------------------------------------------------------------------------------
insert into p select 'sent', pg_temp.upload('a', pg_temp.png(120), '{"client_id": "6f7c2f86-4a57-4d8c-9f43-1f7d2a3c5b10"}');
insert into p select 'resent', pg_temp.upload('a', pg_temp.png(120), '{"client_id": "6f7c2f86-4a57-4d8c-9f43-1f7d2a3c5b10"}');
select is((select photo ->> 'id' from p where key = 'resent'), (select photo ->> 'id' from p where key = 'sent'),
  'a retried upload answers the photo it made');
select is(pg_temp.rows_of('app.progress_photos', (select user_id from tokens where name = 'a')), 2::bigint, 'and stores nothing twice');

-- Limits ----------------------------------------------------------------------------------------
set local liftbase.photo_max_bytes = 150;
select is(pg_temp.upload_error('a', pg_temp.png(151)) - 'message',
  '{"state": "LB413", "code": "photo_too_large", "max_bytes": 150}', 'a photo over the size limit is refused, naming the limit');
set local liftbase.photo_quota_bytes = 300;
select is(pg_temp.upload('a', pg_temp.png(80)) ->> 'byte_size', '80', 'a photo that fits the quota (300 − 220 used)');
select is(pg_temp.upload_error('a', pg_temp.png(9)) - 'message',
  '{"state": "LB413", "code": "photo_quota_exceeded", "quota_bytes": 300, "used_bytes": 300}',
  'one more byte is over the account''s quota');
select is(pg_temp.upload('b', pg_temp.png(100)) ->> 'byte_size', '100', 'which is the account''s alone');
select pg_temp.call('progress_photo_delete', 'a', null, jsonb_build_object('id', (select photo ->> 'id' from p where key = 'first')));
select is(pg_temp.upload('a', pg_temp.png(100)) ->> 'byte_size', '100', 'a deleted photo''s room returns');
set local liftbase.photo_quota_bytes = 'a lot';
select throws_ok($$select app.photo_limits()$$, 'F0000',
  'liftbase.photo_max_bytes and liftbase.photo_quota_bytes must be whole numbers of bytes',
  'a setting that is not a number is the operator''s mistake, said');
reset liftbase.photo_quota_bytes;

-- Change feed and export ------------------------------------------------------------------------
select is((select count(*)::integer from app.sync_changes as c
            where c.user_id = (select user_id from tokens where name = 'a') and c.entity = 'progress_photo'
              and c.op = 'delete'), 1, 'a deleted photo leaves a tombstone in the change feed');
select is(jsonb_array_length(pg_temp.exported('a') -> 'progress_photos'), 3, 'the export lists the photos');

select * from finish();
rollback;
