package io.verglas.events.feed;

import io.verglas.events.CatalogEvent;
import io.verglas.events.CatalogEventParser;
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
 * The change feed: an ordered, durable, bounded log of catalog events, numbered from 1.
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
  private final Deque<CatalogEvent> window = new ArrayDeque<>();
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
            remember(CatalogEventParser.fromJson(line));
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

  /** Appends an event and returns it numbered; an id already in the window returns the earlier copy. */
  public CatalogEvent append(CatalogEvent event) {
    lock.lock();
    try {
      if (ids.contains(event.id())) {
        return window.stream().filter(e -> e.id().equals(event.id())).findFirst().orElseThrow();
      }
      CatalogEvent numbered = event.withFeedSequence(lastSequence + 1);
      write(numbered);
      remember(numbered);
      compactIfLarge();
      appended.signalAll();
      return numbered;
    } finally {
      lock.unlock();
    }
  }

  /** Up to {@code max} events with sequence ≥ {@code from} that match, oldest first. */
  public List<CatalogEvent> read(long from, Predicate<CatalogEvent> filter, int max) {
    lock.lock();
    try {
      List<CatalogEvent> events = new ArrayList<>();
      for (CatalogEvent event : window) {
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

  private void remember(CatalogEvent event) {
    window.addLast(event);
    ids.add(event.id());
    lastSequence = Math.max(lastSequence, event.feedSequence());
    while (window.size() > retained) {
      ids.remove(window.removeFirst().id());
    }
  }

  private void write(CatalogEvent event) {
    try {
      byte[] line = (CatalogEventParser.toJson(event) + "\n").getBytes(StandardCharsets.UTF_8);
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
    window.forEach(e -> lines.add(CatalogEventParser.toJson(e)));
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
