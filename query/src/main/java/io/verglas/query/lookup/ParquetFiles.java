package io.verglas.query.lookup;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Optional;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.io.FileIO;
import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.column.values.bloomfilter.BloomFilter;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.internal.hadoop.metadata.IndexReference;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.io.SeekableInputStream;

/**
 * Opens data files for the key reader with their footers and key-column bloom filters decoded
 * once and kept, and the bytes of their page indexes (column and offset indexes, bloom filters:
 * Parquet writes them between the last row group and the footer) read in one GET and kept (data
 * files are immutable, so a path names the same bytes for ever): a lookup of a warm file reads
 * only the key-column chunks of the row groups its keys may be in and one page per projected
 * column of each matching row, each in one GET. The decoded integral keys of row groups are
 * kept too ({@link SortedKeys}). All four caches are bounded: footers by count, bloom filters,
 * index bytes and decoded keys by their bytes; a file whose indexes take more than
 * {@link #MAX_TAIL_BYTES} reads them on demand.
 */
final class ParquetFiles {
  static final ParquetReadOptions OPTIONS = ParquetReadOptions.builder()
      .useStatsFilter(false).useDictionaryFilter(false).useBloomFilter(false)
      .useColumnIndexFilter(true).useRecordFilter(false).build();

  static final int MAX_TAIL_BYTES = 8 << 20;

  private final Cache<String, ParquetMetadata> footers;
  private final Cache<BloomKey, Optional<BloomFilter>> blooms;
  private final Cache<String, Optional<RangeInputFile.Tail>> tails;
  private final Cache<BloomKey, SortedKeys> sortedKeys;

  ParquetFiles(long maxFooters, long maxBloomBytes, long maxIndexBytes, long maxKeyBytes) {
    this.sortedKeys = Caffeine.newBuilder().maximumWeight(maxKeyBytes)
        .weigher((BloomKey key, SortedKeys keys) -> keys.bytes()).build();
    this.footers = Caffeine.newBuilder().maximumSize(maxFooters).build();
    this.tails = Caffeine.newBuilder().maximumWeight(maxIndexBytes)
        .weigher((String key, Optional<RangeInputFile.Tail> tail) -> 64 + tail.map(t -> t.bytes().length).orElse(0))
        .build();
    this.blooms = Caffeine.newBuilder().maximumWeight(maxBloomBytes)
        .weigher((BloomKey key, Optional<BloomFilter> bloom) -> 64 + bloom.map(BloomFilter::getBitsetSize).orElse(0))
        .build();
  }

  /** An open reader of the task's file (the caller closes it). */
  Reader open(FileIO io, FileScanTask task) {
    org.apache.iceberg.io.InputFile file = io.newInputFile(task.file().location(), task.file().fileSizeInBytes());
    String path = task.file().location();
    ParquetMetadata footer = footers.get(path, p -> readFooter(new RangeInputFile(file, null)));
    RangeInputFile input = new RangeInputFile(file,
        tails.get(path, p -> readTail(new RangeInputFile(file, null), footer)).orElse(null));
    SeekableInputStream stream = input.newStream();
    try {
      return new Reader(path, new ParquetFileReader(input, footer, OPTIONS, stream));
    } catch (IOException e) {
      closeQuietly(stream, e);
      throw new UncheckedIOException("Cannot open " + path + ": " + e.getMessage(), e);
    } catch (RuntimeException e) {
      closeQuietly(stream, e);
      throw e;
    }
  }

  private static void closeQuietly(SeekableInputStream stream, Exception failure) {
    try {
      stream.close();
    } catch (IOException suppressed) {
      failure.addSuppressed(suppressed);
    }
  }

  private static ParquetMetadata readFooter(RangeInputFile input) {
    try (SeekableInputStream stream = input.newStream()) {
      return ParquetFileReader.readFooter(input, OPTIONS, stream);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read the footer of a data file: " + e.getMessage(), e);
    }
  }

  /** The bytes from the first page index or bloom filter to the footer, if not too many. */
  private static Optional<RangeInputFile.Tail> readTail(RangeInputFile input, ParquetMetadata footer) {
    long start = Long.MAX_VALUE;
    long end = 0;
    for (BlockMetaData block : footer.getBlocks()) {
      for (ColumnChunkMetaData column : block.getColumns()) {
        for (IndexReference index : new IndexReference[] {column.getColumnIndexReference(), column.getOffsetIndexReference()}) {
          if (index != null) {
            start = Math.min(start, index.getOffset());
            end = Math.max(end, index.getOffset() + index.getLength());
          }
        }
        if (column.getBloomFilterOffset() >= 0) {
          start = Math.min(start, column.getBloomFilterOffset());
          end = Math.max(end, column.getBloomFilterOffset() + Math.max(column.getBloomFilterLength(), 0));
        }
      }
    }
    if (start == Long.MAX_VALUE || end - start > MAX_TAIL_BYTES || end <= start) {
      return Optional.empty();
    }
    try {
      return Optional.of(new RangeInputFile.Tail(start, input.read(start, Math.toIntExact(end - start))));
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read the page indexes of a data file: " + e.getMessage(), e);
    }
  }

  /** A data file open for reading, with the caches of its metadata. */
  final class Reader implements AutoCloseable {
    final String path;
    final ParquetFileReader file;

    Reader(String path, ParquetFileReader file) {
      this.path = path;
      this.file = file;
    }

    ParquetMetadata footer() {
      return file.getFooter();
    }

    /** The bloom filter of a column chunk of row group {@code block}, if the file has one. */
    Optional<BloomFilter> bloom(int block, ColumnChunkMetaData column) {
      return blooms.get(new BloomKey(path, block, column.getPath().toDotString()), k -> {
        try {
          return Optional.ofNullable(file.readBloomFilter(column));
        } catch (IOException e) {
          throw new UncheckedIOException("Cannot read a bloom filter of " + path + ": " + e.getMessage(), e);
        }
      });
    }

    /** The decoded one-column integral key of row group {@code block}, decoded by {@code decode} once. */
    SortedKeys sortedKeys(int block, java.util.function.Supplier<SortedKeys> decode) {
      return sortedKeys.get(new BloomKey(path, block, ""), k -> decode.get());
    }

    @Override
    public void close() {
      try {
        file.close();
      } catch (IOException e) {
        throw new UncheckedIOException("Cannot close " + path + ": " + e.getMessage(), e);
      }
    }
  }

  private record BloomKey(String path, int block, String column) {}
}
