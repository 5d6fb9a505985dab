-- Version 1: the durable job queue. One row per dispatch; identity is the deterministic trigger
-- identity, so enqueue is idempotent (INSERT ... ON CONFLICT DO NOTHING).
-- run_at is the row's next due time whatever its state: for 'ready' the time it may run, for
-- 'leased' the lease expiry (after which another consumer may claim it with a higher
-- generation). min(run_at) over ready and leased rows is the scheduler's only timer.
create table verglas_jobs (
  id             bigserial primary key,
  identity       text not null,
  deployment     text not null,
  trigger_key    text,
  interval_start timestamptz,
  event          text not null,
  state          text not null,
  run_at         timestamptz not null,
  attempts       integer not null default 0,
  max_attempts   integer not null,
  generation     bigint not null default 0,
  lease_owner    text,
  last_error     text,
  enqueued_at    timestamptz not null,
  finished_at    timestamptz,
  constraint verglas_jobs_identity unique (identity),
  constraint verglas_jobs_state check (state in ('ready', 'leased', 'done', 'dead')),
  constraint verglas_jobs_attempts check (max_attempts > 0 and attempts >= 0)
);
create index verglas_jobs_due on verglas_jobs (run_at) where state in ('ready', 'leased');
create index verglas_jobs_trigger on verglas_jobs (trigger_key, interval_start)
  where trigger_key is not null;
