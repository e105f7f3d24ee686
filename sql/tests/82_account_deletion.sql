-- DELETE /me removes every row of the user in every table, including tables added later:
-- each table with a user_id column must reach auth.users through ON DELETE CASCADE
-- foreign keys (checked from the catalog), and a filled account leaves nothing behind
-- while another account keeps all of its rows.
begin;
\ir support/helpers.psql
select plan(5);

\ir fixtures/full_account.psql

select pg_temp.sign_up('a', 'delete-a@example.com', 'password-a', 'Delete A');
select pg_temp.sign_up('b', 'delete-b@example.com', 'password-b', 'Delete B');
select pg_temp.fill_account(user_id, 'AAA-only') from tokens where name = 'a';
select pg_temp.fill_account(user_id, 'BBB-only') from tokens where name = 'b';

create temporary table tables_with_user_id as
select c.oid, format('%I.%I', n.nspname, c.relname) as table_name
  from pg_class as c
  join pg_namespace as n on n.oid = c.relnamespace
 where n.nspname not in ('pg_catalog', 'information_schema') and n.nspname !~ '^pg_'
   and c.relkind in ('r', 'p')
   and exists (select from pg_attribute as a where a.attrelid = c.oid and a.attname = 'user_id' and not a.attisdropped);

-- Tables whose rows go when their user goes: auth.users itself, and any table with a
-- cascading foreign key to one of them.
create temporary view cascading_from_users as
with recursive reached (oid) as (
  select 'auth.users'::regclass::oid
  union
  select con.conrelid from pg_constraint as con join reached as r on con.confrelid = r.oid
   where con.contype = 'f' and con.confdeltype = 'c'
)
select oid from reached;

select is(
  (select array_agg(t.table_name order by t.table_name) from tables_with_user_id as t
    where t.oid not in (select oid from cascading_from_users)),
  null,
  'every table with a user_id reaches auth.users through ON DELETE CASCADE');

select is(
  (select array_agg(t.table_name order by t.table_name) from tables_with_user_id as t
    where t.table_name like 'app.%' and pg_temp.rows_of(t.table_name, (select user_id from tokens where name = 'a')) = 0),
  null,
  'before: the account has rows in every user-owned table of app');

set local role liftbase_api;
select lives_ok(
  $$select api.me_delete((select token from tokens where name = 'a'), '{"password": "password-a"}', '{}')$$,
  'DELETE /me with the password');
reset role;

select is(
  (select array_agg(format('%s: %s', t.table_name, pg_temp.rows_of(t.table_name, (select user_id from tokens where name = 'a')))
                    order by t.table_name)
     from tables_with_user_id as t
    where pg_temp.rows_of(t.table_name, (select user_id from tokens where name = 'a')) > 0),
  null,
  'after: no table has a row of the deleted account');

select is(
  (select array_agg(t.table_name order by t.table_name) from tables_with_user_id as t
    where t.table_name like 'app.%' and pg_temp.rows_of(t.table_name, (select user_id from tokens where name = 'b')) = 0),
  null,
  'the other account keeps its rows in every table');

select * from finish();
rollback;
