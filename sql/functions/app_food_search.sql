-- The full-text query of a food search, tolerant of typos: every word of the query must
-- match (AND); a word that is a catalog word matches as it is, a misspelt one matches the
-- catalog words most like it (trigram similarity ≥ 0.5, at most three), and the last word
-- also matches as a prefix (people search as they type). Words that match no catalog word
-- at all are left out rather than failing the whole query: null terms when nothing is left.
-- `corrected` is the query with every misspelt word replaced by its closest catalog word
-- (null when no word needed it), for a cheap prefix search on what the user meant.
--
-- A loop of small index lookups per word (a query has a few words) rather than one
-- set-based statement: planned once per connection, each lookup stays an index probe.
create or replace function app.food_name_query(p_query text, out terms tsquery, out corrected text)
language plpgsql
stable
-- The words table is small, and the planner prices a trigram match (%) so low that it
-- scans all of it (about 4 ms on SR28's words) instead of using the trigram index (0.3 ms).
set enable_seqscan = off
as $$
declare
  v_words text[] := array(select app.name_words(p_query));
  v_count integer := coalesce(array_length(v_words, 1), 0);
  v_terms text[] := '{}';
  v_meant text[] := '{}';
  v_spellings text[];
  v_prefix text;
  v_term text;
  i integer;
begin
  for i in 1 .. v_count loop
    if exists (select from app.food_name_words as d where d.word = v_words[i]) then
      v_spellings := array[v_words[i]];
    else
      v_spellings := array(select d.word from app.food_name_words as d
                            where d.word % v_words[i] and similarity(d.word, v_words[i]) >= 0.5
                            order by similarity(d.word, v_words[i]) desc, d.word limit 3);
    end if;
    v_meant := v_meant || v_spellings[1];
    -- The last word as a prefix, when some catalog word starts with it. Under collation C
    -- every word starting with it sorts between it and it followed by the highest code point.
    v_prefix := null;
    if i = v_count and exists (select from app.food_name_words as d
                                where d.word >= v_words[i] and d.word < v_words[i] || chr(1114111)) then
      v_prefix := v_words[i];
    end if;
    -- Foods' search_vector is English-stemmed: stem each spelling the same way. Stop words
    -- have no lexeme and drop out here.
    select string_agg(distinct x.lexeme, ' | ') into v_term
      from (select quote_literal(l.lexeme) as lexeme
              from unnest(v_spellings) as s (word) cross join lateral unnest(to_tsvector('english', s.word)) as l
            union all
            select quote_literal(l.lexeme) || ':*'
              from unnest(to_tsvector('english', v_prefix)) as l) as x;
    if v_term is not null then
      v_terms := v_terms || ('(' || v_term || ')');
    end if;
  end loop;
  terms := nullif(array_to_string(v_terms, ' & '), '')::tsquery;
  corrected := nullif(array_to_string(v_meant, ' '), array_to_string(v_words, ' '));
end
$$;

grant execute on function app.food_name_query(text, out tsquery, out text) to liftbase_api;
