-- Progress photos' bytes (sql/functions/app_photo_bytes.sql): the format told by the magic
-- bytes, and the location removed on upload: EXIF GPS cleared in place in JPEG, WebP and HEIC
-- (either byte order), XMP packets blanked, JPEG's IPTC zeroed, PNG's EXIF and XMP chunks and
-- what follows a JPEG's or PNG's image left out, everything else byte for byte the same; a
-- damaged file keeps no location, and a file too large to read in bounded time (thousands of
-- segments, chunks, boxes or IFDs) is refused with 422 photo_unreadable rather than stored.
-- The fixtures are built here, small and exact: a TIFF block with IFD0 (Orientation 6, GPSInfo)
-- and a GPS IFD (N 52° 31' 12.34", E 13° 24' 56.78") in the containers' own framing.
begin;
select plan(90);

-- Building blocks ---------------------------------------------------------------------------------
-- An unsigned integer of p_size bytes, little- or big-endian.
create function pg_temp.uint(p_value bigint, p_size integer, p_little boolean) returns bytea language sql as $$
  select case when p_little
           then (select string_agg(substring(b from i for 1), ''::bytea order by i desc)
                   from generate_series(1, p_size) as i)
           else b end
    from (select substring(int8send(p_value) from 9 - p_size) as b) as s
$$;
create function pg_temp.zeros(p_length integer) returns bytea language sql as $$
  select decode(repeat('00', p_length), 'hex') $$;
create function pg_temp.spaces(p_length integer) returns bytea language sql as $$
  select convert_to(repeat(' ', p_length), 'UTF8') $$;
create function pg_temp.ascii(p_text text) returns bytea language sql as $$ select convert_to(p_text, 'UTF8') $$;

-- A TIFF IFD entry: tag, type, count and the 4-byte value field.
create function pg_temp.entry(p_little boolean, p_tag integer, p_type integer, p_count integer, p_value bytea)
returns bytea language sql as $$
  select pg_temp.uint(p_tag, 2, p_little) || pg_temp.uint(p_type, 2, p_little) || pg_temp.uint(p_count, 4, p_little)
         || p_value
$$;
create function pg_temp.orientation(p_little boolean) returns bytea language sql as $$
  select pg_temp.entry(p_little, 274, 3, 1, pg_temp.uint(6, 2, p_little) || pg_temp.zeros(2)) $$;  -- 0x0112 SHORT 6
create function pg_temp.rationals(p_little boolean, variadic p_parts bigint[]) returns bytea language sql as $$
  select string_agg(pg_temp.uint(p, 4, p_little), ''::bytea order by n) from unnest(p_parts) with ordinality as u (p, n)
$$;
create function pg_temp.latitude(p_little boolean) returns bytea language sql as $$
  select pg_temp.rationals(p_little, 52, 1, 31, 1, 1234, 100) $$;
create function pg_temp.longitude(p_little boolean) returns bytea language sql as $$
  select pg_temp.rationals(p_little, 13, 1, 24, 1, 5678, 100) $$;

-- The EXIF TIFF block: header (8 bytes), IFD0 at 8 (Orientation, GPSInfo → p_gps; 30 bytes),
-- the GPS IFD at 38 (LatitudeRef, Latitude → 92, LongitudeRef, Longitude → 116; 54 bytes), the
-- latitude's three rationals at 92, the longitude's at 116: 140 bytes.
create function pg_temp.tiff(p_little boolean, p_gps bigint default 38) returns bytea language sql as $$
  select case when p_little then pg_temp.ascii('II') else pg_temp.ascii('MM') end
         || pg_temp.uint(42, 2, p_little) || pg_temp.uint(8, 4, p_little)
         || pg_temp.uint(2, 2, p_little) || pg_temp.orientation(p_little)
         || pg_temp.entry(p_little, 34853, 4, 1, pg_temp.uint(p_gps, 4, p_little)) || pg_temp.zeros(4)
         || pg_temp.uint(4, 2, p_little)
         || pg_temp.entry(p_little, 1, 2, 2, pg_temp.ascii('N') || pg_temp.zeros(3))
         || pg_temp.entry(p_little, 2, 5, 3, pg_temp.uint(92, 4, p_little))
         || pg_temp.entry(p_little, 3, 2, 2, pg_temp.ascii('E') || pg_temp.zeros(3))
         || pg_temp.entry(p_little, 4, 5, 3, pg_temp.uint(116, 4, p_little)) || pg_temp.zeros(4)
         || pg_temp.latitude(p_little) || pg_temp.longitude(p_little)
$$;
-- What stripping must make of it: the GPS IFD's count and entries and both values zeroed.
create function pg_temp.tiff_cleared(p_little boolean) returns bytea language sql as $$
  select overlay(overlay(pg_temp.tiff(p_little) placing pg_temp.zeros(50) from 39) placing pg_temp.zeros(48) from 93)
$$;
create function pg_temp.tiff_without_gps(p_little boolean) returns bytea language sql as $$
  select case when p_little then pg_temp.ascii('II') else pg_temp.ascii('MM') end
         || pg_temp.uint(42, 2, p_little) || pg_temp.uint(8, 4, p_little)
         || pg_temp.uint(1, 2, p_little) || pg_temp.orientation(p_little) || pg_temp.zeros(4)
$$;
create function pg_temp.xmp() returns bytea language sql as $$
  select pg_temp.ascii('<x:xmpmeta xmlns:x="adobe:ns:meta/">'
    || '<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">'
    || '<rdf:Description xmlns:exif="http://ns.adobe.com/exif/1.0/" exif:GPSLatitude="52,31.2057N"'
    || ' exif:GPSLongitude="13,24.9463E"/></rdf:RDF></x:xmpmeta>')
$$;

-- JPEG: SOI, segments, then the image data (SOS, scan, EOI), which must come back the same.
create function pg_temp.segment(p_marker integer, p_data bytea) returns bytea language sql as $$
  select '\xff'::bytea || pg_temp.uint(p_marker, 1, false) || pg_temp.uint(length(p_data) + 2, 2, false) || p_data $$;
create function pg_temp.jfif() returns bytea language sql as $$
  select pg_temp.segment(224, pg_temp.ascii('JFIF') || '\x000101004800480000'::bytea) $$;
create function pg_temp.exif_segment(p_tiff bytea) returns bytea language sql as $$
  select pg_temp.segment(225, pg_temp.ascii('Exif') || pg_temp.zeros(2) || p_tiff) $$;
create function pg_temp.xmp_segment(p_xmp bytea) returns bytea language sql as $$
  select pg_temp.segment(225, pg_temp.ascii('http://ns.adobe.com/xap/1.0/') || pg_temp.zeros(1) || p_xmp) $$;
create function pg_temp.jpeg_image() returns bytea language sql as $$
  select pg_temp.segment(219, '\x0010'::bytea || decode(repeat('08', 64), 'hex'))             -- DQT
         || pg_temp.segment(218, '\x03010002110311003f00'::bytea)                             -- SOS
         || '\x52494646d3a1ff0012ff00e1ff00d9aa'::bytea || '\xffd9'::bytea                    -- scan, EOI
$$;
create function pg_temp.jpeg(variadic p_segments bytea[]) returns bytea language sql as $$
  select '\xffd8'::bytea || coalesce(string_agg(s, ''::bytea order by n), ''::bytea) || pg_temp.jpeg_image()
    from unnest(p_segments) with ordinality as u (s, n)
$$;

-- WebP: RIFF chunks, padded to an even length.
create function pg_temp.chunk(p_type text, p_data bytea) returns bytea language sql as $$
  select pg_temp.ascii(p_type) || pg_temp.uint(length(p_data), 4, true) || p_data
         || case when length(p_data) % 2 = 1 then pg_temp.zeros(1) else ''::bytea end $$;
create function pg_temp.webp(p_exif bytea) returns bytea language sql as $$
  select pg_temp.ascii('RIFF') || pg_temp.uint(4 + length(c), 4, true) || pg_temp.ascii('WEBP') || c
    from (select pg_temp.chunk('VP8X', '\x0c000000ff0000ff0000'::bytea) || pg_temp.chunk('VP8 ', '\x30010000aa'::bytea)
                 || pg_temp.chunk('EXIF', p_exif) || pg_temp.chunk('XMP ', pg_temp.xmp()) as c) as s
$$;

-- PNG: chunks of length, type, data and a CRC (zeros here: the stripping reads no CRC).
create function pg_temp.png_chunk(p_type text, p_data bytea) returns bytea language sql as $$
  select pg_temp.uint(length(p_data), 4, false) || pg_temp.ascii(p_type) || p_data || pg_temp.zeros(4) $$;
create function pg_temp.png_signature() returns bytea language sql as $$ select '\x89504e470d0a1a0a'::bytea $$;
create function pg_temp.png_ihdr() returns bytea language sql as $$
  select pg_temp.png_chunk('IHDR', '\x00000001000000010806000000'::bytea) $$;
create function pg_temp.png_text() returns bytea language sql as $$
  select pg_temp.png_chunk('tEXt', pg_temp.ascii('Comment') || pg_temp.zeros(1) || pg_temp.ascii('week 12')) $$;
create function pg_temp.png_image() returns bytea language sql as $$
  select pg_temp.png_chunk('IDAT', '\x789c626001000000ffff0300'::bytea) || pg_temp.png_chunk('IEND', ''::bytea) $$;

-- HEIC: ftyp, a meta box (hdlr, iinf with an image item, an 'Exif' item and an XMP 'mime' item,
-- iloc version 0 with 4-byte offsets and lengths), then the items' bytes in mdat. With p_wide a
-- 'free' box with a 64-bit size comes before meta and mdat's size is 0 (to the end of the file).
-- p_exif_length, when given, is the length iloc gives the Exif item (0: to the end of its container).
create function pg_temp.box(p_type text, p_data bytea) returns bytea language sql as $$
  select pg_temp.uint(8 + length(p_data), 4, false) || pg_temp.ascii(p_type) || p_data $$;
create function pg_temp.infe(p_id integer, p_type text, p_rest bytea) returns bytea language sql as $$
  select pg_temp.box('infe', '\x02000000'::bytea || pg_temp.uint(p_id, 2, false) || pg_temp.zeros(2)
                             || pg_temp.ascii(p_type) || p_rest) $$;
create function pg_temp.heic(p_exif_item bytea, p_wide boolean default false, p_exif_length bigint default null)
returns bytea language plpgsql as $$
declare
  v_ftyp bytea := pg_temp.box('ftyp', pg_temp.ascii('heic') || pg_temp.zeros(4) || pg_temp.ascii('mif1heic'));
  v_free bytea := case when p_wide then pg_temp.uint(1, 4, false) || pg_temp.ascii('free') || pg_temp.uint(24, 8, false)
                                        || pg_temp.zeros(8)
                       else ''::bytea end;
  v_image bytea := '\x0000000a2601af13a0a1b2c3'::bytea;
  v_meta bytea;
  v_data bigint;
begin
  for v_pass in 1 .. 2 loop   -- the first pass measures meta, the second writes the offsets that follow from it
    v_data := length(v_ftyp) + length(v_free) + coalesce(length(v_meta), 0) + 8;
    v_meta := pg_temp.box('meta', pg_temp.zeros(4)
      || pg_temp.box('hdlr', pg_temp.zeros(8) || pg_temp.ascii('pict') || pg_temp.zeros(13))
      || pg_temp.box('iinf', pg_temp.zeros(4) || pg_temp.uint(3, 2, false)
                             || pg_temp.infe(1, 'hvc1', pg_temp.zeros(1))
                             || pg_temp.infe(2, 'Exif', pg_temp.zeros(1))
                             || pg_temp.infe(3, 'mime', pg_temp.zeros(1) || pg_temp.ascii('application/rdf+xml')
                                                        || pg_temp.zeros(1)))
      || pg_temp.box('iloc', pg_temp.zeros(4) || '\x4400'::bytea || pg_temp.uint(3, 2, false)
           || pg_temp.uint(1, 2, false) || pg_temp.zeros(2) || pg_temp.uint(1, 2, false)
           || pg_temp.uint(v_data, 4, false) || pg_temp.uint(length(v_image), 4, false)
           || pg_temp.uint(2, 2, false) || pg_temp.zeros(2) || pg_temp.uint(1, 2, false)
           || pg_temp.uint(v_data + length(v_image), 4, false)
           || pg_temp.uint(coalesce(p_exif_length, length(p_exif_item)), 4, false)
           || pg_temp.uint(3, 2, false) || pg_temp.zeros(2) || pg_temp.uint(1, 2, false)
           || pg_temp.uint(v_data + length(v_image) + length(p_exif_item), 4, false)
           || pg_temp.uint(length(pg_temp.xmp()), 4, false)));
  end loop;
  return v_ftyp || v_free || v_meta
         || case when p_wide then pg_temp.zeros(4) || pg_temp.ascii('mdat')
                 else pg_temp.uint(8 + length(v_image) + length(p_exif_item) + length(pg_temp.xmp()), 4, false)
                      || pg_temp.ascii('mdat') end
         || v_image || p_exif_item || pg_temp.xmp();
end
$$;
-- An Exif item: the offset to the TIFF header (after 'Exif\0\0'), then the block.
create function pg_temp.exif_item(p_tiff bytea) returns bytea language sql as $$
  select pg_temp.uint(6, 4, false) || pg_temp.ascii('Exif') || pg_temp.zeros(2) || p_tiff $$;

-- JPEG's extended XMP: the rest of a packet too large for one segment, after its namespace, a
-- GUID, the full length and this part's offset.
create function pg_temp.extended_xmp_data() returns bytea language sql as $$
  select pg_temp.ascii(repeat('0123456789ABCDEF', 2)) || pg_temp.uint(length(pg_temp.xmp()), 4, false)
         || pg_temp.zeros(4) || pg_temp.xmp() $$;
create function pg_temp.extended_xmp_segment(p_data bytea) returns bytea language sql as $$
  select pg_temp.segment(225, pg_temp.ascii('http://ns.adobe.com/xmp/extension/') || pg_temp.zeros(1) || p_data) $$;
-- JPEG's APP13: Photoshop's resources, one IPTC block (resource 0x0404) with the city (2:90).
create function pg_temp.photoshop_iptc() returns bytea language sql as $$
  select pg_temp.ascii('Photoshop 3.0') || pg_temp.zeros(1) || pg_temp.ascii('8BIM') || '\x0404'::bytea
         || pg_temp.zeros(2) || pg_temp.uint(11, 4, false) || '\x1c025a0006'::bytea || pg_temp.ascii('Berlin')
         || pg_temp.zeros(1) $$;
-- A TIFF block whose IFD0 has the orientation and p_count GPSInfo tags, each pointing to a GPS
-- IFD of its own (LatitudeRef, Latitude) with its latitude after it.
create function pg_temp.tiff_many_gps(p_count integer) returns bytea language sql as $$
  select pg_temp.ascii('II') || pg_temp.uint(42, 2, true) || pg_temp.uint(8, 4, true)
         || pg_temp.uint(1 + p_count, 2, true) || pg_temp.orientation(true)
         || string_agg(pg_temp.entry(true, 34853, 4, 1, pg_temp.uint(g.at, 4, true)), ''::bytea order by g.k)
         || pg_temp.zeros(4)
         || string_agg(pg_temp.uint(2, 2, true) || pg_temp.entry(true, 1, 2, 2, pg_temp.ascii('N') || pg_temp.zeros(3))
                       || pg_temp.entry(true, 2, 5, 3, pg_temp.uint(g.at + 30, 4, true)) || pg_temp.zeros(4)
                       || pg_temp.latitude(true), ''::bytea order by g.k)
    from (select k, 8 + 2 + 12 * (1 + p_count) + 4 + 54 * k as at from generate_series(0, p_count - 1) as k) as g
$$;
-- What a photo keeps of its location: its latitude or longitude in either byte order, XMP's
-- GPSLatitude or IPTC's city ('kept'); 'gone' when none; 'refused' when it raised
-- photo_unreadable (LB422); any other error named. The marks are made once: the helpers that
-- build them run a query at each call.
create temporary table location_marks as
select unnest(array[pg_temp.latitude(true), pg_temp.latitude(false), pg_temp.longitude(true), pg_temp.longitude(false),
                    pg_temp.ascii('GPSLatitude'), pg_temp.ascii('Berlin')]) as mark;
create function pg_temp.location_left(p_bytes bytea, p_format text) returns text language plpgsql as $$
declare
  v_stripped bytea;
begin
  v_stripped := app.image_without_location(p_bytes, p_format);
  return case when exists (select from location_marks as m where position(m.mark in v_stripped) > 0) then 'kept'
              else 'gone' end;
exception
  when sqlstate 'LB422' then
    return 'refused';
  when others then
    return 'error: ' || sqlerrm;
end
$$;
-- The code of the error the photo's stripping raises (the detail's "code"), or null.
create function pg_temp.refusal_code(p_bytes bytea, p_format text) returns text language plpgsql as $$
declare
  v_detail text;
