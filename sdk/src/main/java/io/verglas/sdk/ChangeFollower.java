package io.verglas.sdk;

import java.time.Duration;

/**
 * Follows the commits of one table with the rows each changed: every commit of the change feed
 * ({@link FeedFollower}) and its delta from its parent snapshot ({@link TableClient#delta}).
 * A compaction ({@code replace}) moves rows without changing them and comes with an empty delta.
 * Resume after {@link TableCommit#nextPosition()} of the last change handled.
 */
public final class ChangeFollower implements AutoCloseable {
  private static final String REPLACE = "replace";

  private final FeedFollower commits;
  private final TableClient table;

  ChangeFollower(FeedFollower commits, TableClient table) {
    this.commits = commits;
    this.table = table;
  }

  /** The next commit and its rows, waiting at most {@code timeout} for the commit; null if none came. */
  public TableChange poll(Duration timeout) {
    TableCommit commit = commits.poll(timeout);
    if (commit == null) {
      return null;
    }
    TableDelta delta = REPLACE.equals(commit.operation())
        ? TableDelta.empty(commit.parentSnapshotId(), commit.snapshotId())
        : table.delta(commit.parentSnapshotId(), commit.snapshotId());
    return new TableChange(commit, delta);
  }

  @Override
  public void close() {
    commits.close();
  }
}
