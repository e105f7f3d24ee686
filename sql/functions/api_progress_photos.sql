-- Progress photos (docs/photos.md): upload, list, describe, change, delete, the image itself
-- and an archive of them all. The HTTP layer hands an upload's bytes over as they came and
-- writes an image's bytes out as they are stored; every rule is in app_photos.sql.

-- POST /progress-photos?taken_on=&pose=&measurement_id=&client_id=, the image as the body
-- (its Content-Type reaches SQL as the argument content_type). The image is stored without
-- its location (app.image_without_location); its hash, size and format are kept beside it.
-- A repeated client_id answers the photo it made (a retried upload stores nothing twice).
create or replace function api.progress_photo_upload(p_token text, p_image bytea, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
  v_photo app.progress_photos;
  v_format text;
  v_bytes bytea;
  v_replayed text;
  -- Read before the insert: Citus takes no call of a stable function in the values of a
  -- write sent to the user's worker.
  v_taken_on date;
  v_pose text := coalesce(p_args ->> 'pose', 'front');
  v_client_id uuid;
  v_measurement_id bigint;
  v_size integer;
  v_sha256 text;
begin
  perform app.check_photo_parameters(v_user_id, p_args);
  -- A retry sends the image again, as the first try did: a request without one is refused
  -- before the retry is recognized.
  if coalesce(length(p_image), 0) = 0 then
    perform app.raise_error(415, 'unsupported_image', 'The body is not a JPEG, PNG, HEIC or WebP image.');
  end if;
  v_replayed := app.replayed_key('app.progress_photos', v_user_id, p_args);
  if v_replayed is not null then
    perform app.set_entity_etag(v_user_id, 'progress_photo', v_replayed);
    return app.photo_json(app.find_photo(v_user_id, jsonb_build_object('id', v_replayed)));
  end if;
  v_format := app.check_photo_upload(v_user_id, p_image, p_args ->> 'content_type');
  v_bytes := app.image_without_location(p_image, v_format);
  v_taken_on := coalesce(app.date_parameter(p_args, 'taken_on'), app.user_today(v_user_id));
  v_client_id := app.read_uuid(p_args, 'client_id');
  v_measurement_id := app.number_id_parameter(p_args, 'measurement_id');
  v_size := length(v_bytes);
  v_sha256 := encode(sha256(v_bytes), 'hex');
  insert into app.progress_photos (user_id, client_id, taken_on, pose, measurement_id, content_type, byte_size, sha256)
  values (v_user_id, v_client_id, v_taken_on, v_pose, v_measurement_id, v_format, v_size, v_sha256)
  returning * into v_photo;
  insert into app.progress_photo_images (user_id, photo_id, bytes) values (v_user_id, v_photo.id, v_bytes);
  perform app.set_entity_etag(v_user_id, 'progress_photo', v_photo.id::text);
  return app.photo_json(v_photo);
end
$$;

-- GET /progress-photos?from=&to=&pose=&limit=&cursor=: photos newest day first, of one pose
-- or all, within the days given; one index range that stops at the page.
create or replace function api.progress_photos_list(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
  v_page record := app.page_parameters(p_args, 'number');
  v_from date := coalesce(app.date_parameter(p_args, 'from'), '-infinity');
  v_to date := coalesce(app.date_parameter(p_args, 'to'), 'infinity');
  v_pose text := p_args ->> 'pose';
  v_problem text;
  -- Before the cursor's photo; without one, before every photo.
  v_after_on date := 'infinity';
  v_after_id bigint := 0;
  v_rows jsonb;
begin
  v_problem := app.field_problem(jsonb_build_object('pose', v_pose), 'pose', 'app.photo_pose', false);
  if v_problem is not null then
    perform app.raise_parameter_problem('pose', v_problem);
  end if;
  if v_page.cursor_number is not null then
    select c.taken_on, c.id into v_after_on, v_after_id from app.progress_photos as c
     where c.user_id = v_user_id and c.id = v_page.cursor_number;
    if not found then
      perform app.raise_unknown_cursor();
    end if;
  end if;
  select jsonb_agg(app.photo_json(row(p.*)::app.progress_photos) order by p.taken_on desc, p.id desc) into v_rows
    from (select * from app.progress_photos as e
           where e.user_id = v_user_id and (e.taken_on, e.id) < (v_after_on, v_after_id)
             and e.taken_on between v_from and v_to and (v_pose is null or e.pose = v_pose)
           order by e.taken_on desc, e.id desc
           limit v_page.page_size + 1) as p;
  return app.page(coalesce(v_rows, '[]'), v_page.page_size);
end
$$;

-- GET /progress-photos/{id}: what the photo is, with its version as ETag.
create or replace function api.progress_photo_get(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
  v_photo app.progress_photos := app.find_photo(v_user_id, p_args);
begin
  if app.entity_not_modified(v_user_id, 'progress_photo', v_photo.id::text, p_args) then
    return null;
  end if;
  return app.photo_json(v_photo);
end
$$;

-- GET /progress-photos/{id}/image: the image's bytes, with its hash as ETag. An image never
-- changes under its id, so a client may keep it for good (Cache-Control immutable); it is
-- private to its owner, so no shared cache may keep it. The photo and its bytes are read in
-- one statement: a photo deleted meanwhile is a 404, never an empty image.
create or replace function api.progress_photo_image(p_token text, p_body jsonb, p_args jsonb)
returns bytea
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
  v_found record;
  v_photo app.progress_photos;
begin
  select p as photo, i.bytes into v_found
    from app.progress_photos as p
    join app.progress_photo_images as i on i.user_id = p.user_id and i.photo_id = p.id
   where p.user_id = v_user_id and p.id = app.number_id_parameter(p_args, 'id');
  if not found then
    perform app.raise_error(404, 'photo_not_found', 'No such photo.');
  end if;
  v_photo := v_found.photo;
  perform app.set_response_header('Cache-Control', 'private, max-age=31536000, immutable');
  if app.not_modified(p_args, app.etag(v_photo.sha256)) then
    return null;
  end if;
  perform app.set_response_header('Content-Type', v_photo.content_type);
  perform app.set_response_header('Content-Disposition',
                                  format('inline; filename="%s"', app.photo_file_name(v_photo)));
  return v_found.bytes;
end
$$;

-- PATCH /progress-photos/{id} {taken_on?, pose?, measurement_id?}: what the photo shows is
-- corrected; its image is never replaced (upload a new photo instead).
create or replace function api.progress_photo_update(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
  v_photo app.progress_photos := app.find_photo(v_user_id, p_args);
  v_body jsonb := coalesce(p_body, '{}');
  -- Read before the update: Citus takes no call of a stable function inside a write.
  v_taken_on date;
  v_pose text;
  v_measurement_id bigint;
begin
  perform app.check_if_match(v_user_id, 'progress_photo', v_photo.id::text, p_args);
  perform app.raise_if_invalid(app.photo_change_problems(v_user_id, v_body));
  v_taken_on := app.read_date(v_body, 'taken_on');
  v_pose := app.read_text(v_body, 'pose');
  v_measurement_id := app.number_id_parameter(v_body, 'measurement_id');
  update app.progress_photos
     set taken_on = coalesce(v_taken_on, taken_on),
         pose = coalesce(v_pose, pose),
         measurement_id = case when v_body ? 'measurement_id' then v_measurement_id else measurement_id end,
         updated_at = now()
   where user_id = v_user_id and id = v_photo.id
  returning * into v_photo;
  perform app.set_entity_etag(v_user_id, 'progress_photo', v_photo.id::text);
  return app.photo_json(v_photo);
end
$$;

-- DELETE /progress-photos/{id}: the photo and its image; their room returns to the quota.
create or replace function api.progress_photo_delete(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
  v_photo app.progress_photos := app.find_photo(v_user_id, p_args);
begin
  perform app.check_if_match(v_user_id, 'progress_photo', v_photo.id::text, p_args);
  delete from app.progress_photos where user_id = v_user_id and id = v_photo.id;
  return null;
end
$$;

-- GET /progress-photos/archive: every photo of the account as the files of a tar archive,
-- which the HTTP layer writes (app.photo_archive_files). The JSON export lists the photos;
-- their bytes leave here, so the export stays within what an import takes.
create or replace function api.progress_photos_archive(p_token text, p_body jsonb, p_args jsonb)
returns table (file_name text, modified_at timestamptz, content bytea)
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
begin
  return query select * from app.photo_archive_files(v_user_id);
end
$$;