begin
  perform app.image_without_location(p_bytes, p_format);
  return null;
exception when others then
  get stacked diagnostics v_detail = pg_exception_detail;
  return v_detail::jsonb ->> 'code';
end
$$;

create temporary table photos (name text primary key, format text, original bytea, stripped bytea, expected bytea);
insert into photos (name, original, expected) values
  ('jpeg ii', pg_temp.jpeg(pg_temp.jfif(), pg_temp.exif_segment(pg_temp.tiff(true))),
              pg_temp.jpeg(pg_temp.jfif(), pg_temp.exif_segment(pg_temp.tiff_cleared(true)))),
  ('jpeg mm', pg_temp.jpeg(pg_temp.jfif(), pg_temp.exif_segment(pg_temp.tiff(false))),
              pg_temp.jpeg(pg_temp.jfif(), pg_temp.exif_segment(pg_temp.tiff_cleared(false)))),
  ('jpeg xmp', pg_temp.jpeg(pg_temp.jfif(), pg_temp.xmp_segment(pg_temp.xmp())),
               pg_temp.jpeg(pg_temp.jfif(), pg_temp.xmp_segment(pg_temp.spaces(length(pg_temp.xmp()))))),
  ('jpeg fill bytes', '\xffd8ffff'::bytea || pg_temp.exif_segment(pg_temp.tiff(true)) || pg_temp.jpeg_image(),
                      '\xffd8ffff'::bytea || pg_temp.exif_segment(pg_temp.tiff_cleared(true)) || pg_temp.jpeg_image()),
  ('jpeg no gps', pg_temp.jpeg(pg_temp.jfif(), pg_temp.exif_segment(pg_temp.tiff_without_gps(false))), null),
  ('jpeg plain', pg_temp.jpeg(pg_temp.jfif()), null),
  ('jpeg gps out of range', pg_temp.jpeg(pg_temp.jfif(), pg_temp.exif_segment(pg_temp.tiff(true, 5000))),
                            pg_temp.jpeg(pg_temp.jfif(), pg_temp.exif_segment(pg_temp.zeros(140)))),
  ('jpeg ifd loop', pg_temp.jpeg(pg_temp.jfif(), pg_temp.exif_segment(pg_temp.tiff(false, 8))),
                    pg_temp.jpeg(pg_temp.jfif(), pg_temp.exif_segment(pg_temp.zeros(140)))),
  ('jpeg bad byte order', pg_temp.jpeg(pg_temp.exif_segment('XX'::bytea || substring(pg_temp.tiff(true) from 3))),
                          pg_temp.jpeg(pg_temp.exif_segment(pg_temp.zeros(140)))),
  ('webp', pg_temp.webp(pg_temp.tiff(true)), null),
  ('webp exif prefix', pg_temp.webp(pg_temp.ascii('Exif') || pg_temp.zeros(2) || pg_temp.tiff(false)), null),
  ('png', pg_temp.png_signature() || pg_temp.png_ihdr() || pg_temp.png_chunk('eXIf', pg_temp.tiff(false))
          || pg_temp.png_text()
          || pg_temp.png_chunk('iTXt', pg_temp.ascii('XML:com.adobe.xmp') || pg_temp.zeros(5) || pg_temp.xmp())
          || pg_temp.png_image(),
          pg_temp.png_signature() || pg_temp.png_ihdr() || pg_temp.png_text() || pg_temp.png_image()),
  ('png plain', pg_temp.png_signature() || pg_temp.png_ihdr() || pg_temp.png_image(), null),
  ('heic', pg_temp.heic(pg_temp.exif_item(pg_temp.tiff(false))), null),
  ('heic wide boxes', pg_temp.heic(pg_temp.exif_item(pg_temp.tiff(true)), true), null),
  ('heic ifd loop', pg_temp.heic(pg_temp.exif_item(pg_temp.tiff(true, 8))), null),
  ('jpeg trailer', pg_temp.jpeg(pg_temp.jfif(), pg_temp.exif_segment(pg_temp.tiff(true)))
                   || pg_temp.jpeg(pg_temp.exif_segment(pg_temp.tiff(false))),
                   pg_temp.jpeg(pg_temp.jfif(), pg_temp.exif_segment(pg_temp.tiff_cleared(true)))),
  ('jpeg extended xmp',
   pg_temp.jpeg(pg_temp.jfif(), pg_temp.extended_xmp_segment(pg_temp.extended_xmp_data())),
   pg_temp.jpeg(pg_temp.jfif(), pg_temp.extended_xmp_segment(pg_temp.spaces(length(pg_temp.extended_xmp_data()))))),
  ('jpeg app13', pg_temp.jpeg(pg_temp.jfif(), pg_temp.segment(237, pg_temp.photoshop_iptc())),
                 pg_temp.jpeg(pg_temp.jfif(), pg_temp.segment(237, pg_temp.zeros(length(pg_temp.photoshop_iptc()))))),
  ('jpeg stray bytes', '\xffd8'::bytea || pg_temp.jfif() || '\x0000abcd'::bytea
                       || pg_temp.exif_segment(pg_temp.tiff(true)) || pg_temp.jpeg_image(),
                       '\xffd8'::bytea || pg_temp.jfif() || '\x0000abcd'::bytea
                       || pg_temp.exif_segment(pg_temp.tiff_cleared(true)) || pg_temp.jpeg_image()),
  ('png text xmp', pg_temp.png_signature() || pg_temp.png_ihdr()
                   || pg_temp.png_chunk('tEXt', pg_temp.ascii('XML:com.adobe.xmp') || pg_temp.zeros(1) || pg_temp.xmp())
                   || pg_temp.png_chunk('zTXt', pg_temp.ascii('XML:com.adobe.xmp') || pg_temp.zeros(2) || pg_temp.xmp())
                   || pg_temp.png_text() || pg_temp.png_image(),
                   pg_temp.png_signature() || pg_temp.png_ihdr() || pg_temp.png_text() || pg_temp.png_image()),
  ('png trailer', pg_temp.png_signature() || pg_temp.png_ihdr() || pg_temp.png_image()
                  || pg_temp.ascii('Exif') || pg_temp.zeros(2) || pg_temp.tiff(true),
                  pg_temp.png_signature() || pg_temp.png_ihdr() || pg_temp.png_image()),
  ('heic exif to the end', pg_temp.heic(pg_temp.exif_item(pg_temp.tiff(false)), false, 0), null);
