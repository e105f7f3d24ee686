-- liftbase.bcrypt_cost: the default, an operator's valid choice, and a malformed or
-- out-of-range setting refused rather than replaced by the default.
begin;
\ir support/helpers.psql
select plan(5);

select is(auth.bcrypt_cost(), 4, 'the test database sets cost 4');

set local liftbase.bcrypt_cost = '';
select is(auth.bcrypt_cost(), 10, 'unset (empty), the cost is 10');

set local liftbase.bcrypt_cost = '12';
select is(auth.bcrypt_cost(), 12, 'a cost from 4 to 15 is used');

set local liftbase.bcrypt_cost = '16';
select throws_ok('select auth.bcrypt_cost()', 'F0000',
  'liftbase.bcrypt_cost = 16: must be a whole number from 4 to 15', 'a cost above 15 is refused, not replaced by 10');

set local liftbase.bcrypt_cost = 'ten';
select throws_ok('select auth.hash_password(''a password'')', 'F0000',
  'liftbase.bcrypt_cost = ten: must be a whole number from 4 to 15', 'a cost that is no number refuses to hash');

select * from finish();
rollback;
