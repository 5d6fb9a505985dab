-- Version 3: how many jobs of a deployment may hold a live lease at once (its scaling
-- maxConcurrency). A deployment without a row is unlimited. Claims of a limited deployment's
-- jobs happen under a transaction-scoped advisory lock of that deployment and count its live
-- leases in a statement that starts after the lock is held, so two consumers never exceed it.
create table verglas_deployment_limits (
  deployment      text primary key,
  max_concurrency integer not null,
  updated_at      timestamptz not null,
  constraint verglas_deployment_limits_positive check (max_concurrency > 0)
);
-- A deployment's due rows and live leases, by due time: the limited claim's per-deployment scan
-- and its count of live leases (state 'leased', run_at after now).
create index verglas_jobs_deployment_due on verglas_jobs (deployment, run_at)
  where state in ('ready', 'leased');
