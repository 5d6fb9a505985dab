package io.verglas.cache.awareness;

import io.verglas.events.CatalogEvent;
import io.verglas.events.FeedEntry;
import io.verglas.events.FeedEvent;
import io.verglas.events.FeedEventParser;
import io.verglas.events.TableMaintainedEvent;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.DoubleSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Follows the change feed and turns commits into metadata walks.
 *
 * <p>Design: one thread reads {@code GET <feed>?from=N&follow=true} line by line (JSON lines;
 * an empty line is a heartbeat). Each event line moves the position to its sequence + 1; a
 * commit or maintenance event records the table's new metadata location and asks the
 * {@link TableWarmer} to walk it (unless that location is known already: found by the
 * {@link CatalogPoller}, or handled before a crash); a type this version does not know is
 * skipped and counted, a line that cannot be read at all is skipped and counted, and neither
 * stops the watcher, so newer producers never break it. After a disconnect (EOF, I/O error, a
 * connection silent past the idle timeout, an HTTP error) it reconnects from its position with
 * exponential backoff (jittered, reset once a connection delivers a line).
 *
 * <p>Position: with a state directory the position and the known tables (each with its latest
 * metadata location) are saved in a small file ({@link WatcherStateStore}) whenever the stream
 * has no more buffered lines, every {@value #SAVE_EVERY_LINES} lines in a burst, and at close; a
 * restarted node resumes after the last saved line and walks its known tables at startup. So
 * every event is handled exactly once across disconnects and clean restarts; after a crash the
 * lines since the last save are handled again, which is harmless (a walk of metadata already
 * walked reads from the cache). Without a state file (first start, no state directory, or a file
 * kept for another feed) the watcher reads the feed's retained events once without following,
 * starts after the last one, and walks every table they name at its latest metadata.
 *
 * <p>Gaps: if the first line of a connection has a sequence above the one asked for, the feed
 * no longer retains the events in between (they are older than its window); their tables are
 * unknown, so every known table is walked again at its latest known metadata (a table whose
 * only commits fell into the gap is warmed on its next commit). With a filtered feed URI
 * sequences skip legitimately, so gap detection is off.
 *
 * <p>Threads: the watcher thread owns the position; {@link #close()} may come from any thread:
 * it disconnects the open stream (unblocking the read), the thread saves and ends.
 */
final class CatalogWatcher implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(CatalogWatcher.class);
  static final int SAVE_EVERY_LINES = 1000;
  private static final long UNKNOWN = -1;
  private static final int MAX_LOGGED_TYPES = 100;

  private final AwarenessConfig config;
  private final TableWarmer warmer;
  private final KnownTables tables;
  private final WatcherStateStore store;
  private final AwarenessCounters counters;
  private final DoubleSupplier random;
  private final Thread thread;
  private final CountDownLatch closing = new CountDownLatch(1);
  private final Set<String> loggedTypes = new HashSet<>();
  private volatile boolean closed;
  private volatile FeedConnection current;
  /** Sequence of the next line to handle; watcher thread only. */
  private long next = UNKNOWN;
  private int unsaved;
  private boolean dirty;
  private boolean productive;

  CatalogWatcher(AwarenessConfig config, TableWarmer warmer, KnownTables tables,
      WatcherStateStore store, AwarenessCounters counters, DoubleSupplier random) {
    this.config = config;
    this.warmer = warmer;
    this.tables = tables;
    this.store = store;
    this.counters = counters;
    this.random = random;
    this.thread = new Thread(this::run, "verglas-catalog-watcher");
    thread.setDaemon(true);
  }

  void start() {
    thread.start();
  }

  private void run() {
    restore();
    long backoff = config.reconnectMinBackoff().toMillis();
    while (!closed) {
      productive = false;
      try {
        if (next == UNKNOWN) {
          catchUp();
        }
        follow();
      } catch (IOException | RuntimeException e) {
        if (!closed) {
          LOG.warn("Change feed {} unavailable (retrying from {}): {}", config.feedUri(),
              next == UNKNOWN ? "its end" : "sequence " + next, e.toString());
        }
      }
      counters.feedConnected = false;
      saveIfDirty();
      backoff = productive ? config.reconnectMinBackoff().toMillis() : backoff;
      if (closed || waitClosed(Math.round(backoff * (0.5 + 0.5 * random.getAsDouble())))) {
        break;
      }
      backoff = Math.min(backoff * 2, config.reconnectMaxBackoff().toMillis());
      counters.reconnects.increment();
    }
    saveIfDirty();
  }

  /** Reads the saved position and tables, and asks for startup walks of those tables. */
  private void restore() {
    if (store == null) {
      return;
    }
    Optional<WatcherState> saved;
    try {
      saved = store.load();
    } catch (UncheckedIOException e) {
      LOG.error("{}; starting at the feed's end", e.getMessage());
      return;
    }
    if (saved.isEmpty()) {
      return;
    }
    WatcherState state = saved.get();
    if (!state.feed().equals(config.feedUri().toString())) {
      LOG.warn("Watcher state was kept for feed {}, now following {}: starting at the feed's end",
          state.feed(), config.feedUri());
      return;
    }
    next = state.sequence() + 1;
    counters.lastSequence = state.sequence();
    tables.putAll(state.tables());
    walkAllKnown();
  }

  /** Reads the retained events once: the position after the last, each table's latest metadata. */
  private void catchUp() throws IOException {
    Map<String, String> latest = new LinkedHashMap<>();
    long last = 0;
    try (FeedConnection feed = connect(1, false)) {
      String line;
      while (!closed && (line = feed.readLine()) != null) {
        FeedEntry entry = parse(line);
        if (entry != null) {
          last = Math.max(last, entry.feedSequence());
          entry.event().ifPresent(event -> remember(latest, event));
        }
      }
    }
    if (closed) {
      return;
    }
    tables.putAll(latest);
    next = last + 1;
    counters.lastSequence = last;
    dirty = true;
    LOG.info("Catalog watcher starts after feed sequence {}; warming {} tables", last, walkAllKnown());
  }

  private static void remember(Map<String, String> latest, FeedEvent event) {
    String location = metadataLocation(event);
    if (location != null) {
      latest.remove(event.subject());
      latest.put(event.subject(), location);
    }
  }

  private void follow() throws IOException {
    try (FeedConnection feed = connect(next, true)) {
      counters.feedConnected = true;
      boolean first = true;
      String line;
      while (!closed && (line = feed.readLine()) != null) {
        productive = true;
        if (!line.isBlank()) {
          handle(line, first);
          first = false;
        }
        if (unsaved >= SAVE_EVERY_LINES || !feed.ready()) {
          saveIfDirty();
        }
      }
    }
  }

  private FeedConnection connect(long from, boolean follow) throws IOException {
    FeedConnection feed = FeedConnection.open(config.feedUri(), from, follow, config.feedToken(),
        config.feedIdleTimeout());
    current = feed;
    if (closed) {
      feed.close(); // close() ran before it could see this connection
    }
    return feed;
  }

  private void handle(String line, boolean first) {
    FeedEntry entry = parse(line);
    if (entry == null) {
      return;
    }
    long sequence = entry.feedSequence();
    if (sequence < next) {
      return; // already handled
    }
    if (sequence > next && first && !config.feedFiltered()) {
      gap(next, sequence);
    }
    next = sequence + 1;
    counters.lastSequence = sequence;
    dirty = true;
    unsaved++;
    if (entry.event().isEmpty()) {
      counters.unknownEventsSkipped.increment();
      if (loggedTypes.size() < MAX_LOGGED_TYPES && loggedTypes.add(entry.type())) {
        LOG.info("Skipping change feed events of type {}, which this version does not know", entry.type());
      }
      return;
    }
    apply(entry.event().get());
  }

  /** The feed line as an entry; null (counted, logged) for a line that cannot be read or placed. */
  private FeedEntry parse(String line) {
    if (line.isBlank()) {
      return null;
    }
    try {
      FeedEntry entry = FeedEventParser.entryFromJson(line);
      if (entry.feedSequence() > 0) {
        return entry;
      }
      LOG.warn("Skipping a change feed line without a feed sequence: {}", abbreviate(line));
    } catch (IllegalArgumentException e) {
      LOG.warn("Skipping a change feed line: {}: {}", e.getMessage(), abbreviate(line));
    }
    counters.malformedLinesSkipped.increment();
    return null;
  }

  private void apply(FeedEvent event) {
    String location = metadataLocation(event);
    if (location != null && tables.putIfChanged(event.subject(), location)) {
      warmer.submit(event.subject(), location); // unless the poller found this commit first
    }
    counters.eventsHandled.increment();
    try {
      config.listener().onEvent(event);
    } catch (RuntimeException e) {
      LOG.warn("Feed listener failed on event {}: {}", event.id(), e.toString());
    }
  }

  private void gap(long asked, long got) {
    counters.gaps.increment();
    LOG.warn("The change feed no longer holds events {} to {} (older than it retains): warming all"
        + " {} known tables again", asked, got - 1, walkAllKnown());
  }

  /** Walks every table known by name again; returns how many. */
  private int walkAllKnown() {
    Map<String, String> named = tables.snapshot();
    named.forEach(warmer::submit);
    return named.size();
  }

  private static String metadataLocation(FeedEvent event) {
    String location = null;
    if (event instanceof CatalogEvent commit) {
      location = commit.metadataLocation();
    } else if (event instanceof TableMaintainedEvent maintained) {
      location = maintained.metadataLocation();
    }
    return location == null || location.isBlank() ? null : location;
  }

  private void saveIfDirty() {
    if (store == null || !dirty || next == UNKNOWN) {
      return;
    }
    try {
      store.save(new WatcherState(config.feedUri().toString(), next - 1, tables.snapshot()));
      dirty = false;
      unsaved = 0;
    } catch (IOException e) {
      LOG.warn("Cannot save the catalog watcher's position (retrying later): {}", e.toString());
    }
  }

  /** Waits up to {@code millis}; true if the watcher was closed meanwhile. */
  private boolean waitClosed(long millis) {
    try {
      return closing.await(millis, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return true;
    }
  }

  private static String abbreviate(String line) {
    return line.length() <= 200 ? line : line.substring(0, 200) + "...";
  }

  /** Stops following; the position is saved before this returns (if the thread ends in time). */
  @Override
  public void close() {
    closed = true;
    closing.countDown();
    FeedConnection feed = current;
    if (feed != null) {
      feed.close();
    }
    try {
      thread.join(FeedConnection.CONNECT_TIMEOUT.toMillis() + 5_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
