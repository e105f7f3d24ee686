-- Progress photos (docs/photos.md): the limits, the checks of an upload and of a change, a
-- photo's JSON, and what an archive of them holds. The bytes pass through the HTTP layer
-- untouched; what they may be (format, size, the account's quota) is decided here.

-- The largest image one upload may hold and the most all of an account's images may hold,
-- in bytes: the database settings liftbase.photo_max_bytes and liftbase.photo_quota_bytes
-- (docs/photos.md), else 10 MiB and 1 GiB. A phone's photo is 2–5 MB as JPEG or HEIC;
-- 10 MiB takes a 48-megapixel one, and 1 GiB some 300 photos, several a week for a year or
-- two. A setting that is not a whole number stops `liftbase serve` at start (config_file_error).
create or replace function app.photo_limits(out max_bytes bigint, out quota_bytes bigint)
language plpgsql
stable
as $$
declare
  v_max text := nullif(current_setting('liftbase.photo_max_bytes', true), '');
  v_quota text := nullif(current_setting('liftbase.photo_quota_bytes', true), '');
begin
  if v_max !~ '^[0-9]{1,12}$' or v_quota !~ '^[0-9]{1,15}$' then
    raise exception 'liftbase.photo_max_bytes and liftbase.photo_quota_bytes must be whole numbers of bytes'
      using errcode = 'config_file_error';
  end if;
  max_bytes := coalesce(v_max::bigint, 10 * 1024 * 1024);
  quota_bytes := coalesce(v_quota::bigint, 1024 * 1024 * 1024);
end
$$;

-- The rules of what a photo shows, wherever it is named (an upload's query, a change's body):
-- its day may not be after the account's today, and a measurement named (p_measurement_named)
-- must be one of the account's (p_measurement_id null: named, but not as an id). The problems
-- by member, null where there is none.
create or replace function app.photo_detail_problems(p_user_id uuid, p_taken_on date, p_measurement_named boolean,
                                                     p_measurement_id bigint)
returns jsonb
language plpgsql
stable
as $$
begin
  return jsonb_build_object(
    'taken_on', case when p_taken_on > app.user_today(p_user_id) then 'may not be after today' end,
    'measurement_id', case when p_measurement_named
                            and not exists (select from app.body_measurements as m
                                             where m.user_id = p_user_id and m.id = p_measurement_id)
                           then 'must be the id of one of your measurements' end);
end
$$;

-- The metadata an upload names in its query (taken_on, pose, measurement_id, client_id): a
-- 400 naming the first one that is wrong (app.photo_detail_problems for the day and the
-- measurement). taken_on defaults to the account's today, pose to front.
create or replace function app.check_photo_parameters(p_user_id uuid, p_args jsonb)
returns void
language plpgsql
stable
as $$
declare
  v_details jsonb := app.photo_detail_problems(p_user_id, app.date_parameter(p_args, 'taken_on'), p_args ? 'measurement_id',
                                               app.number_id_parameter(p_args, 'measurement_id'));
  v_problem text;
begin
  if v_details ->> 'taken_on' is not null then
    perform app.raise_parameter_problem('taken_on', v_details ->> 'taken_on');
  end if;
  v_problem := app.field_problem(jsonb_build_object('pose', p_args ->> 'pose'), 'pose', 'app.photo_pose', false);
  if v_problem is not null then
    perform app.raise_parameter_problem('pose', v_problem);
  end if;
  if p_args ->> 'client_id' is not null and not app.is_uuid(p_args ->> 'client_id') then
    perform app.raise_parameter_problem('client_id', 'must be a UUID');
  end if;
  if v_details ->> 'measurement_id' is not null then
    perform app.raise_parameter_problem('measurement_id', v_details ->> 'measurement_id');
  end if;
end
$$;

-- The image format a Content-Type names, by the names clients really send: image/jpg and
-- image/pjpeg are JPEG, image/heif (Android's name for its HEIC photos) is HEIC, image/x-png is
-- PNG. No Content-Type, or application/octet-stream (a client that does not know), names none:
-- null, and the bytes alone decide.
create or replace function app.declared_image_format(p_content_type text)
returns text
language sql
immutable
as $$
  select case when p_content_type in ('image/jpg', 'image/pjpeg') then 'image/jpeg'
              when p_content_type = 'image/heif' then 'image/heic'
              when p_content_type = 'image/x-png' then 'image/png'
              when p_content_type = 'application/octet-stream' then null
              else p_content_type end
$$;

-- What an upload's bytes are, checked before anything is written: an image of one of the
-- four formats by its own first bytes (415 when it is none), not another format than its
-- Content-Type names (415 when the two differ: a name says nothing of what a file is, but a
-- client that names one format and sends another has mixed up its files), within the size
-- limit (413) and within what is left of the account's quota (413). The quota is counted
-- under the account's photo lock, so two uploads at once cannot both take its last room.
create or replace function app.check_photo_upload(p_user_id uuid, p_image bytea, p_declared_type text)
returns text
language plpgsql
as $$
declare
  v_format text := app.image_format(p_image);
  v_limits record := app.photo_limits();
  v_used bigint;
begin
  if v_format is null then
    perform app.raise_error(415, 'unsupported_image',
      'The body is not a JPEG, PNG, HEIC or WebP image.');
  end if;
  if app.declared_image_format(p_declared_type) <> v_format then
    perform app.raise_error_with(415, 'content_type_mismatch',
      format('The body is a %s image, but its Content-Type says %s.', upper(split_part(v_format, '/', 2)),
             p_declared_type),
      jsonb_build_object('detected_type', v_format));
  end if;
  if length(p_image) > v_limits.max_bytes then
    perform app.raise_error_with(413, 'photo_too_large',
      format('A photo may hold at most %s bytes; this one holds %s.', v_limits.max_bytes, length(p_image)),
      jsonb_build_object('max_bytes', v_limits.max_bytes));
  end if;
  perform app.lock_photos(p_user_id);
  select coalesce(sum(p.byte_size), 0) into v_used from app.progress_photos as p where p.user_id = p_user_id;
  if v_used + length(p_image) > v_limits.quota_bytes then
    perform app.raise_error_with(413, 'photo_quota_exceeded',
      format('Your photos may hold %s bytes in all; %s are used. Delete some to make room.',
             v_limits.quota_bytes, v_used),
      jsonb_build_object('quota_bytes', v_limits.quota_bytes, 'used_bytes', v_used));
  end if;
  return v_format;
end
$$;

-- Serializes an account's uploads for the quota check (a transaction-level advisory lock).
create or replace function app.lock_photos(p_user_id uuid)
returns void
language sql
as $$ select pg_advisory_xact_lock(hashtextextended('liftbase.photos:' || p_user_id::text, 0)) $$;

-- Problems with the body of PATCH /progress-photos/{id}: taken_on (not after today), pose,
-- measurement_id (one of the account's, or null to unlink).
create or replace function app.photo_change_problems(p_user_id uuid, p_body jsonb)
returns jsonb
language plpgsql
stable
as $$
declare
  v_taken_on_problem text := app.field_problem(p_body, 'taken_on', 'app.calendar_date', p_body ? 'taken_on');
  -- A member of null unlinks; anything else must name one of the account's measurements.
  v_measurement_named boolean := coalesce(jsonb_typeof(p_body -> 'measurement_id') <> 'null', false);
  v_details jsonb;
begin
  v_details := app.photo_detail_problems(
    p_user_id, case when v_taken_on_problem is null then app.read_date(p_body, 'taken_on') end, v_measurement_named,
    case when jsonb_typeof(p_body -> 'measurement_id') = 'number' then app.number_id_parameter(p_body, 'measurement_id') end);
  return jsonb_build_object(
    'taken_on', coalesce(v_taken_on_problem, v_details ->> 'taken_on'),
    'pose', app.field_problem(p_body, 'pose', 'app.photo_pose', p_body ? 'pose'),
    'measurement_id', v_details ->> 'measurement_id');
end
$$;

-- The user's photo {id} of the path, or 404 photo_not_found.
create or replace function app.find_photo(p_user_id uuid, p_args jsonb)
returns app.progress_photos
language plpgsql
stable
as $$
declare
  v_photo app.progress_photos;
begin
  select p.* into v_photo from app.progress_photos as p
   where p.user_id = p_user_id and p.id = app.number_id_parameter(p_args, 'id');
  if v_photo.id is null then
    perform app.raise_error(404, 'photo_not_found', 'No such photo.');
  end if;
  return v_photo;
end
$$;

-- A photo as the API shows it; image_url is where its bytes are fetched.
create or replace function app.photo_json(p_photo app.progress_photos)
returns jsonb
language sql
immutable
as $$
  select jsonb_build_object('id', p_photo.id, 'taken_on', p_photo.taken_on, 'pose', p_photo.pose,
                            'measurement_id', p_photo.measurement_id, 'content_type', p_photo.content_type,
                            'byte_size', p_photo.byte_size, 'sha256', p_photo.sha256,
                            'image_url', '/api/v1/progress-photos/' || p_photo.id || '/image',
                            'created_at', p_photo.created_at, 'updated_at', p_photo.updated_at)
$$;

-- The file name a photo has in an archive: its day, pose and id, and the extension of its
-- format, so that the files sort by day and never collide.
create or replace function app.photo_file_name(p_photo app.progress_photos)
returns text
language sql
immutable
as $$
  select format('%s_%s_%s.%s', p_photo.taken_on, p_photo.pose, p_photo.id,
                case p_photo.content_type when 'image/jpeg' then 'jpg' when 'image/png' then 'png'
                                          when 'image/heic' then 'heic' else 'webp' end)
$$;

-- The files of an archive of the account's photos (GET /progress-photos/archive, `liftbase
-- photos archive`): first progress-photos.json, the list of the photos with the file each
-- is in, then each image, oldest day first. One SELECT in a SQL function, which PostgreSQL
-- inlines into the statement that reads it: the API function gathers its rows once (so that
-- an error comes before the archive's first byte), not twice.
create or replace function app.photo_archive_files(p_user_id uuid)
returns table (file_name text, modified_at timestamptz, content bytea)
language sql
stable
as $$
  select f.file_name, f.modified_at, f.content
    from (select 0 as part, null::date as taken_on, null::bigint as id, 'progress-photos.json' as file_name,
                 now() as modified_at,
                 convert_to(coalesce(jsonb_agg(app.photo_json(row(p.*)::app.progress_photos) || jsonb_build_object(
                                                 'file', app.photo_file_name(row(p.*)::app.progress_photos))
                                               order by p.taken_on, p.id), '[]')::text, 'UTF8') as content
            from app.progress_photos as p
           where p.user_id = p_user_id
          union all
          select 1, p.taken_on, p.id, app.photo_file_name(row(p.*)::app.progress_photos), p.created_at, i.bytes
            from app.progress_photos as p
            join app.progress_photo_images as i on i.user_id = p.user_id and i.photo_id = p.id
           where p.user_id = p_user_id) as f
   order by f.part, f.taken_on, f.id
$$;
-- On Citus: the same query in PL/pgSQL (liftbase_meta.on_citus_as_plpgsql says why).
select liftbase_meta.on_citus_as_plpgsql('app.photo_archive_files(uuid)');

grant execute on function
  app.photo_limits(),
  app.photo_detail_problems(uuid, date, boolean, bigint),
  app.declared_image_format(text),
  app.check_photo_parameters(uuid, jsonb),
  app.check_photo_upload(uuid, bytea, text),
  app.lock_photos(uuid),
  app.photo_change_problems(uuid, jsonb),
  app.find_photo(uuid, jsonb),
  app.photo_json(app.progress_photos),
  app.photo_file_name(app.progress_photos),
  app.photo_archive_files(uuid)
to liftbase_api;
