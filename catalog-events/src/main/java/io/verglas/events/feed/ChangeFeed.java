package io.verglas.events.feed;

import io.verglas.events.FeedEvent;
import io.verglas.events.FeedEventParser;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The change feed: an ordered, durable, bounded log of catalog events (snapshot commits and
 * table maintenance, see {@link FeedEvent}), numbered from 1 in one sequence.
 *
 * <p>Design. Events are appended as JSON lines to one file and fsynced before {@link #append}
 * returns, so a consumer that saw sequence N will find N again after a restart. The newest
 * events are kept in memory, up to {@link FeedBounds#retainedEvents} and
 * {@link FeedBounds#retainedBytes} (JSON bytes), and are what readers resume from; the oldest
 * go first. A reader asking for a sequence older than the window gets what is retained and can
 * tell from the first sequence that it missed events (it then re-reads the catalog, as after
 * any gap). Event ids deduplicate retried publishes within the window: the id set follows it.
 *
 * <p>Memory. Nothing is ever read or held beyond the window and one line: recovery streams the
 * file line by line ({@link FeedFileLines}), keeping only the window, and compaction writes the
 * window out event by event. An event whose JSON exceeds {@link FeedBounds#maxEventBytes} is
 * refused at append, and such a line in the file is skipped at recovery without being read.
 *
 * <p>Disk. When the file holds twice the window (in events or in bytes) it is rewritten with
 * the window (fsynced, then renamed over the file), so the file stays within about twice the
 * window.
 *
 * <p>Failures. A last line without its newline was being written when the process stopped; it
 * was never fsynced, so never acknowledged: recovery cuts it off the file (otherwise the next
 * append would be glued to it). A line that cannot be parsed or is too large is skipped with a
 * warning and counted ({@link #skippedLines()}) instead of failing the start: a feed that
 * cannot start would take the whole stack down with it.
 */
public final class ChangeFeed implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ChangeFeed.class);
  /** Skipped lines logged one by one at recovery; the rest are only counted. */
  private static final int LOGGED_SKIPS = 10;

  private final Path file;
  private final FeedBounds bounds;
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition appended = lock.newCondition();
  private final Deque<Entry> window = new ArrayDeque<>();
  private final Set<String> ids = new HashSet<>();
  private FileChannel channel;
  private long lastSequence;
  private long windowBytes;
  private long linesInFile;
  private long bytesInFile;
  private long skippedLines;

  /** An event of the window and the size of its JSON line. */
  private record Entry(FeedEvent event, int bytes) {}

  /** A feed keeping the newest {@code retained} events, within the default byte bounds. */
  public ChangeFeed(Path file, int retained) {
    this(file, FeedBounds.defaults().withRetainedEvents(retained));
  }

  public ChangeFeed(Path file, FeedBounds bounds) {
    this.file = file;
    this.bounds = bounds;
    recover();
  }

  private void recover() {
    try {
      Files.createDirectories(file.toAbsolutePath().getParent());
      if (Files.exists(file)) {
        readFile();
      }
      channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
          StandardOpenOption.APPEND);
      compactIfLarge();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot open change feed " + file, e);
    }
    LOG.info("Change feed {}: {} events in memory ({} bytes), last sequence {}, {} lines skipped",
        file, window.size(), windowBytes, lastSequence, skippedLines);
  }

  private void readFile() throws IOException {
    long lineNumber = 0;
    long intact = 0;
    try (InputStream in = Files.newInputStream(file)) {
      FeedFileLines lines = new FeedFileLines(in, bounds.maxEventBytes());
      for (FeedFileLines.Line line = lines.next(); line != null; line = lines.next()) {
        lineNumber++;
        if (!line.terminated()) {
          skip(lineNumber, line, "its write was cut short (no newline); it is removed");
          break;
        }
        intact = line.offset() + line.length() + 1;
        recoverLine(lineNumber, line);
      }
    }
    bytesInFile = intact;
    if (Files.size(file) > intact) {
      try (FileChannel torn = FileChannel.open(file, StandardOpenOption.WRITE)) {
        torn.truncate(intact);
        torn.force(true);
      }
    }
  }

  private void recoverLine(long lineNumber, FeedFileLines.Line line) {
    if (line.oversized()) {
      skip(lineNumber, line, "over the max event size of " + bounds.maxEventBytes() + " bytes");
      return;
    }
    String json = new String(line.bytes(), StandardCharsets.UTF_8);
    if (json.isBlank()) {
      return;
    }
    linesInFile++;
    try {
      remember(FeedEventParser.fromJson(json), line.bytes().length + 1);
    } catch (RuntimeException e) {
      skip(lineNumber, line, "not a feed event: " + e.getMessage());
    }
  }

  private void skip(long lineNumber, FeedFileLines.Line line, String reason) {
    skippedLines++;
    if (skippedLines <= LOGGED_SKIPS) {
      LOG.warn("Change feed {}: skipping line {} (byte {}, {} bytes): {}", file, lineNumber,
          line.offset(), line.length(), reason);
    }
  }

  /**
   * Appends an event and returns it numbered; an id already in the window returns the earlier
   * copy (a retried publish), and an id the window holds for another event type is rejected,
   * as is an event over the max size. A rejected event leaves the feed untouched.
   */
  @SuppressWarnings("unchecked") // numbering and the class check keep the event's class
  public <E extends FeedEvent> E append(E event) {
    lock.lock();
    try {
      if (ids.contains(event.id())) {
        return (E) earlier(event);
      }
      E numbered = (E) event.withFeedSequence(lastSequence + 1);
      byte[] line = line(numbered);
      write(line);
      remember(numbered, line.length);
      compactIfLarge();
      appended.signalAll();
      return numbered;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Appends a published event given as structured CloudEvent JSON (untrusted input): anything
   * that does not parse as a feed event is an {@link IllegalArgumentException} naming why.
   */
  public FeedEvent appendJson(String json) {
    FeedEvent event;
    try {
      event = FeedEventParser.fromJson(json);
    } catch (RuntimeException e) { // the parsers also throw DateTimeException, NumberFormat...
      throw new IllegalArgumentException("Cannot publish event: " + e.getMessage(), e);
    }
    return append(event);
  }

  private byte[] line(FeedEvent event) {
    byte[] line = toLine(event);
    if (line.length - 1 > bounds.maxEventBytes()) {
      throw new IllegalArgumentException("Cannot append event " + event.id() + ": its JSON is "
          + (line.length - 1) + " bytes, over the max event size of " + bounds.maxEventBytes());
    }
    return line;
  }

  private static byte[] toLine(FeedEvent event) {
    return (FeedEventParser.toJson(event) + "\n").getBytes(StandardCharsets.UTF_8);
  }

  private FeedEvent earlier(FeedEvent event) {
    FeedEvent earlier = window.stream().map(Entry::event)
        .filter(e -> e.id().equals(event.id())).findFirst().orElseThrow();
    if (earlier.getClass() != event.getClass()) {
      throw new IllegalArgumentException("Cannot append event " + event.id() + " of type "
          + event.type() + ": the feed holds a " + earlier.type() + " event with that id");
    }
    return earlier;
  }

  /** Up to {@code max} events with sequence ≥ {@code from} that match, oldest first. */
  public List<FeedEvent> read(long from, Predicate<FeedEvent> filter, int max) {
    return read(from, filter, max, Long.MAX_VALUE);
  }

  /**
   * Up to {@code maxEvents} events with sequence ≥ {@code from} that match, oldest first, and
   * no more JSON bytes than {@code maxBytes} (but always the first match, however large).
   */
  public List<FeedEvent> read(long from, Predicate<FeedEvent> filter, int maxEvents,
      long maxBytes) {
    lock.lock();
    try {
      List<FeedEvent> events = new ArrayList<>();
      long bytes = 0;
      for (Entry entry : window) {
        if (entry.event().feedSequence() >= from && filter.test(entry.event())) {
          bytes += entry.bytes();
          if (!events.isEmpty() && bytes > maxBytes) {
            break;
          }
          events.add(entry.event());
          if (events.size() == maxEvents) {
            break;
          }
        }
      }
      return events;
    } finally {
      lock.unlock();
    }
  }

  /** Waits until an event with sequence ≥ {@code from} exists or the timeout passes. */
  public boolean await(long from, long timeout, TimeUnit unit) throws InterruptedException {
    long nanos = unit.toNanos(timeout);
    lock.lock();
    try {
      while (lastSequence < from) {
        if (nanos <= 0) {
          return false;
        }
        nanos = appended.awaitNanos(nanos);
      }
      return true;
    } finally {
      lock.unlock();
    }
  }

  public long lastSequence() {
    lock.lock();
    try {
      return lastSequence;
    } finally {
      lock.unlock();
    }
  }

  public FeedBounds bounds() {
    return bounds;
  }

  /** JSON bytes of the events held in memory; at most {@link FeedBounds#retainedBytes}. */
  public long windowBytes() {
    lock.lock();
    try {
      return windowBytes;
    } finally {
      lock.unlock();
    }
  }

  /** Lines of the file that recovery skipped: torn, corrupt or over the max event size. */
  public long skippedLines() {
    lock.lock();
    try {
      return skippedLines;
    } finally {
      lock.unlock();
    }
  }

  /** Adds to the window and evicts the oldest beyond the bounds, keeping at least the newest. */
  private void remember(FeedEvent event, int bytes) {
    window.addLast(new Entry(event, bytes));
    ids.add(event.id());
    windowBytes += bytes;
    lastSequence = Math.max(lastSequence, event.feedSequence());
    while (window.size() > 1 && (window.size() > bounds.retainedEvents()
        || windowBytes > bounds.retainedBytes())) {
      Entry evicted = window.removeFirst();
      ids.remove(evicted.event().id());
      windowBytes -= evicted.bytes();
    }
  }

  private void write(byte[] line) {
    try {
      ByteBuffer buffer = ByteBuffer.wrap(line);
      while (buffer.hasRemaining()) {
        channel.write(buffer);
      }
      channel.force(false);
      linesInFile++;
      bytesInFile += line.length;
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot append to change feed " + file, e);
    }
  }

  private void compactIfLarge() {
    if (linesInFile < 2L * bounds.retainedEvents() && bytesInFile < 2 * bounds.retainedBytes()) {
      return;
    }
    try {
      compact();
    } catch (IOException e) {
      // the events are durable in the file as it is; it only grows until a later attempt
      LOG.warn("Cannot compact change feed {}: {}", file, e.toString());
    }
  }

  /** Rewrites the file with the window; the old file stays in use until the new one is in place. */
  private void compact() throws IOException {
    Path tmp = file.resolveSibling(file.getFileName() + ".compacting");
    long bytes = 0;
    try (FileChannel out = FileChannel.open(tmp, StandardOpenOption.CREATE,
        StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
      OutputStream stream = new BufferedOutputStream(Channels.newOutputStream(out), 64 * 1024);
      for (Entry entry : window) {
        byte[] line = toLine(entry.event());
        stream.write(line);
        bytes += line.length;
      }
      stream.flush();
      out.force(true);
    }
    Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    channel.close();
    channel = FileChannel.open(file, StandardOpenOption.WRITE, StandardOpenOption.APPEND);
    linesInFile = window.size();
    bytesInFile = bytes;
  }

  @Override
  public void close() {
    lock.lock();
    try {
      channel.close();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot close change feed " + file, e);
    } finally {
      lock.unlock();
    }
  }
}
