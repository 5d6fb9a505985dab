package io.verglas.events.publish;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.verglas.events.FeedEvent;
import io.verglas.events.FeedEventParser;
import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Events on their way to the change feed, on local disk: {@link #append} makes an event durable
 * without touching the network, a sender {@link #peek}s the oldest undelivered one and
 * {@link #ack}s it once the feed took it.
 *
 * <p>Design. An outbox is a directory ({@link OutboxSlot}) of append-only segment files,
 * {@code <number>.outbox}, each a sequence of {@link OutboxLine}s, and a {@link DeliveredMarker}
 * holding the position up to which the feed has the events. Appends go to the newest segment and
 * roll to a new one past {@code maxBytes / 8} (at most 16 MiB); a segment is deleted once the
 * marker moves past its end. So disk use is the undelivered events plus at most one segment
 * already delivered, and nothing is ever rewritten.
 *
 * <p>Ownership. A publisher claims the lowest free slot of a directory ({@link #claim}), so
 * publishers sharing a directory (several subtasks, several jobs on one host) never share a file,
 * and a publisher that starts again after a stop or a crash finds an earlier outbox in the slot it
 * takes. Slots that others left with undelivered events are claimed whole by {@link
 * #claimAbandoned}, for a sender to drain before its own.
 *
 * <p>Failures. An append returns only after its line is forced to disk; a failed append leaves
 * no bytes behind (the segment is cut back), and a crash during one leaves an incomplete last
 * line, which the next open cuts off with a WARN: that append never returned, so nothing
 * acknowledged is lost. A line that fails its checksum anywhere else is skipped with a WARN and
 * the entries after it go on. After a crash, entries delivered after the marker's last write are
 * sent again: event ids are deterministic and the feed drops ids it has, so the feed ends with
 * each event once. The marker is written at every acknowledgement but forced to disk only every
 * {@value #ACKS_PER_FORCE} of them, when the outbox runs empty, before a segment is deleted and
 * at close: its writes reach the kernel at once, so a process crash loses none, and an OS crash
 * at most the last few, which are sent again; a force per event would cap delivery at the
 * disk's sync rate. Files are written through {@link RandomAccessFile}, whose I/O an interrupt
 * does not abort, so an interrupted caller cannot close the outbox under the sender.
 *
 * <p>Memory and disk. The outbox holds at most {@code maxBytes} on disk. When an append would go
 * over it, the oldest segment is dropped, undelivered entries included, with an ERROR and a
 * count ({@link #dropped}). Dropping the oldest rather than refusing the newest, and not waiting
 * first: the bound is reached only after the feed has refused events for a long time, waiting on
 * the commit path would not make it accept them sooner, and the newest events describe the
 * tables' current state, which consumers need most. Every dropped event's commit is in the
 * catalog, where the catalog poller and any consumer that rescans a table find it. Entries are
 * read one line at a time; a line is at most {@code min(1 MiB, segment size)}.
 *
 * <p>Thread safety: every method is synchronized; appends and the sender's reads take
 * microseconds apart from the append's force.
 */
public final class DurableOutbox implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(DurableOutbox.class);
  public static final long MAX_BYTES_DEFAULT = 256L << 20;
  public static final long MAX_BYTES_MIN = 64L << 10;
  /** Publishers that may share one directory. */
  public static final int MAX_SLOTS = 64;
  static final long SEGMENT_BYTES_MAX = 16L << 20;
  static final int ENTRY_BYTES_MAX = 1 << 20;
  private static final String SEGMENT_SUFFIX = ".outbox";
  private static final int READ_CHUNK = 8 << 10;
  /** Acknowledgements between two forces of the marker (see the class comment). */
  static final int ACKS_PER_FORCE = 32;
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private final OutboxSlot slot;
  private final DeliveredMarker marker;
  private final long maxBytes;
  private final long segmentBytes;
  private final int entryLimit;
  /** Segment number to its size in bytes: the size of complete lines, all forced to disk. */
  private final TreeMap<Long, Long> segments = new TreeMap<>();
  private RandomAccessFile appender;
  private RandomAccessFile reader;
  private long readerSegment;
  /** Always in the oldest segment: segments before it are deleted. */
  private OutboxPosition delivered;
  private OutboxEntry peeked;
  private long totalBytes;
  private long dropped;
  private long skipped;
  private int unforcedAcks;
  private boolean closed;

  private DurableOutbox(OutboxSlot slot, long maxBytes) throws IOException {
    this.slot = slot;
    this.maxBytes = maxBytes;
    this.segmentBytes = Math.min(SEGMENT_BYTES_MAX, maxBytes / 8);
    this.entryLimit = (int) Math.min(ENTRY_BYTES_MAX, segmentBytes);
    this.marker = DeliveredMarker.open(slot.dir().resolve("delivered"));
    try {
      recover();
    } catch (IOException | RuntimeException e) {
      closeFiles();
      throw e;
    }
  }

  /**
   * Claims the lowest free slot under {@code dir} and opens the outbox in it as the last user
   * left it; {@code maxBytes} bounds it on disk.
   */
  public static DurableOutbox claim(Path dir, long maxBytes) throws IOException {
    checkMaxBytes(maxBytes);
    int unreadable = 0;
    for (int i = 0; i < MAX_SLOTS; i++) {
      Optional<OutboxSlot> slot = OutboxSlot.tryClaim(slotDir(dir, i));
      Optional<DurableOutbox> outbox =
          slot.isPresent() ? open(slot.get(), maxBytes) : Optional.empty();
      if (outbox.isPresent()) {
        return outbox.get();
      }
      unreadable += slot.isPresent() ? 1 : 0;
    }
    throw new IOException("Cannot open an outbox under " + dir + ": of its " + MAX_SLOTS
        + " slots, " + (MAX_SLOTS - unreadable) + " are held by other publishers and "
        + unreadable + " cannot be opened (see the errors logged)");
  }

  /**
   * Claims every free slot under {@code dir} that still holds undelivered events: outboxes of
   * publishers that stopped or crashed and did not come back to their slot. The caller drains
   * and closes them.
   */
  public static List<DurableOutbox> claimAbandoned(Path dir, long maxBytes) throws IOException {
    checkMaxBytes(maxBytes);
    List<DurableOutbox> abandoned = new ArrayList<>();
    try {
      for (int i = 0; i < MAX_SLOTS; i++) {
        Path slotDir = slotDir(dir, i);
        Optional<OutboxSlot> slot =
            Files.isDirectory(slotDir) ? OutboxSlot.tryClaim(slotDir) : Optional.empty();
        Optional<DurableOutbox> outbox =
            slot.isPresent() ? open(slot.get(), maxBytes) : Optional.empty();
        if (outbox.isPresent() && outbox.get().pendingBytes() > 0) {
          abandoned.add(outbox.get());
        } else if (outbox.isPresent()) {
          outbox.get().close();
        }
      }
      return abandoned;
    } catch (IOException | RuntimeException e) {
      for (DurableOutbox outbox : abandoned) {
        outbox.close();
      }
      throw e;
    }
  }

  /**
   * The default outbox directory of a role: {@code <java.io.tmpdir>/verglas-outbox/<role>-<hash>}
   * where the hash (8 hex digits of SHA-256) is of {@code identity}, which names the deployment
   * (its catalog), so two deployments on one host never send each other's events.
   */
  public static Path defaultDirectory(String role, String identity) {
    try {
      byte[] digest = MessageDigest.getInstance("SHA-256")
          .digest(identity.getBytes(StandardCharsets.UTF_8));
      String hash = HexFormat.of().formatHex(digest, 0, 4);
      return Path.of(System.getProperty("java.io.tmpdir"), "verglas-outbox", role + "-" + hash);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("Cannot hash the outbox identity: no SHA-256", e);
    }
  }

  /** Checks an outbox bound; fails naming the value. */
  public static long checkMaxBytes(long maxBytes) {
    if (maxBytes < MAX_BYTES_MIN) {
      throw new IllegalArgumentException("Invalid outbox max bytes: " + maxBytes + " (at least "
          + MAX_BYTES_MIN + ")");
    }
    return maxBytes;
  }

  private static Path slotDir(Path dir, int slot) {
    return dir.resolve("slot-" + slot);
  }

  /**
   * The outbox in a claimed slot; empty (the slot released, with an ERROR) when it cannot be
   * opened: a slot this version cannot read must not stop the publisher, and is left as it is
   * for an operator.
   */
  private static Optional<DurableOutbox> open(OutboxSlot slot, long maxBytes) throws IOException {
    try {
      return Optional.of(new DurableOutbox(slot, maxBytes));
    } catch (IOException | RuntimeException e) {
      LOG.error("Cannot open the outbox {}: {}; leaving it as it is", slot, e.toString());
      slot.close();
      return Optional.empty();
    }
  }

  private void recover() throws IOException {
    try (Stream<Path> files = Files.list(slot.dir())) {
      files.forEach(file -> segmentNumber(file).ifPresent(n -> segments.put(n, size(file))));
    }
    if (marker.damaged()) {
      LOG.warn("Cannot read the delivered marker of outbox {}: both records are damaged; sending"
          + " its entries again from the oldest (the feed drops ids it has)", slot);
    }
    Optional<OutboxPosition> recovered = marker.recovered();
    long start = recovered.map(OutboxPosition::segment).orElse(1L);
    for (Long number : List.copyOf(segments.headMap(start).keySet())) {
      deleteSegment(number); // delivered; a crash came between the marker and the delete
    }
    if (segments.isEmpty()) {
      newSegment(start).close();
      segments.put(start, 0L);
    }
    cutIncompleteTail();
    long first = segments.firstKey();
    delivered = recovered.filter(p -> p.segment() == first)
        .map(p -> new OutboxPosition(first, Math.min(p.offset(), segments.get(first))))
        .orElse(new OutboxPosition(first, 0));
    totalBytes = segments.values().stream().mapToLong(Long::longValue).sum();
    appender = new RandomAccessFile(segmentPath(segments.lastKey()).toFile(), "rw");
  }

  /** Cuts off a last line without its terminator: an append a crash interrupted. */
  private void cutIncompleteTail() throws IOException {
    long newest = segments.lastKey();
    long size = segments.get(newest);
    if (size == 0) {
      return;
    }
    try (RandomAccessFile file = new RandomAccessFile(segmentPath(newest).toFile(), "rw")) {
      long end = endOfLastLine(file, size);
      if (end == size) {
        return;
      }
      LOG.warn("Cannot keep the last {} bytes of outbox segment {}: they are an incomplete line,"
          + " left by a crash during an append that never returned; skipping them",
          size - end, segmentPath(newest));
      file.setLength(end);
      file.getFD().sync();
      segments.put(newest, end);
    }
  }

  private static long endOfLastLine(RandomAccessFile file, long size) throws IOException {
    byte[] chunk = new byte[READ_CHUNK];
    for (long end = size; end > 0; ) {
      int length = (int) Math.min(chunk.length, end);
      file.seek(end - length);
      file.readFully(chunk, 0, length);
      for (int i = length - 1; i >= 0; i--) {
        if (chunk[i] == '\n') {
          return end - length + i + 1;
        }
      }
      end -= length;
    }
    return 0;
  }

  /**
   * Appends {@code event} and forces it to disk; when this returns, the event survives a crash.
   * When the outbox is full, its oldest segment is dropped first (see the class comment).
   *
   * @throws IllegalArgumentException if the event is larger than an entry may be
   * @throws IOException if the disk refused the write (the outbox is as it was)
   */
  public void append(FeedEvent event) throws IOException {
    byte[] line = OutboxLine.encode(FeedEventParser.toJson(event));
    if (line.length > entryLimit) {
      throw new IllegalArgumentException("Cannot publish event " + event.id() + ": its "
          + line.length + " bytes exceed the outbox entry limit of " + entryLimit);
    }
    synchronized (this) {
      checkOpen("publish event " + event.id());
      if (newestBytes() > 0 && newestBytes() + line.length > segmentBytes) {
        roll();
      }
      while (totalBytes + line.length > maxBytes && segments.size() > 1) {
        dropOldest();
      }
      write(line);
    }
  }

  private void write(byte[] line) throws IOException {
    long newest = segments.lastKey();
    long start = segments.get(newest);
    try {
      appender.seek(start);
      appender.write(line);
      appender.getFD().sync();
    } catch (IOException e) {
      try {
        appender.setLength(start);
      } catch (IOException cut) {
        e.addSuppressed(cut);
      }
      throw e;
    }
    segments.put(newest, start + line.length);
    totalBytes += line.length;
  }

  private void roll() throws IOException {
    long next = segments.lastKey() + 1;
    RandomAccessFile previous = appender;
    appender = newSegment(next);
    segments.put(next, 0L);
    previous.close();
  }

  /** Creates an empty segment file, durably; one a failed roll left behind is emptied. */
  private RandomAccessFile newSegment(long number) throws IOException {
    RandomAccessFile file = new RandomAccessFile(segmentPath(number).toFile(), "rw");
    try {
      file.setLength(0);
      syncDirectory();
      return file;
    } catch (IOException e) {
      file.close();
      throw e;
    }
  }

  /** Drops the oldest segment, delivered or not, to make room. */
  private void dropOldest() throws IOException {
    long oldest = segments.firstKey();
    long lost = countLines(oldest, delivered.offset());
    moveTo(new OutboxPosition(segments.higherKey(oldest), 0), true);
    dropped += lost;
    LOG.error("Cannot keep {} undelivered events in outbox {}: it reached its bound of {} bytes"
        + " while the change feed took no events; dropped the oldest ({} so far). Their commits"
        + " are in the catalog, where the catalog poller finds them", lost, slot, maxBytes,
        dropped);
  }

  /**
   * The oldest undelivered entry, or empty when every entry was delivered. Lines that cannot be
   * read are skipped on the way (with a WARN) and counted in {@link #skipped}.
   */
  public synchronized Optional<OutboxEntry> peek() throws IOException {
    checkOpen("read the next event");
    while (true) {
      if (peeked != null && peeked.position().equals(delivered)) {
        return Optional.of(peeked);
      }
      long size = segments.get(delivered.segment());
      if (delivered.offset() >= size) {
        Long later = segments.higherKey(delivered.segment());
        if (later == null) {
          forceMarker(); // idle: make the position durable now
          return Optional.empty();
        }
        moveTo(new OutboxPosition(later, 0), true);
        continue;
      }
      Line line = readLine(delivered, size);
      OutboxPosition next =
          new OutboxPosition(delivered.segment(), delivered.offset() + line.span());
      try {
        if (line.tooLong()) {
          throw new IllegalArgumentException("Corrupt outbox line: longer than the entry limit of "
              + entryLimit + " bytes");
        }
        String json = OutboxLine.decode(line.bytes(), line.bytes().length);
        peeked = new OutboxEntry(idOf(json), json, delivered, next);
        return Optional.of(peeked);
      } catch (IllegalArgumentException e) {
        skipped++;
        LOG.warn("Cannot read the outbox entry at {} in {}: {}; skipping its {} bytes", delivered,
            slot, e.getMessage(), line.span());
        moveTo(next, true);
      }
    }
  }

  /**
   * Records that the feed took {@code entry}: it and everything before it are not sent again.
   * Acknowledging an entry twice, or one dropped meanwhile, changes nothing.
   */
  public synchronized void ack(OutboxEntry entry) throws IOException {
    checkOpen("acknowledge event " + entry.id());
    if (entry.position().equals(delivered)) {
      moveTo(entry.next(), ++unforcedAcks >= ACKS_PER_FORCE);
      peeked = null;
    }
  }

  /**
   * Moves the delivered position, forced to disk when {@code force} or when a segment is left
   * behind, and deletes the segments before it.
   */
  private void moveTo(OutboxPosition position, boolean force) throws IOException {
    boolean durable = force || position.segment() != delivered.segment();
    marker.write(position, durable);
    if (durable) {
      unforcedAcks = 0;
    }
    delivered = position;
    for (Long number : List.copyOf(segments.headMap(position.segment()).keySet())) {
      deleteSegment(number);
    }
  }

  private void deleteSegment(long number) throws IOException {
    if (reader != null && readerSegment == number) {
      reader.close();
      reader = null;
    }
    Files.deleteIfExists(segmentPath(number));
    Long size = segments.remove(number);
    totalBytes -= size == null ? 0 : size;
  }

  private Line readLine(OutboxPosition at, long size) throws IOException {
    RandomAccessFile file = reader(at.segment());
    file.seek(at.offset());
    byte[] chunk = new byte[(int) Math.min(READ_CHUNK, size - at.offset())];
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    long position = at.offset();
    while (position < size) {
      int length = file.read(chunk, 0, (int) Math.min(chunk.length, size - position));
      if (length < 0) {
        position = size; // the file is shorter than recorded: its end ends the line
        break;
      }
      int newline = indexOf(chunk, length, (byte) '\n');
      int keep = newline < 0 ? length : newline;
      if (bytes.size() <= entryLimit) {
        bytes.write(chunk, 0, keep);
      }
      position += newline < 0 ? length : newline + 1;
      if (newline >= 0) {
        break;
      }
    }
    return new Line(bytes.toByteArray(), position - at.offset(), bytes.size() > entryLimit);
  }

  private long countLines(long segment, long from) throws IOException {
    long size = segments.get(segment);
    RandomAccessFile file = reader(segment);
    file.seek(from);
    byte[] chunk = new byte[READ_CHUNK];
    long lines = 0;
    for (long position = from; position < size; ) {
      int length = file.read(chunk, 0, (int) Math.min(chunk.length, size - position));
      if (length < 0) {
        break;
      }
      for (int i = 0; i < length; i++) {
        lines += chunk[i] == '\n' ? 1 : 0;
      }
      position += length;
    }
    return lines;
  }

  private RandomAccessFile reader(long segment) throws IOException {
    if (reader == null || readerSegment != segment) {
      if (reader != null) {
        reader.close();
      }
      reader = new RandomAccessFile(segmentPath(segment).toFile(), "r");
      readerSegment = segment;
    }
    return reader;
  }

  private static String idOf(String json) {
    try {
      JsonNode id = MAPPER.readTree(json).path("id");
      if (!id.isTextual() || id.asText().isEmpty()) {
        throw new IllegalArgumentException("Corrupt outbox line: the event has no id");
      }
      return id.asText();
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("Corrupt outbox line: " + e.getOriginalMessage());
    }
  }

  private static int indexOf(byte[] bytes, int length, byte b) {
    for (int i = 0; i < length; i++) {
      if (bytes[i] == b) {
        return i;
      }
    }
    return -1;
  }

  /** Bytes not yet delivered. */
  public synchronized long pendingBytes() {
    return totalBytes - delivered.offset();
  }

  /** Bytes on disk in segment files, delivered or not; at most the bound. */
  public synchronized long diskBytes() {
    return totalBytes;
  }

  /** Undelivered entries dropped to keep the bound, since this outbox was opened. */
  public synchronized long dropped() {
    return dropped;
  }

  /** Lines skipped because they could not be read, since this outbox was opened. */
  public synchronized long skipped() {
    return skipped;
  }

  /** The slot directory this outbox holds. */
  public Path directory() {
    return slot.dir();
  }

  private void forceMarker() throws IOException {
    marker.force();
    unforcedAcks = 0;
  }

  private long newestBytes() {
    return segments.lastEntry().getValue();
  }

  private Path segmentPath(long number) {
    return slot.dir().resolve(String.format("%020d", number) + SEGMENT_SUFFIX);
  }

  private static Optional<Long> segmentNumber(Path file) {
    String name = file.getFileName().toString();
    if (!name.endsWith(SEGMENT_SUFFIX)) {
      return Optional.empty();
    }
    try {
      long number = Long.parseLong(name.substring(0, name.length() - SEGMENT_SUFFIX.length()));
      return number > 0 ? Optional.of(number) : Optional.empty();
    } catch (NumberFormatException e) {
      return Optional.empty();
    }
  }

  private static long size(Path file) {
    try {
      return Files.size(file);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read the size of outbox segment " + file, e);
    }
  }

  /** Makes a created file's directory entry durable. */
  private void syncDirectory() throws IOException {
    try (FileChannel dir = FileChannel.open(slot.dir(), StandardOpenOption.READ)) {
      dir.force(true);
    }
  }

  private void checkOpen(String what) {
    if (closed) {
      throw new IllegalStateException("Cannot " + what + ": the outbox " + slot + " is closed");
    }
  }

  /** Closes the files and releases the slot; undelivered entries stay for the next claim. */
  @Override
  public synchronized void close() throws IOException {
    if (!closed) {
      closed = true;
      closeFiles();
    }
  }

  private void closeFiles() throws IOException {
    try (OutboxSlot s = slot; DeliveredMarker m = marker; RandomAccessFile a = appender;
        RandomAccessFile r = reader) {
      // closed in reverse order
    }
  }

  @Override
  public String toString() {
    return slot.toString();
  }

  /** A line read: its bytes without the terminator, and how many bytes it spans with it. */
  private record Line(byte[] bytes, long span, boolean tooLong) {}
}
