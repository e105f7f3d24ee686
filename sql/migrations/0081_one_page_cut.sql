-- Every list cuts its page with app.page (keyset, now naming the member its cursor is) or
-- app.offset_page (sql/functions/app_ranges_and_pages.sql): the two-argument app.page goes.
drop function if exists app.page(jsonb, integer);
