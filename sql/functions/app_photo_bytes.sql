-- Progress photos' bytes: the format an upload is, told by its magic bytes rather than by its
-- name or declared type (which a client may get wrong), and the photo with its location removed
-- before it is stored: a phone writes where a photo was taken into its EXIF GPS tags and its XMP
-- packet, and a progress photo is mostly taken at home.
--
-- Location is removed in place wherever the container allows it (zero bytes over the GPS IFD
-- and its values, spaces over an XMP packet): every offset of the file stays valid, so nothing
-- else needs rewriting and everything else (orientation, colour profile, image data) is kept.
-- Only PNG drops whole chunks, as its chunks carry a CRC an edit would break.
--
-- Offsets here are 0-based file offsets, as get_byte counts; substring counts from 1, and only
-- app.bytes_at calls it. A range to change is a row {offset, length, fill} of a bigint[][]
-- (fill: the byte written over the range, or null to leave the range out), collected while the
-- headers are read and applied once by app.bytes_with_ranges_filled: a photo is up to ~20 MiB,
-- and each set_byte or overlay would copy all of it. Files are messy: no offset is read before
-- it is checked against the length, every loop has a bound, and an EXIF block that cannot be
-- read safely is zeroed whole rather than raising an error.

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
-- readers to append to their lists with ||.
create or replace function app.byte_range(p_offset bigint, p_length bigint, p_fill integer)
returns bigint[]
language sql
immutable
as $$ select array[[p_offset, p_length, p_fill]] $$;

-- Whether an ISO BMFF file (bytes 4..7 'ftyp') is HEIC: its major brand is one of HEIF's HEVC
-- brands, or it is the generic image or sequence brand (mif1, msf1) with an HEVC brand among
-- the compatible brands of its ftyp box. AVIF shares the container but not the brands.
create or replace function app.has_heic_brand(p_bytes bytea)
returns boolean
language sql
immutable
as $$
  select app.bytes_at(p_bytes, 4, 4) = 'ftyp'::bytea
     and (app.bytes_at(p_bytes, 8, 4) in ('heic', 'heix', 'heim', 'heis', 'hevc', 'hevx')
          or (app.bytes_at(p_bytes, 8, 4) in ('mif1', 'msf1')
              and exists (
                select
                  from generate_series(16, least(app.read_uint(p_bytes, 0, 4, false), length(p_bytes), 4096) - 4, 4)
                       as b (brand_offset)
                 where app.bytes_at(p_bytes, b.brand_offset, 4) in ('heic', 'heix', 'heim', 'heis', 'hevc', 'hevx'))))
$$;

-- The media type of a photo's bytes by their magic bytes: image/jpeg, image/png, image/webp or
-- image/heic; null for anything else (GIF, AVIF, text, nothing). A photo's name or declared type
-- is the client's word; what is stored and served is what the bytes are.
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
-- left out when the fill is null. Ranges are clipped to the bytes; where two overlap, the first
-- (by offset) keeps the overlap. No ranges: the same bytes. The ranges lie in the metadata, a
-- few KiB together, so the part from the first range's start to the last one's end is assembled
-- alone and joined once to what comes before and after it: the photo is copied a fixed number
-- of times, however many ranges there are. (One string_agg over all pieces would sort the
-- photo-sized pieces, and spill them to disk beyond work_mem.)
create or replace function app.bytes_with_ranges_filled(p_bytes bytea, p_ranges bigint[])
returns bytea
language plpgsql
immutable
as $$
declare
  v_length bigint := length(p_bytes);
  v_first bigint;                   -- where the first range starts
  v_done bigint;                    -- the end of the ranges so far: the bytes before it are in v_middle
  v_middle bytea := ''::bytea;
  v_range record;
