package io.verglas.events.feed;

import io.verglas.events.FeedEvent;
import io.verglas.events.FeedEventParser;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
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

/**
 * The change feed: an ordered, durable, bounded log of catalog events (snapshot commits and
 * table maintenance, see {@link FeedEvent}), numbered from 1 in one sequence.
 *
 * <p>Design: events are appended as JSON lines to one file and fsynced before {@link #append}
 * returns, so a consumer that saw sequence N will find N again after a restart. The newest
 * {@code retained} events are kept in memory and are what readers resume from; when the file
 * holds twice that many it is rewritten with the newest {@code retained} (atomic rename), which
 * bounds disk and memory. A reader asking for a sequence older than the retained window gets
 * what is retained and can tell from the first sequence that it missed events (it then
 * re-reads the catalog, as after any gap). Event ids deduplicate retried publishes within the
 * window.
 */
public final class ChangeFeed implements AutoCloseable {
  private final Path file;
  private final int retained;
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition appended = lock.newCondition();
  private final Deque<FeedEvent> window = new ArrayDeque<>();
  private final Set<String> ids = new HashSet<>();
  private FileChannel channel;
  private long lastSequence;
  private long linesInFile;

  public ChangeFeed(Path file, int retained) {
    if (retained < 1) {
      throw new IllegalArgumentException("Invalid retained event count: " + retained);
    }
    this.file = file;
    this.retained = retained;
    recover();
  }

  private void recover() {
    try {
      Files.createDirectories(file.toAbsolutePath().getParent());
      if (Files.exists(file)) {
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
          if (!line.isBlank()) {
            remember(FeedEventParser.fromJson(line));
            linesInFile++;
          }
        }
      }
      channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
          StandardOpenOption.APPEND);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot open change feed " + file, e);
    }
  }

  /**
   * Appends an event and returns it numbered; an id already in the window returns the earlier
   * copy (a retried publish), and an id the window holds for another event type is rejected.
   */
  @SuppressWarnings("unchecked") // numbering and the class check keep the event's class
  public <E extends FeedEvent> E append(E event) {
    lock.lock();
    try {
      if (ids.contains(event.id())) {
        return (E) earlier(event);
      }
      E numbered = (E) event.withFeedSequence(lastSequence + 1);
      write(numbered);
      remember(numbered);
      compactIfLarge();
      appended.signalAll();
      return numbered;
    } finally {
      lock.unlock();
    }
  }

  private FeedEvent earlier(FeedEvent event) {
    FeedEvent earlier = window.stream().filter(e -> e.id().equals(event.id())).findFirst()
        .orElseThrow();
    if (earlier.getClass() != event.getClass()) {
      throw new IllegalArgumentException("Cannot append event " + event.id() + " of type "
          + event.type() + ": the feed holds a " + earlier.type() + " event with that id");
    }
    return earlier;
  }

  /** Up to {@code max} events with sequence ≥ {@code from} that match, oldest first. */
  public List<FeedEvent> read(long from, Predicate<FeedEvent> filter, int max) {
    lock.lock();
    try {
      List<FeedEvent> events = new ArrayList<>();
      for (FeedEvent event : window) {
        if (event.feedSequence() >= from && filter.test(event)) {
          events.add(event);
          if (events.size() == max) {
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

  private void remember(FeedEvent event) {
    window.addLast(event);
    ids.add(event.id());
    lastSequence = Math.max(lastSequence, event.feedSequence());
    while (window.size() > retained) {
      ids.remove(window.removeFirst().id());
    }
  }

  private void write(FeedEvent event) {
    try {
      byte[] line = (FeedEventParser.toJson(event) + "\n").getBytes(StandardCharsets.UTF_8);
      ByteBuffer buffer = ByteBuffer.wrap(line);
      while (buffer.hasRemaining()) {
        channel.write(buffer);
      }
      channel.force(false);
      linesInFile++;
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot append to change feed " + file, e);
    }
  }

  private void compactIfLarge() {
    if (linesInFile < 2L * retained) {
      return;
    }
    try {
      compact();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot compact change feed " + file, e);
    }
  }

  private void compact() throws IOException {
    Path tmp = file.resolveSibling(file.getFileName() + ".compacting");
    List<String> lines = new ArrayList<>(window.size());
    window.forEach(e -> lines.add(FeedEventParser.toJson(e)));
    Files.write(tmp, lines, StandardCharsets.UTF_8);
    try (FileChannel tmpChannel = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
      tmpChannel.force(true);
    }
    channel.close();
    Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    channel = FileChannel.open(file, StandardOpenOption.WRITE, StandardOpenOption.APPEND);
    linesInFile = window.size();
  }

  @Override
  public void close() {
    lock.lock();
    try {
      channel.close();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } finally {
      lock.unlock();
    }
  }
}