update photos set format = app.image_format(original);

-- WebP and HEIC: the expected bytes are the original with the TIFF block (found by its
-- header) replaced by its cleared form, and the XMP packet by spaces.
update photos
   set expected = overlay(overlay(original placing pg_temp.tiff_cleared(substring(original from t for 2) = 'II')
                                  from t for 140)
                          placing pg_temp.spaces(length(pg_temp.xmp())) from position(pg_temp.xmp() in original))
  from (select name as n,
               greatest(position(pg_temp.tiff(true) in original), position(pg_temp.tiff(false) in original)) as t
          from photos) as found
 where photos.name = found.n
   and photos.name in ('webp', 'webp exif prefix', 'heic', 'heic wide boxes', 'heic exif to the end');
update photos
   set expected = overlay(overlay(original placing pg_temp.zeros(length(pg_temp.exif_item(pg_temp.tiff(true))))
                                  from position(pg_temp.exif_item(pg_temp.tiff(true, 8)) in original))
                          placing pg_temp.spaces(length(pg_temp.xmp())) from position(pg_temp.xmp() in original))
 where name = 'heic ifd loop';

-- Stripped as the API role, which is what calls it.
grant select, update on photos to liftbase_api;
set local role liftbase_api;
update photos set stripped = app.image_without_location(original, format);
reset role;