begin
  for v_range in
    select greatest(p_ranges[i][1], 0) as start, least(p_ranges[i][1] + greatest(p_ranges[i][2], 0), v_length) as stop,
           p_ranges[i][3]::integer as fill
      from generate_subscripts(p_ranges, 1) as i
     order by 1, 2, i
  loop
    continue when v_range.stop <= greatest(v_range.start, v_done);
    if v_first is null then
      v_first := v_range.start;
      v_done := v_range.start;
    end if;
    if v_range.start > v_done then    -- the bytes kept between two ranges
      v_middle := v_middle || app.bytes_at(p_bytes, v_done, v_range.start - v_done);
      v_done := v_range.start;
    end if;
    if v_range.fill is not null then
      v_middle := v_middle || decode(repeat(lpad(to_hex(v_range.fill), 2, '0'), (v_range.stop - v_done)::integer), 'hex');
    end if;
    v_done := v_range.stop;
  end loop;
  if v_first is null then
    return p_bytes;
  end if;
  return app.bytes_at(p_bytes, 0, v_first) || v_middle || app.bytes_at(p_bytes, v_done, v_length - v_done);
end
$$;

-- The size of each value of a TIFF field type, in bytes; null for a type TIFF does not define
-- (its values cannot be found, so a GPS IFD with one cannot be cleared safely).
create or replace function app.tiff_type_size(p_type bigint)
returns integer
language sql
immutable
as $$
  select case
    when p_type in (1, 2, 6, 7) then 1    -- BYTE, ASCII, SBYTE, UNDEFINED
    when p_type in (3, 8) then 2          -- SHORT, SSHORT
    when p_type in (4, 9, 11, 13) then 4  -- LONG, SLONG, FLOAT, IFD
    when p_type in (5, 10, 12) then 8     -- RATIONAL, SRATIONAL, DOUBLE
  end
$$;

-- The ranges that clear one GPS IFD of the TIFF block [p_tiff, p_end): its entry count and
-- entries (zeroed, the count becomes 0) and every value stored outside an entry (an entry's
-- values of more than 4 bytes live at the offset its value field holds). Null when the IFD
-- cannot be cleared safely: out of the block, too many entries, a type of unknown size, or a
-- table or value over the header or over IFD0's entries [p_ifd0, p_ifd0_end), which hold the
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
  if (v_count <= 1000 and p_gps >= p_tiff + 8 and v_table_end <= p_end
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
-- (II little-endian, MM big-endian), 42, the offset of IFD0; each GPSInfo tag (0x8825) of IFD0
-- points to a GPS IFD, cleared by app.gps_ifd_ranges. Nothing to do (an empty list) without a
-- GPSInfo tag; null when the block cannot be read safely, for the caller to zero it whole.
-- Offsets inside TIFF count from its header; the ranges returned are file offsets.
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
  v_gps bigint;
  v_followed bigint[] := '{}'::bigint[];
  v_gps_ranges bigint[];
  v_ranges bigint[] := '{}'::bigint[];
begin
  if (v_little is not null and app.read_uint(p_bytes, p_tiff + 2, 2, v_little) = 42
      and v_ifd0 >= p_tiff + 8 and v_count <= 1000 and v_ifd0_end <= v_end) is not true then
    return null;
  end if;
  for v_index in 0 .. v_count - 1 loop
    v_entry := v_ifd0 + 2 + 12 * v_index;
    if app.read_uint(p_bytes, v_entry, 2, v_little) = 34853 then  -- 0x8825, GPSInfo
      v_gps := p_tiff + app.read_uint(p_bytes, v_entry + 8, 4, v_little);
      continue when v_gps = any(v_followed);                        -- no IFD pointer followed twice
      v_followed := v_followed || v_gps;
      v_gps_ranges := app.gps_ifd_ranges(p_bytes, p_tiff, v_end, v_little, v_gps, v_ifd0, v_ifd0_end);
      if v_gps_ranges is null then
        return null;
      end if;
      v_ranges := v_ranges || v_gps_ranges;
    end if;
  end loop;
  return v_ranges;
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
-- none). An APP1 segment (FF E1) holds EXIF after 'Exif\0\0' (its GPS cleared) or an XMP packet
-- after XMP's namespace and a zero byte (made spaces). A segment cut short by the end of the file
-- counts as far as it goes; anything else unreadable ends the walk.
create or replace function app.jpeg_location_ranges(p_bytes bytea)
returns bigint[]
language plpgsql
immutable
as $$
declare
  v_length bigint := length(p_bytes);
  v_pos bigint := 2;
  v_fill_bytes integer := 0;
  v_marker bigint;
  v_size bigint;
  v_data bigint;
  v_ranges bigint[] := '{}'::bigint[];
