package io.verglas.workers.check;

import io.cloudevents.CloudEvent;
import io.cloudevents.core.builder.CloudEventBuilder;
import io.verglas.sdk.VerglasClient;
import io.verglas.sdk.VerglasException;
import io.verglas.table.CreateTableRequest;
import io.verglas.table.TableIdentifiers;
import io.verglas.workers.api.DataGrants;
import io.verglas.workers.harness.Deployment;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * The fixture's tables copied for one run: fixture table {@code ns.t} is
 * {@code <namespace>.ns__t}, created with the fixture's schema and key and seeded with its rows.
 * The namespace holds nothing else: {@link #drop} leaves no trace of the set.
 */
final class ScratchSet {
  private final VerglasClient client;
  private final CheckFixture fixture;
  private final Namespace namespace;
  private final Map<String, TableIdentifier> copies = new LinkedHashMap<>();

  ScratchSet(VerglasClient client, CheckFixture fixture, String namespace) {
    this.client = client;
    this.fixture = fixture;
    this.namespace = Namespace.of(namespace);
    for (FixtureTable table : fixture.tables()) {
      copies.put(table.name(), TableIdentifier.of(namespace, table.name().replace(".", "__")));
    }
  }

  /** Creates and seeds the copies. */
  void create() {
    for (FixtureTable table : fixture.tables()) {
      TableIdentifier copy = copies.get(table.name());
      client.createTable(new CreateTableRequest(List.of(namespace.levels()), copy.name(),
          table.schema(), table.keys(), PartitionSpec.unpartitioned(), Map.of()));
      if (!table.rows().isEmpty()) {
        client.table(copy).commit(table.rows(), "verglas-check-seed");
      }
    }
  }

  /** The deployment of the worker with this set's tables in its config, outputs and grants. */
  Deployment deployment(String name, Path jar, String workerClass) {
    Map<String, String> config = new LinkedHashMap<>();
    fixture.config().forEach((key, value) -> config.put(key, scratchName(value)));
    Map<String, String> outputs = new LinkedHashMap<>();
    List<String> reads = new ArrayList<>();
    List<String> writes = new ArrayList<>();
    for (FixtureTable table : fixture.tables()) {
      String copy = scratchName(table.name());
      (table.writable() ? writes : reads).add(copy);
      if (table.output() != null) {
        outputs.put(table.output(), copy);
      }
    }
    return new Deployment(name, jar, workerClass, config, fixture.secrets(),
        DataGrants.of(reads, writes), outputs, fixture.timeout());
  }

  /** The trigger, its subject rewritten when it names a fixture table. */
  CloudEvent trigger() {
    CloudEvent trigger = fixture.trigger();
    String subject = trigger.getSubject();
    return subject == null || !copies.containsKey(subject) ? trigger
        : CloudEventBuilder.v1(trigger).withSubject(scratchName(subject)).build();
  }

  /** Every table of the set, by fixture name, as it is now. */
  Map<String, TableState> state() {
    Map<String, TableState> state = new LinkedHashMap<>();
    copies.forEach((name, copy) -> state.put(name, TableState.of(client, copy)));
    return state;
  }

  /**
   * Drops the copies that exist, with their files, and the namespace once empty; adds what it
   * could not drop to {@code failures}.
   */
  void drop(List<String> failures) {
    List<TableIdentifier> existing;
    try {
      existing = client.listTables(namespace);
    } catch (VerglasException e) {
      if (e.code() != FlightStatusCode.NOT_FOUND) { // not found: the set was never created
        failures.add("Cannot list the scratch tables in " + namespace + ": " + e.getMessage());
      }
      return;
    }
    for (TableIdentifier copy : existing) {
      try {
        client.dropTableAndEmptyNamespace(copy);
      } catch (RuntimeException e) {
        failures.add("Cannot drop scratch table " + TableIdentifiers.toString(copy) + ": "
            + e.getMessage());
      }
    }
  }

  private String scratchName(String value) {
    TableIdentifier copy = copies.get(value);
    return copy == null ? value : TableIdentifiers.toString(copy);
  }
}