-- Formats --------------------------------------------------------------------------------------
select is(app.image_format(original), 'image/jpeg', 'FF D8 FF is JPEG') from photos where name = 'jpeg ii';
select is(app.image_format(original), 'image/png', 'the PNG signature is PNG') from photos where name = 'png';
select is(app.image_format(original), 'image/webp', 'RIFF, a size and WEBP is WebP') from photos where name = 'webp';
select is(app.image_format(original), 'image/heic', 'an ftyp box of major brand heic is HEIC')
  from photos where name = 'heic';
select is(app.image_format(pg_temp.box('ftyp', pg_temp.ascii('mif1') || pg_temp.zeros(4) || pg_temp.ascii('mif1heix'))),
  'image/heic', 'so is major brand mif1 with heix among the compatible brands');
select is(app.image_format(pg_temp.box('ftyp', pg_temp.ascii('hevc') || pg_temp.zeros(4) || pg_temp.ascii('msf1'))),
  null, 'a HEIF image sequence (major brand hevc) is no photo: its track''s metadata is not read');
select is(app.image_format(pg_temp.box('ftyp', pg_temp.ascii('msf1') || pg_temp.zeros(4) || pg_temp.ascii('msf1heic'))),
  null, 'nor is major brand msf1, even with heic among the compatible brands');
