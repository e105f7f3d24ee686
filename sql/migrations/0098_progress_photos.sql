-- Progress photos (docs/photos.md): an image a person took of themselves on a day, in a pose,
-- perhaps beside a measurement, kept in PostgreSQL so that a backup, row-level security and
-- account deletion cover it as they cover every other row of the person's.

create domain app.photo_pose as text check (value in ('front', 'side', 'back', 'other'));
comment on domain app.photo_pose is 'must be one of front, side, back, other';
create domain app.photo_media_type as text
  check (value in ('image/jpeg', 'image/png', 'image/heic', 'image/webp'));
comment on domain app.photo_media_type is 'must be one of image/jpeg, image/png, image/heic, image/webp';

-- What a photo is: lists read this table only, never the bytes beside it.
create table app.progress_photos (
  user_id        uuid not null references auth.users (id) on delete cascade,
  id             bigint generated always as identity,
  client_id      uuid,
  taken_on       date not null,
  pose           app.photo_pose not null,
  measurement_id bigint,
  content_type   app.photo_media_type not null,
  byte_size      integer not null check (byte_size > 0),
  -- The hex SHA-256 of the bytes as stored (after the location was removed): the image's
  -- ETag, which never changes, since an image is never replaced under its id.
  sha256         text not null check (sha256 ~ '^[0-9a-f]{64}$'),
  created_at     timestamptz not null default now(),
  updated_at     timestamptz,
  primary key (user_id, id),
  -- A measurement deleted later leaves the photo, unlinked.
  foreign key (user_id, measurement_id) references app.body_measurements (user_id, id)
    on delete set null (measurement_id)
);
comment on table app.progress_photos is
  'Progress photos: day, pose, optional measurement, media type, size and hash of the image (docs/photos.md)';
create unique index progress_photos_client_key on app.progress_photos (user_id, client_id);
-- The list, newest day first; byte_size included so the quota's sum reads the index alone.
create index progress_photos_taken_idx on app.progress_photos (user_id, taken_on desc, id desc) include (byte_size);
alter table app.progress_photos enable row level security;
alter table app.progress_photos force row level security;
create policy own_rows on app.progress_photos using (user_id = (select app.current_user_id()))
  with check (user_id = (select app.current_user_id()));

-- The image itself, one row per photo, apart from its description so that no list or change
-- feed ever reads a byte of it. Stored as it came (minus its location): JPEG, HEIC and WebP
-- are compressed already, and compressing them again would cost CPU for nothing.
create table app.progress_photo_images (
  user_id  uuid not null,
  photo_id bigint not null,
  bytes    bytea not null,
  primary key (user_id, photo_id),
  foreign key (user_id, photo_id) references app.progress_photos (user_id, id) on delete cascade
);
comment on table app.progress_photo_images is 'The bytes of each progress photo (docs/photos.md)';
alter table app.progress_photo_images alter column bytes set storage external;
alter table app.progress_photo_images enable row level security;
alter table app.progress_photo_images force row level security;
create policy own_rows on app.progress_photo_images using (user_id = (select app.current_user_id()))
  with check (user_id = (select app.current_user_id()));
-- An image is never changed under its id (its hash is its ETag for good): new bytes are a new photo.
revoke update on app.progress_photo_images from liftbase_api;