begin
  if app.bytes_at(p_bytes, 0, 2) is distinct from '\xffd8'::bytea then
    return v_ranges;
  end if;
  for v_segment in 1 .. 1000 loop
    -- FF FF: a fill byte before the marker's FF (at most 1000 of them in the whole file)
    while v_fill_bytes < 1000 and app.read_uint(p_bytes, v_pos, 2, false) = 65535 loop
      v_pos := v_pos + 1;
      v_fill_bytes := v_fill_bytes + 1;
    end loop;
    exit when app.read_uint(p_bytes, v_pos, 1, false) is distinct from 255;
    v_marker := app.read_uint(p_bytes, v_pos + 1, 1, false);
    exit when v_marker is null or v_marker in (217, 218);                        -- EOI, SOS
    if v_marker = 1 or v_marker between 208 and 215 then                         -- TEM, RSTn: no length
      v_pos := v_pos + 2;
      continue;
    end if;
    v_size := app.read_uint(p_bytes, v_pos + 2, 2, false) - 2;
    exit when v_size is null or v_size < 0;
    v_data := v_pos + 4;
    v_size := least(v_size, v_length - v_data);
    if v_marker = 225 and app.bytes_at(p_bytes, v_data, 6) = 'Exif\000\000'::bytea then
      v_ranges := v_ranges || app.exif_block_ranges(p_bytes, v_data + 6, v_size - 6);
    elsif v_marker = 225 and app.bytes_at(p_bytes, v_data, 29) = 'http://ns.adobe.com/xap/1.0/\000'::bytea then
      v_ranges := v_ranges || app.byte_range(v_data + 29, v_size - 29, 32);
    end if;
    v_pos := v_data + v_size;
  end loop;
  return v_ranges;
end
$$;

-- WebP: RIFF chunks after the 12-byte header ('RIFF', size, 'WEBP'), each a fourcc, a
-- little-endian size and its data, padded to an even length. The 'EXIF' chunk is a TIFF block
-- (after 'Exif\0\0' for some writers), the 'XMP ' chunk an XMP packet (made spaces). The chunks
-- are walked to the end of the file, not of the RIFF size: a chunk past a wrong size is still
-- in the file that is stored.
create or replace function app.webp_location_ranges(p_bytes bytea)
returns bigint[]
language plpgsql
immutable
as $$
declare
  v_length bigint := length(p_bytes);
  v_pos bigint := 12;
  v_size bigint;
  v_data bigint;
  v_tiff bigint;
  v_type bytea;
  v_ranges bigint[] := '{}'::bigint[];
begin
  if app.image_format(p_bytes) is distinct from 'image/webp' then
    return v_ranges;
  end if;
  for v_chunk in 1 .. 1000 loop
    v_size := app.read_uint(p_bytes, v_pos + 4, 4, true);
    exit when v_size is null;
    v_type := app.bytes_at(p_bytes, v_pos, 4);
    v_data := v_pos + 8;
    v_size := least(v_size, v_length - v_data);
    if v_type = 'EXIF'::bytea then
      v_tiff := v_data + case when app.bytes_at(p_bytes, v_data, 6) = 'Exif\000\000'::bytea then 6 else 0 end;
      v_ranges := v_ranges || coalesce(app.tiff_location_ranges(p_bytes, v_tiff, v_data + v_size - v_tiff),
                                       app.byte_range(v_data, v_size, 0));
    elsif v_type = 'XMP '::bytea then
      v_ranges := v_ranges || app.byte_range(v_data, v_size, 32);
    end if;
    v_pos := v_data + v_size + v_size % 2;
  end loop;
  return v_ranges;
