package io.verglas.materializer.source;

import io.verglas.materializer.store.WalStore;
import io.verglas.wal.WalLayout;
import io.verglas.wal.WalLayout.SegmentName;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.channels.ClosedByInterruptException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.core.exception.AbortedException;

/**
 * Discovers WAL segments and hands them to readers, one segment per request.
 *
 * <p>Design: discovery lists the WAL prefix for streams and each stream for keys after the last
 * one seen ({@code start-after}), periodically on the coordinator's worker thread; results are
 * applied on the coordinator thread, where every other method runs, so the only shared field is
 * the concurrent cursor map. A discovery that overlaps the previous one is harmless: keys at or
 * before a stream's cursor are ignored.
 *
 * <p>Order: the segments of a stream in flight are all held by one reader, which reads them by
 * increasing sequence (its fetcher takes them in (stream, sequence) order, also after a
 * restore), and they are handed out by increasing sequence. Readers report a finished segment
 * ({@link ReaderEvents.SegmentFinished}); only when a reader holds nothing of a stream may
 * another reader get it. This is what makes the rows of one stream reach the writers strictly
 * in log order, so a checkpoint covers a contiguous range of each stream and the committed WAL
 * positions in snapshot summaries mean "everything up to here". Streams are served round robin
 * so a busy stream cannot starve the others.
 *
 * <p>Read-ahead: a reader holds up to {@value #SEGMENTS_PER_READER} segments, so its fetcher
 * GETs and decodes the next segment of a stream while the rows of the current one are still
 * being emitted (with one at a time, every segment began with a round trip to this enumerator
 * and a GET, during which the writers had nothing to do). What a reader holds beyond the segment
 * it reads costs only the split's name; decoded rows are bounded by the reader's element queue.
 *
 * <p>Which segments are in flight is not checkpointed: it is rebuilt from the readers, each of
 * which reports the segments restored into it ({@link ReaderEvents.ReaderStarted}) when it
 * starts. Until every reader has done so, nothing is handed out; this keeps the order across
 * restores and rescaling, where the enumerator's and the readers' views could otherwise differ.
 */
final class WalEnumerator implements SplitEnumerator<WalSplit, WalEnumeratorState> {
  private static final Logger LOG = LoggerFactory.getLogger(WalEnumerator.class);
  static final int LIST_LIMIT = 1000;
  /** Segments a reader holds at most: the one it reads and the ones it reads ahead. */
  static final int SEGMENTS_PER_READER = 3;

  private final SplitEnumeratorContext<WalSplit> context;
  private final WalStore store;
  private final WalLayout layout;
  private final long discoveryIntervalMillis;
  private final Map<String, String> discoveredUpTo = new ConcurrentHashMap<>();
  private final TreeMap<String, TreeMap<Long, WalSplit>> unassigned = new TreeMap<>();
  private final Map<Integer, Map<String, String>> heldBySubtask = new HashMap<>();
  private final Set<Integer> started = new HashSet<>();
  private final LinkedHashSet<Integer> waiting = new LinkedHashSet<>();
  private String lastServedStream = "";
  private volatile boolean closed;

  WalEnumerator(SplitEnumeratorContext<WalSplit> context, WalStore store, WalLayout layout,
      long discoveryIntervalMillis, WalEnumeratorState restored) {
    this.context = context;
    this.store = store;
    this.layout = layout;
    this.discoveryIntervalMillis = discoveryIntervalMillis;
    discoveredUpTo.putAll(restored.discoveredUpTo());
    restored.unassigned().forEach(this::addUnassigned);
  }

  @Override
  public void start() {
    context.callAsync(this::discover, this::onDiscovered, 0, discoveryIntervalMillis);
  }

  /** Runs on the worker thread: lists what is new, mutates nothing. */
  List<SegmentName> discover() {
    List<SegmentName> found = new ArrayList<>();
    Set<String> streams = new HashSet<>(store.listStreams());
    streams.addAll(discoveredUpTo.keySet());
    for (String stream : streams) {
      try {
        WalLayout.checkStreamId(stream);
      } catch (IllegalArgumentException e) {
        continue; // not a stream directory of ours
      }
      found.addAll(store.listSegments(stream, discoveredUpTo.get(stream), LIST_LIMIT));
    }
    return found;
  }

  void onDiscovered(List<SegmentName> found, Throwable error) {
    if (error != null) {
      // Transient listing failures must not fail the job; the next round retries.
      if (closed || isInterruption(error)) {
        LOG.debug("WAL listing under {} stopped by shutdown: {}", layout.prefix(), error.toString());
      } else {
        LOG.warn("Cannot list WAL segments under {}: {}", layout.prefix(), error.toString(), error);
      }
      return;
    }
    int added = 0;
    for (SegmentName segment : found) {
      String cursor = discoveredUpTo.get(segment.streamId());
      if (cursor != null && segment.key().compareTo(cursor) <= 0) {
        continue;
      }
      addUnassigned(new WalSplit(segment.key(), segment.streamId(), segment.sequence(), 0));
      discoveredUpTo.put(segment.streamId(), segment.key());
      added++;
    }
    if (added > 0) {
      LOG.debug("Discovered {} WAL segments", added);
      assignPending();
    }
  }

  @Override
  public void handleSplitRequest(int subtaskId, String requesterHostname) {
    waiting.add(subtaskId);
    assignPending();
  }

