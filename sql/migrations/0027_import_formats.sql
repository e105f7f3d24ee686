-- Two more formats people bring: MyFitnessPal's nutrition summary and FitNotes' training
-- export.
alter table app.import_runs drop constraint import_runs_format_check;
alter table app.import_runs add constraint import_runs_format_check
  check (format in ('strong', 'hevy', 'cronometer', 'liftbase', 'myfitnesspal', 'fitnotes'));
