package io.verglas.access;

import io.verglas.table.TableIdentifiers;
import java.time.Instant;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * What a scoped token lets its holder do until it expires: read the tables in {@code reads} and
 * write those in {@code writes} (a write grant includes reading, so {@code reads} always holds
 * every table of {@code writes}); and, through its {@link SessionCredentials}, reach the objects
 * of {@code objects} on the stack's S3 endpoint (none unless granted). {@code subject} names the
 * holder in refusals and logs, e.g. {@code <deployment>/<run identity>}.
 */
public record TableScope(String subject, Instant expiresAt, Set<TableIdentifier> reads,
    Set<TableIdentifier> writes, List<ObjectGrant> objects) {
  /** Characters a subject may have (it travels in every token and every refusal). */
  public static final int MAX_SUBJECT_CHARS = 256;

  public TableScope {
    Objects.requireNonNull(subject, "subject");
    if (subject.isBlank() || subject.length() > MAX_SUBJECT_CHARS
        || subject.chars().anyMatch(Character::isISOControl)) {
      throw new IllegalArgumentException("Invalid token subject: '" + subject + "' (1 to "
          + MAX_SUBJECT_CHARS + " characters, no control characters)");
    }
    Objects.requireNonNull(expiresAt, "expiresAt");
    writes = Set.copyOf(writes);
    Set<TableIdentifier> readable = new HashSet<>(reads);
    readable.addAll(writes);
    reads = Set.copyOf(readable);
    objects = normalized(objects);
  }

  /**
   * {@code grants} sorted, without duplicates nor read grants of a prefix also granted for
   * writing (a write grant includes reading), so one scope has one encoding.
   */
  private static List<ObjectGrant> normalized(List<ObjectGrant> grants) {
    Set<List<String>> writable = new HashSet<>();
    grants.stream().filter(ObjectGrant::write)
        .forEach(g -> writable.add(List.of(g.bucket(), g.prefix())));
    return grants.stream().distinct()
        .filter(g -> g.write() || !writable.contains(List.of(g.bucket(), g.prefix())))
        .sorted(Comparator.comparing(ObjectGrant::bucket).thenComparing(ObjectGrant::prefix))
        .toList();
  }

  /** A scope of tables only: no objects. */
  public TableScope(String subject, Instant expiresAt, Set<TableIdentifier> reads,
      Set<TableIdentifier> writes) {
    this(subject, expiresAt, reads, writes, List.of());
  }

  public boolean mayRead(TableIdentifier table) {
    return reads.contains(table);
  }

  public boolean mayWrite(TableIdentifier table) {
    return writes.contains(table);
  }

  /** @throws AccessDeniedException if {@code table} is not readable */
  public void checkRead(TableIdentifier table) {
    if (!mayRead(table)) {
      throw new AccessDeniedException("Cannot read table " + TableIdentifiers.toString(table)
          + ": token for " + subject + " grants reads only on " + names(reads));
    }
  }

  /** @throws AccessDeniedException if {@code table} is not writable */
  public void checkWrite(TableIdentifier table) {
    if (!mayWrite(table)) {
      throw new AccessDeniedException("Cannot write table " + TableIdentifiers.toString(table)
          + ": token for " + subject + " grants writes only on " + names(writes));
    }
  }

  /** @throws AccessDeniedException if no object grant reaches {@code key} of {@code bucket} */
  public void checkObject(String bucket, String key, boolean write) {
    if (objects.stream().noneMatch(g -> g.covers(bucket, key, write))) {
      throw new AccessDeniedException("Cannot " + (write ? "write" : "read") + " object " + bucket
          + "/" + key + ": token for " + subject + " grants only " + objectNames());
    }
  }

  /**
   * @throws AccessDeniedException unless some grant writes in {@code bucket} (a multi-object
   *     delete, whose keys are then checked one by one with {@link #checkObject})
   */
  public void checkWritesIn(String bucket) {
    if (objects.stream().noneMatch(g -> g.write() && g.bucket().equals(bucket))) {
      throw new AccessDeniedException("Cannot delete objects of " + bucket + ": token for "
          + subject + " grants only " + objectNames());
    }
  }

  /**
   * @throws AccessDeniedException unless a grant reads every key a listing of {@code prefix} in
   *     {@code bucket} can return (the listing's prefix starts with the grant's)
   */
  public void checkListing(String bucket, String prefix) {
    if (objects.stream().noneMatch(g -> g.covers(bucket, prefix, false))) {
      throw new AccessDeniedException("Cannot list " + bucket + "/" + prefix + "*: token for "
          + subject + " grants only " + objectNames());
    }
  }

  private String objectNames() {
    return objects.isEmpty() ? "no objects" : objects.toString();
  }

  /** Sorted string forms ({@link TableIdentifiers}) of {@code tables}, as refusals list them. */
  static List<String> names(Collection<TableIdentifier> tables) {
    return List.copyOf(new TreeSet<>(tables.stream().map(TableIdentifiers::toString).toList()));
  }
}
