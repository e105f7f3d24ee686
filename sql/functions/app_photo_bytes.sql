-- Progress photos' bytes: the format an upload is, told by its magic bytes rather than by its
-- name or declared type (which a client may get wrong), and the photo with its location removed
-- before it is stored: a phone writes where a photo was taken into its EXIF GPS tags and its XMP
-- packet, and a progress photo is mostly taken at home.
--
-- Location is removed in place wherever the container allows it (zero bytes over the GPS IFD
-- and its values, spaces over an XMP packet): every offset of the file stays valid, so nothing
-- else needs rewriting and everything else (orientation, colour profile, image data) is kept.
-- PNG drops whole chunks, as its chunks carry a CRC an edit would break; JPEG and PNG drop what
-- follows the end of their image (a trailer: a second image, a video), which can carry its own
-- location and is not walked piece by piece.
--
-- Offsets here are 0-based file offsets, as get_byte counts; substring counts from 1, and only
-- app.bytes_at calls it. A range to change is a row {offset, length, fill} of a bigint[][]
-- (fill: the byte written over the range, or -1 to leave the range out; never null, as reading
-- an array with nulls costs a walk from its start at every subscript), collected while the
-- headers are read and applied once by app.bytes_with_ranges_filled: a photo is up to ~20 MiB,
-- and each set_byte or overlay would copy all of it. Files are messy: no offset is read before
-- it is checked against the length, and an EXIF block that cannot be read safely is zeroed
-- whole: better a photo without its orientation than one with its location.
--
-- Every walk is bounded, as an upload is anyone's bytes: a ~10 MiB file crafted to be slow
-- (thousands of segments, chunks, boxes or IFDs) must cost milliseconds, not seconds. A photo's
-- metadata is a handful of pieces (one EXIF block, an XMP packet and perhaps a few extended-XMP
-- segments, an ICC profile, an IPTC block), so the bounds lie well above what cameras and
-- editors write:
--   - 64 ranges to change in all (a GPS IFD with every one of its values is at most 33);
--   - JPEG: 100 markers before the image data (a phone writes 15 to 25; each run of stray
--     bytes skipped counts as one), 1000 fill bytes, and a marker after stray bytes found
--     within 64 KiB;
--   - 4 EXIF blocks a file (one is the rule); an IFD0 of more than 256 entries, or a GPS IFD
--     of more than 32 (the tags EXIF defines), makes its block zeroed whole, not read;
--   - PNG: 4096 chunks walked (a 10 MiB PNG of libpng's 8 KiB IDAT chunks has some 1300), 32
--     dropped; WebP: 1000 chunks (an animation has one per frame);
--   - HEIC: 64 top-level boxes, 64 children of meta, 4096 items (a 48-megapixel photo is a
--     grid of some 200 tiles), 64 metadata items and 64 extents of them.
-- A PNG or WebP longer than its walk has the rest searched (position(), at C speed) for the
-- chunk types removed, and is refused only when one may lie there. Any other file beyond a
-- bound, or whose metadata cannot be located (a JPEG without a marker after stray bytes, an
-- unreadable HEIC item location box) or cleared (a HEIC holding a video), is refused:
-- app.image_without_location raises 422 photo_unreadable rather than store what was not read,
-- which another reader would read.

-- Byte p_k (0 = least significant) of the p_size-byte unsigned integer at p_offset, shifted to
-- its place; 0 beyond the size. A part of app.read_uint, which checks the range first.
create or replace function app.read_uint_byte(p_bytes bytea, p_offset bigint, p_size integer, p_little boolean,
                                              p_k integer)
returns bigint
language sql
immutable
as $$
  select case
    when p_k < p_size then
      get_byte(p_bytes, (p_offset + case when p_little then p_k else p_size - 1 - p_k end)::integer)::bigint
        << (8 * p_k)
    else 0
  end
$$;

-- The unsigned integer of p_size bytes (0, 1, 2, 4 or 8) at the 0-based p_offset, little- or
-- big-endian; null when it does not lie within the bytes, so that a reader of a damaged file
-- sees null instead of an error. An 8-byte value of 2^63 or more is null too: no file
-- PostgreSQL holds is that large, and a bigint cannot hold it. A single SQL expression, which the
-- planner inlines into the callers' expressions: the readers below call it a few hundred times
-- per photo.
create or replace function app.read_uint(p_bytes bytea, p_offset bigint, p_size integer, p_little boolean)
returns bigint
language sql
immutable
as $$
  select case
    when p_offset is null or p_offset < 0 or p_size not in (0, 1, 2, 4, 8) or p_offset > length(p_bytes) - p_size
      then null
    when p_size = 0 then 0
    when p_size = 8 and app.read_uint_byte(p_bytes, p_offset, 8, p_little, 7) < 0 then null
    else app.read_uint_byte(p_bytes, p_offset, p_size, p_little, 0)
       | app.read_uint_byte(p_bytes, p_offset, p_size, p_little, 1)
       | app.read_uint_byte(p_bytes, p_offset, p_size, p_little, 2)
       | app.read_uint_byte(p_bytes, p_offset, p_size, p_little, 3)
       | app.read_uint_byte(p_bytes, p_offset, p_size, p_little, 4)
       | app.read_uint_byte(p_bytes, p_offset, p_size, p_little, 5)
       | app.read_uint_byte(p_bytes, p_offset, p_size, p_little, 6)
       | app.read_uint_byte(p_bytes, p_offset, p_size, p_little, 7)
  end
$$;

-- The p_length bytes at the 0-based p_offset (fewer at the end of the bytes); null for an offset
-- outside them. The one place that turns an offset into substring's 1-based position.
create or replace function app.bytes_at(p_bytes bytea, p_offset bigint, p_length bigint)
returns bytea
language sql
immutable
as $$
  select case
    when p_offset >= 0 and p_length >= 0 and p_offset <= length(p_bytes)
      then substring(p_bytes from (p_offset + 1)::integer for least(p_length, length(p_bytes) - p_offset)::integer)
  end
$$;

-- One range to change, as the one row of a bigint[][] (see the top of this file), for the
-- readers to append to their lists with ||: each append copies the list, which the bounds at
-- the top of this file keep to 64 rows and one step's more.
create or replace function app.byte_range(p_offset bigint, p_length bigint, p_fill integer)
returns bigint[]
language sql
immutable
as $$ select array[[p_offset, p_length, p_fill]] $$;

-- The most ranges one photo may have changed (see the bounds at the top of this file): whether
-- p_ranges holds more, or is null (what a reader returns for a file it cannot read safely).
create or replace function app.too_many_ranges(p_ranges bigint[])
returns boolean
language sql
immutable
as $$ select p_ranges is null or coalesce(array_length(p_ranges, 1), 0) > 64 $$;

-- Whether an ISO BMFF file (bytes 4..7 'ftyp') is a HEIC photo: its major brand is one of
-- HEIF's HEVC image brands (heic, heix, heim, heis), or the generic image brand mif1 with one of
-- them among the compatible brands of its ftyp box. The image-sequence brands (hevc, hevx, msf1)
-- are not: a sequence is a track, whose metadata (moov, udta: where a video keeps its location)
-- Liftbase does not read. AVIF shares the container but not the brands.
create or replace function app.has_heic_brand(p_bytes bytea)
returns boolean
language sql
immutable
as $$
  select app.bytes_at(p_bytes, 4, 4) = 'ftyp'::bytea
     and (app.bytes_at(p_bytes, 8, 4) in ('heic', 'heix', 'heim', 'heis')
          or (app.bytes_at(p_bytes, 8, 4) = 'mif1'
              and exists (
                select
                  from generate_series(16, least(app.read_uint(p_bytes, 0, 4, false), length(p_bytes), 4096) - 4, 4)
                       as b (brand_offset)
                 where app.bytes_at(p_bytes, b.brand_offset, 4) in ('heic', 'heix', 'heim', 'heis'))))
$$;

-- The media type of a photo's bytes by their magic bytes: image/jpeg, image/png, image/webp or
-- image/heic; null for anything else (GIF, AVIF, a HEIF sequence, text, nothing). A photo's
-- name or declared type is the client's word; what is stored and served is what the bytes are.
create or replace function app.image_format(p_bytes bytea)
returns text
language sql
immutable
as $$
  select case
    when app.bytes_at(p_bytes, 0, 3) = '\xffd8ff'::bytea then 'image/jpeg'
    when app.bytes_at(p_bytes, 0, 8) = '\x89504e470d0a1a0a'::bytea then 'image/png'
    when app.bytes_at(p_bytes, 0, 4) = 'RIFF'::bytea and app.bytes_at(p_bytes, 8, 4) = 'WEBP'::bytea then 'image/webp'
    when app.has_heic_brand(p_bytes) then 'image/heic'
  end
$$;

-- The bytes with each range {offset, length, fill} of p_ranges filled with its fill byte, or
-- left out when the fill is -1. Ranges are clipped to the bytes; where two overlap, the first
-- (by offset) keeps the overlap. No ranges: the same bytes. The result is a list of pieces in
-- order (kept bytes, fills), joined pairwise until one is left: each byte is copied in each
-- round, and there are log2 of the pieces' count rounds (at most 8: 64 ranges). Appending each
-- piece to one growing string would copy all before it again at every range, which for ranges
-- spread over a large photo (a PNG's chunks after its image data, a HEIC's items) is the
-- photo's size times the ranges' count; one string_agg over the pieces would sort the
-- photo-sized pieces, and spill them to disk beyond work_mem.
create or replace function app.bytes_with_ranges_filled(p_bytes bytea, p_ranges bigint[])
returns bytea
language plpgsql
immutable
as $$
declare
  v_length bigint := length(p_bytes);
  v_done bigint := 0;               -- the end of the bytes placed in v_pieces so far
  v_pieces bytea[] := '{}'::bytea[];
  v_pairs bytea[];
  v_range record;
begin
  if coalesce(array_length(p_ranges, 1), 0) = 0 then
    return p_bytes;
  end if;
  for v_range in
    select greatest(p_ranges[i][1], 0) as start, least(p_ranges[i][1] + greatest(p_ranges[i][2], 0), v_length) as stop,
           p_ranges[i][3] as fill
      from generate_subscripts(p_ranges, 1) as i
     order by 1, 2, i
  loop
    continue when v_range.stop <= greatest(v_range.start, v_done);
    if v_range.start > v_done then    -- the bytes kept before this range
      v_pieces := v_pieces || app.bytes_at(p_bytes, v_done, v_range.start - v_done);
      v_done := v_range.start;
    end if;
    if v_range.fill >= 0 then
      v_pieces := v_pieces
                  || decode(repeat(lpad(to_hex(v_range.fill & 255), 2, '0'), (v_range.stop - v_done)::integer), 'hex');
    end if;
    v_done := v_range.stop;
  end loop;
  v_pieces := v_pieces || app.bytes_at(p_bytes, v_done, v_length - v_done);
  while cardinality(v_pieces) > 1 loop
    v_pairs := '{}'::bytea[];
    for v_index in 1 .. cardinality(v_pieces) by 2 loop
      v_pairs := v_pairs || (v_pieces[v_index] || coalesce(v_pieces[v_index + 1], ''::bytea));
    end loop;
    v_pieces := v_pairs;
  end loop;
  return v_pieces[1];
end
$$;

-- The size of each value of a TIFF field type, in bytes; null for a type TIFF does not define
-- (its values cannot be found, so a GPS IFD with one cannot be cleared safely). Types 1 to 13:
-- BYTE, ASCII 1; SHORT 2; LONG 4; RATIONAL 8; SBYTE, UNDEFINED 1; SSHORT 2; SLONG 4; SRATIONAL
-- 8; FLOAT 4; DOUBLE 8; IFD 4. One use of p_type, so that the planner inlines the function
-- whatever its argument (a parameter used twice is inlined only when its argument is cheap).
create or replace function app.tiff_type_size(p_type bigint)
returns integer
language sql
immutable
as $$ select ('{1,1,2,4,8,1,1,2,4,8,4,8,4}'::integer[])[least(greatest(p_type, 0), 14)::integer] $$;

-- The ranges that clear one GPS IFD of the TIFF block [p_tiff, p_end): its entry count and
-- entries (zeroed, the count becomes 0) and every value stored outside an entry (an entry's
-- values of more than 4 bytes live at the offset its value field holds). Null when the IFD
-- cannot be cleared safely: out of the block, more entries than the 32 tags EXIF defines for
-- it (so that the list grows by || to 33 rows at most), a type of unknown size, or a table or
-- value over the header or over IFD0's entries [p_ifd0, p_ifd0_end), which hold the
-- orientation and must be kept (an IFD pointing back into IFD0 is a loop).
create or replace function app.gps_ifd_ranges(p_bytes bytea, p_tiff bigint, p_end bigint, p_little boolean,
                                              p_gps bigint, p_ifd0 bigint, p_ifd0_end bigint)
returns bigint[]
language plpgsql
immutable
as $$
declare
  v_count bigint := app.read_uint(p_bytes, p_gps, 2, p_little);
  v_table_end bigint := p_gps + 2 + 12 * v_count;
  v_ranges bigint[];
  v_entry bigint;
  v_size bigint;
  v_value bigint;
begin
  if (v_count <= 32 and p_gps >= p_tiff + 8 and v_table_end <= p_end
      and not (p_gps < p_ifd0_end and p_ifd0 < v_table_end)) is not true then
    return null;
  end if;
  v_ranges := app.byte_range(p_gps, 2 + 12 * v_count, 0);
  for v_index in 0 .. v_count - 1 loop
    v_entry := p_gps + 2 + 12 * v_index;
    v_size := app.tiff_type_size(app.read_uint(p_bytes, v_entry + 2, 2, p_little))
              * app.read_uint(p_bytes, v_entry + 4, 4, p_little);
    if v_size is null then
      return null;
    end if;
    if v_size > 4 then
      v_value := p_tiff + app.read_uint(p_bytes, v_entry + 8, 4, p_little);
      if (v_value >= p_tiff + 8 and v_size <= p_end - v_value
          and not (v_value < p_ifd0_end and p_ifd0 < v_value + v_size)) is not true then
        return null;
      end if;
      v_ranges := v_ranges || app.byte_range(v_value, v_size, 0);
    end if;
  end loop;
  return v_ranges;
end
$$;

-- The ranges that clear the GPS of the EXIF TIFF block at p_tiff (p_length bytes): byte order
-- (II little-endian, MM big-endian), 42, the offset of IFD0; the GPSInfo tag (0x8825) of IFD0
-- points to the GPS IFD, cleared by app.gps_ifd_ranges. Nothing to do (an empty list) without a
-- GPSInfo tag; null when the block cannot be read safely, for the caller to zero it whole: IFD0
-- out of the block or of more than 256 entries, or with two GPSInfo tags (TIFF allows one a
-- directory, and which of two a reader follows is its own choice). Offsets inside TIFF count
-- from its header; the ranges returned are file offsets.
create or replace function app.tiff_location_ranges(p_bytes bytea, p_tiff bigint, p_length bigint)
returns bigint[]
language plpgsql
immutable
as $$
declare
  v_end bigint := least(p_tiff + p_length, length(p_bytes));
  v_order bytea := app.bytes_at(p_bytes, p_tiff, 2);
  v_little boolean := case when v_order = 'II'::bytea then true when v_order = 'MM'::bytea then false end;
  v_ifd0 bigint := p_tiff + app.read_uint(p_bytes, p_tiff + 4, 4, v_little);
  v_count bigint := app.read_uint(p_bytes, v_ifd0, 2, v_little);
  v_ifd0_end bigint := v_ifd0 + 2 + 12 * v_count;
  v_entry bigint;
  v_gps_entry bigint;
begin
  if (v_little is not null and app.read_uint(p_bytes, p_tiff + 2, 2, v_little) = 42
      and v_ifd0 >= p_tiff + 8 and v_count <= 256 and v_ifd0_end <= v_end) is not true then
    return null;
  end if;
  for v_index in 0 .. v_count - 1 loop
    v_entry := v_ifd0 + 2 + 12 * v_index;
    if app.read_uint(p_bytes, v_entry, 2, v_little) = 34853 then  -- 0x8825, GPSInfo
      if v_gps_entry is not null then
        return null;
      end if;
      v_gps_entry := v_entry;
    end if;
  end loop;
  if v_gps_entry is null then
    return '{}'::bigint[];
  end if;
  return app.gps_ifd_ranges(p_bytes, p_tiff, v_end, v_little,
                            p_tiff + app.read_uint(p_bytes, v_gps_entry + 8, 4, v_little), v_ifd0, v_ifd0_end);
end
$$;

-- The ranges that clear an EXIF TIFF block at p_tiff (p_length bytes), or zero it whole when it
-- cannot be read safely: better a photo without its orientation than one with its location.
create or replace function app.exif_block_ranges(p_bytes bytea, p_tiff bigint, p_length bigint)
returns bigint[]
language sql
immutable
as $$
  select coalesce(app.tiff_location_ranges(p_bytes, p_tiff, p_length), app.byte_range(p_tiff, p_length, 0))
$$;

-- JPEG: the segments from after SOI (FF D8) to SOS (FF DA, the image data) or EOI, each a marker
-- (FF xx, after any FF fill bytes) and a big-endian length counting itself (TEM and RSTn have
-- none). Cleared: an APP1 segment (FF E1) of EXIF after 'Exif\0\0' (its GPS), of XMP after XMP's
-- namespace and a zero byte, or of extended XMP (the rest of a packet too large for one segment,
-- after its own namespace: made spaces, as the main packet); an APP13 segment (FF ED: Photoshop's
-- resources, which hold IPTC's city and sublocation and copies of EXIF and XMP) is zeroed whole.
-- Bytes that are no marker (stray bytes, FF 00, a reserved marker, a length below 2) are skipped
-- to the next FF, as a decoder does, so that a segment after them is read too. A segment cut
-- short by the end of the file counts as far as it goes.
--
-- The primary image ends at the first FF D9 (EOI) after its SOS: inside entropy-coded data an FF
-- is always followed by 00 or by D0 to D7, so position() over the bytes after the SOS header
-- finds it exactly, at C speed (an FF D9 inside a segment between the scans of a progressive
-- JPEG, a comment say, would end the image early: a damaged photo, never a kept location).
-- Everything after it is left out: a second image of an MPO or MPF file, the gain map of an
-- Ultra HDR photo or the video of a Motion Photo is a file of its own, with its own EXIF, XMP or
-- a video's metadata, which can hold the location; it cannot be cleaned piece by piece (its
-- formats are many, its offsets its own), and no reader needs it to show the photo. Null (the
-- photo is refused) beyond the bounds at the top of this file, or when stray bytes are
-- followed by no FF within 64 KiB.
create or replace function app.jpeg_location_ranges(p_bytes bytea)
returns bigint[]
language plpgsql
immutable
as $$
declare
  v_length bigint := length(p_bytes);
  v_pos bigint := 2;
  v_markers integer := 0;
  v_fill_bytes integer := 0;
  v_exif_blocks integer := 0;
  v_marker bigint;
  v_size bigint;
  v_data bigint;
  v_found bigint;
  v_end bigint;                     -- the end of the primary image, after its EOI
  v_ranges bigint[] := '{}'::bigint[];
begin
  if app.bytes_at(p_bytes, 0, 2) is distinct from '\xffd8'::bytea then
    return v_ranges;
  end if;
  while v_pos < v_length loop
    v_markers := v_markers + 1;
    if v_markers > 100 or app.too_many_ranges(v_ranges) then
      return null;
    end if;
    if app.read_uint(p_bytes, v_pos, 1, false) <> 255 then
      -- stray bytes: on to the next FF, if there is one before the file ends or within 64 KiB
      v_found := position('\xff'::bytea in app.bytes_at(p_bytes, v_pos, 65536));
      if v_found = 0 and v_length - v_pos > 65536 then
        return null;
      end if;
      exit when v_found = 0;
      v_pos := v_pos + v_found - 1;
      continue;
    end if;
    -- FF FF: a fill byte before the marker's FF (at most 1000 of them in the whole file)
    while v_fill_bytes < 1000 and app.read_uint(p_bytes, v_pos, 2, false) = 65535 loop
      v_pos := v_pos + 1;
      v_fill_bytes := v_fill_bytes + 1;
    end loop;
    v_marker := app.read_uint(p_bytes, v_pos + 1, 1, false);
    exit when v_marker is null;                                                  -- FF, then the end
    if v_marker = 255 then
      return null;
    elsif v_marker = 0 or v_marker between 2 and 191 then                         -- no marker
      v_pos := v_pos + 1;
      continue;
    elsif v_marker = 217 then                                                     -- EOI
      v_end := v_pos + 2;
      exit;
    elsif v_marker = 1 or v_marker between 208 and 215 then                       -- TEM, RSTn: no length
      v_pos := v_pos + 2;
      continue;
    end if;
    v_size := app.read_uint(p_bytes, v_pos + 2, 2, false) - 2;
    exit when v_size is null;                                                     -- the end, in the length
    if v_size < 0 then
      v_pos := v_pos + 2;
      continue;
    end if;
    v_data := v_pos + 4;
    v_size := least(v_size, v_length - v_data);
    if v_marker = 218 then                                                        -- SOS
      v_found := position('\xffd9'::bytea in app.bytes_at(p_bytes, v_data + v_size, v_length));
      if v_found > 0 then
        v_end := v_data + v_size + v_found + 1;
      end if;
      exit;
    elsif v_marker = 225 and app.bytes_at(p_bytes, v_data, 6) = 'Exif\000\000'::bytea then
      v_exif_blocks := v_exif_blocks + 1;
      if v_exif_blocks > 4 then
        return null;
      end if;
      v_ranges := v_ranges || app.exif_block_ranges(p_bytes, v_data + 6, v_size - 6);
    elsif v_marker = 225 and app.bytes_at(p_bytes, v_data, 29) = 'http://ns.adobe.com/xap/1.0/\000'::bytea then
      v_ranges := v_ranges || app.byte_range(v_data + 29, v_size - 29, 32);
    elsif v_marker = 225 and app.bytes_at(p_bytes, v_data, 35) = 'http://ns.adobe.com/xmp/extension/\000'::bytea then
      v_ranges := v_ranges || app.byte_range(v_data + 35, v_size - 35, 32);
    elsif v_marker = 237 then                                                     -- APP13
      v_ranges := v_ranges || app.byte_range(v_data, v_size, 0);
    end if;
    v_pos := v_data + v_size;
  end loop;
  if v_end < v_length then
    v_ranges := v_ranges || app.byte_range(v_end, v_length - v_end, -1);
  end if;
  return v_ranges;
end
$$;

-- WebP: RIFF chunks after the 12-byte header ('RIFF', size, 'WEBP'), each a fourcc, a
-- little-endian size and its data, padded to an even length. The 'EXIF' chunk is a TIFF block
-- (after 'Exif\0\0' for some writers), the 'XMP ' chunk an XMP packet (made spaces). The chunks
-- are walked to the end of the file, not of the RIFF size: a chunk past a wrong size is still
-- in the file that is stored. Beyond 1000 chunks the rest is only searched for the two chunk
-- types; null (the photo is refused) when one may lie there, or for more than 4 EXIF chunks.
create or replace function app.webp_location_ranges(p_bytes bytea)
returns bigint[]
language plpgsql
immutable
as $$
declare
  v_length bigint := length(p_bytes);
  v_pos bigint := 12;
  v_chunks integer := 0;
  v_exif_blocks integer := 0;
  v_size bigint;
  v_data bigint;
  v_tiff bigint;
  v_type bytea;
  v_rest bytea;
  v_ranges bigint[] := '{}'::bigint[];
begin
  if app.image_format(p_bytes) is distinct from 'image/webp' then
    return v_ranges;
  end if;
  loop
    v_size := app.read_uint(p_bytes, v_pos + 4, 4, true);
    exit when v_size is null;
    v_chunks := v_chunks + 1;
    if v_chunks > 1000 then
      v_rest := app.bytes_at(p_bytes, v_pos, v_length);
      if position('EXIF'::bytea in v_rest) > 0 or position('XMP '::bytea in v_rest) > 0 then
        return null;
      end if;
      exit;
    end if;
    v_type := app.bytes_at(p_bytes, v_pos, 4);
    v_data := v_pos + 8;
    v_size := least(v_size, v_length - v_data);
    if v_type = 'EXIF'::bytea then
      v_exif_blocks := v_exif_blocks + 1;
      if v_exif_blocks > 4 then
        return null;
      end if;
      v_tiff := v_data + case when app.bytes_at(p_bytes, v_data, 6) = 'Exif\000\000'::bytea then 6 else 0 end;
      v_ranges := v_ranges || coalesce(app.tiff_location_ranges(p_bytes, v_tiff, v_data + v_size - v_tiff),
                                       app.byte_range(v_data, v_size, 0));
    elsif v_type = 'XMP '::bytea then
      v_ranges := v_ranges || app.byte_range(v_data, v_size, 32);
    end if;
    if app.too_many_ranges(v_ranges) then
      return null;
    end if;
    v_pos := v_data + v_size + v_size % 2;
  end loop;
  return v_ranges;
end
$$;

-- PNG: the chunks after the 8-byte signature, each a big-endian length, a type, the data and a
-- CRC. The eXIf chunk (EXIF), and text chunks (tEXt, zTXt, iTXt) of XMP (keyword
-- 'XML:com.adobe.xmp', which Adobe's tools write as iTXt and others as tEXt or zTXt) or of the
-- profiles ImageMagick writes ('Raw profile type exif', '... APP1', '... xmp', '... iptc',
-- '... 8bim': EXIF, XMP, IPTC and Photoshop's resources) are left out whole: an edit inside a
-- chunk would make its CRC wrong. So is anything after IEND, a trailer no decoder reads. A
-- file's IDAT chunks are many (libpng writes 8 KiB each), so this walk's bound is larger;
-- beyond it the rest is only searched for the four chunk types that can be left out. Null (the
-- photo is refused) when one may lie there, or for more than 32 chunks to leave out.
create or replace function app.png_location_ranges(p_bytes bytea)
returns bigint[]
language plpgsql
immutable
as $$
declare
  v_length bigint := length(p_bytes);
  v_pos bigint := 8;
  v_chunks integer := 0;
  v_size bigint;
  v_type bytea;
  v_keyword text;
  v_rest bytea;
  v_ranges bigint[] := '{}'::bigint[];
begin
  if app.image_format(p_bytes) is distinct from 'image/png' then
    return v_ranges;
  end if;
  loop
    v_size := app.read_uint(p_bytes, v_pos, 4, false);
    exit when v_size is null;
    v_chunks := v_chunks + 1;
    if v_chunks > 4096 then
      v_rest := app.bytes_at(p_bytes, v_pos, v_length);
      if position('eXIf'::bytea in v_rest) > 0 or position('tEXt'::bytea in v_rest) > 0
         or position('zTXt'::bytea in v_rest) > 0 or position('iTXt'::bytea in v_rest) > 0 then
        return null;
      end if;
      exit;
    end if;
    v_type := app.bytes_at(p_bytes, v_pos + 4, 4);
    if v_type in ('iTXt'::bytea, 'tEXt'::bytea, 'zTXt'::bytea) then
      -- the keyword: up to 79 bytes before a zero byte (shown as \000 by the escape encoding)
      v_keyword := split_part(encode(app.bytes_at(p_bytes, v_pos + 8, least(v_size, 80)), 'escape'), '\000', 1);
    end if;
    if v_type = 'eXIf'::bytea
       or (v_type in ('iTXt'::bytea, 'tEXt'::bytea, 'zTXt'::bytea)
           and v_keyword in ('XML:com.adobe.xmp', 'Raw profile type exif', 'Raw profile type APP1',
                             'Raw profile type xmp', 'Raw profile type iptc', 'Raw profile type 8bim')) then
      v_ranges := v_ranges || app.byte_range(v_pos, least(12 + v_size, v_length - v_pos), -1);
      if array_length(v_ranges, 1) > 32 then
        return null;
      end if;
    end if;
    if v_type = 'IEND'::bytea and v_size <= v_length - v_pos - 12 and v_pos + 12 + v_size < v_length then
      v_ranges := v_ranges || app.byte_range(v_pos + 12 + v_size, v_length - v_pos - 12 - v_size, -1);
    end if;
    exit when v_type = 'IEND'::bytea or v_size > v_length - v_pos - 12;
    v_pos := v_pos + 12 + v_size;
  end loop;
  return v_ranges;
end
$$;

-- An ISO BMFF box at p_pos inside its parent, which ends at p_end: {header length, box length}.
-- The 32-bit size counts the header; 1 means a 64-bit size follows the type, 0 that the box
-- runs to the parent's end. A box longer than its parent is cut to it (what the file holds is
-- what is read); null when no box fits. A single SQL expression, inlined into the walks below.
create or replace function app.box_extent(p_bytes bytea, p_pos bigint, p_end bigint)
returns bigint[]
language sql
immutable
as $$
  select case
    when p_end - p_pos < 8 or app.read_uint(p_bytes, p_pos, 4, false) is null then null
    when app.read_uint(p_bytes, p_pos, 4, false) = 0 then array[8, p_end - p_pos]
    when app.read_uint(p_bytes, p_pos, 4, false) = 1 then
      case when p_end - p_pos >= 16 and app.read_uint(p_bytes, p_pos + 8, 8, false) >= 16
           then array[16, least(app.read_uint(p_bytes, p_pos + 8, 8, false), p_end - p_pos)] end
    when app.read_uint(p_bytes, p_pos, 4, false) >= 8
      then array[8, least(app.read_uint(p_bytes, p_pos, 4, false), p_end - p_pos)]
  end
$$;

-- HEIC: the IDs of the items of type p_type listed by the iinf box whose contents (after its
-- header) are [p_start, p_end); for type 'mime', only those whose content type is
-- p_content_type. Each 'infe' entry of version 2 or 3 (what HEIF writes) has: version and flags
-- (4 bytes), item_ID (16 bits in version 2, 32 in 3), protection index (16 bits), the item type,
-- then for 'mime' a zero-ended name and the zero-ended content type. Null when there are more
-- than 4096 entries, so that an item past the bound is not missed, or more than 64 such items
-- (no photo has that many, and app.heic_item_extents looks each item of iloc up among them).
create or replace function app.heic_item_ids(p_bytes bytea, p_start bigint, p_end bigint, p_type text,
                                             p_content_type text)
returns bigint[]
language plpgsql
immutable
as $$
declare
  -- after version and flags, entry_count: 16 bits in version 0, 32 after
  v_pos bigint := p_start + 4 + case when app.read_uint(p_bytes, p_start, 1, false) = 0 then 2 else 4 end;
  v_entries integer := 0;
  v_box bigint[];
  v_content bigint;
  v_version bigint;
  v_id_size integer;
  v_type_pos bigint;
  v_strings text;
  v_ids bigint[] := '{}'::bigint[];
begin
  loop
    v_box := app.box_extent(p_bytes, v_pos, p_end);
    exit when v_box is null;
    v_entries := v_entries + 1;
    if v_entries > 4096 then
      return null;
    end if;
    v_content := v_pos + v_box[1];
    v_version := app.read_uint(p_bytes, v_content, 1, false);
    if app.bytes_at(p_bytes, v_pos + 4, 4) = 'infe'::bytea and v_version in (2, 3) then
      v_id_size := case when v_version = 2 then 2 else 4 end;
      v_type_pos := v_content + 4 + v_id_size + 2;
      if encode(app.bytes_at(p_bytes, v_type_pos, 4), 'escape') = p_type then
        -- item name and content type, zero-ended (the escape encoding shows a zero byte as \000)
        v_strings := encode(app.bytes_at(p_bytes, v_type_pos + 4, least(v_pos + v_box[2] - v_type_pos - 4, 1024)),
                            'escape');
        if p_content_type is null or split_part(v_strings, '\000', 2) = p_content_type then
          v_ids := v_ids || app.read_uint(p_bytes, v_content + 4, v_id_size, false);
          if cardinality(v_ids) > 64 then
            return null;
          end if;
        end if;
      end if;
    end if;
    v_pos := v_pos + v_box[2];
  end loop;
  return v_ids;
end
$$;

-- HEIC: the extents of the items p_items, from the iloc box whose contents (after its header)
-- are [p_start, p_end): rows {item_ID, file offset, length, construction method}. iloc versions
-- 0 to 2: version and flags, then the nibbles offset_size, length_size, base_offset_size and
-- index_size (versions 1 and 2), the item count; per item its ID, construction method (versions
-- 1 and 2), data reference index, base offset and extents (index, offset, length). Construction
-- method 0 counts from the file's start, 1 from the idat box's data at p_idat (no extent without
-- one). A length beyond the file is cut to it; a length of 0 is the rest of the extent's
-- container (the file for method 0, idat for 1: ISO/IEC 14496-12, 8.11.3), and is returned as
-- 0 for the caller, which knows the containers. Null when the box cannot be read, holds more
-- than 4096 items, gives these items more than 64 extents in all, or builds one of them from
-- other items (method 2), whose bytes would be left as they are.
create or replace function app.heic_item_extents(p_bytes bytea, p_start bigint, p_end bigint, p_items bigint[],
                                                 p_idat bigint)
returns bigint[]
language plpgsql
immutable
as $$
declare
  v_length bigint := length(p_bytes);
  v_version bigint := app.read_uint(p_bytes, p_start, 1, false);
  v_offset_size integer := app.read_uint(p_bytes, p_start + 4, 1, false) >> 4;
  v_length_size integer := app.read_uint(p_bytes, p_start + 4, 1, false) & 15;
  v_base_size integer := app.read_uint(p_bytes, p_start + 5, 1, false) >> 4;
  v_index_size integer := case when v_version > 0 then app.read_uint(p_bytes, p_start + 5, 1, false) & 15 else 0 end;
  v_id_size integer := case when v_version < 2 then 2 else 4 end;
  v_count bigint := app.read_uint(p_bytes, p_start + 6, v_id_size, false);
  v_pos bigint := p_start + 6 + v_id_size;
  v_id bigint;
  v_method bigint;
  v_base bigint;
  v_extent_count bigint;
  v_extent bigint;
  v_origin bigint;
  v_offset bigint;
  v_extent_length bigint;
  v_read integer := 0;              -- extents of p_items read so far
  v_extents bigint[] := '{}'::bigint[];
begin
  if (v_version <= 2 and v_count <= 4096 and v_offset_size in (0, 4, 8) and v_length_size in (0, 4, 8)
      and v_base_size in (0, 4, 8) and v_index_size in (0, 4, 8)) is not true then
    return null;
  end if;
  for v_item in 1 .. v_count loop
    v_id := app.read_uint(p_bytes, v_pos, v_id_size, false);
    v_pos := v_pos + v_id_size;
    v_method := 0;
    if v_version > 0 then
      v_method := app.read_uint(p_bytes, v_pos, 2, false) & 15;
      v_pos := v_pos + 2;
    end if;
    v_base := app.read_uint(p_bytes, v_pos + 2, v_base_size, false);  -- after data_reference_index
    v_extent_count := app.read_uint(p_bytes, v_pos + 2 + v_base_size, 2, false);
    v_pos := v_pos + 2 + v_base_size + 2;
    if (v_id is not null and v_method is not null and v_base is not null
        and v_extent_count * (v_index_size + v_offset_size + v_length_size) <= p_end - v_pos) is not true then
      return null;
    end if;
    if v_id = any(p_items) then
      if v_method not in (0, 1) then
        return null;
      end if;
      v_read := v_read + v_extent_count;
      if v_read > 64 then
        return null;
      end if;
      v_origin := case v_method when 0 then 0 when 1 then p_idat end;
      for v_index in 0 .. v_extent_count - 1 loop
        v_extent := v_pos + (v_index_size + v_offset_size + v_length_size) * v_index;
        v_offset := app.read_uint(p_bytes, v_extent + v_index_size, v_offset_size, false);
        v_extent_length := app.read_uint(p_bytes, v_extent + v_index_size + v_offset_size, v_length_size, false);
        -- each term checked against the length before the sum, which could not overflow then
        if v_origin < v_length and v_base < v_length and v_offset < v_length
           and v_origin + v_base + v_offset < v_length then
          v_offset := v_origin + v_base + v_offset;
          v_extents := v_extents || array[[v_id, v_offset, least(v_extent_length, v_length - v_offset), v_method]];
        end if;
      end loop;
    end if;
    v_pos := v_pos + (v_index_size + v_offset_size + v_length_size) * v_extent_count;
  end loop;
  return v_extents;
end
$$;

-- HEIC: the end of the top-level box that holds the file offset p_offset, or of the file when
-- none does (the offset lies after the last box); null when more than 64 boxes come before it.
create or replace function app.heic_top_box_end(p_bytes bytea, p_offset bigint)
returns bigint
language plpgsql
immutable
as $$
declare
  v_length bigint := length(p_bytes);
  v_pos bigint := 0;
  v_box bigint[];
begin
  for v_top in 1 .. 64 loop
    v_box := app.box_extent(p_bytes, v_pos, v_length);
    if v_box is null then
      return v_length;
    elsif p_offset < v_pos + v_box[2] then
      return case when p_offset >= v_pos then v_pos + v_box[2] else v_length end;
    end if;
    v_pos := v_pos + v_box[2];
  end loop;
  return null;
end
$$;

-- HEIC: the ranges that clear the metadata items of the meta box whose children are
-- [p_start, p_end). iinf names the items (type 'Exif'; type 'mime' of content type
-- application/rdf+xml, XMP), iloc says where their bytes are. An Exif item's data starts with
-- a big-endian 32-bit offset to its TIFF header, counted from after those 4 bytes; its GPS is
-- cleared, or, when the TIFF cannot be read or the item is in several extents, every extent of
-- the item is zeroed. XMP extents become spaces. An extent of length 0 runs to the end of its
-- container: of the idat box for one in idat; to the end of the file otherwise, which is only
-- cleared when the top-level box holding it (mdat) ends there too, as clearing further would
-- clear other boxes. Null (the photo is refused) when there are metadata items whose location
-- cannot be read (see app.heic_item_extents), more than 64 children, or such an extent that
-- runs over other boxes.
create or replace function app.heic_meta_location_ranges(p_bytes bytea, p_start bigint, p_end bigint)
returns bigint[]
language plpgsql
immutable
as $$
declare
  v_pos bigint := p_start;
  v_children integer := 0;
  v_box bigint[];
  v_type bytea;
  v_iinf bigint[];
  v_iloc bigint[];
  v_idat bigint[];
  v_exif_ids bigint[];
  v_xmp_ids bigint[];
  v_extents bigint[];
  v_offset bigint;
  v_length bigint;
  v_tiff bigint;
  v_exif_ranges bigint[];
  v_ranges bigint[] := '{}'::bigint[];
begin
  -- iinf, iloc, idat: {start, end} of the contents after the header
  loop
    v_box := app.box_extent(p_bytes, v_pos, p_end);
    exit when v_box is null;
    v_children := v_children + 1;
    if v_children > 64 then
      return null;
    end if;
    v_type := app.bytes_at(p_bytes, v_pos + 4, 4);
    if v_type = 'iinf'::bytea and v_iinf is null then
      v_iinf := array[v_pos + v_box[1], v_pos + v_box[2]];
    elsif v_type = 'iloc'::bytea and v_iloc is null then
      v_iloc := array[v_pos + v_box[1], v_pos + v_box[2]];
    elsif v_type = 'idat'::bytea and v_idat is null then
      v_idat := array[v_pos + v_box[1], v_pos + v_box[2]];
    end if;
    v_pos := v_pos + v_box[2];
  end loop;
  if v_iinf is null or v_iloc is null then
    return v_ranges;
  end if;
  v_exif_ids := app.heic_item_ids(p_bytes, v_iinf[1], v_iinf[2], 'Exif', null);
  v_xmp_ids := app.heic_item_ids(p_bytes, v_iinf[1], v_iinf[2], 'mime', 'application/rdf+xml');
  if v_exif_ids is null or v_xmp_ids is null then
    return null;
  elsif cardinality(v_exif_ids) + cardinality(v_xmp_ids) = 0 then
    return v_ranges;
  end if;
  v_extents := app.heic_item_extents(p_bytes, v_iloc[1], v_iloc[2], v_exif_ids || v_xmp_ids, v_idat[1]);
  if v_extents is null then
    return null;
  end if;
  for v_row in 1 .. coalesce(array_length(v_extents, 1), 0) loop
    v_offset := v_extents[v_row][2];
    v_length := v_extents[v_row][3];
    if v_length = 0 and v_extents[v_row][4] = 1 then
      v_length := greatest(v_idat[2] - v_offset, 0);
    elsif v_length = 0 then
      if app.heic_top_box_end(p_bytes, v_offset) is distinct from length(p_bytes) then
        return null;
      end if;
      v_length := length(p_bytes) - v_offset;
    elsif v_extents[v_row][4] = 1 then
      v_length := least(v_length, greatest(v_idat[2] - v_offset, 0));   -- what lies beyond idat is other boxes
    end if;
    if v_extents[v_row][1] = any(v_xmp_ids) then
      v_ranges := v_ranges || app.byte_range(v_offset, v_length, 32);
    elsif v_extents[v_row][1] is distinct from v_extents[v_row - 1][1]   -- an item's extents are rows in a row
          and v_extents[v_row][1] is distinct from v_extents[v_row + 1][1] then
      v_tiff := v_offset + 4 + app.read_uint(p_bytes, v_offset, 4, false);
      v_exif_ranges := null;
      if v_tiff < v_offset + v_length then
        v_exif_ranges := app.tiff_location_ranges(p_bytes, v_tiff, v_offset + v_length - v_tiff);
      end if;
      v_ranges := v_ranges || coalesce(v_exif_ranges, app.byte_range(v_offset, v_length, 0));
    else
      v_ranges := v_ranges || app.byte_range(v_offset, v_length, 0);
    end if;
    if app.too_many_ranges(v_ranges) then
      return null;
    end if;
  end loop;
  return v_ranges;
end
$$;

-- HEIC: the top-level boxes of the file (ftyp, meta, mdat, ...); the meta box, a full box (4
-- bytes of version and flags after its header), holds the item boxes. Null (the photo is
-- refused) beyond 64 boxes, for a meta box that cannot be cleared, and for a movie box (moov: an
-- image sequence or a video, as a Motion Photo appends one) or Samsung's embedded Motion Photo
-- video (mpvd): a track's metadata (udta) can hold the location, and Liftbase does not read it.
create or replace function app.heic_location_ranges(p_bytes bytea)
returns bigint[]
language plpgsql
immutable
as $$
declare
  v_length bigint := length(p_bytes);
  v_pos bigint := 0;
  v_boxes integer := 0;
  v_box bigint[];
  v_type bytea;
  v_meta_ranges bigint[];
  v_ranges bigint[] := '{}'::bigint[];
begin
  if app.bytes_at(p_bytes, 4, 4) is distinct from 'ftyp'::bytea then
    return v_ranges;
  end if;
  loop
    v_box := app.box_extent(p_bytes, v_pos, v_length);
    exit when v_box is null;
    v_boxes := v_boxes + 1;
    v_type := app.bytes_at(p_bytes, v_pos + 4, 4);
    if v_boxes > 64 or v_type in ('moov'::bytea, 'mpvd'::bytea) then
      return null;
    elsif v_type = 'meta'::bytea then
      v_meta_ranges := app.heic_meta_location_ranges(p_bytes, v_pos + v_box[1] + 4, v_pos + v_box[2]);
      if v_meta_ranges is null then    -- (|| would pass over a null list)
        return null;
      end if;
      v_ranges := v_ranges || v_meta_ranges;
      if app.too_many_ranges(v_ranges) then
        return null;
      end if;
    end if;
    v_pos := v_pos + v_box[2];
  end loop;
  return v_ranges;
end
$$;

-- A photo's bytes with its location removed and everything else kept: EXIF GPS and XMP packets
-- (which may hold GPS too) in JPEG, WebP and HEIC cleared in place, JPEG's IPTC block zeroed,
-- PNG's EXIF and XMP chunks left out, and what follows a JPEG's or PNG's image left out. p_format
-- is what app.image_format said of the bytes; any other value gives the bytes back unchanged, as
-- does a photo without such metadata. What a damaged file lets be read is cleared, an unreadable
-- EXIF block zeroed whole; a file beyond the bounds at the top of this file, or whose metadata
-- cannot be located, raises 422 photo_unreadable: it is not stored with a location unread.
create or replace function app.image_without_location(p_bytes bytea, p_format text)
returns bytea
language plpgsql
immutable
as $$
declare
  -- One plain in-memory copy, read by every reader below: bytes from a table column come as a
  -- TOAST pointer, and each get_byte on it would fetch all of the photo again.
  v_bytes bytea;
  v_ranges bigint[];
begin
  if p_bytes is null or p_format is null or p_format not in ('image/jpeg', 'image/png', 'image/webp', 'image/heic') then
    return p_bytes;
  end if;
  v_bytes := p_bytes || '\x'::bytea;
  v_ranges := case p_format
    when 'image/jpeg' then app.jpeg_location_ranges(v_bytes)
    when 'image/png' then app.png_location_ranges(v_bytes)
    when 'image/webp' then app.webp_location_ranges(v_bytes)
    when 'image/heic' then app.heic_location_ranges(v_bytes)
  end;
  if app.too_many_ranges(v_ranges) then
    perform app.raise_error(422, 'photo_unreadable',
      'The photo''s metadata could not be read safely to remove its location; it was not stored.');
  end if;
  if cardinality(v_ranges) = 0 then
    return p_bytes;
  end if;
  return app.bytes_with_ranges_filled(v_bytes, v_ranges);
end
$$;

grant execute on function
  app.read_uint_byte(bytea, bigint, integer, boolean, integer),
  app.read_uint(bytea, bigint, integer, boolean),
  app.bytes_at(bytea, bigint, bigint),
  app.byte_range(bigint, bigint, integer),
  app.too_many_ranges(bigint[]),
  app.has_heic_brand(bytea),
  app.image_format(bytea),
  app.bytes_with_ranges_filled(bytea, bigint[]),
  app.tiff_type_size(bigint),
  app.gps_ifd_ranges(bytea, bigint, bigint, boolean, bigint, bigint, bigint),
  app.tiff_location_ranges(bytea, bigint, bigint),
  app.exif_block_ranges(bytea, bigint, bigint),
  app.jpeg_location_ranges(bytea),
  app.webp_location_ranges(bytea),
  app.png_location_ranges(bytea),
  app.box_extent(bytea, bigint, bigint),
  app.heic_item_ids(bytea, bigint, bigint, text, text),
  app.heic_item_extents(bytea, bigint, bigint, bigint[], bigint),
  app.heic_top_box_end(bytea, bigint),
  app.heic_meta_location_ranges(bytea, bigint, bigint),
  app.heic_location_ranges(bytea),
  app.image_without_location(bytea, text)
to liftbase_api;