select is(app.image_format(pg_temp.box('ftyp', pg_temp.ascii('mif1') || pg_temp.zeros(4) || pg_temp.ascii('mif1hevc'))),
  null, 'nor mif1 with only a sequence brand (hevc) among them');
select is(app.image_format(pg_temp.box('ftyp', pg_temp.ascii('avif') || pg_temp.zeros(4) || pg_temp.ascii('mif1avif'))),
  null, 'AVIF shares the container but is not HEIC');
select is(app.image_format(pg_temp.box('ftyp', pg_temp.ascii('mif1') || pg_temp.zeros(4) || pg_temp.ascii('mif1avif'))),
  null, 'nor is mif1 with only AVIF among its brands');
select is(app.image_format(original), 'image/png',
  'a PNG uploaded as photo.jpg, image/jpeg, is told by its bytes: PNG') from photos where name = 'png';
select is(app.image_format(pg_temp.ascii('GIF89a') || pg_temp.zeros(20)), null, 'GIF is no photo format');
select is(app.image_format(pg_temp.ascii('RIFF') || pg_temp.zeros(4) || pg_temp.ascii('WAVEfmt ')), null,
  'nor a RIFF file of another kind');
select is(app.image_format(pg_temp.ascii('hello, these are not the bytes of a photo')), null, 'nor text');
select is(app.image_format(''::bytea), null, 'nor nothing');
select is(app.image_format('\xffd8'::bytea), null, 'nor a JPEG cut after two bytes');

-- JPEG: EXIF GPS --------------------------------------------------------------------------------
-- tiff: the 0-based offset of the TIFF header, after SOI, the JFIF segment, FF E1, its length
-- and 'Exif\0\0'.
create temporary view jpeg_ii as
select *, length(pg_temp.jfif()) + 2 + 4 + 6 as tiff from photos where name = 'jpeg ii';
select is(position(pg_temp.latitude(true) in original) > 0, true, 'the fixture holds the latitude''s rationals')
  from jpeg_ii;
select is(position(pg_temp.latitude(true) in stripped), 0,
  'stripped, the latitude''s rationals are nowhere in the file')
  from jpeg_ii;
select is(position(pg_temp.longitude(true) in stripped), 0, 'nor the longitude''s') from jpeg_ii;
select is(app.read_uint(stripped, tiff + 38, 2, true), 0::bigint, 'the GPS IFD has no entries') from jpeg_ii;
select is(substring(stripped from tiff + 39 for 48), pg_temp.zeros(48), 'and its entries are zeros') from jpeg_ii;
select is(substring(stripped from tiff + 11 for 12), pg_temp.orientation(true),
  'the orientation entry of IFD0 is still there') from jpeg_ii;