end
$$;

-- PNG: the chunks after the 8-byte signature, each a big-endian length, a type, the data and a
-- CRC. The eXIf chunk (EXIF) and text chunks of XMP (iTXt 'XML:com.adobe.xmp') or of EXIF or XMP
-- as ImageMagick writes them ('Raw profile type exif', '... APP1', '... xmp') are left out whole:
-- an edit inside a chunk would make its CRC wrong. A file's IDAT chunks are many (libpng writes
-- 8 KiB each), so this walk's bound is larger; it ends at IEND.
create or replace function app.png_location_ranges(p_bytes bytea)
returns bigint[]
language plpgsql
immutable
as $$
declare
  v_length bigint := length(p_bytes);
  v_pos bigint := 8;
  v_size bigint;
  v_type bytea;
  v_keyword text;
  v_ranges bigint[] := '{}'::bigint[];
begin
  if app.image_format(p_bytes) is distinct from 'image/png' then
    return v_ranges;
  end if;
  for v_chunk in 1 .. 100000 loop
    v_size := app.read_uint(p_bytes, v_pos, 4, false);
    exit when v_size is null;
    v_type := app.bytes_at(p_bytes, v_pos + 4, 4);
    if v_type in ('iTXt'::bytea, 'tEXt'::bytea, 'zTXt'::bytea) then
      -- the keyword: up to 79 bytes before a zero byte (shown as \000 by the escape encoding)
      v_keyword := split_part(encode(app.bytes_at(p_bytes, v_pos + 8, least(v_size, 80)), 'escape'), '\000', 1);
    end if;
    if v_type = 'eXIf'::bytea
       or (v_type = 'iTXt'::bytea and v_keyword = 'XML:com.adobe.xmp')
       or (v_type in ('iTXt'::bytea, 'tEXt'::bytea, 'zTXt'::bytea)
           and v_keyword in ('Raw profile type exif', 'Raw profile type APP1', 'Raw profile type xmp')) then
      v_ranges := v_ranges || app.byte_range(v_pos, least(12 + v_size, v_length - v_pos), null);
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
-- what is read); null when no box fits.
create or replace function app.box_extent(p_bytes bytea, p_pos bigint, p_end bigint)
returns bigint[]
language plpgsql
immutable
as $$
declare
  v_size bigint := app.read_uint(p_bytes, p_pos, 4, false);
  v_header bigint := 8;
begin
  if v_size is null or p_end - p_pos < 8 then
    return null;
  elsif v_size = 0 then
    v_size := p_end - p_pos;
  elsif v_size = 1 then
    v_header := 16;
    v_size := app.read_uint(p_bytes, p_pos + 8, 8, false);
  end if;
  if (v_size >= v_header and v_header <= p_end - p_pos) is not true then
    return null;
  end if;
  return array[v_header, least(v_size, p_end - p_pos)];
end
$$;

-- HEIC: the IDs of the items of type p_type listed by the iinf box whose contents (after its
-- header) are [p_start, p_end); for type 'mime', only those whose content type is
-- p_content_type. Each 'infe' entry of version 2 or 3 (what HEIF writes) has: version and flags
-- (4 bytes), item_ID (16 bits in version 2, 32 in 3), protection index (16 bits), the item type,
-- then for 'mime' a zero-ended name and the zero-ended content type.
create or replace function app.heic_item_ids(p_bytes bytea, p_start bigint, p_end bigint, p_type text,
                                             p_content_type text)
