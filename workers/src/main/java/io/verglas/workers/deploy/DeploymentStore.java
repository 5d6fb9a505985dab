package io.verglas.workers.deploy;

import io.verglas.sdk.QueryAnswer;
import io.verglas.sdk.TableClient;
import io.verglas.sdk.TableSnapshot;
import io.verglas.sdk.VerglasClient;
import io.verglas.workers.systable.SystemTables;
import java.time.Clock;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.types.Types;

/**
 * Deployments as append-only revisions in {@code verglas_sys.deployments} (name, revision,
 * state, record JSON, created_at), written and read through the stack like any table.
 *
 * <p>Design. A deploy or undeploy reads the name's latest revision and commits revision
 * {@code latest + 1} under the idempotency key {@code verglas-deploy/<name>/r<revision>}. The key
 * is the compare-and-set: if a concurrent writer committed that revision first, the ingest
 * server absorbs ours (it answers a known key with its first acknowledgement), so after the
 * commit the store reads the revision back and fails unless it is the one it wrote. A retried
 * deploy of the same record under the same revision is absorbed and reads back as its own:
 * deploying is idempotent. Nothing is updated or deleted: history is the table.
 *
 * <p>Reads go through the query endpoint and are bounded by its row limit (every revision of
 * every deployment is one row; a truncated answer fails rather than show a stale state).
 */
public final class DeploymentStore {
  public static final TableIdentifier TABLE = SystemTables.table("deployments");
  static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "name", Types.StringType.get()),
      Types.NestedField.required(2, "revision", Types.IntegerType.get()),
      Types.NestedField.required(3, "state", Types.StringType.get()),
      Types.NestedField.required(4, "record", Types.StringType.get()),
      Types.NestedField.required(5, "created_at", Types.TimestampType.withZone()));

  private final VerglasClient client;
  private final Clock clock;
  private volatile boolean created;

  /** @param client a client with the query endpoint (commits wait for the table; reads) */
  public DeploymentStore(VerglasClient client, Clock clock) {
    this.client = client;
    this.clock = clock;
  }

  /** Stores {@code record} as the deployment's next, active revision. */
  public DeploymentRevision deploy(DeploymentRecord record) {
    Optional<DeploymentRevision> latest = current(record.name());
    return append(record, latest.map(DeploymentRevision::revision).orElse(0) + 1,
        DeploymentRevision.State.ACTIVE, "deploy");
  }

  /** Stores the undeployed revision of an active deployment {@code name}. */
  public DeploymentRevision undeploy(String name) {
    DeploymentRevision latest = current(name).orElseThrow(() -> new IllegalArgumentException(
        "Cannot undeploy " + name + ": no such deployment"));
    if (!latest.active()) {
      throw new IllegalArgumentException("Cannot undeploy " + name + ": revision "
          + latest.revision() + " already undeployed it");
    }
    return append(latest.record(), latest.revision() + 1, DeploymentRevision.State.UNDEPLOYED,
        "undeploy");
  }

  /** The latest revision of {@code name}, if it was ever deployed. */
  public Optional<DeploymentRevision> current(String name) {
    return history(name).stream().reduce((a, b) -> b);
  }

  /** The latest revision of every deployment ever deployed, by name. */
  public List<DeploymentRevision> currentAll() {
    Map<String, DeploymentRevision> latest = new TreeMap<>();
    for (DeploymentRevision r : read(null)) {
      latest.merge(r.name(), r, (a, b) -> a.revision() >= b.revision() ? a : b);
    }
    return List.copyOf(latest.values());
  }

  /** Every revision of {@code name}, oldest first. */
  public List<DeploymentRevision> history(String name) {
    return read(Expressions.equal("name", name));
  }

  private DeploymentRevision append(DeploymentRecord record, int revision,
      DeploymentRevision.State state, String verb) {
    ensureTable();
    Instant now = clock.instant();
    Map<String, Object> row = new HashMap<>();
    row.put("name", record.name());
    row.put("revision", revision);
    row.put("state", state.name().toLowerCase(Locale.ROOT));
    row.put("record", DeploymentRecordParser.toJson(record));
    row.put("created_at", now);
    client.table(TABLE).commit(List.of(row), "verglas-deploy/" + record.name() + "/r" + revision);
    DeploymentRevision written = history(record.name()).stream()
        .filter(r -> r.revision() == revision).findFirst().orElseThrow(() ->
            new IllegalStateException("Cannot " + verb + " " + record.name() + ": revision "
                + revision + " is not in " + TABLE + " after its commit"));
    if (written.state() != state || !written.record().equals(record)) {
      throw new IllegalStateException("Cannot " + verb + " " + record.name() + ": another "
          + "writer stored revision " + revision + " at the same time; read the deployment "
          + "and try again");
    }
    return written;
  }

  private void ensureTable() {
    if (!created) {
      SystemTables.ensure(client, TABLE, SCHEMA, List.of());
      created = true;
    }
  }

  private List<DeploymentRevision> read(Expression filter) {
    TableClient table = client.table(TABLE);
    Optional<TableSnapshot> snapshot = SystemTables.snapshot(table);
    if (snapshot.isEmpty()) {
      return List.of(); // nothing deployed yet
    }
    QueryAnswer answer = table.rows(snapshot.get().snapshotId(), filter);
    if (answer.truncated()) {
      throw new IllegalStateException("Cannot read " + TABLE + ": more revisions than the query "
          + "endpoint returns at once (" + answer.rows().size() + ")");
    }
    return answer.rows().stream().map(DeploymentStore::revision)
        .sorted(Comparator.comparing(DeploymentRevision::name)
            .thenComparingInt(DeploymentRevision::revision))
        .collect(Collectors.toList());
  }

  private static DeploymentRevision revision(Map<String, Object> row) {
    return new DeploymentRevision((String) row.get("name"), ((Number) row.get("revision")).intValue(),
        DeploymentRevision.State.valueOf(((String) row.get("state")).toUpperCase(Locale.ROOT)),
        DeploymentRecordParser.fromJson((String) row.get("record")), instant(row.get("created_at")));
  }

  /** A timestamptz as the query endpoint answers it: RFC 3339 text or epoch microseconds. */
  private static Instant instant(Object value) {
    if (value instanceof Number micros) {
      long m = micros.longValue();
      return Instant.ofEpochSecond(Math.floorDiv(m, 1_000_000L), Math.floorMod(m, 1_000_000L) * 1_000L);
    }
    return OffsetDateTime.parse(String.valueOf(value)).toInstant();
  }
}