  @Override
  public void handleSourceEvent(int subtaskId, SourceEvent event) {
    if (event instanceof ReaderEvents.ReaderStarted readerStarted) {
      Map<String, String> held = new HashMap<>();
      for (String key : readerStarted.heldKeys()) {
        layout.parse(key).ifPresent(name -> held.put(key, name.streamId()));
      }
      heldBySubtask.put(subtaskId, held);
      started.add(subtaskId);
    } else if (event instanceof ReaderEvents.SegmentFinished finished) {
      Map<String, String> held = heldBySubtask.get(subtaskId);
      if (held != null) {
        held.remove(finished.key());
      }
    } else {
      LOG.warn("Ignoring unknown source event from reader {}: {}", subtaskId, event);
      return;
    }
    assignPending();
  }

  @Override
  public void addSplitsBack(List<WalSplit> splits, int subtaskId) {
    // The reader failed; these were assigned after its last checkpoint, so it will not restore them.
    splits.forEach(split -> addUnassigned(split));
    Map<String, String> held = heldBySubtask.get(subtaskId);
    if (held != null) {
      splits.forEach(split -> held.remove(split.key()));
    }
    started.remove(subtaskId);
    waiting.remove(subtaskId);
  }

  @Override
  public void addReader(int subtaskId) {
    // A (re)registered reader reports what it restored before it gets anything new.
    started.remove(subtaskId);
    heldBySubtask.remove(subtaskId);
  }

  @Override
  public WalEnumeratorState snapshotState(long checkpointId) {
    List<WalSplit> splits = new ArrayList<>();
    unassigned.values().forEach(byStream -> splits.addAll(byStream.values()));
    return new WalEnumeratorState(discoveredUpTo, splits);
  }

  @Override
  public void close() throws IOException {
    closed = true;
    try {
      store.close();
    } catch (Exception e) {
      throw new IOException("Cannot close WAL store", e);
    }
  }

  /**
   * Whether {@code error} is a listing cut short by an interrupt, as when the job stops: the
   * worker thread is interrupted, and the S3 client reports that as {@link AbortedException}.
   */
  static boolean isInterruption(Throwable error) {
    for (Throwable t = error; t != null; t = t.getCause()) {
      if (t instanceof InterruptedException || t instanceof InterruptedIOException
          || t instanceof ClosedByInterruptException || t instanceof AbortedException) {
        return true;
      }
    }
    return false;
  }

  private void addUnassigned(WalSplit split) {
    unassigned.computeIfAbsent(split.streamId(), s -> new TreeMap<>()).put(split.sequence(), split);
  }

  /**
   * Hands segments to waiting readers, one per reader per round so that readers share what is
   * new, until each holds {@value #SEGMENTS_PER_READER} or nothing is left it may take. A reader
   * with room stays waiting, so discovery tops it up.
   */
  private void assignPending() {
    if (waiting.isEmpty() || !allReadersStarted()) {
      return;
    }
    Map<String, Integer> holders = new HashMap<>();
    heldBySubtask.forEach((subtask, held) ->
        held.values().forEach(stream -> holders.put(stream, subtask)));
    boolean assigned = true;
    while (assigned) {
      assigned = false;
      Iterator<Integer> readers = waiting.iterator();
      while (readers.hasNext()) {
        int subtask = readers.next();
        Map<String, String> held = heldBySubtask.computeIfAbsent(subtask, s -> new HashMap<>());
        if (!context.registeredReaders().containsKey(subtask)
            || held.size() >= SEGMENTS_PER_READER) {
          readers.remove();
          continue;
        }
        WalSplit split = nextSplit(holders, subtask);
        if (split != null) {
          holders.put(split.streamId(), subtask);
          held.put(split.key(), split.streamId());
          context.assignSplit(split, subtask);
          assigned = true;
        }
      }
    }
  }

  private boolean allReadersStarted() {
    for (int i = 0; i < context.currentParallelism(); i++) {
      if (!started.contains(i)) {
        return false;
      }
    }
    return true;
  }

  /**
   * The lowest unassigned segment of the next stream, after the last one served, that
   * {@code subtask} may take: one it holds segments of, or one nobody holds if no registered
   * reader holds fewer streams than it does (so a reader that asks first cannot take every
   * stream while others have none).
   */
  private WalSplit nextSplit(Map<String, Integer> holders, int subtask) {
    Map<Integer, Integer> streamsPerReader = new HashMap<>();
    context.registeredReaders().keySet().forEach(reader -> streamsPerReader.put(reader, 0));
    holders.values().forEach(reader -> streamsPerReader.merge(reader, 1, Integer::sum));
    int fewest = streamsPerReader.values().stream().min(Integer::compare).orElse(0);
    boolean mayTakeFreeStream = streamsPerReader.getOrDefault(subtask, 0) <= fewest;
    List<String> order = new ArrayList<>(unassigned.tailMap(lastServedStream, false).keySet());
    order.addAll(unassigned.headMap(lastServedStream, true).keySet());
    for (String stream : order) {
      Integer holder = holders.get(stream);
      if (holder == null ? !mayTakeFreeStream : holder != subtask) {
        continue;
      }
      TreeMap<Long, WalSplit> segments = unassigned.get(stream);
      WalSplit split = segments.pollFirstEntry().getValue();
      if (segments.isEmpty()) {
        unassigned.remove(stream);
      }
      lastServedStream = stream;
      return split;
    }
    return null;
  }
}