returns bigint[]
language plpgsql
immutable
as $$
declare
  -- after version and flags, entry_count: 16 bits in version 0, 32 after
  v_pos bigint := p_start + 4 + case when app.read_uint(p_bytes, p_start, 1, false) = 0 then 2 else 4 end;
  v_box bigint[];
  v_content bigint;
  v_version bigint;
  v_id_size integer;
  v_type_pos bigint;
  v_strings text;
  v_ids bigint[] := '{}'::bigint[];
begin
  for v_entry in 1 .. 10000 loop
    v_box := app.box_extent(p_bytes, v_pos, p_end);
    exit when v_box is null;
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
        end if;
      end if;
    end if;
    v_pos := v_pos + v_box[2];
  end loop;
  return v_ids;
end
$$;

-- HEIC: the extents of the items p_items, from the iloc box whose contents (after its header)
-- are [p_start, p_end): rows {item_ID, file offset, length}. iloc versions 0 to 2: version and
-- flags, then the nibbles offset_size, length_size, base_offset_size and index_size (versions 1
-- and 2), the item count; per item its ID, construction method (versions 1 and 2), data
-- reference index, base offset and extents (index, offset, length). Construction method 0 counts
-- from the file's start, 1 from the idat box's data at p_idat (null without one); method 2
-- (data of other items) is not followed. An extent length of 0 runs to the end of the file.
-- Null when the box cannot be read, or gives these items more than 1000 extents in all.
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
  if (v_version <= 2 and v_count <= 10000 and v_offset_size in (0, 4, 8) and v_length_size in (0, 4, 8)
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
    v_origin := case v_method when 0 then 0 when 1 then p_idat end;
    if v_id = any(p_items) and v_origin is not null then
      v_read := v_read + v_extent_count;
      if v_read > 1000 then
        return null;
      end if;
      for v_index in 0 .. v_extent_count - 1 loop
        v_extent := v_pos + (v_index_size + v_offset_size + v_length_size) * v_index;
        v_offset := app.read_uint(p_bytes, v_extent + v_index_size, v_offset_size, false);
        v_extent_length := app.read_uint(p_bytes, v_extent + v_index_size + v_offset_size, v_length_size, false);
        -- each term checked against the length before the sum, which could not overflow then
        if v_base < v_length and v_offset < v_length and v_origin + v_base + v_offset < v_length then
          v_offset := v_origin + v_base + v_offset;
          v_extent_length := case when v_extent_length = 0 then v_length - v_offset
                                  else least(v_extent_length, v_length - v_offset) end;
          v_extents := v_extents || array[[v_id, v_offset, v_extent_length]];
        end if;
      end loop;
    end if;
    v_pos := v_pos + (v_index_size + v_offset_size + v_length_size) * v_extent_count;
  end loop;
  return v_extents;
end
$$;

-- HEIC: the ranges that clear the metadata items of the meta box whose children are
-- [p_start, p_end). iinf names the items (type 'Exif'; type 'mime' of content type
-- application/rdf+xml, XMP), iloc says where their bytes are. An Exif item's data starts with
-- a big-endian 32-bit offset to its TIFF header, counted from after those 4 bytes; its GPS is
-- cleared, or, when the TIFF cannot be read or the item is in several extents, every extent of
-- the item is zeroed. XMP extents become spaces.
create or replace function app.heic_meta_location_ranges(p_bytes bytea, p_start bigint, p_end bigint)
returns bigint[]
language plpgsql
immutable
as $$
declare
  v_pos bigint := p_start;
  v_box bigint[];
  v_type bytea;
  v_iinf bigint[];
  v_iloc bigint[];
  v_idat bigint;
  v_exif_ids bigint[];
  v_xmp_ids bigint[];
  v_extents bigint[];
  v_offset bigint;
  v_length bigint;
  v_tiff bigint;
  v_exif_ranges bigint[];
  v_ranges bigint[] := '{}'::bigint[];
begin
  -- iinf, iloc: {start, end} of the contents after the header; idat: where its data starts
  for v_child in 1 .. 1000 loop
    v_box := app.box_extent(p_bytes, v_pos, p_end);
    exit when v_box is null;
    v_type := app.bytes_at(p_bytes, v_pos + 4, 4);
    if v_type = 'iinf'::bytea and v_iinf is null then
      v_iinf := array[v_pos + v_box[1], v_pos + v_box[2]];
    elsif v_type = 'iloc'::bytea and v_iloc is null then
      v_iloc := array[v_pos + v_box[1], v_pos + v_box[2]];
    elsif v_type = 'idat'::bytea and v_idat is null then
      v_idat := v_pos + v_box[1];
    end if;
    v_pos := v_pos + v_box[2];
  end loop;
  if v_iinf is null or v_iloc is null then
    return v_ranges;
  end if;
  v_exif_ids := app.heic_item_ids(p_bytes, v_iinf[1], v_iinf[2], 'Exif', null);
  v_xmp_ids := app.heic_item_ids(p_bytes, v_iinf[1], v_iinf[2], 'mime', 'application/rdf+xml');
  if cardinality(v_exif_ids) + cardinality(v_xmp_ids) = 0 then
    return v_ranges;
  end if;
  v_extents := app.heic_item_extents(p_bytes, v_iloc[1], v_iloc[2], v_exif_ids || v_xmp_ids, v_idat);
  for v_row in 1 .. coalesce(array_length(v_extents, 1), 0) loop
    v_offset := v_extents[v_row][2];
    v_length := v_extents[v_row][3];
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
  end loop;
  return v_ranges;
end
$$;

-- HEIC: the top-level boxes of the file (ftyp, meta, mdat, ...); the meta box, a full box (4
-- bytes of version and flags after its header), holds the item boxes.
create or replace function app.heic_location_ranges(p_bytes bytea)
returns bigint[]
language plpgsql
immutable
as $$
declare
  v_length bigint := length(p_bytes);
  v_pos bigint := 0;
  v_box bigint[];
  v_ranges bigint[] := '{}'::bigint[];
begin
  if app.bytes_at(p_bytes, 4, 4) is distinct from 'ftyp'::bytea then
    return v_ranges;
  end if;
  for v_top in 1 .. 1000 loop
    v_box := app.box_extent(p_bytes, v_pos, v_length);
    exit when v_box is null;
    if app.bytes_at(p_bytes, v_pos + 4, 4) = 'meta'::bytea then
      v_ranges := v_ranges || app.heic_meta_location_ranges(p_bytes, v_pos + v_box[1] + 4, v_pos + v_box[2]);
    end if;
    v_pos := v_pos + v_box[2];
  end loop;
  return v_ranges;
end
$$;

-- A photo's bytes with its location removed and everything else kept: EXIF GPS and XMP packets
-- (which may hold GPS too) in JPEG, WebP and HEIC cleared in place, PNG's EXIF and XMP chunks left
-- out. p_format is what app.image_format said of the bytes; any other value gives the bytes back
-- unchanged, as does a photo without such metadata. A damaged container raises no error: what
-- can be read is cleared, an unreadable EXIF block zeroed whole.
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
  if p_format is null or p_format not in ('image/jpeg', 'image/png', 'image/webp', 'image/heic') then
    return p_bytes;
  end if;
  v_bytes := p_bytes || '\x'::bytea;
  v_ranges := case p_format
    when 'image/jpeg' then app.jpeg_location_ranges(v_bytes)
    when 'image/png' then app.png_location_ranges(v_bytes)
    when 'image/webp' then app.webp_location_ranges(v_bytes)
    when 'image/heic' then app.heic_location_ranges(v_bytes)
  end;
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
  app.heic_meta_location_ranges(bytea, bigint, bigint),
  app.heic_location_ranges(bytea),
  app.image_without_location(bytea, text)
to liftbase_api;
