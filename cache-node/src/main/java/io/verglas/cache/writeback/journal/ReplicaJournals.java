package io.verglas.cache.writeback.journal;

import io.verglas.cache.writeback.fragment.ObjectIdentity;
import java.io.Closeable;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * The journal records other coordinators replicated to this node: one {@link WriteJournal} per
 * coordinator ({@code replicas/HEX(coordinator id)}), appended and fsynced before the
 * coordinator hears back, so a coordinator that lost its disk gets its pending records back
 * from here ({@link #pending}), and this node serves reads of their writes ({@link #latest}).
 *
 * <p>Design. The copies follow the coordinator's journal: a staged write or a delete is added, a
 * clean mark removes it; each file compacts itself as the coordinator's does. The read index
 * holds every pending record by key (with its coordinator, in its coordinator's journal order),
 * and a key's latest is the greatest in {@link JournalRecord.Pending#ACK_ORDER}; a clean mark
 * finds the earlier copies of its key there, not by walking the coordinator's journal. Memory:
 * one entry per pending record replicated here.
 */
public final class ReplicaJournals implements ReplicatedRecords, Closeable {
  private final Path directory;
  private final Map<String, WriteJournal> journals = new HashMap<>();
  private final TreeMap<String, List<Held>> byKey = new TreeMap<>();

  /** A pending record held here, and the coordinator whose journal it copies. */
  private record Held(String coordinator, JournalRecord.Pending record) {}

  private ReplicaJournals(Path directory) {
    this.directory = directory;
  }

  /** Opens (creating) the directory and replays every coordinator's journal in it. */
  public static ReplicaJournals open(Path directory) throws IOException {
    Files.createDirectories(directory);
    ReplicaJournals replicas = new ReplicaJournals(directory);
    try (Stream<Path> files = Files.list(directory)) {
      for (Path file : (Iterable<Path>) files::iterator) {
        String name = file.getFileName().toString();
        if (!name.endsWith(".compact")) {
          String coordinator = new String(HexFormat.of().parseHex(name), StandardCharsets.UTF_8);
          WriteJournal journal = WriteJournal.open(file);
          replicas.journals.put(coordinator, journal);
          journal.pending().forEach(p -> replicas.index(coordinator, p));
        }
      }
    } catch (IOException | RuntimeException e) {
      replicas.close();
      throw e;
    }
    return replicas;
  }

  /**
   * Appends (fsynced) a record {@code coordinator} sent of its journal. A clean mark also marks
   * clean the copies of the same key held and staged before the cleaned record: a coordinator
   * applies a key's changes in its journal order, so those are done too (this assumes its clock
   * does not step back between two changes of a key), and a
   * copy whose own clean mark this node missed would otherwise hide the key's newer object
   * (a stale delete) until reconciliation. Nothing more when the cleaned record is not held here.
   */
  public synchronized void append(String coordinator, JournalRecord record) throws IOException {
    WriteJournal journal = journal(coordinator);
    List<JournalRecord.Pending> done = record instanceof JournalRecord.Clean
        ? heldBefore(held(coordinator, record.identity()), record.identity()) : List.of();
    append(coordinator, journal, record);
    for (JournalRecord.Pending earlier : done) {
      append(coordinator, journal, new JournalRecord.Clean(earlier.identity()));
    }
  }

  /** {@code coordinator}'s pending records of the key of {@code identity}, in its journal order. */
  private List<JournalRecord.Pending> held(String coordinator, ObjectIdentity identity) {
    return byKey.getOrDefault(indexKey(identity.bucket(), identity.key()), List.of()).stream()
        .filter(h -> h.coordinator().equals(coordinator)).map(Held::record).toList();
  }

  /** Marks one copy of {@code coordinator}'s clean (fsynced): its coordinator no longer holds it. */
  public synchronized void dropStale(String coordinator, ObjectIdentity identity) throws IOException {
    append(coordinator, journal(coordinator), new JournalRecord.Clean(identity));
  }

  private WriteJournal journal(String coordinator) throws IOException {
    WriteJournal journal = journals.get(coordinator);
    if (journal == null) {
      String name = HexFormat.of().formatHex(coordinator.getBytes(StandardCharsets.UTF_8));
      journal = WriteJournal.open(directory.resolve(name));
      journals.put(coordinator, journal);
    }
    return journal;
  }

  /**
   * The pending records of the key of {@code cleaned} (its coordinator's, in journal order) held
   * before it and staged before it; none when it is not held. Both orders, because a copy can
   * arrive late (a member that missed a record gets it with a repair's new placements, after the
   * key's later records).
   */
  private static List<JournalRecord.Pending> heldBefore(List<JournalRecord.Pending> ofKey, ObjectIdentity cleaned) {
    List<JournalRecord.Pending> earlier = new ArrayList<>();
    for (JournalRecord.Pending p : ofKey) {
      if (p.identity().equals(cleaned)) {
        earlier.removeIf(e -> e.stagedAtMillis() >= p.stagedAtMillis());
        return earlier;
      }
      earlier.add(p);
    }
    return List.of();
  }

  /** Appends the record to the coordinator's copy and applies it to the index as the copy applies it. */
  private void append(String coordinator, WriteJournal journal, JournalRecord record) throws IOException {
    journal.append(record);
    if (record instanceof JournalRecord.Pending pending) {
      index(coordinator, pending);
      return;
    }
    String key = indexKey(record.identity().bucket(), record.identity().key());
    List<Held> ofKey = byKey.get(key);
    if (ofKey != null) {
      ofKey.removeIf(h -> h.record().identity().equals(record.identity()));
      if (ofKey.isEmpty()) {
        byKey.remove(key);
      }
    }
  }

  /** Indexes a pending record: in place of a held one of its identity (as its journal keeps it), else last. */
  private void index(String coordinator, JournalRecord.Pending pending) {
    List<Held> ofKey = byKey.computeIfAbsent(indexKey(pending.identity().bucket(), pending.identity().key()),
        k -> new ArrayList<>());
    Held held = new Held(coordinator, pending);
    for (int i = 0; i < ofKey.size(); i++) {
      if (ofKey.get(i).record().identity().equals(pending.identity())) {
        ofKey.set(i, held);
        return;
      }
    }
    ofKey.add(held);
  }

  /** {@code coordinator}'s records held here and not marked clean, in its journal order. */
  public synchronized List<JournalRecord.Pending> pending(String coordinator) {
    WriteJournal journal = journals.get(coordinator);
    return journal == null ? List.of() : journal.pending();
  }

  @Override
  public synchronized Set<ObjectIdentity> identities() {
    Set<ObjectIdentity> found = new HashSet<>();
    byKey.values().forEach(held -> held.forEach(h -> found.add(h.record().identity())));
    return found;
  }

  @Override
  public synchronized Optional<JournalRecord.Pending> latest(String bucket, String key) {
    return latestOf(byKey.get(indexKey(bucket, key)));
  }

  @Override
  public synchronized List<JournalRecord.Pending> changes(String bucket, String key) {
    List<Held> ofKey = byKey.get(indexKey(bucket, key));
    return ofKey == null ? List.of() : ofKey.stream().map(Held::record).toList();
  }

  @Override
  public synchronized List<JournalRecord.Pending> latestUnder(String bucket, String prefix) {
    String start = indexKey(bucket, prefix);
    List<JournalRecord.Pending> found = new ArrayList<>();
    for (Map.Entry<String, List<Held>> e : byKey.tailMap(start, true).entrySet()) {
      if (!e.getKey().startsWith(start)) {
        break;
      }
      latestOf(e.getValue()).ifPresent(found::add);
    }
    return found;
  }

  private static Optional<JournalRecord.Pending> latestOf(List<Held> held) {
    return held == null ? Optional.empty()
        : held.stream().map(Held::record).max(JournalRecord.Pending.ACK_ORDER);
  }

  private static String indexKey(String bucket, String key) {
    return bucket + '\0' + key;
  }

  @Override
  public synchronized void close() throws IOException {
    IOException failure = null;
    for (WriteJournal journal : journals.values()) {
      try {
        journal.close();
      } catch (IOException e) {
        failure = e;
      }
    }
    if (failure != null) {
      throw failure;
    }
  }
}
