package io.verglas.maintenance.manifest;

import io.verglas.maintenance.compact.Compactor;
import io.verglas.maintenance.events.MaintenanceEvents;
import io.verglas.maintenance.policy.MaintenancePolicy;
import java.util.Optional;
import java.util.UUID;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.ValidationException;
import org.apache.iceberg.util.PropertyUtil;

/**
 * Merges small data manifests (every materializer commit adds one) once there are at least the
 * policy's threshold of them, with Iceberg's core {@code RewriteManifests}: entries are
 * clustered by partition spec, so scan planning opens few manifests again. The commit is a
 * {@code replace} with {@code verglas.maintenance=manifest-rewrite} and is announced like a
 * compaction. Small means below the table's {@code commit.manifest.target-size-bytes}.
 */
public final class ManifestRewriter {
  public static final String KIND = "manifest-rewrite";

  private final MaintenanceEvents events;

  public ManifestRewriter(MaintenanceEvents events) {
    this.events = events;
  }

  /** The rewrite's snapshot, or empty when the table has too few small manifests (or lost a race). */
  public Optional<Snapshot> rewrite(TableIdentifier name, Table table, MaintenancePolicy policy) {
    table.refresh();
    Snapshot current = table.currentSnapshot();
    if (current == null) {
      return Optional.empty();
    }
    long small = PropertyUtil.propertyAsLong(table.properties(),
        TableProperties.MANIFEST_TARGET_SIZE_BYTES, TableProperties.MANIFEST_TARGET_SIZE_BYTES_DEFAULT);
    long count = current.dataManifests(table.io()).stream()
        .filter(manifest -> manifest.length() < small).count();
    if (count < policy.manifestCountThreshold()) {
      return Optional.empty();
    }
    String commitId = UUID.randomUUID().toString();
    try {
      table.rewriteManifests()
          .rewriteIf((ManifestFile manifest) -> manifest.length() < small)
          .clusterBy(file -> file.specId())
          .set(Compactor.SUMMARY_KIND, KIND)
          .set(Compactor.SUMMARY_COMMIT_ID, commitId)
          .commit();
    } catch (ValidationException | CommitFailedException e) {
      return Optional.empty(); // a concurrent commit won; the next work item tries again
    }
    Snapshot committed = Compactor.committedSnapshot(table, commitId);
    events.committed(name, table, committed);
    return Optional.of(committed);
  }
}