select is(substring(stripped from 1 for tiff + 38), substring(original from 1 for tiff + 38),
  'and so is everything before the GPS IFD') from jpeg_ii;
select is(length(stripped), length(original), 'the length is the same (every offset stays valid)') from jpeg_ii;
select is(substring(stripped from 1 for 2), '\xffd8'::bytea, 'the file still starts with SOI') from jpeg_ii;
select is(substring(stripped from length(stripped) - length(pg_temp.jpeg_image()) + 1), pg_temp.jpeg_image(),
  'the image data after the segment is unchanged') from jpeg_ii;
select is(stripped, expected, 'and nothing but the GPS IFD and its values changed') from jpeg_ii;

select is(position(pg_temp.latitude(false) in stripped), 0, 'big-endian (MM) EXIF: the latitude is gone')
  from photos where name = 'jpeg mm';
select is(app.read_uint(stripped, length(pg_temp.jfif()) + 12 + 38, 2, false), 0::bigint,
  'the GPS IFD has no entries') from photos where name = 'jpeg mm';
select is(stripped, expected, 'the orientation and all else kept') from photos where name = 'jpeg mm';
select is(stripped, expected, 'fill bytes (FF) before a marker are skipped') from photos where name = 'jpeg fill bytes';

-- JPEG: XMP, and files without location -------------------------------------------------------
select is(position(pg_temp.ascii('GPSLatitude') in stripped), 0, 'a JPEG''s XMP packet is blanked')
  from photos where name = 'jpeg xmp';
select is(stripped, expected, 'to spaces, its header and length kept') from photos where name = 'jpeg xmp';
select is(stripped, original, 'EXIF without GPS comes back unchanged') from photos where name = 'jpeg no gps';
select is(stripped, original, 'and so does a JPEG without metadata') from photos where name = 'jpeg plain';
select is(position(pg_temp.ascii('GPSLatitude') in stripped), 0,
  'extended XMP (APP1 after XMP''s extension namespace) is blanked')
  from photos where name = 'jpeg extended xmp';
select is(stripped, expected, 'to spaces after its namespace, its header and length kept')
  from photos where name = 'jpeg extended xmp';
select is(position(pg_temp.ascii('Berlin') in stripped), 0, 'APP13 (Photoshop''s IPTC: the city) is emptied')
  from photos where name = 'jpeg app13';
select is(stripped, expected, 'its payload zeroed, its header and length kept') from photos where name = 'jpeg app13';

-- JPEG: what follows the primary image, and stray bytes ------------------------------------------
select is(position(pg_temp.latitude(false) in stripped), 0,
  'a second JPEG after the primary image''s EOI (MPO, Ultra HDR, Motion Photo) goes, with its own EXIF GPS')
  from photos where name = 'jpeg trailer';
select is(stripped, expected, 'the primary image is kept byte for byte up to its EOI, its GPS cleared')
  from photos where name = 'jpeg trailer';
select is(length(stripped), length(pg_temp.jpeg(pg_temp.jfif(), pg_temp.exif_segment(pg_temp.tiff(true)))),
  'and nothing after it') from photos where name = 'jpeg trailer';
select is(position(pg_temp.latitude(true) in stripped), 0,
  'stray bytes before a marker are skipped to the next FF: the APP1 after them is read, its GPS cleared')
  from photos where name = 'jpeg stray bytes';
select is(stripped, expected, 'and the rest, stray bytes included, is unchanged')
  from photos where name = 'jpeg stray bytes';
select throws_ok($$
  select app.image_without_location('\xffd8'::bytea || pg_temp.jfif() || pg_temp.zeros(70000)
                                    || pg_temp.exif_segment(pg_temp.tiff(true)) || pg_temp.jpeg_image(), 'image/jpeg')
$$, 'LB422', 'The photo''s metadata could not be read safely to remove its location; it was not stored.',
  'stray bytes with no FF in the next 64 KiB: the photo is refused (422), not stored with what lies beyond');

-- WebP -----------------------------------------------------------------------------------------
select is(position(pg_temp.latitude(true) in stripped), 0, 'WebP: the EXIF chunk''s latitude is gone')
  from photos where name = 'webp';
select is(stripped, expected, 'the GPS IFD cleared, the XMP chunk blanked, the rest unchanged')
  from photos where name = 'webp';
select is(position(pg_temp.latitude(false) in stripped), 0, 'an EXIF chunk starting Exif\0\0 is read as well')
  from photos where name = 'webp exif prefix';
select is(stripped, expected, 'with the same result') from photos where name = 'webp exif prefix';

-- HEIC -------------------------------------------------------------------------------------------
select is(position(pg_temp.latitude(false) in stripped), 0, 'HEIC: the Exif item''s latitude is gone')
  from photos where name = 'heic';
select is(app.read_uint(stripped, position(pg_temp.tiff_cleared(false) in stripped) - 1 + 38, 2, false), 0::bigint,
  'its GPS IFD has no entries') from photos where name = 'heic';
select is(position(pg_temp.ascii('GPSLatitude') in stripped), 0, 'the XMP item is blanked')
  from photos where name = 'heic';
select is(stripped, expected, 'and the rest (boxes, image item, orientation) is unchanged')
  from photos where name = 'heic';
select is(stripped, expected, 'boxes with a 64-bit size and a box running to the end of the file are read')
  from photos where name = 'heic wide boxes';
select is(stripped, expected, 'an Exif extent of length 0 runs to the end of the file, where mdat ends: GPS cleared')
  from photos where name = 'heic exif to the end';
select throws_ok($$
  select app.image_without_location(p.original || pg_temp.box('free', pg_temp.zeros(8)), p.format)
    from photos as p where p.name = 'heic exif to the end'
$$, 'LB422', 'The photo''s metadata could not be read safely to remove its location; it was not stored.',
  'but with a box after mdat it would run over that box: refused');
