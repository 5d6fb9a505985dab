package io.verglas.sdk;

import io.verglas.protocol.PutAck;
import io.verglas.wal.WalSegmentCodec;
import java.net.URI;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.expressions.Expression;

/**
 * The verbs of one table: {@link #commit} rows and wait until they are in the table,
 * {@link #snapshot()}, {@link #rows} of a snapshot, the {@link #delta} between two snapshots, and
 * {@link #follow} / {@link #followRows} over the change feed. Get one from
 * {@link VerglasClient#table}; it pushes through the client's Flight connection, reads through
 * the query endpoint and follows the change feed the client was built with.
 *
 * <p>Exactly-once effects: {@code commit(rows, key)} sends the rows as batches named by the key.
 * The ingest server answers a batch whose key it has already made durable with its first
 * acknowledgement instead of writing it again, and the table upserts by primary key, so calling
 * {@code commit} again with the same key and rows (a retried run) changes nothing and returns
 * the same snapshot.
 *
 * <pre>{@code
 * TableClient orders = client.table("shop.orders");
 * long snapshot = orders.commit(List.of(new Order(1, "tea")), "run-2026-12-01T10");
 * TableDelta changed = orders.delta(before, snapshot);
 * }</pre>
 */
public final class TableClient {
  /** Rows per batch of one commit; a bigger commit is several batches with derived keys. */
  static final int COMMIT_BATCH_ROWS = 10_000;
  private static final int KEY_SUFFIX_RESERVE = 12;

  private final VerglasClient client;
  private final TableIdentifier table;
  private final QueryClient queries;
  private final URI events;
  private final String eventsToken;
  private final Duration commitTimeout;
  private final Duration pollInterval;
  private final HttpClient feedHttp;

  TableClient(VerglasClient client, TableIdentifier table, QueryClient queries, URI events,
      String eventsToken, Duration commitTimeout, Duration pollInterval, HttpClient feedHttp) {
    this.client = client;
    this.table = table;
    this.queries = queries;
    this.events = events;
    this.eventsToken = eventsToken;
    this.commitTimeout = commitTimeout;
    this.pollInterval = pollInterval;
    this.feedHttp = feedHttp;
  }

  public TableIdentifier identifier() {
    return table;
  }

  /**
   * Pushes {@code rows} (maps or records, see {@link TableRows}) under {@code idempotencyKey},
   * waits until the materializer has committed them and returns the id of the first snapshot
   * that holds them. A replay with the same key and rows returns the same snapshot (or, long
   * after, a later one that still holds them) and writes nothing twice.
   *
   * <p>Every row is checked before the first batch is sent, so the rows are held (as Arrow
   * batches) until then: commit what one run produces, not an unbounded stream.
   *
   * <p>Rows that change nothing (only deletes of keys the table does not hold) make no snapshot
   * of their own: the table's next commit records them, and until then this waits.
   *
   * @throws IllegalArgumentException for a bad row (nothing is sent) or key
   * @throws VerglasException when the server refuses the rows, or TIMED_OUT when they are not
   *     committed within the client's commit timeout
   */
  public long commit(Iterable<?> rows, String idempotencyKey) {
    checkKey(idempotencyKey);
    CommitWatch watch = new CommitWatch(queries("commit"), table, commitTimeout, pollInterval);
    return watch.await(push(rows, idempotencyKey)).snapshotId();
  }

  /** The table's current snapshot, or null when it has none yet. */
  public TableSnapshot snapshot() {
    return queries("read the snapshot").snapshot(table, null);
  }

  /** The snapshot of that id (404 {@link QueryFailedException} when it has expired). */
  public TableSnapshot snapshot(long snapshotId) {
    return queries("read the snapshot").snapshot(table, snapshotId);
  }

  /** The rows of snapshot {@code snapshotId} matching {@code filter} (null for all), up to the node's row limit. */
  public QueryAnswer rows(long snapshotId, Expression filter) {
    QueryClient.Scan scan = queries("read rows").scan(table).atSnapshot(snapshotId);
    return (filter == null ? scan : scan.where(filter)).run();
  }

  /**
   * The rows inserted, updated and deleted from {@code fromSnapshotId} (null: the empty table) to
   * {@code toSnapshotId}, which must descend from it.
   */
  public TableDelta delta(Long fromSnapshotId, long toSnapshotId) {
    return queries("compute a delta").delta(table, fromSnapshotId, toSnapshotId);
  }

  /** The table's commits from change-feed position {@code fromPosition} (1: the beginning). */
  public FeedFollower follow(long fromPosition) {
    if (events == null) {
      throw new IllegalStateException("Cannot follow " + table + ": the client has no change feed"
          + " endpoint (VerglasClient.Builder.changeFeed)");
    }
    return new FeedFollower(feedHttp, events, eventsToken, table, fromPosition);
  }

  /** The table's commits with the rows each changed, from change-feed position {@code fromPosition}. */
  public ChangeFollower followRows(long fromPosition) {
    queries("follow rows");
    return new ChangeFollower(follow(fromPosition), this);
  }

  private List<CommitWatch.Sent> push(Iterable<?> rows, String key) {
    List<CompletableFuture<PutAck>> acks = new ArrayList<>();
    List<String> keys = new ArrayList<>();
    Iterator<?> remaining = rows.iterator();
    if (!remaining.hasNext()) {
      throw new IllegalArgumentException("Cannot commit to " + table + ": no rows");
    }
    try (TableRows batch = TableRows.forSchema(client.tableSchema(table), client.allocator());
        TableWriter writer = client.openWriter(table)) {
      List<VectorSchemaRoot> batches = new ArrayList<>();
      try {
        // every row is checked before the first batch is sent
        while (remaining.hasNext()) {
          batch.add(remaining.next());
          if (batch.rowCount() == COMMIT_BATCH_ROWS) {
            batches.add(batch.build());
          }
        }
        if (batch.rowCount() > 0) {
          batches.add(batch.build());
        }
        for (int i = 0; i < batches.size(); i++) {
          keys.add(batches.size() == 1 ? key : key + "/" + i);
          acks.add(writer.write(batches.get(i), keys.get(i)));
        }
        writer.flush();
      } finally {
        batches.forEach(VectorSchemaRoot::close);
      }
    }
    List<CommitWatch.Sent> sent = new ArrayList<>();
    for (int i = 0; i < acks.size(); i++) {
      sent.add(new CommitWatch.Sent(acks.get(i).join(), keys.get(i)));
    }
    return sent;
  }

  private QueryClient queries(String verb) {
    if (queries == null) {
      throw new IllegalStateException("Cannot " + verb + " of " + table + ": the client has no"
          + " query endpoint (VerglasClient.Builder.queryEndpoint)");
    }
    return queries;
  }

  private static void checkKey(String key) {
    Objects.requireNonNull(key, "idempotencyKey");
    if (key.isBlank() || key.length() > WalSegmentCodec.MAX_KEY_LENGTH - KEY_SUFFIX_RESERVE) {
      throw new IllegalArgumentException("Invalid idempotency key: '" + key + "' (non-blank, at most "
          + (WalSegmentCodec.MAX_KEY_LENGTH - KEY_SUFFIX_RESERVE) + " characters)");
    }
  }
}
