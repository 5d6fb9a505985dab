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
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.io.SeekableInputStream;

/**
 * Opens data files for the key reader with their footers and key-column bloom filters decoded
 * once and kept (data files are immutable, so a path names the same bytes for ever): a lookup of
 * a warm file reads only the row groups its keys may be in. Both caches are bounded: footers by
 * count, bloom filters by their bytes.
 */
final class ParquetFiles {
  static final ParquetReadOptions OPTIONS = ParquetReadOptions.builder()
      .useStatsFilter(false).useDictionaryFilter(false).useBloomFilter(false)
      .useColumnIndexFilter(true).useRecordFilter(false).build();

  private final Cache<String, ParquetMetadata> footers;
  private final Cache<BloomKey, Optional<BloomFilter>> blooms;

  ParquetFiles(long maxFooters, long maxBloomBytes) {
    this.footers = Caffeine.newBuilder().maximumSize(maxFooters).build();
    this.blooms = Caffeine.newBuilder().maximumWeight(maxBloomBytes)
        .weigher((BloomKey key, Optional<BloomFilter> bloom) -> 64 + bloom.map(BloomFilter::getBitsetSize).orElse(0))
        .build();
  }

  /** An open reader of the task's file (the caller closes it). */
  Reader open(FileIO io, FileScanTask task) {
    RangeInputFile input = new RangeInputFile(io.newInputFile(task.file().location(),
        task.file().fileSizeInBytes()));
    String path = task.file().location();
    SeekableInputStream stream = input.newStream();
    try {
      ParquetMetadata footer = footers.get(path, p -> readFooter(input, stream));
      return new Reader(path, new ParquetFileReader(input, footer, OPTIONS, stream));
    } catch (IOException | RuntimeException e) {
      try {
        stream.close();
      } catch (IOException suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e instanceof IOException io2 ? new UncheckedIOException("Cannot open " + path + ": " + e.getMessage(), io2)
          : (RuntimeException) e;
    }
  }

  private static ParquetMetadata readFooter(RangeInputFile input, SeekableInputStream stream) {
    try {
      return ParquetFileReader.readFooter(input, OPTIONS, stream);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read the footer of a data file: " + e.getMessage(), e);
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