select throws_ok($$
  select app.image_without_location(
           overlay(p.original placing '\x03'::bytea from position('iloc'::bytea in p.original) + 4), p.format)
    from photos as p where p.name = 'heic'
$$, 'LB422', 'The photo''s metadata could not be read safely to remove its location; it was not stored.',
  'an item location box it cannot read (version 3), with an Exif item listed: refused, not stored with it');
select throws_ok($$
  select app.image_without_location(
           p.original || pg_temp.box('moov', pg_temp.box('udta', pg_temp.ascii('52.52+013.41'))), p.format)
    from photos as p where p.name = 'heic'
$$, 'LB422', 'The photo''s metadata could not be read safely to remove its location; it was not stored.',
  'a movie box (a Motion Photo''s video, whose udta can hold the location): refused');

-- PNG ------------------------------------------------------------------------------------------
select is(position(pg_temp.ascii('eXIf') in stripped), 0, 'PNG: the eXIf chunk is left out')
  from photos where name = 'png';
select is(position(pg_temp.ascii('XML:com.adobe.xmp') in stripped), 0, 'and the XMP iTXt chunk')
  from photos where name = 'png';
select is(stripped, expected, 'IHDR, another text chunk, IDAT and IEND are kept byte for byte')
  from photos where name = 'png';
select is(stripped, original, 'a PNG without metadata comes back unchanged') from photos where name = 'png plain';
select is(position(pg_temp.ascii('XML:com.adobe.xmp') in stripped), 0, 'XMP in a tEXt or zTXt chunk is left out too')
  from photos where name = 'png text xmp';
select is(stripped, expected, 'and the other text chunk kept') from photos where name = 'png text xmp';
select is(stripped, expected, 'what follows IEND (a trailer, here an EXIF block) is left out')
  from photos where name = 'png trailer';

-- Damaged files ----------------------------------------------------------------------------------
select is(stripped, expected, 'a GPS IFD pointer out of the block: the EXIF block is zeroed whole')
  from photos where name = 'jpeg gps out of range';
select is(stripped, expected, 'a GPS IFD pointer back at IFD0 (a loop): the same')
  from photos where name = 'jpeg ifd loop';
select is(stripped, expected, 'a TIFF of unknown byte order: the same') from photos where name = 'jpeg bad byte order';
select is(stripped, expected, 'HEIC: the Exif item''s extent is zeroed, the XMP blanked')
  from photos where name = 'heic ifd loop';
select is(position(pg_temp.latitude(true) in app.image_without_location(
            '\xffd8ffe1ffff'::bytea || pg_temp.ascii('Exif') || pg_temp.zeros(2) || pg_temp.tiff(true), 'image/jpeg')),
  0, 'an APP1 segment whose length runs past the end of the file: read as far as it goes, its GPS cleared');

