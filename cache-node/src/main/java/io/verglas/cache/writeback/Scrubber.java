package io.verglas.cache.writeback;

import io.verglas.cache.writeback.code.Geometry;
import io.verglas.cache.writeback.code.StripeEncoder;
import io.verglas.cache.writeback.fragment.CorruptFragmentException;
import io.verglas.cache.writeback.fragment.FragmentHeader;
import io.verglas.cache.writeback.fragment.FragmentOutput;
import io.verglas.cache.writeback.fragment.FragmentReader;
import io.verglas.cache.writeback.fragment.FragmentSink;
import io.verglas.cache.writeback.journal.JournalRecord;
import io.verglas.cache.writeback.journal.Placement;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.file.NoSuchFileException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * Walks the fragments of dirty writes, verifies every cell's CRC32C, and re-encodes missing or
 * corrupt fragments while at least {@code k} healthy ones remain.
 *
 * <p>Design. A fragment is healthy when its node is live, its file opens (header and length
 * checked) and every cell passes its checksum; otherwise it is lost (a node gone from the
 * membership counts here, so node loss and corruption are repaired alike). With at least
 * {@code k} healthy fragments the body is reconstructed stripe by stripe ({@link
 * WriteBackStager#open}, which decodes around bad cells) and re-encoded; only the lost
 * fragments are written, each to the first node in the write's rendezvous order that holds no
 * healthy fragment of it and has room (a corrupt file is deleted once the readers are open, so
 * its node may take the fragment back while its passing cells still help the decoder), and
 * committed (file and directory fsynced); then the write's record with the new placements is
 * journaled. Fragments the write never placed (acknowledged with {@code w < k + m}) are
 * written too. With fewer than {@code k} the write is counted unrepairable and left
 * as it is (reads of it fail rather than return unchecked bytes). Memory: one cell for
 * verification, {@code (k + m)} cells for repair. Runs on the caller's thread, one write after
 * the other: the caller paces the passes.
 */
public final class Scrubber {
  private final WriteBackStager stager;

  /**
   * What one pass found: placed fragments examined, those corrupt or missing, fragments
   * written by repair, and writes with fewer than {@code k} healthy fragments.
   */
  public record Report(long examined, long lost, long repaired, long unrepairable) {}

  public Scrubber(WriteBackStager stager) {
    this.stager = Objects.requireNonNull(stager, "stager");
  }

  public Report runOnce() throws IOException {
    long examined = 0;
    long lost = 0;
    long repaired = 0;
    long unrepairable = 0;
    for (JournalRecord.Staged record : stager.dirtyWrites()) {
      List<Placement> healthy = new ArrayList<>();
      for (Placement p : record.placements()) {
        examined++;
        if (healthy(record, p)) {
          healthy.add(p);
        }
      }
      int missing = record.geometry().totalFragments() - healthy.size();
      lost += record.placements().size() - healthy.size();
      if (missing == 0) {
        continue;
      }
      if (healthy.size() < record.geometry().dataFragments()) {
        unrepairable++;
      } else {
        repaired += repair(record, healthy);
      }
    }
    return new Report(examined, lost, repaired, unrepairable);
  }

  private boolean healthy(JournalRecord.Staged record, Placement p) throws IOException {
    Optional<FragmentNode> node = stager.node(p.nodeId());
    if (node.isEmpty()) {
      return false;
    }
    try (FragmentReader reader = node.get().store().open(record.identity(), p.fragment())) {
      Geometry g = record.geometry();
      ByteBuffer cell = ByteBuffer.allocate(g.cellBytes());
      for (long s = 0; s < g.stripes(record.bodyLength()); s++) {
        cell.clear().limit(g.cellLength(record.bodyLength(), s));
        reader.readCell(s, cell);
      }
      return reader.header().index() == p.fragment() && reader.header().identity().equals(record.identity());
    } catch (CorruptFragmentException | NoSuchFileException e) {
      return false;
    }
  }

  /** Re-encodes the fragments not in {@code healthy}; returns how many became durable. */
  private int repair(JournalRecord.Staged record, List<Placement> healthy) throws IOException {
    Geometry g = record.geometry();
    Set<Integer> kept = new HashSet<>();
    Set<String> used = new HashSet<>();
    healthy.forEach(p -> {
      kept.add(p.fragment());
      used.add(p.nodeId());
    });
    long bytes = new FragmentHeader(record.identity(), g, 0, record.bodyLength()).fileLength();
    List<FragmentNode> order = FragmentPlacement.order(record.identity().bucket(), record.identity().key(),
        stager.nodes());
    List<String> targets = new ArrayList<>();
    List<Integer> durable;
    // The readers open first: a lost fragment's file, deleted next so that its node may take the
    // fragment back, is still read through its open descriptor for the cells that pass.
    try (InputStream body = stager.open(record)) {
      releaseLost(record, kept);
      List<FragmentOutput> outputs = new ArrayList<>();
      for (int i = 0; i < g.totalFragments(); i++) {
        FragmentNode target = kept.contains(i) ? null : target(order, used, bytes);
        outputs.add(target == null ? null
            : WriteBackStager.create(target, new FragmentHeader(record.identity(), g, i, record.bodyLength())));
        targets.add(target == null ? null : target.id());
      }
      durable = encode(g, body, new FragmentSink(outputs));
    }
    List<Placement> placements = new ArrayList<>(healthy);
    durable.forEach(i -> placements.add(new Placement(i, targets.get(i))));
    placements.sort(Comparator.comparingInt(Placement::fragment));
    stager.replace(record, new JournalRecord.Staged(record.identity(), record.bodyLength(), record.metadata(), g,
        placements, record.stagedAtMillis()));
    return durable.size();
  }

  private static List<Integer> encode(Geometry g, InputStream body, FragmentSink sink) throws IOException {
    try {
      StripeEncoder encoder = new StripeEncoder(g, sink);
      encoder.transfer(body);
      encoder.finish();
      return sink.commit();
    } catch (IOException | RuntimeException e) {
      sink.abandon();
      throw e;
    }
  }

  private void releaseLost(JournalRecord.Staged record, Set<Integer> kept) throws IOException {
    for (Placement p : record.placements()) {
      Optional<FragmentNode> node = kept.contains(p.fragment()) ? Optional.empty() : stager.node(p.nodeId());
      if (node.isPresent()) {
        node.get().store().release(record.identity(), p.fragment());
      }
    }
  }

  private static FragmentNode target(List<FragmentNode> order, Set<String> used, long bytes) {
    for (FragmentNode node : order) {
      if (!used.contains(node.id()) && node.store().hasRoomFor(bytes)) {
        used.add(node.id());
        return node;
      }
    }
    return null;
  }
}
