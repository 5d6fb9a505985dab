package io.verglas.cache.writeback.fragment;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

/**
 * The fragments one node holds, as files in one local directory (the NVMe tier's disk), under a
 * byte ceiling.
 *
 * <p>Design. Durability: a fragment is written to {@code NAME.tmp}, fsynced, renamed to {@code
 * NAME.frag} and the directory fsynced before {@link FragmentOutput#commit} returns, so a
 * committed fragment survives a crash of the process or the machine, and a crash before that
 * leaves a temporary file that {@link #open} deletes. Space: a fragment's exact file length
 * follows from its header, and is reserved against the ceiling before its first byte is
 * written; when it does not fit, {@link #create} refuses with {@link
 * FragmentStoreFullException} and nothing changes. Names: {@code NAME} is 128 bits of SHA-256
 * over (bucket, key, write id) and the fragment's index; the header inside holds the full
 * identity and is checked on every open, so a collision reads as an absent fragment, never as
 * another write's bytes. Concurrency: the used-bytes count is one atomic; files of different
 * writes never share a name.
 */
public final class FragmentStore implements FragmentHolder {
  static final String SUFFIX = ".frag";
  static final String TEMPORARY = ".tmp";

  private final Path directory;
  private final long ceilingBytes;
  private final AtomicLong usedBytes;

  private FragmentStore(Path directory, long ceilingBytes, long usedBytes) {
    this.directory = directory;
    this.ceilingBytes = ceilingBytes;
    this.usedBytes = new AtomicLong(usedBytes);
  }

  /** Opens (creating) the store in {@code directory}: deletes unfinished fragments, counts the rest. */
  public static FragmentStore open(Path directory, long ceilingBytes) throws IOException {
    if (ceilingBytes <= 0) {
      throw new IllegalArgumentException("Invalid fragment store ceiling: " + ceilingBytes + " bytes");
    }
    Files.createDirectories(directory);
    long used = 0;
    try (Stream<Path> files = Files.list(directory)) {
      for (Path file : (Iterable<Path>) files::iterator) {
        String name = file.getFileName().toString();
        if (name.endsWith(TEMPORARY)) {
          Files.deleteIfExists(file);
        } else if (name.endsWith(SUFFIX)) {
          used += Files.size(file);
        }
      }
    }
    return new FragmentStore(directory, ceilingBytes, used);
  }

  public Path directory() {
    return directory;
  }

  public long ceilingBytes() {
    return ceilingBytes;
  }

  /** Bytes of committed fragments and of reservations for fragments being written. */
  public long usedBytes() {
    return usedBytes.get();
  }

  /** Whether a fragment of {@code bytes} would fit now. */
  public boolean hasRoomFor(long bytes) {
    return usedBytes.get() + bytes <= ceilingBytes;
  }

  /**
   * Reserves the fragment's space and starts writing it.
   *
   * @throws FragmentStoreFullException if it does not fit under the ceiling
   * @throws FileAlreadyExistsException if this fragment of this write is already stored
   */
  public FragmentOutput create(FragmentHeader header) throws IOException {
    Path target = file(header);
    if (Files.exists(target)) {
      throw new FileAlreadyExistsException(target.toString(), null,
          "Cannot write fragment " + header.index() + " of " + header.identity() + ": already stored");
    }
    long bytes = header.fileLength();
    reserve(bytes, header);
    try {
      return new StoreOutput(this, header, target, bytes);
    } catch (IOException | RuntimeException e) {
      usedBytes.addAndGet(-bytes);
      throw e;
    }
  }

  private void reserve(long bytes, FragmentHeader header) throws FragmentStoreFullException {
    long used;
    do {
      used = usedBytes.get();
      if (used + bytes > ceilingBytes) {
        throw new FragmentStoreFullException("Cannot reserve " + bytes + " bytes for fragment " + header.index()
            + " of " + header.identity() + ": fragment store full (" + used + " of " + ceilingBytes + " bytes used)");
      }
    } while (!usedBytes.compareAndSet(used, used + bytes));
  }

  void unreserve(long bytes) {
    usedBytes.addAndGet(-bytes);
  }

  /**
   * Opens fragment {@code index} of the write.
   *
   * @throws NoSuchFileException if this store does not hold it
   * @throws CorruptFragmentException if its header or length is damaged
   */
  public FragmentReader open(ObjectIdentity identity, int index) throws IOException {
    return FragmentReader.open(file(identity, index));
  }

  /** Deletes fragment {@code index} of the write, durably; false if it was not here. */
  public boolean release(ObjectIdentity identity, int index) throws IOException {
    Path file = file(identity, index);
    long bytes;
    try {
      bytes = Files.size(file);
    } catch (NoSuchFileException e) {
      return false;
    }
    if (!Files.deleteIfExists(file)) {
      return false;
    }
    usedBytes.addAndGet(-bytes);
    LocalFiles.forceDirectory(directory);
    return true;
  }

  /**
   * Deletes (durably) the committed fragments of writes {@code live} does not name that were last
   * written before {@code before}; returns how many. Files are matched by name (the identity's
   * hash), so a fragment whose header is damaged is matched too; unfinished ({@code .tmp}) files
   * are never touched here.
   */
  public int removeOrphans(Set<ObjectIdentity> live, Instant before) throws IOException {
    Set<String> names = live.stream().map(FragmentStore::name).collect(Collectors.toSet());
    int removed = 0;
    try (Stream<Path> files = Files.list(directory)) {
      for (Path file : (Iterable<Path>) files::iterator) {
        String name = file.getFileName().toString();
        int dash = name.lastIndexOf('-');
        if (name.endsWith(SUFFIX) && dash > 0 && !names.contains(name.substring(0, dash))
            && Files.getLastModifiedTime(file).toInstant().isBefore(before)) {
          long bytes = Files.size(file);
          if (Files.deleteIfExists(file)) {
            usedBytes.addAndGet(-bytes);
            removed++;
          }
        }
      }
    }
    if (removed > 0) {
      LocalFiles.forceDirectory(directory);
    }
    return removed;
  }

  /** Every committed fragment file, with its header when readable: what a scrubber walks. */
  public List<StoredFragment> list() throws IOException {
    List<StoredFragment> found = new ArrayList<>();
    try (Stream<Path> files = Files.list(directory)) {
      for (Path file : (Iterable<Path>) files::iterator) {
        if (file.getFileName().toString().endsWith(SUFFIX)) {
          found.add(new StoredFragment(file, header(file), Files.size(file)));
        }
      }
    }
    return found;
  }

  private static Optional<FragmentHeader> header(Path file) throws IOException {
    try (FragmentReader reader = FragmentReader.open(file)) {
      return Optional.of(reader.header());
    } catch (CorruptFragmentException e) {
      return Optional.empty();
    }
  }

  Path file(FragmentHeader header) {
    return file(header.identity(), header.index());
  }

  private Path file(ObjectIdentity identity, int index) {
    return directory.resolve(name(identity) + "-" + index + SUFFIX);
  }

  static String name(ObjectIdentity identity) {
    try {
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      for (String part : List.of(identity.bucket(), identity.key(), identity.writeId())) {
        byte[] bytes = part.getBytes(StandardCharsets.UTF_8);
        sha.update((byte) (bytes.length >>> 8));
        sha.update((byte) bytes.length);
        sha.update(bytes);
      }
      return HexFormat.of().formatHex(sha.digest(), 0, 16);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("Cannot name a fragment: no SHA-256 in this JVM", e);
    }
  }
}