-- Every photo cut at every length, and with each byte in turn made FF, 00 or 80. A damaged byte
-- on the way to the location (a marker, a length, a tag, an item's type) can hide it from every
-- reader, and then it stays where it is, unread; one in a part that leads nowhere (image data, a
-- payload the walk skips) must change nothing of what is cleared.
select is((select count(*) from photos as p cross join generate_series(0, length(p.original)) as n
            where pg_temp.location_left(substring(p.original from 1 for n), p.format) not in ('gone', 'refused')),
  0::bigint, 'a photo cut short anywhere keeps no location, or is refused as unreadable; no other error');
select is((select count(*)
             from photos as p
            cross join generate_series(1, length(p.original)) as n
            cross join (values ('\xff'::bytea), ('\x00'::bytea), ('\x80'::bytea)) as v (b)
            where pg_temp.location_left(overlay(p.original placing v.b from n for 1), p.format) like 'error%'),
  0::bigint, 'a photo with any one byte damaged gives no error but photo_unreadable');
select is((select count(*)
             from photos as p
            cross join (values (pg_temp.ascii('JFIF') || '\x000101004800480000'::bytea),
                               ('\x52494646d3a1ff0012ff00e1ff00d9aa'::bytea), ('\x00000001000000010806000000'::bytea),
                               (pg_temp.ascii('Comment') || pg_temp.zeros(1) || pg_temp.ascii('week 12')),
                               ('\x789c626001000000ffff0300'::bytea), ('\x0c000000ff0000ff0000'::bytea),
                               ('\x30010000aa'::bytea), ('\x0000000a2601af13a0a1b2c3'::bytea)) as inert (part)
            cross join generate_series(0, length(inert.part) - 1) as k
            cross join (values ('\xff'::bytea), ('\x00'::bytea), ('\x80'::bytea)) as v (b)
            where position(inert.part in p.original) > 0
              and pg_temp.location_left(
                    overlay(p.original placing v.b from position(inert.part in p.original) + k for 1), p.format)
                  not in ('gone', 'refused')),
  0::bigint, 'and a damaged byte in image data or a skipped payload keeps no location');

-- Files crafted to be slow ---------------------------------------------------------------------
-- Each one is read within the bounds at the top of app_photo_bytes.sql, in milliseconds where
-- an unbounded walk took seconds; these tests say what comes of each (they time nothing).
select is(app.image_without_location(pg_temp.jpeg(pg_temp.jfif(), pg_temp.exif_segment(pg_temp.tiff_many_gps(900))),
                                     'image/jpeg'),
          pg_temp.jpeg(pg_temp.jfif(), pg_temp.exif_segment(pg_temp.zeros(length(pg_temp.tiff_many_gps(900))))),
  'IFD0 of 900 GPSInfo tags, each to a GPS IFD of its own (over 256 entries): the EXIF block is zeroed whole');
select is(app.image_without_location(pg_temp.jpeg(pg_temp.jfif(), pg_temp.exif_segment(pg_temp.tiff_many_gps(2))),
                                     'image/jpeg'),
          pg_temp.jpeg(pg_temp.jfif(), pg_temp.exif_segment(pg_temp.zeros(length(pg_temp.tiff_many_gps(2))))),
  'two GPSInfo tags (TIFF allows one; a reader may follow either): the same');
select throws_ok($$
  select app.image_without_location('\xffd8'::bytea || string_agg(pg_temp.exif_segment(pg_temp.tiff(true)), ''::bytea)
                                    || pg_temp.jpeg_image(), 'image/jpeg')
    from generate_series(1, 800)
$$, 'LB422', 'The photo''s metadata could not be read safely to remove its location; it was not stored.',
  'a JPEG of 800 APP1 EXIF segments (more than 4 EXIF blocks): refused');
select throws_ok($$
  select app.image_without_location('\xffd8'::bytea || string_agg(pg_temp.segment(226, pg_temp.zeros(10)), ''::bytea)
                                    || pg_temp.exif_segment(pg_temp.tiff(true)) || pg_temp.jpeg_image(), 'image/jpeg')
    from generate_series(1, 150)
$$, 'LB422', 'The photo''s metadata could not be read safely to remove its location; it was not stored.',
  'a JPEG of 150 segments before its image data (more than 100 markers): refused');
select is(pg_temp.location_left('\xffd8'::bytea || string_agg(pg_temp.segment(226, pg_temp.zeros(10)), ''::bytea)
                                || pg_temp.exif_segment(pg_temp.tiff(true)) || pg_temp.jpeg_image(), 'image/jpeg'),
  'gone', 'while 90 segments before the EXIF block are all read, and its GPS cleared')
  from generate_series(1, 90);
select throws_ok($$
  select app.image_without_location(pg_temp.jpeg(variadic array_agg(pg_temp.xmp_segment(pg_temp.xmp()))), 'image/jpeg')
    from generate_series(1, 70)
$$, 'LB422', 'The photo''s metadata could not be read safely to remove its location; it was not stored.',
  'a JPEG of 70 XMP packets (more than 64 ranges to change): refused');
select throws_ok($$
  select app.image_without_location(pg_temp.png_signature() || pg_temp.png_ihdr()
                                    || string_agg(pg_temp.png_chunk('eXIf', ''::bytea), ''::bytea)
                                    || pg_temp.png_image(), 'image/png')
    from generate_series(1, 40000)
$$, 'LB422', 'The photo''s metadata could not be read safely to remove its location; it was not stored.',
  'a PNG of 40,000 empty eXIf chunks (more than 32 to leave out): refused');
select is(app.image_without_location(pg_temp.png_signature() || pg_temp.png_ihdr()
                                     || string_agg(pg_temp.png_chunk('abCD', ''::bytea), ''::bytea)
                                     || pg_temp.png_image(), 'image/png'),
          pg_temp.png_signature() || pg_temp.png_ihdr() || string_agg(pg_temp.png_chunk('abCD', ''::bytea), ''::bytea)
          || pg_temp.png_image(),
  'a PNG of 5000 chunks (more than the 4096 walked) holding no chunk type left out after them: unchanged')
  from generate_series(1, 5000);
select throws_ok($$
  select app.image_without_location(pg_temp.png_signature() || pg_temp.png_ihdr()
                                    || string_agg(pg_temp.png_chunk('abCD', ''::bytea), ''::bytea)
                                    || pg_temp.png_chunk('eXIf', pg_temp.tiff(false)) || pg_temp.png_image(),
                                    'image/png')
    from generate_series(1, 5000)
$$, 'LB422', 'The photo''s metadata could not be read safely to remove its location; it was not stored.',
  'but with an eXIf chunk after them: refused');
select throws_ok($$
  select app.image_without_location(pg_temp.ascii('RIFF') || pg_temp.zeros(4) || pg_temp.ascii('WEBP')
                                    || string_agg(pg_temp.chunk('abcd', ''::bytea), ''::bytea)
                                    || pg_temp.chunk('EXIF', pg_temp.tiff(true)), 'image/webp')
    from generate_series(1, 1200)
$$, 'LB422', 'The photo''s metadata could not be read safely to remove its location; it was not stored.',
  'a WebP of 1200 chunks (more than the 1000 walked) with an EXIF chunk after them: refused');
select is((select pg_temp.refusal_code(pg_temp.png_signature() || pg_temp.png_ihdr()
                                       || string_agg(pg_temp.png_chunk('eXIf', ''::bytea), ''::bytea), 'image/png')
             from generate_series(1, 40)),
  'photo_unreadable', 'a refusal''s code is photo_unreadable');

-- The one pass that applies the ranges ---------------------------------------------------------
select is(app.bytes_with_ranges_filled('\x0102030405060708', '{{6,5,0},{1,2,32},{2,2,255},{4,1,-1}}'),
  '\x012020ff060000'::bytea,
  'ranges in any order: filled, the first of two overlapping keeps the overlap, -1 drops, the end clips');
select is(app.bytes_with_ranges_filled('\x0102030405060708', '{{7,1,-1},{0,1,-1},{3,2,0}}'), '\x020300000607'::bytea,
  'ranges at both ends and between: the pieces joined in order');
select is(app.bytes_with_ranges_filled('\x0102', '{}'), '\x0102'::bytea, 'no ranges: the same bytes');

-- Formats it does not know ---------------------------------------------------------------------
select is(app.image_without_location(original, 'image/gif'), original, 'an unknown format: the bytes unchanged')
  from photos where name = 'jpeg ii';
select is(app.image_without_location(original, null), original, 'and no format: the same')
  from photos where name = 'jpeg ii';
select is(app.image_without_location(null, 'image/jpeg'), null, 'no bytes: null');

select * from finish();
rollback;
