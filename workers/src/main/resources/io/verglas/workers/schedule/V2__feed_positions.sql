-- Version 2: where each change feed subscriber resumes. One row per subscriber; next_position is
-- the feed sequence it reads from after a restart. Jobs a subscriber enqueued carry identities
-- derived from event ids, so re-reading events after the stored position enqueues nothing twice.
create table verglas_feed_positions (
  subscriber    text primary key,
  next_position bigint not null,
  updated_at    timestamptz not null,
  constraint verglas_feed_positions_position check (next_position >= 1)
);
